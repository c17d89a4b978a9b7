from __future__ import annotations

import functools
import gc
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from fastapi.testclient import TestClient

from metalwire.api.app import create_app
from metalwire.api_versions import MAX_MINOR
from metalwire.config import SQLITE_FILE, Config, load_config
from metalwire.db import migrations
from metalwire.db.engine import Database
from metalwire.services import build_services
from tests.support import mariadb, shared_statements
from tests.support.app_client import AppClient
from tests.support.distribution import assign_groups, order_for_workers
from tests.support.helpers import HTTP_SERVER, fault
from tests.support.postgres import (
    PostgresServer,
    find_pg_bindir,
    generated_locale,
    locale_unavailable,
)
from tests.support.server import MetalwireServer, migrated_sqlite_file

__all__ = ["ABOVE_LATEST", "LATEST", "Api", "fault"]

# The newest version served, and the first one above it: read from its one declaration.
LATEST = f"1.{MAX_MINOR}"
ABOVE_LATEST = f"1.{MAX_MINOR + 1}"


class Api:
    """A TestClient that sends a microversion header and builds common fixtures."""

    def __init__(self, client: TestClient, version: str = LATEST) -> None:
        self.client = client
        self.version = version

    def headers(self, version: str | None = None) -> dict[str, str]:
        return {"X-OpenStack-Ironic-API-Version": version or self.version}

    def get(self, url: str, version: str | None = None, **kw: Any) -> Any:
        return self.client.get(url, headers=self.headers(version), **kw)

    def post(self, url: str, body: Any = None, version: str | None = None, **kw: Any) -> Any:
        return self.client.post(url, json=body, headers=self.headers(version), **kw)

    def patch(self, url: str, patch: Any, version: str | None = None) -> Any:
        return self.client.patch(url, json=patch, headers=self.headers(version))

    def put(self, url: str, body: Any = None, version: str | None = None) -> Any:
        return self.client.put(url, json=body, headers=self.headers(version))

    def delete(self, url: str, version: str | None = None) -> Any:
        return self.client.delete(url, headers=self.headers(version))

    def node(self, **fields: Any) -> dict[str, Any]:
        resp = self.post("/v1/nodes", {"driver": "fake-hardware", **fields})
        assert resp.status_code == 201, resp.text
        return dict(resp.json())

    def port(self, node: dict[str, Any], address: str, **fields: Any) -> dict[str, Any]:
        resp = self.post("/v1/ports", {"node_uuid": node["uuid"], "address": address, **fields})
        assert resp.status_code == 201, resp.text
        return dict(resp.json())

    def portgroup(self, node: dict[str, Any], **fields: Any) -> dict[str, Any]:
        resp = self.post("/v1/portgroups", {"node_uuid": node["uuid"], **fields})
        assert resp.status_code == 201, resp.text
        return dict(resp.json())

    def vifs(self, node: str) -> list[str]:
        resp = self.get(f"/v1/nodes/{node}/vifs")
        assert resp.status_code == 200, resp.text
        return [v["id"] for v in resp.json()["vifs"]]


def pytest_configure(config: pytest.Config) -> None:
    """The engines in-process tests open compile each statement once per process
    (tests/support/shared_statements.py)."""
    shared_statements.install()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Keep the cycle collector off what collection built, and let it run less often.

    What is alive once the tests are collected (modules, items, fixtures' definitions) stays
    alive to the end; ``gc.freeze`` takes it out of every collection's walk. A collection then
    runs after 10,000 net allocations instead of 700. In-process tests spent about a sixth of
    their CPU in the collector before (1.44 s of 8.6 s for tests/api/test_deploy_validate.py and
    test_hostile_input.py on SQLite), 0.5 s after.
    """
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Group and order the tests for the xdist workers (before xdist reads them)."""
    assign_groups(items)
    order_for_workers(items)


def routing_error(resp: Any) -> dict[str, Any]:
    """The ``{code, title, description}`` of a routing error (no such path, method, version)."""
    import json

    assert resp.headers["content-type"] == "application/json"
    error = json.loads(resp.json()["error_message"])
    assert set(error) == {"code", "title", "description"}, error
    assert error["code"] == resp.status_code
    return dict(error)


@pytest.fixture(scope="session")
def migrated_template() -> Path:
    """An SQLite file at the newest schema, copied for each test instead of migrating anew."""
    return migrated_sqlite_file()


# The API and repository tests run once per database; METALWIRE_TEST_DATABASES narrows it.
DATABASES = [
    name.strip()
    for name in os.environ.get("METALWIRE_TEST_DATABASES", "sqlite,postgresql,mariadb").split(",")
    if name.strip()
]
_TABLES_CHILD_FIRST = (
    "allocations",
    "vif_attachments",
    "node_history",
    "volume_connectors",
    "volume_targets",
    "ports",
    "portgroups",
    "nodes",
    "chassis",
    "conductors",
    "deploy_templates",
    "runbooks",
)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run every database)")
    pytest.skip(reason)


