"""MariaDB and MySQL through PyMySQL, in fewer round trips.

Two things psycopg does for PostgreSQL and PyMySQL does not:

* **No COMMIT or ROLLBACK with no transaction open.** PyMySQL sends either whenever asked,
  and SQLAlchemy's pool rolls back every connection it takes back: each read and each write
  paid a round trip for a ROLLBACK that had nothing to undo, and a COMMIT already sent with
  the writes (below) would be sent again. Every reply of the server says whether a
  transaction is open (``SERVER_STATUS_IN_TRANS``): :class:`Connection` asks that first.
* **Statements sent together.** :func:`exchange` sends a group of statements, and the
  COMMIT, as one multi-statement query and reads each statement's result in turn: one round
  trip where there were as many as statements (``db/statements.py: Sql`` groups them, as it
  does for libpq's pipeline in ``db/pg_exchange.py``). The server runs them in order and
  stops at the first that fails, so nothing after a failed statement runs, its COMMIT
  included.

Multi-statement queries are allowed on metalwire's connections (``CLIENT.MULTI_STATEMENTS``)
unless ``[database] multi_statement_queries`` is false (for a proxy that does not pass them):
the groups then go one statement a round trip, as on SQLite.
Every statement metalwire sends takes its values as parameters, which PyMySQL escapes; no
statement's text is made from a request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pymysql.connections import Connection as PyMySQLConnection
from pymysql.constants import CLIENT, SERVER_STATUS
from pymysql.err import MySQLError
from sqlalchemy import event
from sqlalchemy.engine import Engine


class Connection(PyMySQLConnection):  # type: ignore[misc]  # PyMySQL has no type hints
    """PyMySQL's connection, whose commit and rollback send nothing outside a transaction.

    The server's last reply says whether a transaction is open; an error reply says
    nothing about it (a statement that failed may have opened one, holding its locks), so
    after an error they are sent until one of them succeeds.
    """

    _unsure = False

    def sends_groups(self) -> bool:
        """Whether the connection may send several statements in one query."""
        return bool(self.client_flag & CLIENT.MULTI_STATEMENTS)

    def in_transaction(self) -> bool:
        """Whether a transaction may be open on the server."""
        return self._unsure or bool(self.server_status & SERVER_STATUS.SERVER_STATUS_IN_TRANS)

    def query(self, sql: Any, unbuffered: bool = False) -> int:
        try:
            return int(super().query(sql, unbuffered))
        except BaseException:
            self._unsure = True
            raise

    def next_result(self, unbuffered: bool = False) -> int:
        try:
            return int(super().next_result(unbuffered))
        except BaseException:
            self._unsure = True
            raise

    def commit(self) -> None:
        if self.in_transaction():
            super().commit()
            self._unsure = False

    def rollback(self) -> None:
        if self.in_transaction():
            super().rollback()
            self._unsure = False


def configure(engine: Engine, multi_statements: bool = True) -> None:
    """Make the engine's connections :class:`Connection`, with multi-statement queries
    unless ``multi_statements`` is false."""

    @event.listens_for(engine, "do_connect")
    def _connect(_dialect: Any, _record: Any, cargs: Any, cparams: dict[str, Any]) -> Any:
        if multi_statements:
            cparams["client_flag"] = cparams.get("client_flag", 0) | CLIENT.MULTI_STATEMENTS
        return Connection(*cargs, **cparams)


class Result:
    """What one statement of a group returned: its rows, the rows it changed (or matched:
    SQLAlchemy connects with ``CLIENT.FOUND_ROWS``) and its description, as a cursor gives
    them."""

    __slots__ = ("_rows", "description", "rowcount")

    def __init__(self, cursor: Any) -> None:
        self.description = cursor.description
        self.rowcount = cursor.rowcount
        self._rows = list(cursor.fetchall())

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self._rows


class StatementFailed(Exception):
    """The statement at ``index`` of a group failed with ``error`` (the driver's); nothing
    after it ran."""

    def __init__(self, index: int, error: Exception) -> None:
        super().__init__(index, error)
        self.index = index
        self.error = error


def exchange(
    raw: Connection, todo: Sequence[tuple[str, Sequence[Any]]], commit: bool
) -> list[Result]:
    """``todo`` (``%s`` placeholders), then the COMMIT if ``commit``, in one round trip; the
    results of ``todo``. A failed statement raises StatementFailed."""
    cursor = raw.cursor()
    texts = [cursor.mogrify(sql, tuple(params)) for sql, params in todo]
    if commit:
        texts.append("COMMIT")
    results: list[Result] = []
    try:
        cursor.execute(";\n".join(texts))  # no parameters: sent as it is
        results.append(Result(cursor))
        while len(results) < len(texts):
            cursor.nextset()
            results.append(Result(cursor))
    except MySQLError as exc:  # the server ran nothing after it
        raise StatementFailed(len(results), exc) from None
    return results[: len(todo)]
