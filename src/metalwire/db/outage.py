"""Database failures that are expected conditions, told apart from bugs.

Three kinds, recognised by the driver's error codes (SQLAlchemy's wrapper or the DBAPI
exception itself: the hot statements run on the DBAPI cursor):

* **unavailable**: the server cannot be reached, dropped the connection, is shutting down or
  starting up, or (Galera) is not ready to serve. :func:`translated` turns it into
  :class:`~metalwire.errors.DatabaseUnavailable` (503 with ``Retry-After``), logged as one
  warning line, at most one per :data:`LOG_INTERVAL` for each error number (with how many
  were not logged), and counted in ``metalwire_database_errors``. The pool reconnects by
  itself (``pool_pre_ping``). A COMMIT that Galera failed with 1180 becomes
  :class:`~metalwire.errors.CommitOutcomeUnknown`, whose 503 tells the client that the
  change may have been stored.
* **conflict**: a deadlock or serialization failure (PostgreSQL ``40001``/``40P01``, MariaDB
  ``1213``, which Galera also reports for a certification conflict, and ``1205``, a lock
  wait timeout, which Galera also reports for a causal read that timed out), and a PostgreSQL
  statement this process prepared before an upgrade changed the type of a column it reads
  (``0A000`` "cached plan must not change result type"; :mod:`.pg_exchange` then prepares the
  connection's statements anew). The transaction was
  rolled back and nothing of it is stored, so :func:`retrying` runs the whole operation
  again, a bounded number of times, unless it had already committed something of its own.
* **busy** (SQLite): another process holds a lock on the file for longer than
  ``[database] sqlite_write_wait`` (``SQLITE_BUSY``, "database is locked"): another server
  or worker writing, ``metalwire db upgrade``, a backup tool; a read meets it only while the
  file is being recovered or held in exclusive locking mode. It becomes
  :class:`~metalwire.errors.DatabaseBusy` (503 with ``Retry-After``; nothing was begun, or
  the read rolled back), logged and counted as an outage is. The write turn
  (:meth:`~metalwire.db.engine.Database.write_connection`) names the write lock itself
  through :func:`busy`.

A server that answers but is *not ready* (Galera's 1047 on every node while the cluster's
membership changes, for a second or two when a node leaves or joins; PostgreSQL's 57P03 while
it starts) is unavailable too, but :func:`retrying` waits for it, for at most
:data:`NOT_READY_WAIT` seconds, before the client sees the 503: a Galera node that stays
in the primary component rides out a neighbour's crash or rejoin without failing a request.
"""

from __future__ import annotations

import logging
import random
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from metalwire import metrics
from metalwire.errors import (
    CommitOutcomeUnknown,
    DatabaseBusy,
    DatabaseUnavailable,
    MetalwireError,
    TransactionConflict,
)

LOG = logging.getLogger(__name__)
T = TypeVar("T")

LOG_INTERVAL = 1.0  # seconds between two warning lines about one kind of database error
# Attempts after the first one. Writers on several Galera nodes colliding on a busy node
# row can lose a few rounds in a row; 5 retries were measured to run out (1 in ~900).
CONFLICT_RETRIES = 10
CONFLICT_BACKOFF = 0.02  # seconds before the first retry, doubled each time (with jitter)
CONFLICT_BACKOFF_MAX = 0.5  # so all retries take about 3 s at most
NOT_READY_WAIT = 4.0  # seconds an operation waits for a server that is not ready
NOT_READY_BACKOFF = 0.1  # seconds before the first try again, doubled up to the maximum

# PostgreSQL SQLSTATEs: connection exceptions (class 08), shutdown and start-up (57P01-57P03).
_PG_UNAVAILABLE_PREFIXES = ("08", "57P01", "57P02", "57P03")
_PG_CONFLICT = frozenset({"40001", "40P01"})
# A prepared statement whose result's columns changed type since it was prepared: the
# SQLSTATE is shared with every "feature not supported", so the error is told by the server
# function that raised it (sent whatever language the server's lc_messages speaks), or by
# its English message when the server did not name the function.
_PG_STALE_PLAN = ("0A000", "RevalidateCachedQuery", "cached plan must not change result type")
# MySQL/MariaDB error numbers: 1047 WSREP not ready (Galera), 1053 server shutdown,
# 1180 the COMMIT failed (Galera: the node left the primary component while the transaction
# was being replicated, "provider status: Not connected to Primary Component"; the cluster
# may have committed it all the same, so, as for a connection lost during COMMIT, the outcome
# is unknown and the operation is not run again), 1927 connection killed, 2002/2003
# cannot connect, 2006 gone away, 2013 lost during query.
_MYSQL_UNAVAILABLE = frozenset({1047, 1053, 1180, 1927, 2002, 2003, 2006, 2013})
_MYSQL_NOT_READY = frozenset({1047})
_MYSQL_COMMIT_UNCONFIRMED = frozenset({1180})  # the client is told it may have been stored
_PG_NOT_READY = frozenset({"57P03"})
# 1213 deadlock (and Galera certification conflict); 1205 lock wait timeout, which Galera
# also reports for a read that waited too long for causality (wsrep_sync_wait) while the
# cluster was changing members.
_MYSQL_CONFLICT = frozenset({1205, 1213})


