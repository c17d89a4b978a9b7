"""Schema 0013: the deploy templates' table on each database, its unique names and UUIDs, and
its repository's read of the templates a node's instance traits name."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect

from metalwire.db import migrations
from metalwire.db.engine import Database
from metalwire.errors import Conflict, DeployTemplateNotFound
from tests.support.mariadb import MariaDBServer
from tests.support.postgres import PostgresServer

STEP = {"interface": "raid", "step": "delete_configuration", "args": {}, "priority": 10}


def _round_trip(url: str) -> None:
    db = Database(url)
    try:
        migrations.upgrade(db.engine, "0012")
        assert "deploy_templates" not in inspect(db.engine).get_table_names()
        migrations.upgrade(db.engine, "0013")
        columns = {c["name"] for c in inspect(db.engine).get_columns("deploy_templates")}
        assert columns == {"id", "uuid", "name", "steps", "extra", "created_at", "updated_at"}

        first = str(uuid.uuid4())
        with db.writing() as work:
            work.deploy_templates.create({"uuid": first, "name": "CUSTOM_B", "steps": [STEP]})
            work.deploy_templates.create(
                {"uuid": str(uuid.uuid4()), "name": "CUSTOM_A", "steps": [STEP, STEP]}
            )
        for taken in ({"name": "CUSTOM_A"}, {"uuid": first, "name": "CUSTOM_C"}):
            with pytest.raises(Conflict), db.writing() as work:
                work.deploy_templates.create({"uuid": str(uuid.uuid4()), "steps": [], **taken})
        with db.reading() as work:
            named = work.deploy_templates.named(["CUSTOM_A", "CUSTOM_X", "CUSTOM_B"])
            assert [(t.name, t.steps, t.extra) for t in named] == [
                ("CUSTOM_B", [STEP], {}),
                ("CUSTOM_A", [STEP, STEP], {}),
            ]
            assert work.deploy_templates.get(first).name == "CUSTOM_B"
            assert work.deploy_templates.get("CUSTOM_A").steps == [STEP, STEP]
        with db.writing() as work:
            work.deploy_templates.delete(first)
        with pytest.raises(DeployTemplateNotFound), db.reading() as work:
            work.deploy_templates.get(first)

        command.downgrade(migrations.alembic_config(db.engine), "0012")
        assert "deploy_templates" not in inspect(db.engine).get_table_names()
    finally:
        db.dispose()


def test_on_sqlite(tmp_path: Path) -> None:
    _round_trip(f"sqlite:///{tmp_path / 'metalwire.db'}")


@pytest.mark.postgresql
def test_on_postgresql(postgres_server: PostgresServer) -> None:
    _round_trip(postgres_server.create_database(f"mw_0013_{uuid.uuid4().hex[:8]}"))


@pytest.mark.mariadb
def test_on_mariadb(mariadb_server: MariaDBServer) -> None:
    _round_trip(mariadb_server.create_database(f"mw_0013_{uuid.uuid4().hex[:8]}"))
