"""A port's ``available_for_dynamic_portgroup`` is true unless set otherwise: for the ports a
database holds when it is upgraded past 0007 and for rows written without the column, as in
Ironic's schema (0007 and 0010), on each database; 0010's downgrade puts back false."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from alembic import command

from metalwire.db import migrations
from metalwire.db.engine import Database
from tests.support.mariadb import MariaDBServer
from tests.support.postgres import PostgresServer

_NODE = (
    "INSERT INTO nodes (id, uuid, driver, network_interface, provision_state, maintenance, "
    "conductor_group, properties, extra, instance_info, driver_info, driver_internal_info, "
    "attrs, created_at) VALUES (1, 'node-1', 'fake-hardware', 'noop', 'enroll', "
    "false, '', '{}', '{}', '{}', '{}', '{}', '{}', '2026-01-01')"
)
_PORT = (
    "INSERT INTO ports (id, uuid, node_id, address, local_link_connection, pxe_enabled, "
    "is_smartnic, extra, internal_info, created_at) VALUES ({id}, 'port-{id}', 1, "
    "'52:54:00:00:00:0{id}', '{{}}', true, false, '{{}}', '{{}}', '2026-01-01')"
)


def _available(db: Database) -> dict[int, bool]:
    with db.engine.begin() as conn:
        rows = conn.exec_driver_sql(
            "SELECT id, available_for_dynamic_portgroup FROM ports ORDER BY id"
        ).all()
    return {row[0]: bool(row[1]) for row in rows}


def _defaults_to_true(url: str) -> None:
    db = Database(url)
    try:
        migrations.upgrade(db.engine, "0006")
        with db.engine.begin() as conn:
            conn.exec_driver_sql(_NODE)
            conn.exec_driver_sql(_PORT.format(id=1))
        migrations.upgrade(db.engine, "0010")
        assert migrations.current_revision(db.engine) == "0010"
        with db.engine.begin() as conn:
            conn.exec_driver_sql(_PORT.format(id=2))
        assert _available(db) == {1: True, 2: True}

        command.downgrade(migrations.alembic_config(db.engine), "0009")
        with db.engine.begin() as conn:
            conn.exec_driver_sql(_PORT.format(id=3))
        assert _available(db) == {1: True, 2: True, 3: False}
    finally:
        db.dispose()


def test_on_sqlite(tmp_path: Path) -> None:
    _defaults_to_true(f"sqlite:///{tmp_path / 'metalwire.db'}")


@pytest.mark.postgresql
def test_on_postgresql(postgres_server: PostgresServer) -> None:
    _defaults_to_true(postgres_server.create_database(f"mw_0010_{uuid.uuid4().hex[:8]}"))


@pytest.mark.mariadb
def test_on_mariadb(mariadb_server: MariaDBServer) -> None:
    _defaults_to_true(mariadb_server.create_database(f"mw_0010_{uuid.uuid4().hex[:8]}"))
