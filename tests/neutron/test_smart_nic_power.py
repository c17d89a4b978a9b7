"""A Smart NIC's Neutron agent runs on the NIC, inside the server: it is alive only while the
server is powered on. As Ironic's conductor, metalwire powers a node with a Smart NIC port on
around the network steps of a deploy, an undeploy and a cleaning (``neutron`` interface), and
off again after them; a node without one is left as it is.

A real Neutron; the NIC's agent is :class:`SmartNicAgent`, which reports the agent alive in
Neutron's ``agents`` table while metalwire shows the node powered on, and dead otherwise.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from types import TracebackType
from typing import Self

import httpx
import pytest

from tests.neutron.clients import VERSION, Json, Metalwire, Neutron, assert_unbound, link
from tests.neutron.interface_fixtures import (  # noqa: F401  (the shared module fixtures)
    fixture_api,
    fixture_neutron,
)
from tests.support.helpers import DIRECT_IMAGE, settled_node
from tests.support.neutron import NeutronServer
from tests.support.server import MetalwireServer

LENIENT = {"fail_on_binding_failure": "false"}  # the test Neutron cannot bind a smart-nic vnic
POWER_ON, POWER_OFF = "power on", "power off"


@pytest.fixture(scope="module", name="server")
def fixture_server(
    neutron: Neutron,
    neutron_endpoint: str,
    neutron_server: NeutronServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[MetalwireServer]:
    """A server checking a Smart NIC host's agent 25 times, 0.2 s apart (5 s before it
    gives up), the agent polling for changes every 0.1 s."""
    env = {
        "METALWIRE_NEUTRON_URL": neutron_endpoint,
        "METALWIRE_NEUTRON_PROVISIONING_NETWORK": "mw-provision",
        "METALWIRE_NEUTRON_CLEANING_NETWORK": "mw-clean",
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
        "METALWIRE_AGENT_NEUTRON_AGENT_MAX_ATTEMPTS": "25",
        "METALWIRE_AGENT_NEUTRON_AGENT_STATUS_RETRY_INTERVAL": "0.2",
        "METALWIRE_AGENT_NEUTRON_AGENT_POLL_INTERVAL": "0.1",
    }
    with MetalwireServer(tmp_path_factory.mktemp("smart-nic-power"), env=env) as running:
        yield running


class SmartNicAgent:
    """The Neutron agent of a Smart NIC on host ``host`` in node ``node``: alive while the
    node is powered on (checked every 50 ms through metalwire's API), dead while it is not."""

    def __init__(self, server: MetalwireServer, neutron: NeutronServer, node: str, host: str):
        self.http = httpx.Client(base_url=server.url, headers=VERSION, timeout=30.0)
        self.neutron, self.node, self.host = neutron, node, host
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._follow_power, daemon=True)
        self.powered: bool | None = None

    def __enter__(self) -> Self:
        self._follow_once()
        self.thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stopped.set()
        self.thread.join(timeout=10)
        self.http.close()

    def _follow_power(self) -> None:
        while not self.stopped.wait(0.05):
            self._follow_once()

    def _follow_once(self) -> None:
        response = self.http.get(f"/v1/nodes/{self.node}")
        response.raise_for_status()
        powered = response.json()["power_state"] == POWER_ON
        if powered != self.powered:
            if powered:
                self.neutron.report_agent_alive(self.host)
            else:
                self.neutron.report_agent_dead(self.host)
            self.powered = powered


def power_events(api: Metalwire, node: str) -> list[str]:
    history: list[Json] = api.get(f"/v1/nodes/{node}/history?detail=true")["history"]
    return [entry["event"] for entry in history if entry["event_type"] == "power"]


def powered_for_network(node: Json) -> tuple[str, str]:
    """The history's events of the power changes around the network steps of ``node``."""
    label = f"{node['uuid']} ({node['name']})"
    return (
        f"power on {label} for the network of its Smart NIC ports: now power on",
        f"power off {label} again, its network set: now power off",
    )


def set_power(api: Metalwire, node: str, target: str) -> None:
    response = api.http.put(f"/v1/nodes/{node}/states/power", json={"target": target})
    assert response.status_code == 202, response.text


def test_a_deploy_powers_a_smart_nic_node_on_for_its_network(
    api: Metalwire,
    neutron: Neutron,
    neutron_server: NeutronServer,
    server: MetalwireServer,
) -> None:
    """The node is off and its NIC's agent dead: the deploy powers it on around the steps
    that bind (and unbind) through the NIC, which the agent then wires; the node ends
    powered on, as a deployed node is."""
    name, host = "smart-power-deploy", "smartnic-power-1"
    node = api.node(name, driver_info=LENIENT)
    api.port(node, "52:54:00:36:00:01", {"port_id": "rep0-0", "hostname": host}, is_smartnic=True)
    api.provision(name, "manage", "provide")
    assert api.get(f"/v1/nodes/{name}")["power_state"] == POWER_OFF
    vif = neutron.vif("mw-tenant-p1")
    assert api.attach(name, vif["id"]).status_code == 204

    with SmartNicAgent(server, neutron_server, name, host):
        deployed = api.provision(name, "active")

    assert (deployed["provision_state"], deployed["power_state"]) == ("active", POWER_ON)
    port = neutron.port(vif["id"])
    assert (port["binding:host_id"], port["binding:vnic_type"]) == (host, "smart-nic")
    for_network, back_off = powered_for_network(node)
    # Around the provisioning network's steps, then around the tenant network's.
    assert power_events(api, name) == [for_network, back_off, for_network, back_off]


