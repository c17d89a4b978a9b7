"""Schema 0008: a node's instance_name moves from its ``attrs`` bag into an indexed column,
and back on downgrade, on each database."""

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


def _attrs(db: Database) -> dict[int, dict[str, object]]:
    with db.engine.begin() as conn:
        rows = conn.exec_driver_sql("SELECT id, attrs FROM nodes ORDER BY id").all()
    return {row[0]: row[1] if isinstance(row[1], dict) else json.loads(row[1]) for row in rows}


def _moves_and_returns(url: str) -> None:
    db = Database(url)
    try:
        migrations.upgrade(db.engine, "0007")
        with db.engine.begin() as conn:
            named = json.dumps({"instance_name": "vm-1", "description": "kept"})
            conn.exec_driver_sql(_NODE.format(id=1, attrs=named))
            conn.exec_driver_sql(_NODE.format(id=2, attrs=json.dumps({"description": "none"})))
        migrations.upgrade(db.engine, "0008")
        assert migrations.current_revision(db.engine) == "0008"
        columns = {c["name"] for c in inspect(db.engine).get_columns("nodes")}
        assert "instance_name" in columns
        indexes = {i["name"] for i in inspect(db.engine).get_indexes("nodes")}
        assert "ix_nodes_instance_name" in indexes
        with db.engine.begin() as conn:
            rows = conn.exec_driver_sql("SELECT id, instance_name FROM nodes ORDER BY id").all()
        assert [tuple(r) for r in rows] == [(1, "vm-1"), (2, None)]
        assert _attrs(db) == {1: {"description": "kept"}, 2: {"description": "none"}}

        command.downgrade(migrations.alembic_config(db.engine), "0007")
        columns = {c["name"] for c in inspect(db.engine).get_columns("nodes")}
        assert "instance_name" not in columns
        assert _attrs(db) == {
            1: {"description": "kept", "instance_name": "vm-1"},
            2: {"description": "none"},
        }
    finally:
        db.dispose()


def test_instance_name_moves_to_its_column_and_back_on_sqlite(tmp_path: Path) -> None:
    _moves_and_returns(f"sqlite:///{tmp_path / 'metalwire.db'}")


@pytest.mark.postgresql
def test_instance_name_moves_to_its_column_and_back_on_postgresql(
    postgres_server: PostgresServer,
) -> None:
    _moves_and_returns(postgres_server.create_database(f"mw_0008_{uuid.uuid4().hex[:8]}"))


@pytest.mark.mariadb
def test_instance_name_moves_to_its_column_and_back_on_mariadb(
    mariadb_server: MariaDBServer,
) -> None:
    _moves_and_returns(mariadb_server.create_database(f"mw_0008_{uuid.uuid4().hex[:8]}"))
