"""Fixtures for tests against a real Neutron server.

``neutron_endpoint`` (session scope) is the base URL of a Neutron API started once per
test session on 127.0.0.1, with its own throwaway PostgreSQL cluster; ``neutron_server``
is the ``NeutronServer`` behind it (log, switch commands, memory). Every test collected
from this directory is marked ``neutron``.

Neutron comes from the venv made by ``scripts/install-neutron``. When that venv is
missing, the fixtures skip, or fail when the environment variable ``CI`` is set.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.helpers import mark_tests_below, skip_or_fail
from tests.support.neutron import (
    INSTALL_SCRIPT,
    VENV_ENV_VAR,
    NeutronServer,
    default_venv,
    neutron_installed,
)
from tests.support.postgres import PostgresServer

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_tests_below(_HERE, items, pytest.mark.neutron)


@pytest.fixture(scope="session")
def neutron_server() -> Iterator[NeutronServer]:
    """A running Neutron server (and its PostgreSQL), shared by the whole session."""
    venv = default_venv()
    if not neutron_installed(venv):
        skip_or_fail(
            f"Neutron is not installed in {venv}: run {INSTALL_SCRIPT} first "
            f"(or point {VENV_ENV_VAR} at a venv it made)"
        )
    with PostgresServer() as postgres, NeutronServer(postgres, venv=venv) as server:
        yield server


@pytest.fixture(scope="session")
def neutron_endpoint(neutron_server: NeutronServer) -> str:
    """Base URL of the Neutron API, e.g. ``http://127.0.0.1:PORT`` (API under ``/v2.0``)."""
    return neutron_server.endpoint
