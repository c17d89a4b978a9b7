"""Statements sent through libpq (db/pg_exchange.py), against a real PostgreSQL: the values,
the transaction, the prepared statements and the failures are what a psycopg cursor gives."""

from __future__ import annotations

import datetime
import gc
import uuid
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from metalwire.db import outage, pg_exchange
from metalwire.db.engine import Database
from tests.support.postgres import PostgresServer

psycopg = pytest.importorskip("psycopg")

TABLE = (
    "CREATE TABLE things (id serial PRIMARY KEY, ident uuid UNIQUE, name text, doc jsonb,"
    " flag boolean, at timestamptz, count bigint, amount numeric)"
)
ROW = (
    "INSERT INTO things (ident, name, doc, flag, at, count, amount) VALUES (?, ?, ?, ?, ?, ?, 1.50)"
)


@pytest.fixture(scope="module")
def database(postgres_server: PostgresServer) -> str:
    name = f"exchange_{uuid.uuid4().hex[:8]}"
    postgres_server.create_database(name)
    postgres_server.execute(TABLE, database=name)
    return postgres_server.url(name, driver="")


@pytest.fixture
def connection(database: str) -> Iterator[Any]:
    with psycopg.connect(database, prepare_threshold=None) as conn:
        conn.execute("DELETE FROM things")
        conn.commit()
        yield conn


def _values(name: str) -> tuple[Any, ...]:
    at = datetime.datetime(2026, 12, 3, 12, 30, 15, 123456, tzinfo=datetime.UTC)
    doc = psycopg.types.json.Jsonb({"a": [1, None, "x"], "b": {}})
    return (uuid.uuid4(), name, doc, True, at, 2**40)


def test_rows_are_the_values_a_cursor_reads(connection: Any) -> None:
    pg_exchange.exchange(connection, [(ROW, _values("one")), (ROW, _values("two"))], commit=True)
    select = "SELECT * FROM things WHERE name = ? OR name IS NULL ORDER BY id"
    [result] = pg_exchange.exchange(connection, [(select, ("two",))])
    through_cursor = connection.execute(select.replace("?", "%s"), ("two",)).fetchall()
    connection.rollback()
    assert result.fetchall() == through_cursor
    row = result.fetchall()[0]
    assert isinstance(row[1], uuid.UUID) and row[3] == {"a": [1, None, "x"], "b": {}}
    assert row[4] is True and row[5].tzinfo is not None and row[6] == 2**40
    assert str(row[7]) == "1.50"
    assert [name for name, _ in result.description][:3] == ["id", "ident", "name"]
    assert result.rowcount == 1


def test_rows_read_again_are_the_same_values(connection: Any) -> None:
    # The connection's transformer keeps the loaders of the columns it met: the second
    # read, through them, gives the same values as the first.
    pg_exchange.exchange(connection, [(ROW, _values("one"))], commit=True)
    select = "SELECT * FROM things ORDER BY id"
    reads = [pg_exchange.exchange(connection, [(select, ())])[0].fetchall() for _ in range(3)]
    connection.rollback()
    assert reads[0] == reads[1] == reads[2] and reads[0][0][3] == {"a": [1, None, "x"], "b": {}}


def test_a_closed_connection_is_freed(database: str) -> None:
    # What the exchange keeps for a connection (its prepared statements, its transformer,
    # which refers to the connection) must not keep it alive once the pool has let it go.
    conn = psycopg.connect(database, prepare_threshold=None)
    pg_exchange.exchange(conn, [("SELECT ?::int", (1,))], commit=True)
    gone = weakref.ref(conn)
    conn.close()
    del conn
    gc.collect()
    assert gone() is None


def test_a_statement_says_how_many_rows_it_changed(connection: Any) -> None:
    rows = [(ROW, _values(f"n{i}")) for i in range(3)]
    update = ("UPDATE things SET flag = ? WHERE name <> ?", (False, "n0"))
    *_, changed = pg_exchange.exchange(connection, [*rows, update], commit=True)
    assert changed.rowcount == 2 and changed.fetchall() == []


def test_statements_run_in_one_transaction_that_the_connection_commits(connection: Any) -> None:
    pg_exchange.exchange(connection, [(ROW, _values("uncommitted"))])
    assert connection.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
    connection.rollback()
    [result] = pg_exchange.exchange(connection, [("SELECT count(*) FROM things", ())])
    assert result.fetchall() == [(0,)]
    pg_exchange.exchange(connection, [(ROW, _values("kept"))])
    connection.commit()
    assert connection.execute("SELECT name FROM things").fetchall() == [("kept",)]


