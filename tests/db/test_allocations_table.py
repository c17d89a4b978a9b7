"""Schema 0014: the allocations table on each database; an allocation outlives its node
(as Ironic's, it is left without one) and a node is held by one allocation at most."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect

from metalwire.db import migrations
from metalwire.db.engine import Database
from metalwire.errors import Conflict
from tests.support.mariadb import MariaDBServer
from tests.support.postgres import PostgresServer

NODE = {
    "uuid": "13131313-0000-4000-8000-000000000001",
    "driver": "fake-hardware",
    "network_interface": "noop",
    "provision_state": "available",
}


def _round_trip(url: str) -> None:
    db = Database(url)
    try:
        migrations.upgrade(db.engine, "0013")
        assert "allocations" not in inspect(db.engine).get_table_names()
        migrations.upgrade(db.engine, "0014")
        with db.writing() as work:
            node = work.nodes.create(NODE)
            work.allocations.create(
                {"uuid": str(uuid.uuid4()), "name": "a1", "state": "active", "node_id": node.id}
            )
        taken = "An allocation with name a1 already exists"
        with pytest.raises(Conflict, match=taken), db.writing() as work:
            work.allocations.create({"uuid": str(uuid.uuid4()), "name": "a1", "state": "error"})
        with pytest.raises(Conflict), db.writing() as work:  # the node has one already
            work.allocations.create(
                {"uuid": str(uuid.uuid4()), "state": "active", "node_id": node.id}
            )
        with db.writing() as work:
            work.nodes.delete(node.id)
        with db.reading() as work:
            kept = work.allocations.get("a1")
        assert (kept.state, kept.node_id) == ("active", None)

        command.downgrade(migrations.alembic_config(db.engine), "0013")
        assert "allocations" not in inspect(db.engine).get_table_names()
    finally:
        db.dispose()


def test_on_sqlite(tmp_path: Path) -> None:
    _round_trip(f"sqlite:///{tmp_path / 'metalwire.db'}")


@pytest.mark.postgresql
def test_on_postgresql(postgres_server: PostgresServer) -> None:
    _round_trip(postgres_server.create_database(f"mw_0014_{uuid.uuid4().hex[:8]}"))


@pytest.mark.mariadb
def test_on_mariadb(mariadb_server: MariaDBServer) -> None:
    _round_trip(mariadb_server.create_database(f"mw_0014_{uuid.uuid4().hex[:8]}"))
