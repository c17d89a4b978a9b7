"""A group of statements sent to PostgreSQL in one round trip, through libpq itself.

psycopg's cursors spend about 70 µs of Python per statement on a small machine (a cursor
made, the query parsed for placeholders, the pipeline's bookkeeping, the result's
description) before libpq sends anything; a VIF operation runs nine statements and a
cycle of attach, list and detach about twenty. Here the same statements go out through
psycopg's libpq binding (``psycopg.pq``, the connection's ``pgconn``), with psycopg's own
adapters dumping the parameters and loading the rows (``psycopg.adapt.Transformer``, in C):
a quarter of the client's CPU per statement, the values the same as through a cursor.

It follows what psycopg does for the connection: a transaction begins with the
connection's own ``BEGIN`` (isolation level, read only, deferrable) unless it is in
autocommit or already in a transaction, so the connection's ``commit()`` and
``rollback()`` see the transaction's state in libpq as usual. Statements a connection sends
again are prepared on the server, as psycopg would, unless the connection was made
:func:`unprepared` (``[database] prepared_statements = false``, for a connection pooler in
transaction mode); psycopg's own preparing is switched off on these connections
(``engine.py``), because on a rollback it deallocates every prepared statement of the
connection, these included.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import select
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from psycopg import errors, pq
from psycopg.adapt import PyFormat, Transformer

from metalwire.db import outage

LOG = logging.getLogger(__name__)

# A statement text run this many times on a connection is prepared there.
PREPARE_AFTER = 2
# At most this many prepared statements per connection (texts past it are sent unprepared),
# and uses counted for at most four times as many texts.
PREPARED_MAX = 256

_OK = (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK)
_PLACEHOLDER = re.compile(r"\?")


@dataclass
class _ConnectionState:
    """What the exchanges of one connection share: its prepared statements, by text and
    parameter types, and its transformer (psycopg's adapters, which keep the loader of each
    column type they met, so a result's columns are not looked up and their loaders made
    anew in every exchange)."""

    transformer: Any
    prepare: bool = True  # whether a statement run again is prepared (see unprepared)
    names: dict[tuple[bytes, tuple[int, ...]], bytes] = field(default_factory=dict)
    uses: dict[tuple[bytes, tuple[int, ...]], int] = field(default_factory=dict)
    made: int = 0  # names given so far (a PREPARE that did not run still used its name)

    def counted(self, key: tuple[bytes, tuple[int, ...]]) -> int:
        """This run of a statement not prepared yet, counted: its runs so far, or 0 once the
        connection holds all the prepared statements it may (or counts all the texts)."""
        if len(self.names) >= PREPARED_MAX:
            return 0
        uses = self.uses.get(key)
        if uses is None and len(self.uses) >= 4 * PREPARED_MAX:
            return 0
        uses = self.uses[key] = (uses or 0) + 1
        return uses

    def new_name(self) -> bytes:
        self.made += 1
        return b"mw_%d" % self.made

    def forget_prepared(self) -> None:
        """Prepare every statement anew, under new names (the old ones stay on the server,
        unused, until the connection closes)."""
        self.names.clear()
        self.uses.clear()


# The connection attribute that holds its _ConnectionState. On the connection itself, not in a
# table beside it: the transformer refers to its connection, so a weak table's entry would
# keep a closed connection alive for ever; the reference cycle here goes with the connection.
_STATE = "_metalwire_exchange"


def _state(connection: Any) -> _ConnectionState:
    state: _ConnectionState | None = getattr(connection, _STATE, None)
    if state is None:
        state = _ConnectionState(Transformer.from_context(connection))
        setattr(connection, _STATE, state)
    return state


def unprepared(connection: Any) -> None:
    """Never prepare a statement on ``connection``: for a connection pooler that hands each
    transaction whichever server connection is free and does not carry prepared statements
    over (PgBouncer in transaction mode before 1.21, or with ``max_prepared_statements = 0``),
    where a statement prepared in one transaction is unknown to the next."""
    _state(connection).prepare = False


class Result:
    """What a statement returned: its rows (already loaded), the rows it changed, and the
    description's ``(name, type_code)`` pairs, as a DBAPI cursor gives them."""

    __slots__ = ("_pgresult", "_rows", "rowcount")

    def __init__(self, pgresult: Any, rows: list[tuple[Any, ...]]) -> None:
        self._pgresult = pgresult
        self._rows = rows
        tuples = pgresult.command_tuples
        self.rowcount = len(rows) if tuples is None else tuples

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self._rows

    @property
    def description(self) -> list[tuple[str, int]]:
        result = self._pgresult
        return [(result.fname(i).decode(), result.ftype(i)) for i in range(result.nfields)]


