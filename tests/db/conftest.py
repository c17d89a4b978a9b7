"""Fixtures of the database layer's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from metalwire.config import Config
from metalwire.db.engine import Database


@pytest.fixture
def db(config: Config) -> Iterator[Database]:
    """The test's database (the ``config`` fixture's, on each engine the test is run on)."""
    database = Database(config.database_url())
    yield database
    database.dispose()