def test_an_undeploy_powers_a_smart_nic_node_on_to_unbind_and_leaves_it_off(
    api: Metalwire,
    neutron: Neutron,
    neutron_server: NeutronServer,
    server: MetalwireServer,
) -> None:
    name, host = "smart-power-undeploy", "smartnic-power-2"
    node = api.node(name, driver_info=LENIENT)
    api.port(node, "52:54:00:36:00:02", {"port_id": "rep0-0", "hostname": host}, is_smartnic=True)
    api.provision(name, "manage", "provide")
    vif = neutron.vif("mw-tenant-p1")
    assert api.attach(name, vif["id"]).status_code == 204
    with SmartNicAgent(server, neutron_server, name, host) as agent:
        assert api.provision(name, "active")["provision_state"] == "active"
        set_power(api, name, POWER_OFF)  # the instance shut down
        undeployed = api.provision(name, "deleted")
        assert agent.powered is False

    assert (undeployed["provision_state"], undeployed["power_state"]) == ("available", POWER_OFF)
    assert undeployed["last_error"] is None
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])
    on, off = powered_for_network(node)
    assert power_events(api, name)[-3:] == [
        f"power off on {node['uuid']} ({name}): now power off",
        on,
        off,
    ]


def test_a_cleaning_powers_a_smart_nic_node_on_and_off_again(
    api: Metalwire, neutron_server: NeutronServer, server: MetalwireServer
) -> None:
    name, host = "smart-power-clean", "smartnic-power-3"
    node = api.node(name, driver_info=LENIENT)
    api.port(node, "52:54:00:36:00:03", {"port_id": "rep0-0", "hostname": host}, is_smartnic=True)
    api.provision(name, "manage")

    with SmartNicAgent(server, neutron_server, name, host):
        cleaned = api.provision(name, "clean")

    assert (cleaned["provision_state"], cleaned["power_state"]) == ("manageable", POWER_OFF)
    on, off = powered_for_network(node)
    assert power_events(api, name) == [on, off, on, off]


def test_an_abort_of_a_clean_wait_powers_a_smart_nic_node_on_to_leave_the_network(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer, server: MetalwireServer
) -> None:
    """A direct node's manual cleaning waits for its agent on the cleaning network, the node
    off again; the abort powers it on to take the cleaning port away, and off after it."""
    name, host = "smart-power-abort", "smartnic-power-5"
    node = api.node(
        name, driver_info=LENIENT, deploy_interface="direct", instance_info=DIRECT_IMAGE
    )
    api.port(node, "52:54:00:36:00:05", {"port_id": "rep0-0", "hostname": host}, is_smartnic=True)
    api.provision(name, "manage")
    with SmartNicAgent(server, neutron_server, name, host):
        waiting = api.provision(name, "clean")
        assert (waiting["provision_state"], waiting["power_state"]) == ("clean wait", POWER_OFF)
        assert len(neutron.ports_on("mw-clean", "52:54:00:36:00:05")) == 1
        response = api.http.put(f"/v1/nodes/{name}/states/provision", json={"target": "abort"})
        assert response.status_code == 202, response.text
        aborted = settled_node(lambda: api.get(f"/v1/nodes/{name}"))

    assert (aborted["provision_state"], aborted["power_state"]) == ("clean failed", POWER_OFF)
    assert aborted["last_error"] == "By request, the cleaning operation was aborted"
    assert neutron.ports_on("mw-clean", "52:54:00:36:00:05") == []
    on, off = powered_for_network(node)
    assert power_events(api, name) == [on, off, on, off]


def test_a_node_without_a_smart_nic_port_is_not_powered_on(
    api: Metalwire, neutron: Neutron
) -> None:
    name = "plain-power-deploy"
    node = api.node(name)
    api.port(node, "52:54:00:36:00:04", link("Ethernet36/4"))
    api.provision(name, "manage", "provide")
    vif = neutron.vif("mw-tenant-p1")
    assert api.attach(name, vif["id"]).status_code == 204

    deployed = api.provision(name, "active")

    assert (deployed["provision_state"], deployed["power_state"]) == ("active", POWER_ON)
    assert power_events(api, name) == []
    assert neutron.port(vif["id"])["binding:host_id"] == node["uuid"]