# What PostgreSQL answers when the server connection under a connection is not the one that
# prepared its statements: a pooler in transaction mode between the two.
_PREPARED_ELSEWHERE = (errors.DuplicatePreparedStatement, errors.InvalidSqlStatementName)


_TOLD: list[str] = []  # the first such error of the process, once told


def _say_prepared_elsewhere(message: str) -> None:
    """Once per process (the error itself is logged with every request it fails)."""
    if _TOLD:
        return
    _TOLD.append(message)
    LOG.error(
        "PostgreSQL does not hold the statements this connection prepared (%s): is a "
        "connection pooler in transaction mode (PgBouncer) between metalwire and PostgreSQL? "
        "Set [database] prepared_statements = false.",
        message,
    )


class StatementFailed(Exception):
    """The statement at ``index`` failed with ``error`` (psycopg's exception for it)."""

    def __init__(self, index: int, error: errors.Error) -> None:
        super().__init__(index, error)
        self.index = index
        self.error = error


@functools.cache
def _numbered(sql: str) -> bytes:
    """``?`` placeholders as PostgreSQL's ``$1``, ``$2``, ..."""
    count = iter(range(1, 1 << 16))
    return _PLACEHOLDER.sub(lambda _: f"${next(count)}", sql).encode()


def _begin(connection: Any) -> bytes | None:
    """The statement that opens the connection's next transaction, or None when a statement
    needs none (autocommit, or a transaction already open)."""
    if connection.autocommit or connection.pgconn.transaction_status != pq.TransactionStatus.IDLE:
        return None
    return _begin_text(connection.isolation_level, connection.read_only, connection.deferrable)


@functools.cache
def _begin_text(isolation: Any, read_only: bool | None, deferrable: bool | None) -> bytes:
    parts = ["BEGIN"]
    if isolation is not None:
        parts.append("ISOLATION LEVEL " + isolation.name.replace("_", " "))
    if read_only is not None:
        parts.append("READ ONLY" if read_only else "READ WRITE")
    if deferrable is not None:
        parts.append("DEFERRABLE" if deferrable else "NOT DEFERRABLE")
    return " ".join(parts).encode()


# What a result answers: a statement, the PREPARE of one, or the BEGIN or COMMIT.
_STATEMENT, _PREPARE, _TRANSACTION = 0, 1, 2


def exchange(
    connection: Any, statements: Sequence[tuple[str, Sequence[Any]]], commit: bool = False
) -> list[Result]:
    """Run ``statements`` (``?`` placeholders) in order, then COMMIT if ``commit``, in one
    round trip on a psycopg connection; a :class:`Result` per statement.

    The first statement that fails raises :class:`StatementFailed`; the ones after it do not
    run, and the transaction can only be rolled back. A lost connection raises psycopg's
    OperationalError, as through a cursor. On an autocommit connection, statements refused
    because a column they read changed type since they were prepared run again, prepared
    anew (a pipeline without BEGIN is one implicit transaction: nothing of it stayed); in a
    transaction that failure is the caller's to run again (``outage.retrying``).
    """
    try:
        return _exchange(connection, statements, commit)
    except StatementFailed as failed:
        if connection.autocommit and outage.stale_plan(failed.error):
            return _exchange(connection, statements, commit)
        raise


