"""The conductor registry: a server registers, heartbeats and stops cleanly as Ironic's
conductor does, takes over its host's row with a warning, and tells who serves which
hardware type (one rule each, on a clock the test moves)."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Iterator

import pytest

from metalwire.conductor.registry import Registry, Serving
from metalwire.config import Config
from metalwire.db import conductors as conductor_db
from metalwire.db.engine import Database
from metalwire.db.models import Conductor

T0 = dt.datetime(2026, 12, 5, 12, 0, tzinfo=dt.UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


@pytest.fixture
def db(config: Config) -> Iterator[Database]:
    database = Database(config.database_url())
    yield database
    database.dispose()


@pytest.fixture
def clock() -> Clock:
    return Clock()


def _registry(
    db: Database, clock: Clock, host: str = "c1", drivers: tuple[str, ...] = ("ipmi",)
) -> Registry:
    return Registry(db, host, drivers, heartbeat_interval=10, heartbeat_timeout=60, clock=clock)


def _row(db: Database, host: str) -> Conductor:
    with db.read() as session:
        return conductor_db.get(session, host)


def test_a_registered_server_stays_alive_while_it_heartbeats(db: Database, clock: Clock) -> None:
    registry = _registry(db, clock)
    registry.register()
    for _ in range(10):
        clock.advance(10)
        registry.heartbeat()
        assert registry.is_alive(_row(db, "c1"))
    clock.advance(61)
    assert not registry.is_alive(_row(db, "c1"))


def test_a_clean_stop_is_offline_at_once(db: Database, clock: Clock) -> None:
    registry = _registry(db, clock)
    registry.register()
    registry.unregister()
    row = _row(db, "c1")
    assert row.online is False
    assert not registry.is_alive(row)


def test_a_server_finding_its_host_alive_takes_over_and_warns_of_a_second_server(
    db: Database, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    _registry(db, clock).register()
    clock.advance(5)
    second = _registry(db, clock, drivers=("redfish",))
    second.register()
    assert "another server may be running with [DEFAULT] host c1" in caplog.text
    row = _row(db, "c1")
    assert (row.online, list(row.drivers)) == (True, ["redfish"])


def test_a_server_finding_its_host_stale_says_it_did_not_stop_cleanly(
    db: Database, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    _registry(db, clock).register()
    clock.advance(120)
    _registry(db, clock).register()
    assert "Conductor c1 was registered and did not stop cleanly" in caplog.text
    assert "another server" not in caplog.text


def test_a_heartbeat_registers_again_when_the_row_is_gone(
    db: Database, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    registry = _registry(db, clock)
    registry.heartbeat()  # never registered (a row deleted by hand reads the same)
    assert "Conductor c1 had no registration; registering again" in caplog.text
    assert _row(db, "c1").online is True


def _serving(rows: list[Conductor], now: dt.datetime = T0) -> Serving:
    registry = Registry(None, "me", ("fake-hardware", "ipmi"), 10, 60, clock=lambda: now)  # type: ignore[arg-type]
    return registry.serving(rows)


def _conductor(host: str, drivers: list[str], age: float = 0, online: bool = True) -> Conductor:
    return Conductor(
        hostname=host, drivers=drivers, online=online, updated_at=T0 - dt.timedelta(seconds=age)
    )


def test_the_server_answering_serves_the_types_it_enables_and_others_the_rest() -> None:
    served = _serving(
        [
            _conductor("me", ["fake-hardware", "ipmi"], age=1_000),  # its own row: ignored
            _conductor("b-host", ["ipmi", "ilo"]),
            _conductor("a-host", ["ilo"]),
            _conductor("gone", ["idrac"], online=False),
            _conductor("dead", ["irmc"], age=61),
        ]
    )
    assert served.drivers == ["fake-hardware", "ipmi", "ilo"]
    assert served.hosts("ipmi") == ["b-host", "me"]
    assert served.conductor_of("ipmi") == "me"
    assert served.conductor_of("ilo") == "a-host"  # the first by host name
    assert served.conductor_of("idrac") is None
    assert served.drivers_of("me") == ["fake-hardware", "ipmi"]
    assert served.drivers_of("a-host") == ["ilo"]
    assert served.drivers_of("b-host") == []
    assert served.drivers_of("dead") == []


def test_two_servers_registering_one_new_host_at_once_both_start(
    db: Database, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    """The first one's row is not committed yet when the second looks for it: the second
    waits for it (SQLite: the write turn; PostgreSQL and MariaDB: the host's unique key, or a
    deadlock run again) and takes it over instead of failing to start."""
    first_inserted = threading.Event()
    errors: list[BaseException] = []

    def first() -> None:
        try:
            with db.writing() as work:
                work.conductors.register("c1", ["ipmi"], "", clock())
                first_inserted.set()
                time.sleep(0.5)  # the second registers meanwhile
        except BaseException as exc:
            errors.append(exc)
            first_inserted.set()

    thread = threading.Thread(target=first)
    thread.start()
    first_inserted.wait(10)
    _registry(db, clock, drivers=("redfish",)).register()
    thread.join(10)
    assert errors == []
    row = _row(db, "c1")
    assert (row.online, list(row.drivers)) == (True, ["redfish"])
    assert "another server may be running with [DEFAULT] host c1" in caplog.text
