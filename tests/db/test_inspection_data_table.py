"""Schema 0016: what an inspection stored, on each database: one row per node, replaced by
the next, deleted with its node."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect

from metalwire.db import migrations
from metalwire.db.engine import Database
from tests.support.mariadb import MariaDBServer
from tests.support.postgres import PostgresServer

NODE = {
    "uuid": "16161616-0000-4000-8000-000000000001",
    "driver": "fake-hardware",
    "network_interface": "noop",
    "provision_state": "manageable",
}
INVENTORY = {"interfaces": [{"name": "eth0", "mac_address": "52:54:00:30:00:01"}]}


def _round_trip(url: str) -> None:
    db = Database(url)
    try:
        migrations.upgrade(db.engine, "0015")
        assert "inspection_data" not in inspect(db.engine).get_table_names()
        migrations.upgrade(db.engine, "0016")
        columns = {c["name"] for c in inspect(db.engine).get_columns("inspection_data")}
        assert columns == {"node_id", "inventory", "plugin_data", "created_at"}

        with db.writing() as work:
            node = work.nodes.create(NODE)
            work.inspection_data.store(node.id, INVENTORY, {"error": None})
        with db.writing() as work:
            work.inspection_data.store(node.id, {**INVENTORY, "hostname": "again"}, {})
        with db.reading() as work:
            stored = work.inspection_data.of_node(node.id)
            assert stored is not None
            assert (stored.inventory["hostname"], stored.plugin_data) == ("again", {})
        with db.writing() as work:
            work.nodes.delete(node.id)
        with db.reading() as work:
            assert work.inspection_data.of_node(node.id) is None

        command.downgrade(migrations.alembic_config(db.engine), "0015")
        assert "inspection_data" not in inspect(db.engine).get_table_names()
    finally:
        db.dispose()


def test_on_sqlite(tmp_path: Path) -> None:
    _round_trip(f"sqlite:///{tmp_path / 'metalwire.db'}")


@pytest.mark.postgresql
def test_on_postgresql(postgres_server: PostgresServer) -> None:
    _round_trip(postgres_server.create_database(f"mw_0016_{uuid.uuid4().hex[:8]}"))


@pytest.mark.mariadb
def test_on_mariadb(mariadb_server: MariaDBServer) -> None:
    _round_trip(mariadb_server.create_database(f"mw_0016_{uuid.uuid4().hex[:8]}"))
