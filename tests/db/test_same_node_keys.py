"""The schema itself keeps members and VIFs on their node, and the upgrade that adds the keys
refuses rows that already break them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from metalwire.config import Config
from metalwire.db import migrations
from metalwire.db.engine import Database
from metalwire.errors import InventoryInconsistent
from tests.support.postgres import PostgresServer

_NODE = (
    "INSERT INTO nodes (id, uuid, driver, network_interface, provision_state, maintenance, "
    "conductor_group, properties, extra, instance_info, driver_info, driver_internal_info, "
    "attrs, created_at) VALUES ({id}, 'node-{id}', 'fake-hardware', 'noop', 'enroll', "
    "false, '', '{{}}', '{{}}', '{{}}', '{{}}', '{{}}', '{{}}', '2026-01-01')"
)
_PORTGROUP = (
    "INSERT INTO portgroups (id, uuid, node_id, properties, standalone_ports_supported, "
    "extra, internal_info, created_at) VALUES ({id}, 'pg-{id}', {node}, '{{}}', true, '{{}}', "
    "'{{}}', '2026-01-01')"
)
_PORT = (
    "INSERT INTO ports (id, uuid, node_id, portgroup_id, address, local_link_connection, "
    "pxe_enabled, is_smartnic, extra, internal_info, created_at) VALUES ({id}, 'port-{id}', "
    "{node}, {portgroup}, '52:54:00:00:00:{id:02x}', '{{}}', true, false, '{{}}', '{{}}', "
    "'2026-01-01')"
)
_VIF = (
    "INSERT INTO vif_attachments (vif_id, node_id, port_id, portgroup_id, source, pending, "
    "info, created_at) VALUES ('{vif}', {node}, {port}, {portgroup}, 'api', false, '{{}}', "
    "'2026-01-01')"
)


def _inventory(conn: Connection) -> None:
    """Nodes 1 and 2; portgroup 1 on node 1 with member port 1; port 2 on node 1 with vif-1."""
    for node in (1, 2):
        conn.exec_driver_sql(_NODE.format(id=node))
    conn.exec_driver_sql(_PORTGROUP.format(id=1, node=1))
    conn.exec_driver_sql(_PORT.format(id=1, node=1, portgroup=1))
    conn.exec_driver_sql(_PORT.format(id=2, node=1, portgroup="NULL"))
    conn.exec_driver_sql(_VIF.format(vif="vif-1", node=1, port=2, portgroup="NULL"))


@pytest.fixture
def db(config: Config) -> Iterator[Database]:
    database = Database(config.database_url())
    with database.engine.begin() as conn:
        _inventory(conn)
    yield database
    database.dispose()


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE ports SET node_id = 2 WHERE id = 1",  # leaves its portgroup behind
        "UPDATE portgroups SET node_id = 2 WHERE id = 1",  # leaves its members behind
        "UPDATE ports SET node_id = 2 WHERE id = 2",  # strands its VIF
        _PORT.format(id=3, node=2, portgroup=1),  # joins a portgroup of another node
        _VIF.format(vif="vif-2", node=2, port=1, portgroup="NULL"),  # VIF on a foreign port
        _VIF.format(vif="vif-3", node=2, port="NULL", portgroup=1),
    ],
)
def test_the_schema_refuses_a_row_on_the_wrong_node(db: Database, statement: str) -> None:
    with pytest.raises(IntegrityError), db.engine.begin() as conn:
        conn.exec_driver_sql(statement)


def test_the_schema_lets_a_port_move_once_it_left_its_portgroup(db: Database) -> None:
    with db.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE ports SET node_id = 2, portgroup_id = NULL WHERE id = 1")
        conn.exec_driver_sql("DELETE FROM nodes WHERE id = 1")
        left = conn.exec_driver_sql("SELECT count(*) FROM vif_attachments").scalar()
    assert left == 0


def _upgrade_with_broken_rows(url: str) -> None:
    db = Database(url)
    try:
        migrations.upgrade(db.engine, "0002")
        with db.engine.begin() as conn:
            _inventory(conn)
            conn.exec_driver_sql("UPDATE ports SET node_id = 2 WHERE id = 1")
            conn.exec_driver_sql("UPDATE vif_attachments SET node_id = 2 WHERE vif_id = 'vif-1'")
        with pytest.raises(InventoryInconsistent) as refused:
            migrations.upgrade(db.engine)
        message = str(refused.value)
        assert "port in a portgroup of another node: port-1 (node node-2) -> pg-1" in message
        assert "VIF recorded on a port of another node: vif-1 (node node-2) -> port-2" in message
        assert migrations.current_revision(db.engine) == "0002"
        with db.engine.begin() as conn:
            conn.exec_driver_sql("UPDATE ports SET portgroup_id = NULL WHERE id = 1")
            conn.exec_driver_sql("UPDATE vif_attachments SET node_id = 1")
        migrations.upgrade(db.engine, "0003")
        assert migrations.current_revision(db.engine) == "0003"
        with db.engine.begin() as conn:
            kept = conn.exec_driver_sql("SELECT vif_id FROM vif_attachments").scalars().all()
        assert kept == ["vif-1"]  # rebuilding the tables (SQLite) cascaded no delete
    finally:
        db.dispose()


def test_upgrade_names_the_rows_that_break_the_keys_on_sqlite(tmp_path: Path) -> None:
    _upgrade_with_broken_rows(f"sqlite:///{tmp_path / 'old.db'}")


@pytest.mark.postgresql
def test_upgrade_names_the_rows_that_break_the_keys_on_postgresql(
    postgres_server: PostgresServer,
) -> None:
    _upgrade_with_broken_rows(postgres_server.create_database("broken_rows"))


def test_a_lease_end_keeps_its_fraction_of_a_second(db: Database) -> None:
    # A 4-byte FLOAT (MariaDB's FLOAT) would round an epoch time to minutes.
    end = 1_764_582_123.375
    with db.engine.begin() as conn:
        conn.exec_driver_sql(f"UPDATE nodes SET lock_expires_at = {end} WHERE id = 1")
    with db.engine.begin() as conn:
        stored = conn.exec_driver_sql("SELECT lock_expires_at FROM nodes WHERE id = 1").scalar()
    assert stored == end
