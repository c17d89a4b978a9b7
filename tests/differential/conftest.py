"""Fixtures of the differential tier: upstream Ironic 39 and metalwire, side by side.

``upstream_ironic`` (session scope) is one all-in-one Ironic 39 process (fake-hardware,
noauth, the noop and flat network interfaces, SQLite; ``bench/upstream_ironic.py``), and
``differential_metalwire`` one real ``metalwire serve``. Every test collected from this
directory is marked ``differential``. When Ironic's venv (``scripts/install-ironic``) is
missing, the tests skip, or fail when the environment variable ``CI`` is set.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.helpers import mark_tests_below, skip_or_fail
from tests.support.ironic import (
    INSTALL_SCRIPT,
    IRONIC_CONFIG,
    VENV_ENV_VAR,
    IronicServer,
    default_venv,
    ironic_installed,
)
from tests.support.server import MetalwireServer

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_tests_below(_HERE, items, pytest.mark.differential)


@pytest.fixture(scope="session")
def upstream_ironic(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IronicServer]:
    venv = default_venv()
    if not ironic_installed(venv):
        skip_or_fail(
            f"Ironic is not installed in {venv}: run {INSTALL_SCRIPT} first "
            f"(or point {VENV_ENV_VAR} at a venv it made)"
        )
    server = IronicServer(venv=venv, workdir=tmp_path_factory.mktemp("upstream-ironic"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def ironic_enabled_lists() -> dict[str, str]:
    """The hardware types and hardware interfaces the compared Ironic enables, as metalwire's
    environment: both serve the same (the network interfaces are left as they are)."""
    out = {}
    for line in IRONIC_CONFIG.splitlines():
        name, _, value = (part.strip() for part in line.partition("="))
        if name.startswith("enabled_") and name != "enabled_network_interfaces":
            out[f"METALWIRE_{name.upper()}"] = value
    return out


@pytest.fixture(scope="session")
def differential_metalwire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MetalwireServer]:
    data_dir = tmp_path_factory.mktemp("differential-metalwire")
    # the compared Ironic's host: a conductor is shown by its host name
    env = {**ironic_enabled_lists(), "METALWIRE_HOST": "bench-ironic"}
    with MetalwireServer(data_dir, env=env) as running:
        yield running
