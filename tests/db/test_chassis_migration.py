"""Schema 0011: chassis get a table; every chassis_uuid the nodes recorded before (when any
UUID was taken) becomes a chassis, so the nodes keep it and the new rule holds, on each
database."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect

from metalwire.db import migrations
from metalwire.db.engine import Database
from tests.support.mariadb import MariaDBServer
from tests.support.postgres import PostgresServer

_NODE = (
    "INSERT INTO nodes (id, uuid, driver, network_interface, provision_state, maintenance, "
    "conductor_group, properties, extra, instance_info, driver_info, driver_internal_info, "
    "attrs, created_at) VALUES ({id}, 'node-{id}', 'fake-hardware', 'noop', 'enroll', "
    "false, '', '{{}}', '{{}}', '{{}}', '{{}}', '{{}}', '{attrs}', '2026-01-01')"
)
RACK_A = "0d5b5a1e-2f3c-4c1e-9a57-1b2b3c4d5e6f"
RACK_B = "7e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"


def _chassis(db: Database) -> list[tuple[str, object, object]]:
    with db.engine.begin() as conn:
        rows = conn.exec_driver_sql("SELECT uuid, description, extra FROM chassis").all()
    return sorted(
        (row[0], row[1], row[2] if isinstance(row[2], dict) else json.loads(row[2])) for row in rows
    )


def _recorded_chassis_become_chassis(url: str) -> None:
    db = Database(url)
    try:
        migrations.upgrade(db.engine, "0010")
        with db.engine.begin() as conn:
            for node_id, attrs in (
                (1, {"chassis_uuid": RACK_A, "description": "kept"}),
                (2, {"chassis_uuid": RACK_A}),
                (3, {"chassis_uuid": RACK_B}),
                (4, {"chassis_uuid": None}),
                (5, {}),
            ):
                conn.exec_driver_sql(_NODE.format(id=node_id, attrs=json.dumps(attrs)))
        migrations.upgrade(db.engine, "0011")
        assert migrations.current_revision(db.engine) == "0011"
        assert _chassis(db) == [(RACK_A, None, {}), (RACK_B, None, {})]
        with db.engine.begin() as conn:
            attrs = conn.exec_driver_sql("SELECT attrs FROM nodes WHERE id = 1").scalar_one()
        stored = attrs if isinstance(attrs, dict) else json.loads(attrs)
        assert stored == {"chassis_uuid": RACK_A, "description": "kept"}

        command.downgrade(migrations.alembic_config(db.engine), "0010")
        assert "chassis" not in inspect(db.engine).get_table_names()
        migrations.upgrade(db.engine, "head")
        assert _chassis(db) == [(RACK_A, None, {}), (RACK_B, None, {})]
    finally:
        db.dispose()


def test_on_sqlite(tmp_path: Path) -> None:
    _recorded_chassis_become_chassis(f"sqlite:///{tmp_path / 'metalwire.db'}")


@pytest.mark.postgresql
def test_on_postgresql(postgres_server: PostgresServer) -> None:
    url = postgres_server.create_database(f"mw_0011_{uuid.uuid4().hex[:8]}")
    _recorded_chassis_become_chassis(url)


@pytest.mark.mariadb
def test_on_mariadb(mariadb_server: MariaDBServer) -> None:
    url = mariadb_server.create_database(f"mw_0011_{uuid.uuid4().hex[:8]}")
    _recorded_chassis_become_chassis(url)
