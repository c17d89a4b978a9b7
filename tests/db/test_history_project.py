"""Schema 0004: node history keeps the project of whoever made a change."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect

from metalwire.db import migrations
from metalwire.db.engine import Database


def _history_columns(db: Database) -> set[str]:
    return {column["name"] for column in inspect(db.engine).get_columns("node_history")}


def test_upgrade_adds_the_history_project_and_downgrade_removes_it(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'metalwire.db'}")
    try:
        migrations.upgrade(db.engine, "0003")
        assert "project" not in _history_columns(db)
        migrations.upgrade(db.engine, "0004")
        assert migrations.current_revision(db.engine) == "0004"
        assert "project" in _history_columns(db)
        command.downgrade(migrations.alembic_config(db.engine), "0003")
        assert "project" not in _history_columns(db)
    finally:
        db.dispose()
