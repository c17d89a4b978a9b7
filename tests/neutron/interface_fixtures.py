"""The module-scoped fixtures the neutron-interface test modules share by importing them:
``neutron`` (Neutron's networks), ``server`` (a ``metalwire serve`` configured for them) and
``api`` (a client of that server).

Each module that imports them gets its own instances (module scope). They live here rather
than in conftest.py, where ``server`` and ``api`` would hide the suite's fixtures of the same
names from every other module of this folder. The functions are named ``fixture_<name>`` so
that a test's parameter does not shadow an imported name. A module that asks for ``api``
imports ``fixture_server`` too: ``api`` asks for ``server``, which would otherwise be the
suite's own.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.neutron.clients import Metalwire, Neutron, neutron_with
from tests.support.server import MetalwireServer


@pytest.fixture(scope="module", name="neutron")
def fixture_neutron(neutron_endpoint: str) -> Iterator[Neutron]:
    networks = {
        "mw-tenant-p1": "physnet1",
        "mw-tenant-p2": "physnet2",
        "mw-provision": "physnet1",
        "mw-clean": "physnet1",
    }
    with neutron_with(neutron_endpoint, networks) as api:
        yield api


@pytest.fixture(scope="module", name="server")
def fixture_server(
    neutron: Neutron, neutron_endpoint: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MetalwireServer]:
    env = {
        "METALWIRE_NEUTRON_URL": neutron_endpoint,
        # One by name, one by UUID: both ways of naming a network are used.
        "METALWIRE_NEUTRON_PROVISIONING_NETWORK": "mw-provision",
        "METALWIRE_NEUTRON_CLEANING_NETWORK": neutron.networks["mw-clean"]["id"],
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
        # an inspection learns its ports' links from LLDP (only a ramdisk's report runs them)
        "METALWIRE_INSPECTOR_HOOKS": "$default_hooks,parse-lldp,local-link-connection",
    }
    with MetalwireServer(tmp_path_factory.mktemp("neutron-iface"), env=env) as running:
        yield running


@pytest.fixture(scope="module", name="api")
def fixture_api(server: MetalwireServer) -> Iterator[Metalwire]:
    client = Metalwire(server.url)
    yield client
    client.close()
