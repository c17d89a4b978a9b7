from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import _unavailable
from tests.support.nova import NovaDriver, nova_python
from tests.support.server import MetalwireServer

NOVA_DATABASES = [
    name
    for name in os.environ.get("METALWIRE_TEST_DATABASES", "sqlite,postgresql").split(",")
    if name in ("sqlite", "postgresql")
]


@pytest.fixture(scope="module")
def nova_python_path() -> Path:
    python = nova_python()
    if python is None:
        _unavailable("the Nova venv is missing (scripts/install-nova)")
    assert python is not None
    return python


@pytest.fixture(
    scope="module",
    params=[
        pytest.param(name, marks=[pytest.mark.postgresql] if name != "sqlite" else [])
        for name in NOVA_DATABASES
    ],
)
def nova_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MetalwireServer]:
    """A real ``metalwire serve`` (flat network interface) on SQLite or PostgreSQL."""
    if request.param != "postgresql":
        with MetalwireServer(tmp_path_factory.mktemp("nova")) as running:
            yield running
        return
    pg = request.getfixturevalue("postgres_server")
    # One database per test module: a worker runs several modules in one process.
    name = f"metalwire_nova_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    database = pg.create_database(name)
    try:
        with MetalwireServer(tmp_path_factory.mktemp("nova"), database=database) as running:
            yield running
    finally:
        pg.drop_database(name)


@pytest.fixture
def nova(
    nova_python_path: Path, nova_server: MetalwireServer, tmp_path: Path
) -> Iterator[NovaDriver]:
    with NovaDriver(nova_python_path, nova_server.url, "compute-1", tmp_path / "nova.log") as d:
        yield d
