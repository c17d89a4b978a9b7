"""Fixtures for tests against an emulated switch (Open vSwitch behind OpenSSH).

``emulated_switch`` is a fresh ``EmulatedSwitch`` with three ports per test (it starts in
under a second); ``http_for(switch, **env)`` starts a ``metalwire serve`` whose
``ironic-networking`` switch file names it ``tor-1`` (the state networks are the VLANs
below) and returns an HTTP client of it. Every test collected from this directory is marked
``switch``. When this machine lacks the switch software (``scripts/install-switch``) or
root, the fixture skips, or fails when the environment variable ``CI`` is set.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.generic_switch import GenericSwitchRunner
from tests.support.helpers import skip_or_fail
from tests.support.server import MetalwireServer
from tests.support.switch import INSTALL_SCRIPT, EmulatedSwitch, missing_requirements

PROVISIONING, TENANT, OTHER, CLEANING, IDLE = 100, 200, 300, 400, 999
# the emulated switch's MAC address in the switch file: a port of another interface's node names
# it so (only an ironic-networking node takes its name)
TOR_1_MAC = "00:00:5e:00:53:01"
HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.switch)


@pytest.fixture
def emulated_switch() -> Iterator[EmulatedSwitch]:
    missing = missing_requirements()
    if missing:
        skip_or_fail(f"no emulated switch, missing {', '.join(missing)}: run {INSTALL_SCRIPT}")
    with EmulatedSwitch(ports=3) as switch:
        yield switch


def _serve(tmp_path: Path, switch: EmulatedSwitch, **extra: str) -> MetalwireServer:
    runner = GenericSwitchRunner()  # networking-generic-switch of the Neutron venv
    if runner.missing:
        skip_or_fail(runner.missing)
    switch_file = tmp_path / "switches.ini"
    switch_file.write_text(switch.switch_file_section("tor-1", mac_address=TOR_1_MAC))
    env = {
        "METALWIRE_ENABLED_NETWORK_INTERFACES": "noop,flat,ironic-networking",
        "METALWIRE_IRONIC_NETWORKING_SWITCH_CONFIG_FILE": str(switch_file),
        "METALWIRE_IRONIC_NETWORKING_ENABLED_SWITCH_DRIVERS": "generic-switch",
        "METALWIRE_IRONIC_NETWORKING_PROVISIONING_NETWORK": f"access/native_vlan={PROVISIONING}",
        "METALWIRE_IRONIC_NETWORKING_CLEANING_NETWORK": f"access/native_vlan={CLEANING}",
        "METALWIRE_IRONIC_NETWORKING_IDLE_NETWORK": f"access/native_vlan={IDLE}",
        "METALWIRE_IRONIC_NETWORKING_GENERIC_SWITCH_PYTHON": str(runner.venv / "bin" / "python"),
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
        **extra,
    }
    return MetalwireServer(tmp_path / "server", env=env)


class ServersOfSwitch:
    """``http_for(switch, **env)``: starts a ``metalwire serve`` of ``switch`` (``env`` added
    to its environment) and returns an HTTP client of it; ``servers`` are those started."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.servers: list[MetalwireServer] = []
        self.clients: list[httpx.Client] = []

    def __call__(self, switch: EmulatedSwitch, **extra: str) -> httpx.Client:
        server = _serve(self.tmp_path, switch, **extra)
        self.servers.append(server.start())
        self.clients.append(httpx.Client(base_url=server.url, headers=HEADERS, timeout=120))
        return self.clients[-1]

    def close(self) -> None:
        for client in self.clients:
            client.close()
        for server in self.servers:
            server.stop()


@pytest.fixture
def http_for(tmp_path: Path) -> Iterator[ServersOfSwitch]:
    servers = ServersOfSwitch(tmp_path)
    yield servers
    servers.close()
