"""Schema 0009: node history keeps the node's provision state, its target and the seconds the
node had been in that state (API 1.115), on each database; downgrade removes them."""

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

ADDED = {"state", "target_provision_state", "duration_seconds"}


def _history_columns(db: Database) -> set[str]:
    return {column["name"] for column in inspect(db.engine).get_columns("node_history")}


def _adds_and_removes(url: str) -> None:
    db = Database(url)
    try:
        migrations.upgrade(db.engine, "0008")
        assert not ADDED & _history_columns(db)
        migrations.upgrade(db.engine, "0009")
        assert migrations.current_revision(db.engine) == "0009"
        assert _history_columns(db) >= ADDED
        command.downgrade(migrations.alembic_config(db.engine), "0008")
        assert not ADDED & _history_columns(db)
    finally:
        db.dispose()


def test_on_sqlite(tmp_path: Path) -> None:
    _adds_and_removes(f"sqlite:///{tmp_path / 'metalwire.db'}")


@pytest.mark.postgresql
def test_on_postgresql(postgres_server: PostgresServer) -> None:
    _adds_and_removes(postgres_server.create_database(f"mw_0009_{uuid.uuid4().hex[:8]}"))


@pytest.mark.mariadb
def test_on_mariadb(mariadb_server: MariaDBServer) -> None:
    _adds_and_removes(mariadb_server.create_database(f"mw_0009_{uuid.uuid4().hex[:8]}"))
