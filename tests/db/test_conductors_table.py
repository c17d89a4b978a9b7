"""Schema 0012: the conductor registry's table, on each database, and its repository's
register, heartbeat and clean stop as Ironic's conductors write theirs."""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect

from metalwire.db import conductors as conductor_db
from metalwire.db import migrations
from metalwire.db.engine import Database
from metalwire.db.models import Conductor
from tests.support.mariadb import MariaDBServer
from tests.support.postgres import PostgresServer

T0 = dt.datetime(2026, 12, 5, 12, 0, tzinfo=dt.UTC)


def _rows(db: Database) -> dict[str, tuple[bool, dt.datetime | None, list[str]]]:
    with db.read() as session:
        return {
            row.hostname: (
                row.online,
                None if row.updated_at is None else conductor_db.aware(row.updated_at),
                list(row.drivers),
            )
            for row in conductor_db.all_conductors(session)
        }


def _registry_round_trip(url: str) -> None:
    db = Database(url)
    try:
        migrations.upgrade(db.engine, "0011")
        assert "conductors" not in inspect(db.engine).get_table_names()
        migrations.upgrade(db.engine, "0012")
        columns = {c["name"] for c in inspect(db.engine).get_columns("conductors")}
        assert columns == {
            "id",
            "hostname",
            "conductor_group",
            "drivers",
            "online",
            "created_at",
            "updated_at",
        }
        with db.writing() as work:
            assert work.conductors.register("c1", ["ipmi", "redfish"], "", T0) is None
        assert _rows(db) == {"c1": (True, T0, ["ipmi", "redfish"])}

        later = T0 + dt.timedelta(seconds=10)
        with db.writing() as work:
            assert work.conductors.touch("c1", later)
            assert not work.conductors.touch("c2", later)
        assert _rows(db)["c1"][:2] == (True, later)

        stopped = later + dt.timedelta(seconds=1)
        with db.writing() as work:
            assert work.conductors.unregister("c1", stopped)
            assert not work.conductors.unregister("c1", stopped)  # offline already
        assert _rows(db)["c1"][:2] == (False, stopped)

        again = stopped + dt.timedelta(seconds=5)
        with db.writing() as work:
            previous = work.conductors.register("c1", ["ipmi"], "", again)
        assert previous == conductor_db.Previous(online=False, updated_at=stopped)
        assert _rows(db) == {"c1": (True, again, ["ipmi"])}

        command.downgrade(migrations.alembic_config(db.engine), "0011")
        assert "conductors" not in inspect(db.engine).get_table_names()
        migrations.upgrade(db.engine, "head")
        assert _rows(db) == {}
    finally:
        db.dispose()


def test_on_sqlite(tmp_path: Path) -> None:
    _registry_round_trip(f"sqlite:///{tmp_path / 'metalwire.db'}")


@pytest.mark.postgresql
def test_on_postgresql(postgres_server: PostgresServer) -> None:
    _registry_round_trip(postgres_server.create_database(f"mw_0012_{uuid.uuid4().hex[:8]}"))


@pytest.mark.mariadb
def test_on_mariadb(mariadb_server: MariaDBServer) -> None:
    _registry_round_trip(mariadb_server.create_database(f"mw_0012_{uuid.uuid4().hex[:8]}"))


def test_a_conductor_is_alive_while_online_and_heartbeating_within_the_timeout() -> None:
    row = Conductor(hostname="c", drivers=[], online=True, updated_at=T0)
    assert conductor_db.is_alive(row, T0 + dt.timedelta(seconds=60), timeout=60)
    assert not conductor_db.is_alive(row, T0 + dt.timedelta(seconds=61), timeout=60)
    row.online = False
    assert not conductor_db.is_alive(row, T0, timeout=60)
    naive = Conductor(hostname="c", drivers=[], online=True, updated_at=T0.replace(tzinfo=None))
    assert conductor_db.is_alive(naive, T0, timeout=1)  # SQLite gives the time back naive
