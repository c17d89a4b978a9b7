"""Schema 0015: the runbooks' table on each database, its unique names and UUIDs, its
defaults, and its repository's list of what a project sees (its own and the public ones)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect

from metalwire.db import migrations
from metalwire.db import runbooks as runbook_db
from metalwire.db.engine import Database
from metalwire.db.pagination import Page
from metalwire.errors import Conflict, RunbookNotFound
from tests.support.mariadb import MariaDBServer
from tests.support.postgres import PostgresServer

STEP = {"interface": "raid", "step": "delete_configuration", "args": {}, "order": 1}


def _round_trip(url: str) -> None:
    db = Database(url)
    try:
        migrations.upgrade(db.engine, "0014")
        assert "runbooks" not in inspect(db.engine).get_table_names()
        migrations.upgrade(db.engine, "0015")
        columns = {c["name"] for c in inspect(db.engine).get_columns("runbooks")}
        assert columns == {
            "id",
            "uuid",
            "name",
            "description",
            "steps",
            "traits",
            "disable_ramdisk",
            "public",
            "owner",
            "extra",
            "created_at",
            "updated_at",
        }

        first = str(uuid.uuid4())
        with db.writing() as work:
            work.runbooks.create({"uuid": first, "name": "CUSTOM_B", "steps": [STEP]})
            work.runbooks.create(
                {"uuid": str(uuid.uuid4()), "name": "CUSTOM_A", "steps": [STEP], "owner": "p1"}
            )
            work.runbooks.create(
                {"uuid": str(uuid.uuid4()), "name": "CUSTOM_C", "steps": [STEP], "public": True}
            )
        for taken in ({"name": "CUSTOM_A"}, {"uuid": first, "name": "CUSTOM_D"}):
            with pytest.raises(Conflict, match="A runbook with"), db.writing() as work:
                work.runbooks.create({"uuid": str(uuid.uuid4()), "steps": [], **taken})
        with db.reading() as work:
            stored = work.runbooks.get("CUSTOM_B")
            assert (stored.uuid, stored.steps, stored.traits, stored.extra) == (
                first,
                [STEP],
                [],
                {},
            )
            assert (stored.public, stored.disable_ramdisk, stored.owner) == (False, False, None)
        with db.read() as session:
            seen = runbook_db.list_runbooks(session, "p1", Page(100))
            assert [r.name for r in seen] == ["CUSTOM_A", "CUSTOM_C"]
        with db.writing() as work:
            work.runbooks.delete(first)
        with pytest.raises(RunbookNotFound), db.reading() as work:
            work.runbooks.get(first)

        command.downgrade(migrations.alembic_config(db.engine), "0014")
        assert "runbooks" not in inspect(db.engine).get_table_names()
    finally:
        db.dispose()


def test_on_sqlite(tmp_path: Path) -> None:
    _round_trip(f"sqlite:///{tmp_path / 'metalwire.db'}")


@pytest.mark.postgresql
def test_on_postgresql(postgres_server: PostgresServer) -> None:
    _round_trip(postgres_server.create_database(f"mw_0015_{uuid.uuid4().hex[:8]}"))


@pytest.mark.mariadb
def test_on_mariadb(mariadb_server: MariaDBServer) -> None:
    _round_trip(mariadb_server.create_database(f"mw_0015_{uuid.uuid4().hex[:8]}"))