def _driver_error(exc: BaseException) -> BaseException:
    """The DBAPI exception behind SQLAlchemy's wrapper, or ``exc`` itself."""
    orig = getattr(exc, "orig", None)
    return orig if isinstance(orig, BaseException) else exc


def sqlite_busy(exc: BaseException) -> bool:
    """Whether SQLite gave up waiting for another connection's lock on the file (SQLITE_BUSY
    and its extended codes, "database is locked")."""
    error = _driver_error(exc)
    if not isinstance(error, sqlite3.OperationalError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF == sqlite3.SQLITE_BUSY if isinstance(code, int) else False


def _mysql_code(error: BaseException) -> int | None:
    module = type(error).__module__
    if not (module.startswith("pymysql") or module.startswith("MySQLdb")):
        return None
    code = error.args[0] if error.args else None
    return code if isinstance(code, int) else None


def classify(exc: BaseException) -> str | None:
    """``"unavailable"``, ``"conflict"``, ``"busy"`` or None (any other error: not this
    module's)."""
    if isinstance(exc, MetalwireError):
        return None
    if sqlite_busy(exc):
        return "busy"
    if getattr(exc, "connection_invalidated", False):  # SQLAlchemy saw a disconnect
        return "unavailable"
    error = _driver_error(exc)
    module = type(error).__module__
    if module.startswith("psycopg"):
        state = _pg_code(error)
        if state in _PG_CONFLICT or stale_plan(error):
            return "conflict"
        if state is None:  # raised by libpq, not the server: no connection, or a lost one
            return "unavailable" if type(error).__name__ in _LIBPQ_FAILURES else None
        return "unavailable" if state.startswith(_PG_UNAVAILABLE_PREFIXES) else None
    code = _mysql_code(error)
    if code in _MYSQL_UNAVAILABLE:
        return "unavailable"
    if code in _MYSQL_CONFLICT:
        return "conflict"
    if module.startswith("pymysql") and type(error).__name__ == "InterfaceError":
        return "unavailable"  # "(0, '')": a connection the server closed
    return None


def not_ready(exc: BaseException) -> bool:
    """The server answered that it is between states (see the module's docstring)."""
    error = _driver_error(exc)
    if type(error).__module__.startswith("psycopg"):
        return _pg_code(error) in _PG_NOT_READY
    return _mysql_code(error) in _MYSQL_NOT_READY


def lock_not_available(exc: BaseException) -> bool:
    """Whether a statement that was told not to wait for a lock found it taken."""
    error = _driver_error(exc)
    return type(error).__module__.startswith("psycopg") and _pg_code(error) == "55P03"


def stale_plan(error: BaseException) -> bool:
    """Whether PostgreSQL refused a prepared statement whose result columns changed type."""
    code, function, message = _PG_STALE_PLAN
    if _pg_code(error) != code:
        return False
    diagnostic = getattr(error, "diag", None)
    raised_by = getattr(diagnostic, "source_function", None)
    return raised_by == function if raised_by else message in str(error)


def _pg_code(error: BaseException) -> str | None:
    """The SQLSTATE the PostgreSQL server answered with; None if libpq raised the error."""
    code = getattr(error, "sqlstate", None)
    return code if isinstance(code, str) else None


# psycopg raises these without a SQLSTATE when the connection fails or is gone.
_LIBPQ_FAILURES = frozenset({"OperationalError", "InterfaceError"})


class _RateLimitedLog:
    """One warning line at most per interval for each kind of failure (``kind``: the error's
    class and code), so that a burst of one error, such as Galera's 1047 while the cluster's
    membership changes, hides no other; the next line of a kind says how many were skipped."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}
        self._skipped: dict[str, int] = {}

    def allow(self, kind: str = "") -> str | None:
        """None within the interval of ``kind``; otherwise the suffix of the line to write."""
        now = time.monotonic()
        with self._lock:
            if now - self._last.get(kind, -self.interval) < self.interval:
                self._skipped[kind] = self._skipped.get(kind, 0) + 1
                return None
            skipped = self._skipped.pop(kind, 0)
            self._last[kind] = now
        return f" ({skipped} more since the last such line)" if skipped else ""

    def warning(self, kind: str, message: str, *args: object) -> None:
        suffix = self.allow(kind)
        if suffix is not None:
            LOG.warning(message + suffix, *args)


_OUTAGE_LOG = _RateLimitedLog(LOG_INTERVAL)


class QuietPoolErrors(logging.Filter):
    """SQLAlchemy's pool logs a traceback at ERROR when it cannot reset or close a
    connection the server dropped; in an outage that is one per connection. Such a record
    becomes one warning line, rate-limited like the outage's own."""

    def __init__(self) -> None:
        super().__init__()
        self._limit = _RateLimitedLog(LOG_INTERVAL)

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is None or classify(error) != "unavailable":
            return True
        suffix = self._limit.allow(_kind(error))
        if suffix is None:
            return False
        record.msg = f"{record.getMessage()}: {_reason(error)}{suffix}"
        record.args = ()
        record.exc_info = record.exc_text = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _kind(exc: BaseException) -> str:
    """The driver's error class and code (MySQL error number or SQLSTATE), e.g.
    ``OperationalError 1047``: what the warning lines are rate-limited by."""
    error = _driver_error(exc)
    code = _mysql_code(error) or _pg_code(error)
    return f"{type(error).__name__} {code}" if code else type(error).__name__


def _reason(exc: BaseException) -> str:
    """The driver's message on one line, without a traceback."""
    text = " ".join(str(_driver_error(exc)).split())
    return f"{type(_driver_error(exc)).__name__}: {text}"[:300]


def busy(message: str) -> DatabaseBusy:
    """The 503 for SQLite's file kept locked by another process (or the write turn by this
    process's other writes), counted and logged as one rate-limited warning line."""
    metrics.DATABASE_ERRORS.labels("busy").inc()
    _OUTAGE_LOG.warning("busy", "database busy: %s", message)
    return DatabaseBusy(f"{message}; retry in {DatabaseBusy.retry_after} seconds.")


def translated(exc: BaseException) -> MetalwireError | None:
    """The catalog error for an expected database failure, or None for any other error."""
    kind = classify(exc)
    if kind == "unavailable":
        metrics.DATABASE_ERRORS.labels("unavailable").inc()
        _OUTAGE_LOG.warning(_kind(exc), "database unavailable: %s", _reason(exc))
        if _mysql_code(_driver_error(exc)) in _MYSQL_COMMIT_UNCONFIRMED:
            return CommitOutcomeUnknown()
        return DatabaseUnavailable(
            "The database is unavailable (it cannot be reached or is not ready); "
            f"retry in {DatabaseUnavailable.retry_after} seconds.",
            not_ready=not_ready(exc),
        )
    if kind == "busy":
        return busy(f"Another process holds a lock on the SQLite database ({_reason(exc)})")
    if kind == "conflict":  # retrying() decides whether a client sees it
        return TransactionConflict(
            "The database refused the transaction because of concurrent ones (a deadlock "
            "or serialization failure, retried); retry.",
            reason=_reason(exc),
        )
    return None


_commits = threading.local()


def commits() -> int:
    """How many write transactions this thread has committed (to compare before and after)."""
    count: int = getattr(_commits, "count", 0)
    return count


def note_commit() -> None:
    """Called after each write transaction committed: an operation that committed one is
    not run again."""
    _commits.count = getattr(_commits, "count", 0) + 1


def retrying(call: Callable[[], T]) -> T:
    """``call()``, run again after a deadlock or serialization failure that rolled back its
    only transaction, at most :data:`CONFLICT_RETRIES` times, then TransactionConflict; and
    run again while the server is not ready, for at most :data:`NOT_READY_WAIT` seconds,
    then DatabaseUnavailable. Never after the operation committed a write of its own."""
    waited_since: float | None = None
    not_ready_tries = 0
    attempt = 0
    while True:
        committed_before = commits()
        try:
            return call()
        except DatabaseUnavailable as unavailable:
            now = time.monotonic()
            waited_since = now if waited_since is None else waited_since
            if (
                not unavailable.not_ready
                or commits() != committed_before
                or now - waited_since >= NOT_READY_WAIT
            ):
                raise
            metrics.DATABASE_ERRORS.labels("not_ready_retried").inc()
            pause = min(CONFLICT_BACKOFF_MAX, NOT_READY_BACKOFF * 2**not_ready_tries)
            not_ready_tries += 1
            time.sleep(min(pause, max(0.0, waited_since + NOT_READY_WAIT - now)))
        except TransactionConflict as conflict:
            # Something of this operation is stored already: running it again could do
            # twice what it did; the client decides.
            committed = commits() != committed_before
            if committed or attempt == CONFLICT_RETRIES:
                metrics.DATABASE_ERRORS.labels("conflict").inc()
                _OUTAGE_LOG.warning(
                    "conflict answered",
                    "transaction conflict answered 503 %s: %s",
                    "(the operation had committed a write)"
                    if committed
                    else f"after {attempt + 1} attempts",
                    conflict.reason,
                )
                raise
            metrics.DATABASE_ERRORS.labels("conflict_retried").inc()
            LOG.debug("transaction conflict, attempt %d: %s", attempt + 1, conflict.reason)
            backoff = min(CONFLICT_BACKOFF_MAX, CONFLICT_BACKOFF * 2**attempt)
            attempt += 1
            time.sleep(backoff * random.uniform(0.5, 1.5))
