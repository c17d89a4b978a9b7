"""The database engine and transactions.

SQLite is the embedded default (WAL journal, foreign keys on, a busy timeout). A write
transaction on SQLite starts with ``BEGIN IMMEDIATE`` so that two writers queue on the database
lock instead of failing when a read-then-write transaction tries to upgrade its lock.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import URL, Engine, create_engine, event, make_url
from sqlalchemy.engine import Connection, RootTransaction
from sqlalchemy.exc import ArgumentError, DisconnectionError
from sqlalchemy.orm import Session, sessionmaker

from metalwire import redact
from metalwire.db import outage
from metalwire.db.busy import WriterBusy
from metalwire.db.statements import json_loads
from metalwire.db.work import Work
from metalwire.errors import Invalid

LOG = logging.getLogger(__name__)

# Seconds an SQLite write waits for its turn, in this process's queue and then for another
# process's write lock together (the default of [database] sqlite_write_wait); a read that
# finds the file locked waits as long in SQLite's busy handler.
WRITE_TURN_TIMEOUT = 30.0
CONNECT_TIMEOUT = 5  # seconds to open a connection to a database server, unless the URL says
# libpq: a server that stops answering (a host gone, a network split) is given up after about
# 10 s, whether data sent waits for its acknowledgement (tcp_user_timeout, ms) or the
# connection is idle (keepalive probes after 10 s, every 5 s, 3 of them); unless the URL says.
# A VIF operation on the event loop waits at most that long for such a server.
PG_LINK_TIMEOUTS = {
    "tcp_user_timeout": 10_000,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
}
PING_AFTER_REST = 1.0  # seconds a pooled server connection may rest before it is checked


SAFETY_CHECKPOINT_PAGES = 25_000  # ~100 MB of write-ahead log
WAL_SIZE_LIMIT = 64 * 1024 * 1024  # what the log file is cut back to once checkpointed
CHECKPOINT_INTERVAL = 0.25


class WalCheckpointer:
    """Copies SQLite's write-ahead log back into the database file from a background thread.

    SQLite checkpoints by itself inside the commit that makes the log cross 1000 pages, and
    copies the same hot pages (indexes, the history table's tail) again each time: that was
    over half of the cost of every VIF write. Here commits only append to the log, and every
    CHECKPOINT_INTERVAL seconds this thread copies each changed page once, however often it
    changed meanwhile. A PASSIVE checkpoint takes neither the write lock nor, while SQLite
    works, the interpreter lock, so requests go on meanwhile.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            while not self._stop.wait(CHECKPOINT_INTERVAL):
                self._checkpoint(connection)
            self._checkpoint(connection)
        finally:
            connection.close()

    @staticmethod
    def _checkpoint(connection: sqlite3.Connection) -> None:
        try:
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as exc:  # e.g. the file went away; the next round tries again
            LOG.warning("SQLite checkpoint failed: %s", exc)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


#: What the message about a missing driver module says after naming it: the extra that
#: installs it, or, for MySQLdb (which SQLAlchemy picks for a MySQL URL naming no driver),
#: how to name the driver the [mysql] extra installs instead.
_MISSING_DRIVER_ADVICE = {
    "psycopg": ", which is not installed (pip install 'metalwire[postgresql]')",
    "pymysql": ", which is not installed (pip install 'metalwire[mysql]')",
    "MySQLdb": " (mysqlclient), which is not installed: pip install mysqlclient, or name "
    "PyMySQL, which metalwire's [mysql] extra installs: {backend}+pymysql://...",
}
#: URL schemes other programs take that SQLAlchemy does not, and what it takes.
_SCHEME_ADVICE = {"postgres": "write postgresql:// for PostgreSQL"}


def make_engine(
    url: str,
    pool_size: int = 10,
    autocommit: bool = False,
    prepared_statements: bool = True,
    sqlite_wait: float = WRITE_TURN_TIMEOUT,
    multi_statements: bool = True,
) -> Engine:
    """An engine for ``url``; raises Invalid for a malformed URL or a missing driver.

    ``autocommit`` (database servers only): each statement is its own transaction, for reads.
    ``prepared_statements`` (PostgreSQL): whether a connection prepares the statements it runs
    again (``[database] prepared_statements``). ``sqlite_wait`` (SQLite): seconds a statement
    waits for another process's lock on the file (SQLite's busy timeout).
    ``multi_statements`` (MariaDB, MySQL): whether statements sent together go as one query
    (``[database] multi_statement_queries``).
    """
    try:
        return _make_engine(
            url, pool_size, autocommit, prepared_statements, sqlite_wait, multi_statements
        )
    except (ArgumentError, ValueError) as exc:  # ValueError: a port that is no number
        shown = redact.without_userinfo(url)
        advice = _SCHEME_ADVICE.get(url.partition("://")[0])
        said = str(exc).replace(url, shown) + (f"; {advice}" if advice else "")
        raise Invalid(f"bad database URL {shown!r}: {said}") from None
    except ModuleNotFoundError as exc:
        name = exc.name or ""
        advice = _MISSING_DRIVER_ADVICE.get(name, ", which is not installed")
        advice = advice.format(backend=url.partition("://")[0].partition("+")[0])
        raise Invalid(f"the database URL needs the Python module {name!r}{advice}") from None


def _make_directory(directory: Path) -> None:
    """Create the directory of an SQLite file; Invalid naming it when that cannot be done (a
    file in its place, a read-only or missing parent)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = "a file has that name" if directory.is_file() else exc.strerror or str(exc)
        raise Invalid(
            f"cannot create the directory {str(directory)!r} of the SQLite database: "
            f"{reason} (see --data-dir, [DEFAULT] data_dir)"
        ) from None


def _make_engine(
    url: str,
    pool_size: int,
    autocommit: bool,
    prepared_statements: bool,
    sqlite_wait: float,
    multi_statements: bool,
) -> Engine:
    if _is_sqlite(url):
        if make_url(url).database in (None, "", ":memory:"):
            raise Invalid(
                f"the database URL {url!r} names an in-memory SQLite database, which each "
                "connection would see empty; name a file: sqlite:////var/lib/metalwire/"
                "metalwire.db (or leave [database] connection empty for --data-dir)"
            )
        if url.startswith("sqlite:///"):
            _make_directory(Path(url.removeprefix("sqlite:///")).parent)
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": sqlite_wait},
            pool_size=pool_size,
            max_overflow=40,
        )
        _configure_sqlite(engine, _busy_timeout_ms(sqlite_wait))
        return engine
    # READ COMMITTED everywhere: a transaction that waited for a node's row sees the rows
    # committed by the transaction it waited for (MariaDB defaults to REPEATABLE READ).
    # A bounded connect: a server that does not answer is an outage, not a hung request.
    bounded: dict[str, int] = {"connect_timeout": CONNECT_TIMEOUT}
    if make_url(url).get_backend_name() == "postgresql":
        bounded.update(PG_LINK_TIMEOUTS)
    bounded = {k: v for k, v in bounded.items() if k not in url}  # the URL's own win
    engine = create_engine(
        with_postgresql_driver(url),
        pool_size=pool_size,
        max_overflow=40,
        # Last in, first out: the connections in use stay few and warm, the rest rest.
        pool_use_lifo=True,
        isolation_level="AUTOCOMMIT" if autocommit else "READ COMMITTED",
        connect_args=bounded,
    )
    _ping_after_rest(engine)
    _quiet_pool_errors(engine.pool.logger)
    if engine.dialect.driver == "psycopg":
        _psycopg_settings(engine, prepared_statements)
    elif engine.dialect.driver == "pymysql":
        from metalwire.db import mysql_link

        mysql_link.configure(engine, multi_statements)
    return engine


def _psycopg_settings(engine: Engine, prepared_statements: bool) -> None:
    """psycopg parses JSON columns with :func:`metalwire.db.statements.json_loads` (a VIF
    operation reads a few dozen of them, most of them empty objects), and leaves preparing
    statements to :mod:`metalwire.db.pg_exchange` (or to no one, without
    ``prepared_statements``): psycopg deallocates every prepared statement of a connection
    when it rolls back, those of pg_exchange too."""
    from psycopg.types.json import set_json_loads

    from metalwire.db import pg_exchange

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        set_json_loads(json_loads, dbapi_connection)
        dbapi_connection.prepare_threshold = None
        if not prepared_statements:
            pg_exchange.unprepared(dbapi_connection)


def with_postgresql_driver(url: str) -> str | URL:
    """The URL, served through psycopg 3 if it names a PostgreSQL server.

    psycopg 3 sends a group of statements in one round trip (its pipeline mode) and prepares
    the statements a connection runs again and again; :mod:`metalwire.db.statements` relies on
    both. ``postgresql://`` and Ironic's ``postgresql+psycopg2://`` name the same server and
    are served the same way; another driver named in the URL is used as named.
    """
    parsed = make_url(url)
    if parsed.drivername not in ("postgresql", "postgresql+psycopg2"):
        return url
    return parsed.set(drivername="postgresql+psycopg")


def _ping_after_rest(engine: Engine) -> None:
    """Check a pooled connection on its way out only if it has rested PING_AFTER_REST.

    A connection handed out again at once is as alive as the statement it just ran; pinging
    it on every checkout, as ``pool_pre_ping`` does, costs two round trips per request (with
    a ping and a session reset). One that rested may have been dropped
    by a server restart or failover: a failed ping makes the pool open a new connection. A
    connection dropped while busy fails its next statement, and SQLAlchemy then empties the
    pool; the conductor's calls run again (db/outage.py), a read answers 503 once.
    """

    @event.listens_for(engine, "checkin")
    def _rests(_dbapi_connection: Any, record: Any) -> None:
        record.info["rests_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _wakes(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.pop("rests_since", None)
        if since is None or time.monotonic() - since < PING_AFTER_REST:
            return  # new, or back in use at once
        _check_alive(engine, dbapi_connection)


def _check_alive(engine: Engine, dbapi_connection: Any) -> None:
    """Ping the connection; raises DisconnectionError if the database dropped it."""
    try:
        alive = engine.dialect.do_ping(dbapi_connection)
    except engine.dialect.loaded_dbapi.Error as exc:
        if engine.dialect.is_disconnect(exc, dbapi_connection, None):
            raise DisconnectionError(str(exc)) from exc
        raise
    if not alive:
        raise DisconnectionError("the database did not answer a ping")


def _lost(connection: Connection) -> bool:
    """Whether the driver saw the database drop the connection (psycopg marks it broken).

    The VIF path's statements go through libpq itself (db/pg_exchange.py), where SQLAlchemy
    does not see the failure and so does not invalidate the connection."""
    raw = connection.connection.dbapi_connection
    return raw is None or bool(getattr(raw, "broken", False) or getattr(raw, "closed", False))


def _quiet_pool_errors(logger: Any) -> None:
    """The pool's tracebacks about connections a database outage dropped, as one line."""
    if isinstance(logger, logging.Logger) and not any(
        isinstance(f, outage.QuietPoolErrors) for f in logger.filters
    ):
        logger.addFilter(outage.QuietPoolErrors())


@contextlib.contextmanager
def _expected_failures() -> Iterator[None]:
    """An outage or a transaction conflict raised as the catalog's error (see db/outage.py)."""
    try:
        yield
    except Exception as exc:
        error = outage.translated(exc)
        if error is None:
            raise
        raise error from exc


def _busy_timeout_ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # BEGIN is ours to send: a read's from the begin event, a write's BEGIN IMMEDIATE
        # from Database._begin_write.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        # Checkpoints are the WalCheckpointer's job; SQLite's own, inside a commit, only
        # if the write-ahead log grows far beyond what the checkpointer lets it reach.
        cursor.execute(f"PRAGMA wal_autocheckpoint={SAFETY_CHECKPOINT_PAGES}")
        cursor.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        raw = conn.connection.dbapi_connection
        assert raw is not None
        # A write's BEGIN IMMEDIATE went out already (Database._begin_write), where its
        # failure may be raised: SQLAlchemy never again begins a transaction by itself on a
        # connection whose begin event raised.
        if not raw.in_transaction:
            raw.execute("BEGIN")


def _begin_immediate(connection: Connection, wait: float, configured_ms: int) -> None:
    """``BEGIN IMMEDIATE`` on the connection, waiting at most ``wait`` seconds for another
    process's write lock (its busy timeout is ``configured_ms`` otherwise); raises the
    driver's OperationalError, nothing begun, if the lock stays taken."""
    raw = connection.connection.dbapi_connection
    assert raw is not None
    wait_ms = _busy_timeout_ms(wait)
    if wait_ms == configured_ms:
        raw.execute("BEGIN IMMEDIATE")
        return
    raw.execute(f"PRAGMA busy_timeout={wait_ms}")
    try:
        raw.execute("BEGIN IMMEDIATE")
    finally:
        raw.execute(f"PRAGMA busy_timeout={configured_ms}")


class _KeptConnection:
    """A connection kept open for whichever thread takes ``free`` without waiting.

    It is checked as the pool's are (``_ping_after_rest``): after a rest of PING_AFTER_REST
    it is pinged before it is used, and a new one replaces it if the database dropped it (a
    restart, a failover, an idle timeout). One dropped while in use fails that use only: it
    is replaced when given back.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.free = threading.Lock()
        self._connection: Connection | None = None
        self._rests_since = 0.0
        # SQLite's file does not drop its connections.
        self._checked = engine.dialect.name != "sqlite"

    def open(self) -> Connection:
        """The connection (made anew if it was closed or lost); hold ``free`` to call."""
        kept = self._connection
        if kept is not None and self._rested() and not (kept.closed or kept.invalidated):
            try:
                _check_alive(self.engine, kept.connection.dbapi_connection)
            except DisconnectionError:
                kept.invalidate()
        if kept is None or kept.closed or kept.invalidated:
            kept = self._connection = self.engine.connect()
        return kept

    def _rested(self) -> bool:
        return self._checked and time.monotonic() - self._rests_since >= PING_AFTER_REST

    def give_back(self) -> None:
        """End what the holder left open, and let the next thread take it."""
        try:
            kept = self._connection
            if kept is not None and not (kept.closed or kept.invalidated):
                if self._checked and _lost(kept):
                    kept.invalidate()
                elif kept.in_transaction():
                    kept.rollback()
        finally:
            self._rests_since = time.monotonic()
            self.free.release()

    def close(self) -> None:
        with self.free:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


class DatabaseSettings(Protocol):
    """The ``[database]`` options a served database is made with (``config.DatabaseOptions``)."""

    @property
    def pool_size(self) -> int: ...
    @property
    def prepared_statements(self) -> bool: ...
    @property
    def sqlite_write_wait(self) -> float: ...
    @property
    def multi_statement_queries(self) -> bool: ...


class Database:
    """Hands out read and write transactions on one engine."""

    @classmethod
    def configured(cls, url: str, settings: DatabaseSettings) -> Database:
        """The database at ``url`` as the ``[database]`` options say to use it: the one way
        the server and the ``metalwire db`` commands open theirs."""
        return cls(
            url,
            settings.pool_size,
            prepared_statements=settings.prepared_statements,
            sqlite_write_wait=settings.sqlite_write_wait,
            multi_statements=settings.multi_statement_queries,
        )

    def __init__(
        self,
        url: str,
        pool_size: int = 10,
        prepared_statements: bool = True,
        sqlite_write_wait: float = WRITE_TURN_TIMEOUT,
        multi_statements: bool = True,
    ) -> None:
        self.url = url
        self.engine = make_engine(
            url,
            pool_size,
            prepared_statements=prepared_statements,
            sqlite_wait=sqlite_write_wait,
            multi_statements=multi_statements,
        )
        self.is_sqlite = _is_sqlite(url)
        # SQLite: seconds a write waits for its turn, in this process and then for another
        # process's write lock, before DatabaseBusy ([database] sqlite_write_wait).
        self.write_wait = sqlite_write_wait
        self._busy_timeout_ms = _busy_timeout_ms(sqlite_write_wait)
        # On a database server, reads run on connections of their own in autocommit: a read
        # is one round trip per statement, with no BEGIN and no ROLLBACK around it. It sees
        # what READ COMMITTED would: what is committed when each statement runs. (Switching
        # one connection between the two modes costs a round trip each time.)
        self.read_engine = (
            self.engine
            if self.is_sqlite
            else make_engine(
                url,
                pool_size,
                autocommit=True,
                prepared_statements=prepared_statements,
                multi_statements=multi_statements,
            )
        )
        # sqlite, postgresql or mysql (MariaDB and Galera included): where the engines
        # differ in how a node is locked.
        name = self.engine.dialect.name
        self.kind = "mysql" if name in ("mysql", "mariadb") else name
        # No autoflush: the repositories flush where a later statement must see a change,
        # which spares a flush check before every query.
        self._reader = sessionmaker(bind=self.read_engine, expire_on_commit=False, autoflush=False)
        # A session joining a connection's transaction never ends it and, inside a savepoint
        # (``Work.savepoint``), writes into that savepoint: SQLAlchemy's default would give
        # the session a savepoint of its own and roll it back when the session closes
        # uncommitted, losing the writes made there.
        self._joining = sessionmaker(
            expire_on_commit=False, autoflush=False, join_transaction_mode="rollback_only"
        )
        # SQLite admits one writer at a time; threads of this process queue here, on a lock
        # that wakes the next at once, instead of in SQLite's busy handler, which sleeps.
        self._write_turn = threading.Lock() if self.is_sqlite else None
        # SQLite and PostgreSQL: a connection (on PostgreSQL one for writes, one for reads)
        # stays open for whichever thread finds it free (the event loop, most of the time).
        # Checking a connection out of the pool and back for each transaction cost a third
        # of the database time of a VIF request on SQLite.
        self._kept: dict[bool, _KeptConnection] = {}
        if self.is_sqlite:
            self._kept[True] = self._kept[False] = _KeptConnection(self.engine)
        elif self.kind == "postgresql":
            self._kept[True] = _KeptConnection(self.engine)
            self._kept[False] = _KeptConnection(self.read_engine)
        path = self.engine.url.database
        self._checkpointer = (
            WalCheckpointer(path) if self.is_sqlite and path and path != ":memory:" else None
        )

    @contextlib.contextmanager
    def read(self) -> Iterator[Session]:
        with _expected_failures(), self._reader() as session, session.begin():
            yield session

    def ping(self) -> None:
        """Run ``SELECT 1``; raises DatabaseUnavailable if the database does not answer."""
        with self.connection() as connection:
            connection.exec_driver_sql("SELECT 1").scalar()

    @contextlib.contextmanager
    def write(self) -> Iterator[Session]:
        """A session in a write transaction that commits when the block ends."""
        with self.write_connection() as connection, self.session_on(connection) as session:
            yield session

    @contextlib.contextmanager
    def session_on(self, connection: Connection) -> Iterator[Session]:
        """A session joining the connection's transaction, flushed when the block ends."""
        with self._joining(bind=connection) as session:
            yield session
            session.flush()

    @contextlib.contextmanager
    def _connect(self, write: bool = False) -> Iterator[Connection]:
        kept = self._kept.get(write)
        if kept is None or not kept.free.acquire(blocking=False):
            engine = self.engine if write else self.read_engine
            with _expected_failures(), engine.connect() as connection:
                yield connection
            return
        try:
            with _expected_failures():
                yield kept.open()
        finally:
            kept.give_back()

    @contextlib.contextmanager
    def connection(self) -> Iterator[Connection]:
        """A connection for reads: each statement sees what is committed when it runs."""
        with self._connect() as connection:
            yield connection

    @contextlib.contextmanager
    def write_connection(self, wait: bool = True) -> Iterator[Connection]:
        """A connection in a write transaction that commits when the block ends.

        With ``wait=False`` (SQLite only) it raises WriterBusy instead of waiting for another
        writer, before anything is done.
        """
        if self._write_turn is None:
            with self._connect(write=True) as connection, connection.begin():
                yield connection
            outage.note_commit()  # only once it succeeded: Galera refuses at the commit
            return
        waited = 0.0
        if not wait:
            if not self._write_turn.acquire(blocking=False):
                raise WriterBusy("another thread of this process is writing")
        elif not self._write_turn.acquire(blocking=False):
            started = time.monotonic()
            if not self._write_turn.acquire(timeout=self.write_wait):
                raise outage.busy(
                    f"No write turn on the SQLite database within {self.write_wait:g} s: "
                    "other writes of this process held it"
                )
            waited = time.monotonic() - started
        try:
            with (
                self._connect(write=True) as connection,
                self._begin_write(connection, wait, waited),
            ):
                yield connection
            outage.note_commit()
        finally:
            self._write_turn.release()

    def _begin_write(self, connection: Connection, wait: bool, waited: float) -> RootTransaction:
        """The SQLite write transaction, its write lock taken: at once or WriterBusy if not
        ``wait``, else within what is left of the write wait or DatabaseBusy."""
        left = max(0.0, self.write_wait - waited) if wait else 0.0
        try:
            _begin_immediate(connection, left, self._busy_timeout_ms)
        except sqlite3.OperationalError as exc:
            if not outage.sqlite_busy(exc):
                raise
            if not wait:
                raise WriterBusy(f"another process holds the write lock ({exc})") from None
            raise outage.busy(
                f"No write turn on the SQLite database within {self.write_wait:g} s: "
                "another process holds its write lock"
            ) from None
        try:
            return connection.begin()  # SQLAlchemy's side; the begin event adds nothing
        except BaseException:
            raw = connection.connection.dbapi_connection
            if raw is not None:
                raw.rollback()  # never leave the write lock held
            raise

    @contextlib.contextmanager
    def reading(self) -> Iterator[Work]:
        """A unit of work for reads: each statement sees what is committed when it runs."""
        with self.connection() as connection:
            work = Work(connection, self.session_on)
            yield work
            work.flush()

    @contextlib.contextmanager
    def writing(self, wait: bool = True) -> Iterator[Work]:
        """A unit of work in a write transaction that commits when the block ends.

        With ``wait=False`` (SQLite only) it raises WriterBusy instead of waiting for another
        writer, before anything is done.
        """
        with self.write_connection(wait) as connection:
            work = Work(connection, self.session_on)
            yield work
            work.before_commit()

    def dispose(self) -> None:
        for kept in set(self._kept.values()):
            kept.close()
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        self.engine.dispose()
        self.read_engine.dispose()
