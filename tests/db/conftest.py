"""Fixtures of the database layer's tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from metalwire.config import Config
from metalwire.db.engine import Database


@pytest.fixture
def db(config: Config) -> Iterator[Database]:
    """The test's database (the ``config`` fixture's, on each engine the test is run on)."""
    database = Database(config.database_url())
    yield database
    database.dispose()


class Sent:
    """Every query metalwire's MariaDB connections send, in order (one per round trip)."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def take(self) -> list[str]:
        queries, self.queries = self.queries, []
        return queries


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Sent:
    """What the test's MariaDB connections send (``db/mysql_link.py``'s ``query``)."""
    from metalwire.db import mysql_link  # PyMySQL's

    seen = Sent()
    query = mysql_link.Connection.query

    def counted(self: mysql_link.Connection, sql: Any, unbuffered: bool = False) -> int:
        seen.queries.append(sql if isinstance(sql, str) else sql.decode())
        return query(self, sql, unbuffered)

    monkeypatch.setattr(mysql_link.Connection, "query", counted)
    return seen