def test_the_transaction_begins_as_the_connection_says(connection: Any) -> None:
    connection.isolation_level = psycopg.IsolationLevel.SERIALIZABLE
    connection.read_only = True
    [level, read_only] = pg_exchange.exchange(
        connection, [("SHOW transaction_isolation", ()), ("SHOW transaction_read_only", ())]
    )
    connection.rollback()
    assert level.fetchall() == [("serializable",)] and read_only.fetchall() == [("on",)]
    connection.autocommit = True
    pg_exchange.exchange(connection, [("SELECT 1", ())])
    assert connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


def _prepared(connection: Any) -> list[str]:
    rows = connection.execute("SELECT statement FROM pg_prepared_statements").fetchall()
    return sorted(row[0] for row in rows)


def test_a_statement_run_again_is_prepared_and_outlives_a_rollback(connection: Any) -> None:
    select = ("SELECT name FROM things WHERE id = ?", (1,))
    pg_exchange.exchange(connection, [select])
    assert _prepared(connection) == []
    for _ in range(pg_exchange.PREPARE_AFTER):
        pg_exchange.exchange(connection, [select])
    assert _prepared(connection) == ["SELECT name FROM things WHERE id = $1"]
    connection.rollback()  # psycopg deallocates its own prepared statements here
    assert _prepared(connection) == ["SELECT name FROM things WHERE id = $1"]
    [again] = pg_exchange.exchange(connection, [select])
    assert again.fetchall() == []


def test_an_unprepared_connection_runs_each_statement_unprepared(connection: Any) -> None:
    pg_exchange.unprepared(connection)
    select = ("SELECT name FROM things WHERE id = ?", (1,))
    for _ in range(pg_exchange.PREPARE_AFTER + 3):
        [result] = pg_exchange.exchange(connection, [select])
        assert result.fetchall() == []
    assert _prepared(connection) == []


def test_a_failed_statement_names_its_index_and_stops_the_rest(connection: Any) -> None:
    first = _values("first")
    statements = [(ROW, first), (ROW, (first[0], *first[1:])), (ROW, _values("never"))]
    with pytest.raises(pg_exchange.StatementFailed) as failed:
        pg_exchange.exchange(connection, statements, commit=True)
    assert failed.value.index == 1
    assert isinstance(failed.value.error, psycopg.errors.UniqueViolation)
    assert "things_ident_key" in str(failed.value.error)
    connection.rollback()
    assert connection.execute("SELECT count(*) FROM things").fetchall() == [(0,)]
    pg_exchange.exchange(connection, [(ROW, _values("after"))], commit=True)
    assert connection.execute("SELECT name FROM things").fetchall() == [("after",)]


def test_a_failed_prepare_is_not_taken_for_prepared(connection: Any) -> None:
    bad = ("SELECT 1 / ?", (0,))
    select = ("SELECT count(*) FROM things WHERE name = ?", ("x",))
    for _ in range(pg_exchange.PREPARE_AFTER):
        connection.rollback()
        with pytest.raises(pg_exchange.StatementFailed):
            pg_exchange.exchange(connection, [bad, select])  # select's PREPARE aborted
    connection.rollback()
    [result] = pg_exchange.exchange(connection, [select])
    assert result.fetchall() == [(0,)]


def test_a_value_that_cannot_be_sent_leaves_the_connection_usable(connection: Any) -> None:
    with pytest.raises(psycopg.ProgrammingError, match="cannot adapt"):
        pg_exchange.exchange(connection, [("SELECT ?", (1,)), ("SELECT ?", (object(),))])
    assert connection.pgconn.pipeline_status == psycopg.pq.PipelineStatus.OFF
    connection.rollback()
    [result] = pg_exchange.exchange(connection, [("SELECT 2", ())])
    assert result.fetchall() == [(2,)]


def test_a_lost_connection_raises_operational_error(
    postgres_server: PostgresServer, connection: Any
) -> None:
    pid = connection.info.backend_pid
    postgres_server.execute(f"SELECT pg_terminate_backend({pid})")
    with pytest.raises(psycopg.OperationalError):
        pg_exchange.exchange(connection, [("SELECT 1", ())])
    assert connection.broken


def test_the_engine_leaves_preparing_to_the_exchange(postgresql_url: str) -> None:
    """psycopg, preparing its own statements, would deallocate the exchange's on rollback."""
    db = Database(postgresql_url)
    select = ("SELECT count(*) FROM nodes WHERE id = ?", (0,))
    try:
        with db.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            for _ in range(pg_exchange.PREPARE_AFTER):
                pg_exchange.exchange(raw, [select])
            for _ in range(6):  # what psycopg would prepare, if it prepared
                conn.exec_driver_sql("SELECT count(*) FROM ports").fetchall()
            conn.rollback()
            [again] = pg_exchange.exchange(raw, [select])
            assert again.fetchall() == [(0,)]
            conn.rollback()
    finally:
        db.dispose()