def find_pg_bindir_or_none() -> Path | None:
    try:
        return find_pg_bindir()
    except Exception:
        return None


def require_postgres_binaries() -> None:
    """Skip a test that starts a PostgreSQL cluster where there is none (fail under CI)."""
    if find_pg_bindir_or_none() is None:
        _unavailable("PostgreSQL binaries not found")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL cluster, one per test session."""
    require_postgres_binaries()
    with PostgresServer(settings={"max_connections": "400"}) as pg:
        yield pg


@pytest.fixture(scope="session")
def german_postgres_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL cluster whose messages are German (``lc_messages``), as a
    server installed in a German locale answers."""
    require_postgres_binaries()
    problem = locale_unavailable("de_DE")
    if problem is not None:
        _unavailable(problem)
    settings = {"lc_messages": "de_DE.UTF-8"}
    with (
        generated_locale("de_DE") as locales,
        PostgresServer(settings=settings, environment={"LOCPATH": str(locales)}) as pg,
    ):
        yield pg


@pytest.fixture(scope="session")
def postgresql_url(postgres_server: PostgresServer) -> str:
    """A migrated database on the session's PostgreSQL cluster."""
    url = postgres_server.create_database("metalwire_tests")
    db = Database(url)
    migrations.upgrade(db.engine)
    db.dispose()
    return url


@pytest.fixture(scope="session")
def mariadb_server() -> Iterator[mariadb.MariaDBServer]:
    """A throwaway MariaDB server, one per test session."""
    if not mariadb.available():
        _unavailable("MariaDB is not installed (scripts/install-mariadb)")
    with mariadb.MariaDBServer() as server:
        yield server


@pytest.fixture(scope="session")
def mariadb_url(mariadb_server: mariadb.MariaDBServer) -> str:
    """A migrated database on the session's MariaDB server."""
    url = mariadb_server.create_database("metalwire_tests")
    db = Database(url)
    migrations.upgrade(db.engine)
    db.dispose()
    return url


@functools.cache
def _cleaner(url: str) -> sqlalchemy.Engine:
    """One connection to ``url`` for this test process, kept between tests: emptying the
    database for a test costs a round trip on it, not a new connection (a new server backend)
    and its driver's set-up, which were most of a PostgreSQL test's set-up."""
    return sqlalchemy.create_engine(url, pool_size=1, max_overflow=0, pool_pre_ping=True)


def _emptied(url: str) -> str:
    deletes = [f"DELETE FROM {table}" for table in _TABLES_CHILD_FIRST]
    with _cleaner(url).begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("; ".join(deletes))  # one round trip
        else:  # PyMySQL sends one statement at a time
            for delete in deletes:
                conn.exec_driver_sql(delete)
    return url


@pytest.fixture(
    params=[
        pytest.param(name, marks=[getattr(pytest.mark, name)] if name != "sqlite" else [])
        for name in DATABASES
    ]
)
def database(request: pytest.FixtureRequest) -> str:
    """The name of the database the test runs on."""
    return str(request.param)


@pytest.fixture
def config(
    tmp_path: Path, migrated_template: Path, database: str, request: pytest.FixtureRequest
) -> Config:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    overrides: dict[tuple[str, str], Any] = {
        ("DEFAULT", "data_dir"): str(data_dir),
        ("deploy", "http_url"): HTTP_SERVER,
    }
    if database == "sqlite":
        shutil.copyfile(migrated_template, data_dir / SQLITE_FILE)
    else:
        url = request.getfixturevalue(f"{database}_url")
        overrides[("database", "connection")] = _emptied(url)
    return load_config(environ={}, overrides=overrides)


@pytest.fixture
def client(config: Config) -> Iterator[TestClient]:
    services, locks = build_services(config, upgrade_schema=False)
    with AppClient(create_app(config, services)) as test_client:
        yield test_client
    locks.release_all()
    services.db.dispose()


@pytest.fixture
def api(client: TestClient) -> Api:
    return Api(client)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MetalwireServer]:
    """One real ``metalwire serve`` process for the whole test session."""
    with MetalwireServer(tmp_path_factory.mktemp("server")) as running:
        yield running