def _exchange(
    connection: Any, statements: Sequence[tuple[str, Sequence[Any]]], commit: bool
) -> list[Result]:
    pgconn = connection.pgconn
    state = _state(connection)
    # (what, the statement's index, the PREPARE's key and name), a result each, in order
    answers: list[tuple[int, int, Any]] = []
    pgconn.enter_pipeline_mode()
    synced = False
    try:
        _send(connection, state, statements, commit, answers)
        pgconn.pipeline_sync()
        synced = True
        pgresults = _results(pgconn)
    except BaseException:
        # A parameter that cannot be sent, or an interruption while the answers were awaited:
        # what went out runs and its answers are read, so that the connection leaves pipeline
        # mode usable and what stopped the exchange is what is raised (a connection lost
        # meanwhile stays lost). The transaction (if any) is left for the caller to roll back.
        if pgconn.status == pq.ConnStatus.OK:
            with contextlib.suppress(Exception):
                if not synced:
                    pgconn.pipeline_sync()
                _results(pgconn)
                pgconn.exit_pipeline_mode()
        raise
    pgconn.exit_pipeline_mode()
    return _read(connection, state, answers, pgresults)


def _send(
    connection: Any,
    state: _ConnectionState,
    statements: Sequence[tuple[str, Sequence[Any]]],
    commit: bool,
    answers: list[tuple[int, int, Any]],
) -> None:
    pgconn, transformer = connection.pgconn, state.transformer
    begin = _begin(connection)
    if begin is not None:
        pgconn.send_query_params(begin, None)
        answers.append((_TRANSACTION, 0, None))
    for index, (sql, params) in enumerate(statements):
        text = _numbered(sql)
        values = transformer.dump_sequence(params, [PyFormat.AUTO] * len(params))
        types = tuple(transformer.types)
        key = (text, types)
        name = state.names.get(key)
        if name is None and state.prepare and state.counted(key) >= PREPARE_AFTER:
            name = state.new_name()
            pgconn.send_prepare(name, text, param_types=types)
            answers.append((_PREPARE, index, (key, name)))
        if name is None:
            pgconn.send_query_params(
                text, values, param_types=types, param_formats=transformer.formats
            )
        else:
            pgconn.send_query_prepared(name, values, param_formats=transformer.formats)
        answers.append((_STATEMENT, index, None))
    if commit:
        pgconn.send_query_params(b"COMMIT", None)
        answers.append((_TRANSACTION, len(statements), None))


def _read(
    connection: Any,
    state: _ConnectionState,
    answers: list[tuple[int, int, Any]],
    pgresults: list[Any],
) -> list[Result]:
    transformer = state.transformer
    out: list[Result] = []
    failure: StatementFailed | None = None
    for (what, index, extra), result in zip(answers, pgresults, strict=True):
        status = result.status
        if status not in _OK:
            if failure is None and status != pq.ExecStatus.PIPELINE_ABORTED:
                error = errors.error_from_result(result, encoding=connection.info.encoding)
                if isinstance(error, _PREPARED_ELSEWHERE):
                    _say_prepared_elsewhere(str(error))
                elif outage.stale_plan(error):  # a column changed type: run it again
                    state.forget_prepared()
                failure = StatementFailed(index, error)
            continue
        if what == _PREPARE:
            key, name = extra
            state.names[key] = name
        elif what == _STATEMENT:
            rows: list[tuple[Any, ...]] = []
            if status == pq.ExecStatus.TUPLES_OK and result.ntuples:
                transformer.set_pgresult(result)
                rows = transformer.load_rows(0, result.ntuples, tuple)
            out.append(Result(result, rows))
    if failure is not None:
        raise failure
    return out


def _results(pgconn: Any) -> list[Any]:
    """Every result until the pipeline's sync point, waiting for the server as needed."""
    poller = select.poll()
    fd = pgconn.socket
    poller.register(fd, select.POLLIN | select.POLLOUT)
    while pgconn.flush():  # libpq could not send it all yet: wait for the socket
        poller.poll()
        pgconn.consume_input()
    poller.modify(fd, select.POLLIN)
    out: list[Any] = []
    while True:
        while pgconn.is_busy():
            poller.poll()
            pgconn.consume_input()
        result = pgconn.get_result()
        if result is None:  # the end of one statement's results
            continue
        if result.status == pq.ExecStatus.PIPELINE_SYNC:
            return out
        out.append(result)