@pytest.mark.parametrize("prepared", [True, False])
def test_the_database_option_decides_whether_connections_prepare(
    postgresql_url: str, prepared: bool
) -> None:
    db = Database(postgresql_url, prepared_statements=prepared)
    select = ("SELECT count(*) FROM nodes WHERE id = ?", (0,))
    try:
        for engine in (db.engine, db.read_engine):
            with engine.connect() as conn:
                raw = conn.connection.dbapi_connection
                for _ in range(pg_exchange.PREPARE_AFTER):
                    pg_exchange.exchange(raw, [select])
                expected = ["SELECT count(*) FROM nodes WHERE id = $1"] if prepared else []
                assert _prepared(raw) == expected
                conn.rollback()
    finally:
        db.dispose()


def test_an_exchange_cut_short_raises_what_cut_it(
    connection: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Results still unread when something stops the exchange (an interrupt while waiting):
    leaving pipeline mode then fails too, and that must not hide what stopped it."""

    class Interrupted(Exception):
        """What stops the wait for the answers."""

    results = pg_exchange._results
    calls = []

    def interrupted_once(pgconn: Any) -> list[Any]:
        calls.append(pgconn)
        if len(calls) == 1:
            raise Interrupted
        return results(pgconn)

    monkeypatch.setattr(pg_exchange, "_results", interrupted_once)
    with pytest.raises(Interrupted):
        pg_exchange.exchange(connection, [(ROW, _values("cut"))])
    connection.rollback()  # the statement ran in the transaction the caller rolls back
    [count] = pg_exchange.exchange(connection, [("SELECT count(*) FROM things", ())])
    assert count.fetchall() == [(0,)]


def _widened_under_prepared_statements(server: PostgresServer) -> list[str]:
    """A column widened twice under connections that prepared a statement reading it; the
    reads recover at once, the transactions as a conflict. The errors' messages, in order."""
    name = f"stale_{uuid.uuid4().hex[:8]}"
    server.create_database(name)
    server.execute("CREATE TABLE widened (label varchar(10))", database=name)
    server.execute("INSERT INTO widened VALUES ('first')", database=name)
    select = "SELECT label FROM widened"
    messages = []
    with (
        psycopg.connect(server.url(name, driver=""), autocommit=True) as reads,
        psycopg.connect(server.url(name, driver="")) as writes,
    ):
        for _ in range(pg_exchange.PREPARE_AFTER + 1):
            pg_exchange.exchange(reads, [(select, ())])
            pg_exchange.exchange(writes, [(select, ())], commit=True)
        assert _prepared(reads) != [] and _prepared(writes) != []
        writes.rollback()
        for width in (300, 400):
            server.execute(
                f"ALTER TABLE widened ALTER COLUMN label TYPE varchar({width})", database=name
            )

            [result] = pg_exchange.exchange(reads, [(select, ())])
            assert result.fetchall() == [("first",)]
            with pytest.raises(pg_exchange.StatementFailed) as failed:
                pg_exchange.exchange(writes, [(select, ())], commit=True)
            messages.append(str(failed.value.error))
            assert outage.classify(failed.value.error) == "conflict"
            writes.rollback()
            for _ in range(pg_exchange.PREPARE_AFTER + 1):  # prepared again on the way
                [result] = pg_exchange.exchange(writes, [(select, ())], commit=True)
                assert result.fetchall() == [("first",)]
    return messages


def test_a_statement_prepared_before_its_column_changed_type_is_prepared_again(
    postgres_server: PostgresServer,
) -> None:
    """An upgrade that widens a column while a process runs: PostgreSQL refuses the
    statements that process prepared before ("cached plan must not change result type"). On
    an autocommit connection (reads) the exchange runs again at once; in a transaction the
    failure is a conflict for the operation to run again (its transaction was rolled back).
    Either way the connection's statements are prepared anew and read the new type."""
    messages = _widened_under_prepared_statements(postgres_server)
    assert messages == ["cached plan must not change result type"] * 2


def test_a_stale_plan_is_recognised_whatever_language_the_server_speaks(
    german_postgres_server: PostgresServer,
) -> None:
    """A server whose lc_messages is German words the refusal in German: it is told by the
    server function that raised it, not by the English text (which kept a connection
    answering 500 until it closed)."""
    messages = _widened_under_prepared_statements(german_postgres_server)
    assert messages == ["gecachter Plan darf den Ergebnistyp nicht ändern"] * 2
