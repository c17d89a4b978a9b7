"""The SQLite file locked by another process: a write waits its turn at most
``[database] sqlite_write_wait`` seconds in all, then DatabaseBusy (503), counted and logged;
a read that finds the file locked too; a write that must not wait gives way."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from metalwire.db import outage
from metalwire.db.busy import WriterBusy
from metalwire.db.engine import Database
from metalwire.errors import DatabaseBusy, DatabaseFailure

WAIT = 0.4  # [database] sqlite_write_wait in these tests


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "metalwire.db"


@pytest.fixture
def db(path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{path}", sqlite_write_wait=WAIT)
    with database.write_connection() as connection:
        connection.exec_driver_sql("CREATE TABLE probe (id INTEGER PRIMARY KEY, value TEXT)")
    yield database
    database.dispose()


@contextmanager
def other_process(path: Path, exclusive: bool = False) -> Iterator[sqlite3.Connection]:
    """Another process's connection holding the file's write lock (in exclusive locking
    mode, as some tools run, it shuts readers out too)."""
    other = sqlite3.connect(path, isolation_level=None, timeout=5)
    try:
        if exclusive:
            other.execute("PRAGMA locking_mode=EXCLUSIVE")
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO probe (value) VALUES ('other')")
        yield other
        other.execute("ROLLBACK")
    finally:
        other.close()


def _busy_count() -> float:
    return REGISTRY.get_sample_value("metalwire_database_errors_total", {"reason": "busy"}) or 0


def _in_transaction(db: Database) -> bool:
    """Whether a read on the kept connection runs in one transaction, as it should."""
    with db.connection() as connection:
        connection.exec_driver_sql("SELECT count(*) FROM probe").scalar()
        raw = connection.connection.dbapi_connection
        assert raw is not None
        return bool(raw.in_transaction)


def test_a_write_behind_another_process_is_busy_after_the_write_wait(
    db: Database, path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    before = _busy_count()
    with other_process(path), caplog.at_level(logging.WARNING, "metalwire.db.outage"):
        started = time.monotonic()
        with pytest.raises(DatabaseBusy) as raised, db.writing() as work:
            pytest.fail(f"a write transaction began beside another writer: {work}")
        waited = time.monotonic() - started
    assert str(raised.value) == (
        f"No write turn on the SQLite database within {WAIT:g} s: another process holds "
        "its write lock; retry in 2 seconds."
    )
    assert isinstance(raised.value, DatabaseFailure) and raised.value.code == 503
    assert raised.value.retry_after == 2
    assert WAIT - 0.05 < waited < WAIT + 0.5
    assert _busy_count() == before + 1
    [record] = caplog.records
    assert record.levelname == "WARNING" and record.exc_info is None
    assert "database busy: No write turn" in record.getMessage()
    # The lock let go, the next write goes through, and reads still run in a transaction.
    with db.write_connection() as connection:
        connection.exec_driver_sql("INSERT INTO probe (value) VALUES ('ours')")
    with db.connection() as connection:
        values = connection.exec_driver_sql("SELECT value FROM probe").scalars().all()
    assert values == ["ours"]  # the other process's row rolled back, ours stored
    assert _in_transaction(db)


def test_the_write_wait_bounds_the_queue_in_this_process_and_the_lock_together(
    db: Database, path: Path
) -> None:
    """A write queued behind this process's own writer, itself behind another process,
    gives up when its own wait is spent, not that wait plus SQLite's busy timeout."""
    first_failed: list[BaseException] = []

    def first_writer() -> None:
        try:
            with db.write_connection():
                pass
        except DatabaseBusy as exc:
            first_failed.append(exc)

    with other_process(path):
        first = threading.Thread(target=first_writer)
        first.start()
        time.sleep(WAIT / 2)  # the first writer waits for the lock, holding the turn
        started = time.monotonic()
        busy = pytest.raises(DatabaseBusy, match="another process holds its write lock")
        with busy, db.write_connection():
            pass
        waited = time.monotonic() - started
        first.join()
    assert first_failed
    assert waited < WAIT + 0.15, waited  # not WAIT / 2 + WAIT


def test_a_write_that_must_not_wait_gives_way_and_reads_keep_their_transaction(
    db: Database, path: Path
) -> None:
    """The event loop's try: WriterBusy at once; the connection it used is as good as new
    (SQLAlchemy stops beginning transactions on a connection whose begin event raised)."""
    assert _in_transaction(db)
    with other_process(path):
        started = time.monotonic()
        gives_way = pytest.raises(WriterBusy, match="another process holds the write lock")
        with gives_way, db.write_connection(wait=False):
            pytest.fail("a write transaction began beside another writer")
        assert time.monotonic() - started < WAIT / 2
    assert _in_transaction(db)
    with db.write_connection(wait=False) as connection:  # the busy timeout is back
        connection.exec_driver_sql("INSERT INTO probe (value) VALUES ('ours')")


def test_a_read_of_a_file_locked_exclusively_is_busy_not_an_internal_error(
    db: Database, path: Path
) -> None:
    db.dispose()  # exclusive locking mode needs the file to itself when it starts
    reader = Database(f"sqlite:///{path}", sqlite_write_wait=WAIT)
    try:
        before = _busy_count()
        with (
            other_process(path, exclusive=True),
            pytest.raises(DatabaseBusy) as raised,
            reader.connection() as connection,
        ):
            connection.exec_driver_sql("SELECT count(*) FROM probe").scalar()
        assert str(raised.value) == (
            "Another process holds a lock on the SQLite database (OperationalError: "
            "database is locked); retry in 2 seconds."
        )
        assert _busy_count() == before + 1
        assert _in_transaction(reader)
    finally:
        reader.dispose()


def test_sqlite_busy_is_classified_busy_and_other_errors_are_not(path: Path) -> None:
    holder = sqlite3.connect(path, isolation_level=None)
    waiter = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError) as locked:
            waiter.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError) as missing:
            waiter.execute("SELECT * FROM no_such_table")
    finally:
        holder.close()
        waiter.close()
    assert outage.classify(locked.value) == "busy"
    assert outage.classify(missing.value) is None
    assert outage.classify(WriterBusy("database is locked")) is None
    assert outage.classify(DatabaseBusy("database is locked")) is None
