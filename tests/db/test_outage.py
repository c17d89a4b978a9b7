"""Deadlocks and serialization failures retried, on the real PostgreSQL and MariaDB."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator

import psycopg
import pymysql
import pytest
from prometheus_client import REGISTRY

from metalwire.db import outage
from metalwire.db.engine import Database
from metalwire.errors import CommitOutcomeUnknown, DatabaseUnavailable, TransactionConflict


@pytest.fixture(
    params=[
        pytest.param("postgresql", marks=pytest.mark.postgresql),
        pytest.param("mariadb", marks=pytest.mark.mariadb),
    ]
)
def db(request: pytest.FixtureRequest) -> Iterator[Database]:
    database = Database(request.getfixturevalue(f"{request.param}_url"))
    with database.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE IF EXISTS outage_probe")
        conn.exec_driver_sql("CREATE TABLE outage_probe (id INTEGER PRIMARY KEY, value INTEGER)")
        conn.exec_driver_sql("INSERT INTO outage_probe VALUES (1, 0), (2, 0)")
    yield database
    with database.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE outage_probe")
    database.dispose()


def _retried() -> float:
    return (
        REGISTRY.get_sample_value("metalwire_database_errors_total", {"reason": "conflict_retried"})
        or 0.0
    )


def _crossed_updates(
    db: Database, commit_first: bool
) -> tuple[Callable[[int, int], Callable[[], None]], dict[int, int]]:
    """Operations that update both rows in opposite orders, meeting at a barrier on their
    first attempt, so that the database must refuse one of them (a deadlock)."""
    barrier = threading.Barrier(2, timeout=20)
    attempts: dict[int, int] = {1: 0, 2: 0}

    def operation(first: int, second: int) -> Callable[[], None]:
        def run() -> None:
            attempts[first] += 1
            if commit_first:
                with db.write_connection() as conn:
                    conn.exec_driver_sql(
                        f"UPDATE outage_probe SET value = value WHERE id = {first}"
                    )
            with db.write_connection() as conn:
                conn.exec_driver_sql(
                    f"UPDATE outage_probe SET value = value + 1 WHERE id = {first}"
                )
                if attempts[first] == 1:
                    barrier.wait()
                conn.exec_driver_sql(
                    f"UPDATE outage_probe SET value = value + 1 WHERE id = {second}"
                )

        return run

    return operation, attempts


def _race(calls: list[Callable[[], None]]) -> list[BaseException]:
    errors: list[BaseException] = []

    def run(call: Callable[[], None]) -> None:
        try:
            outage.retrying(call)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return errors


def test_a_deadlock_is_retried_until_both_operations_commit(db: Database) -> None:
    before = _retried()
    operation, attempts = _crossed_updates(db, commit_first=False)
    assert _race([operation(1, 2), operation(2, 1)]) == []
    with db.connection() as conn:
        values = dict(conn.exec_driver_sql("SELECT id, value FROM outage_probe").all())
    assert values == {1: 2, 2: 2}  # both operations, each once
    assert sorted(attempts.values()) == [1, 2]
    assert _retried() == before + 1


def test_an_operation_that_committed_before_its_conflict_is_not_run_again(db: Database) -> None:
    operation, attempts = _crossed_updates(db, commit_first=True)
    errors = _race([operation(1, 2), operation(2, 1)])
    assert [type(e) for e in errors] == [TransactionConflict]
    error = errors[0]
    assert isinstance(error, TransactionConflict) and error.code == 503
    assert "deadlock" in error.reason.lower()  # the database's words, for the log
    assert attempts == {1: 1, 2: 1}


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        (1213, "conflict"),  # InnoDB deadlock, and a Galera certification failure
        (1205, "conflict"),  # lock wait timeout, and a Galera causal read that timed out
        (1047, "unavailable"),  # a Galera node that is not ready (rejoining)
        (1180, "unavailable"),  # a COMMIT cut off by a Galera membership change: done or not
        (2003, "unavailable"),  # cannot connect
        (2013, "unavailable"),  # lost connection during a query
        (1062, None),  # a duplicate key is the caller's to explain
    ],
)
def test_mariadb_error_numbers_are_told_apart(code: int, kind: str | None) -> None:
    error_class = pymysql.err.IntegrityError if code == 1062 else pymysql.err.OperationalError
    assert outage.classify(error_class(code, "message")) == kind


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("cached plan must not change result type", "conflict"),
        ("FOR UPDATE is not allowed with aggregate functions", None),
    ],
)
def test_a_feature_not_supported_without_its_source_function_is_told_by_its_text(
    message: str, kind: str | None
) -> None:
    """The server names the function that raised an error (tests/db/test_pg_exchange.py, in
    English and German); an error that names none (a server that does not send it) is told by
    the English text."""
    error = psycopg.errors.FeatureNotSupported(message)
    assert error.sqlstate == "0A000" and error.diag.source_function is None
    assert outage.classify(error) == kind


def test_an_unavailable_database_is_the_catalogs_503_with_retry_after() -> None:
    error = outage.translated(pymysql.err.OperationalError(2003, "Can't connect to server"))
    assert isinstance(error, DatabaseUnavailable)
    assert (error.code, error.retry_after) == (503, 2)
    assert "database is unavailable" in error.message


# MariaDB 10.11's words for a COMMIT whose replication the node could not finish
GALERA_COMMIT_CUT_OFF = (
    "Error while appending streaming replication fragment"
    "(provider status: Not connected to Primary Component)"
)


def test_a_commit_cut_off_by_a_membership_change_says_it_may_have_been_stored() -> None:
    """A surviving Galera node answers 1180 to a COMMIT it was replicating as the cluster
    evicted a crashed node; the client is told to read before writing again."""
    error = outage.translated(pymysql.err.OperationalError(1180, GALERA_COMMIT_CUT_OFF))
    assert isinstance(error, CommitOutcomeUnknown)
    assert (error.code, error.retry_after, error.not_ready) == (503, 2, False)
    assert error.message == (
        "The database could not confirm the commit of this change (its cluster's "
        "membership changed while the commit was being replicated): it may have been "
        "stored. Read before writing again; retry in 2 seconds."
    )


def test_a_lost_connection_is_not_said_to_be_a_commit_of_unknown_outcome() -> None:
    error = outage.translated(pymysql.err.OperationalError(2013, "Lost connection"))
    assert isinstance(error, DatabaseUnavailable)
    assert not isinstance(error, CommitOutcomeUnknown)


def _failing(times: int, exc: BaseException, commit: bool = False) -> Callable[[], str]:
    """An operation whose first ``times`` runs fail with ``exc`` as the engine raises it."""
    runs = {"n": 0}

    def operation() -> str:
        runs["n"] += 1
        if runs["n"] <= times:
            if commit:
                outage.note_commit()
            error = outage.translated(exc)
            assert error is not None
            raise error
        return f"ran {runs['n']} times"

    return operation


def test_a_server_that_is_not_ready_for_a_moment_is_waited_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(outage, "NOT_READY_BACKOFF", 0.01)
    not_ready = pymysql.err.OperationalError(1047, "WSREP has not yet prepared node")
    assert outage.retrying(_failing(3, not_ready)) == "ran 4 times"


def test_a_server_that_stays_not_ready_is_a_503_after_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(outage, "NOT_READY_WAIT", 0.2)
    monkeypatch.setattr(outage, "NOT_READY_BACKOFF", 0.01)
    not_ready = pymysql.err.OperationalError(1047, "WSREP has not yet prepared node")
    with pytest.raises(DatabaseUnavailable) as raised:
        outage.retrying(_failing(10_000, not_ready))
    assert raised.value.not_ready and raised.value.code == 503


@pytest.mark.parametrize(
    ("exc", "commit"),
    [
        (pymysql.err.OperationalError(2003, "Can't connect to server"), False),  # down
        (pymysql.err.OperationalError(1047, "WSREP has not yet prepared node"), True),
        (pymysql.err.OperationalError(1180, GALERA_COMMIT_CUT_OFF), False),
    ],
    ids=["a server that is down", "after the operation committed", "a COMMIT cut off"],
)
def test_not_ready_is_not_waited_for(exc: BaseException, commit: bool) -> None:
    with pytest.raises(DatabaseUnavailable):
        outage.retrying(_failing(1, exc, commit=commit))


def test_the_pools_tracebacks_about_dropped_connections_become_one_warning_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger("tests.pool")
    logger.addFilter(outage.QuietPoolErrors())
    lost = pymysql.err.OperationalError(2013, "Lost connection to server during query")
    for _ in range(3):  # three connections dropped at once: one line
        try:
            raise lost
        except pymysql.err.OperationalError:
            logger.error("Exception during reset or similar", exc_info=True)
    try:
        raise ValueError("a bug")
    except ValueError:
        logger.error("Exception during reset or similar", exc_info=True)
    records = [r for r in caplog.records if r.name == "tests.pool"]
    assert [(r.levelname, r.exc_info is None) for r in records] == [
        ("WARNING", True),
        ("ERROR", False),  # anything else keeps its traceback
    ]
    assert "Lost connection to server during query" in records[0].getMessage()


def test_a_burst_of_one_database_error_does_not_hide_another(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """While the cluster's membership changes, a Galera node answers 1047 to every request
    for a second or two, which are waited for; a lost connection meanwhile, answered 503,
    still gets its own warning line."""
    monkeypatch.setattr(outage, "_OUTAGE_LOG", outage._RateLimitedLog(60.0))
    not_ready = pymysql.err.OperationalError(1047, "WSREP has not yet prepared node")
    lost = pymysql.err.OperationalError(2013, "Lost connection to server during query")
    for error in [not_ready, not_ready, lost, not_ready, lost]:
        outage.translated(error)
    lines = [r.getMessage() for r in caplog.records if r.name == "metalwire.db.outage"]
    assert lines == [
        "database unavailable: OperationalError: (1047, 'WSREP has not yet prepared node')",
        "database unavailable: OperationalError: (2013, 'Lost connection to server during query')",
    ]
