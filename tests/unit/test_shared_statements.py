"""The compiled statements in-process tests share between engines
(tests/support/shared_statements.py, installed for every test process by tests/conftest.py)."""

from __future__ import annotations

import uuid
from pathlib import Path

import sqlalchemy
from sqlalchemy.engine.interfaces import CacheStats

from metalwire.db.engine import make_engine
from tests.support import shared_statements


def test_an_engine_on_another_sqlite_file_runs_a_statement_compiled_for_the_first(
    tmp_path: Path,
) -> None:
    statement: sqlalchemy.Select[tuple[int]] = sqlalchemy.select(
        sqlalchemy.literal_column("1").label(f"x{uuid.uuid4().hex}")
    )
    first = make_engine(f"sqlite:///{tmp_path / 'first.db'}")
    with first.connect() as conn:
        conn.execute(statement)
    second = make_engine(f"sqlite:///{tmp_path / 'second.db'}")
    with second.connect() as conn:
        assert conn.execute(statement).context.cache_hit is CacheStats.CACHE_HIT
        # the connections are still the engine's own: its file, not the first one's
        conn.exec_driver_sql("CREATE TABLE only_here (id INTEGER)")
        conn.commit()
    assert "only_here" in sqlalchemy.inspect(second).get_table_names()
    assert "only_here" not in sqlalchemy.inspect(first).get_table_names()
    first.dispose()
    second.dispose()


def test_engines_on_two_databases_of_a_server_or_in_two_modes_keep_their_own(
    tmp_path: Path,
) -> None:
    def key(url: str, autocommit: bool = False) -> tuple[object, ...]:
        return shared_statements._key(make_engine(url, autocommit=autocommit), autocommit)

    assert key("mysql+pymysql://u@db:3306/a") != key("mysql+pymysql://u@db:3306/b")
    assert key("postgresql://u@db:5432/a") != key("postgresql://u@db:5432/a", autocommit=True)
    assert key("postgresql://u@db:5432/a") != key("postgresql://u@other:5432/a")
    assert key(f"sqlite:///{tmp_path / 'one' / 'a.db'}") == key(f"sqlite:///{tmp_path / 'b.db'}")
