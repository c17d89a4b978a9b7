"""Pin the Neutron behaviour that metalwire's ``neutron`` network interface relies on.

These tests talk plain HTTP to the real Neutron server of the ``neutron_endpoint``
fixture: ML2 with flat and vlan networks on physnet1/physnet2, and networking-generic-
switch with the fake switches sw1 and sw2 binding bare-metal ports.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support.helpers import wait_for
from tests.support.neutron import ADMIN_HEADERS, DEFAULT_SWITCHES, NeutronServer

SW1, SW2 = DEFAULT_SWITCHES
PROJECT = "metalwire-harness"
ACTIVE_TIMEOUT_S = 30.0

Json = dict[str, Any]


def link(switch_port: str, switch_mac: str = SW1.mac_address, switch: str = SW1.name) -> Json:
    return {"switch_id": switch_mac, "port_id": switch_port, "switch_info": switch}


def binding(host: str, *links: Json, group: Json | None = None) -> Json:
    profile: Json = {"local_link_information": list(links)}
    if group is not None:
        profile["local_group_information"] = group
    return {
        "binding:vnic_type": "baremetal",
        "binding:host_id": host,
        "binding:profile": profile,
    }


UNBIND: Json = {"binding:host_id": "", "binding:profile": {}}


class Neutron:
    """A thin client that deletes what it created when the test ends."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self.ports: list[str] = []
        self.networks: list[str] = []

    def create_network(self, network_type: str, physnet: str, **extra: Any) -> Json:
        body = {
            "name": f"harness-{network_type}-{physnet}",
            "project_id": PROJECT,
            "provider:network_type": network_type,
            "provider:physical_network": physnet,
            **extra,
        }
        response = self.http.post("/networks", json={"network": body})
        assert response.status_code == 201, response.text
        network: Json = response.json()["network"]
        self.networks.append(network["id"])
        return network

    def create_port(self, network_id: str, **extra: Any) -> Json:
        body = {"network_id": network_id, "project_id": PROJECT, **extra}
        response = self.http.post("/ports", json={"port": body})
        assert response.status_code == 201, response.text
        port: Json = response.json()["port"]
        self.ports.append(port["id"])
        return port

    def update_port(self, port_id: str, **fields: Any) -> httpx.Response:
        return self.http.put(f"/ports/{port_id}", json={"port": fields})

    def get_port(self, port_id: str) -> Json:
        response = self.http.get(f"/ports/{port_id}")
        assert response.status_code == 200, response.text
        port: Json = response.json()["port"]
        return port

    def wait_port_status(
        self, port_id: str, status: str, timeout: float = ACTIVE_TIMEOUT_S
    ) -> Json:
        deadline = time.monotonic() + timeout
        port = self.get_port(port_id)
        while port["status"] != status and time.monotonic() < deadline:
            time.sleep(0.1)
            port = self.get_port(port_id)
        assert port["status"] == status, f"port still {port['status']} after {timeout} s"
        return port

    def cleanup(self) -> None:
        for port_id in reversed(self.ports):
            self.http.delete(f"/ports/{port_id}")
        for network_id in reversed(self.networks):
            self.http.delete(f"/networks/{network_id}")


@pytest.fixture(scope="module")
def http(neutron_endpoint: str) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=f"{neutron_endpoint}/v2.0", headers=dict(ADMIN_HEADERS), timeout=60.0
    ) as client:
        yield client


@pytest.fixture(scope="module")
def networks(http: httpx.Client) -> Iterator[tuple[Json, Json]]:
    """A flat network on physnet1 and a vlan network on physnet2, for the module."""
    neutron = Neutron(http)
    flat = neutron.create_network("flat", "physnet1")
    vlan = neutron.create_network("vlan", "physnet2")
    yield flat, vlan
    neutron.cleanup()


@pytest.fixture
def neutron(http: httpx.Client) -> Iterator[Neutron]:
    api = Neutron(http)
    yield api
    api.cleanup()


@pytest.fixture
def vlan_net(networks: tuple[Json, Json]) -> Json:
    return networks[1]


@pytest.fixture
def flat_net(networks: tuple[Json, Json]) -> Json:
    return networks[0]


def test_server_listens_on_loopback(neutron_server: NeutronServer, http: httpx.Client) -> None:
    assert urlsplit(neutron_server.endpoint).hostname == "127.0.0.1"
    assert neutron_server.postgres.host == "127.0.0.1"
    response = http.get("/extensions")
    assert response.status_code == 200
    aliases = {ext["alias"] for ext in response.json()["extensions"]}
    assert {"binding", "binding-extended", "provider", "segment", "multi-provider"} <= aliases


def test_flat_network_on_physnet1(http: httpx.Client, flat_net: Json) -> None:
    assert flat_net["provider:network_type"] == "flat"
    assert flat_net["provider:physical_network"] == "physnet1"
    assert flat_net["provider:segmentation_id"] is None
    assert flat_net["status"] == "ACTIVE"
    assert flat_net["project_id"] == PROJECT

    segments = http.get("/segments", params={"network_id": flat_net["id"]}).json()["segments"]
    assert [(s["network_type"], s["physical_network"], s["segmentation_id"]) for s in segments] == [
        ("flat", "physnet1", None)
    ]

    # Only one flat network per physical network.
    response = http.post(
        "/networks",
        json={
            "network": {
                "name": "second-flat",
                "project_id": PROJECT,
                "provider:network_type": "flat",
                "provider:physical_network": "physnet1",
            }
        },
    )
    assert response.status_code == 409, response.text
    assert response.json()["NeutronError"]["type"] == "FlatNetworkInUse"


def test_vlan_network_on_physnet2(http: httpx.Client, vlan_net: Json) -> None:
    assert vlan_net["provider:network_type"] == "vlan"
    assert vlan_net["provider:physical_network"] == "physnet2"
    assert 200 <= vlan_net["provider:segmentation_id"] <= 299
    # Single-segment networks show provider:* attributes, not a "segments" list.
    assert "segments" not in vlan_net

    segments = http.get("/segments", params={"network_id": vlan_net["id"]}).json()["segments"]
    assert len(segments) == 1
    segment = segments[0]
    assert segment["network_type"] == "vlan"
    assert segment["physical_network"] == "physnet2"
    assert segment["segmentation_id"] == vlan_net["provider:segmentation_id"]


def test_network_with_segments_list(neutron: Neutron) -> None:
    """A multi-segment network shows "segments" instead of provider:* attributes."""
    response = neutron.http.post(
        "/networks",
        json={
            "network": {
                "name": "harness-multi",
                "project_id": PROJECT,
                "segments": [
                    {"provider:network_type": "vlan", "provider:physical_network": "physnet1"},
                    {"provider:network_type": "vlan", "provider:physical_network": "physnet2"},
                ],
            }
        },
    )
    assert response.status_code == 201, response.text
    network = response.json()["network"]
    neutron.networks.append(network["id"])
    assert "provider:physical_network" not in network
    physnets = sorted(s["provider:physical_network"] for s in network["segments"])
    assert physnets == ["physnet1", "physnet2"]
    assert all(s["provider:network_type"] == "vlan" for s in network["segments"])


def test_new_port_is_unbound(neutron: Neutron, vlan_net: Json) -> None:
    port = neutron.create_port(vlan_net["id"])
    assert port["status"] == "DOWN"
    assert port["binding:vif_type"] == "unbound"
    assert port["binding:vnic_type"] == "normal"
    assert port["binding:host_id"] == ""
    assert port["binding:profile"] == {}
    assert port["mac_address"].startswith("fa:16:3e:")


def test_mac_change_on_unbound_port(neutron: Neutron, vlan_net: Json) -> None:
    port = neutron.create_port(vlan_net["id"])
    response = neutron.update_port(port["id"], mac_address="52:54:00:aa:00:01")
    assert response.status_code == 200, response.text
    assert response.json()["port"]["mac_address"] == "52:54:00:aa:00:01"


def test_bind_activate_mac_locked_unbind(
    neutron: Neutron, neutron_server: NeutronServer, vlan_net: Json
) -> None:
    port = neutron.create_port(vlan_net["id"], mac_address="52:54:00:aa:00:02")
    segmentation_id = vlan_net["provider:segmentation_id"]

    response = neutron.update_port(port["id"], **binding("node-1", link("Ethernet1/1")))
    assert response.status_code == 200, response.text
    bound = response.json()["port"]
    assert bound["binding:vif_type"] == "other"
    assert bound["binding:vif_details"] == {"bound_drivers": {"0": "genericswitch"}}
    assert bound["binding:host_id"] == "node-1"
    assert bound["binding:vnic_type"] == "baremetal"
    assert bound["binding:profile"]["local_link_information"] == [link("Ethernet1/1")]
    # The answer to the binding update still says DOWN; ACTIVE follows.
    assert bound["status"] == "DOWN"

    neutron.wait_port_status(port["id"], "ACTIVE")
    assert f"plug port Ethernet1/1 to network {segmentation_id}" in (
        neutron_server.fake_switch_commands()
    )

    response = neutron.update_port(port["id"], mac_address="52:54:00:aa:00:03")
    assert response.status_code == 409, response.text
    assert response.json()["NeutronError"]["type"] == "PortBound"

    response = neutron.update_port(port["id"], **UNBIND)
    assert response.status_code == 200, response.text
    unbound = response.json()["port"]
    assert unbound["binding:vif_type"] == "unbound"
    assert unbound["binding:host_id"] == ""
    assert unbound["binding:profile"] == {}
    assert unbound["binding:vnic_type"] == "baremetal"
    assert unbound["status"] == "DOWN"
    assert wait_for(lambda: "delete port Ethernet1/1" in neutron_server.fake_switch_commands())

    response = neutron.update_port(port["id"], mac_address="52:54:00:aa:00:03")
    assert response.status_code == 200, response.text
    assert response.json()["port"]["mac_address"] == "52:54:00:aa:00:03"


def test_bind_on_flat_network_uses_vlan_1(
    neutron: Neutron, neutron_server: NeutronServer, flat_net: Json
) -> None:
    port = neutron.create_port(flat_net["id"])
    response = neutron.update_port(port["id"], **binding("node-2", link("Ethernet1/4")))
    assert response.status_code == 200, response.text
    assert response.json()["port"]["binding:vif_type"] == "other"
    neutron.wait_port_status(port["id"], "ACTIVE")
    assert "plug port Ethernet1/4 to network 1" in neutron_server.fake_switch_commands()


def test_create_port_already_bound(neutron: Neutron, vlan_net: Json) -> None:
    port = neutron.create_port(
        vlan_net["id"],
        device_owner="baremetal:none",
        device_id="0b9d8a5c-0000-4000-8000-000000000001",
        **binding("node-3", link("Ethernet1/5")),
    )
    assert port["binding:vif_type"] == "other"
    assert port["device_owner"] == "baremetal:none"
    neutron.wait_port_status(port["id"], "ACTIVE")


def test_unknown_switch_fails_binding(
    neutron: Neutron, neutron_server: NeutronServer, vlan_net: Json
) -> None:
    port = neutron.create_port(vlan_net["id"])
    unknown = link("Ethernet1/1", switch_mac="00:00:5e:00:53:99", switch="no-such-switch")
    response = neutron.update_port(port["id"], **binding("node-4", unknown))
    assert response.status_code == 200, response.text
    failed = response.json()["port"]
    assert failed["binding:vif_type"] == "binding_failed"
    assert failed["binding:vif_details"] == {}
    assert failed["binding:host_id"] == "node-4"
    # A port bound after it becoming ACTIVE, with its switch plugged, shows Neutron has
    # handled the failed one too: it stays DOWN.
    witness = neutron.create_port(vlan_net["id"])
    response = neutron.update_port(witness["id"], **binding("node-5", link("Ethernet1/7")))
    assert response.status_code == 200, response.text
    neutron.wait_port_status(witness["id"], "ACTIVE")
    assert wait_for(
        lambda: "plug port Ethernet1/7" in " ".join(neutron_server.fake_switch_commands())
    )
    assert neutron.get_port(port["id"])["status"] == "DOWN"
    # A failed binding can be replaced by a good one.
    response = neutron.update_port(port["id"], **binding("node-4", link("Ethernet1/6")))
    assert response.status_code == 200, response.text
    assert response.json()["port"]["binding:vif_type"] == "other"
    neutron.wait_port_status(port["id"], "ACTIVE")


@pytest.mark.parametrize(
    ("switch_mac", "switch_name"),
    [
        pytest.param("00:00:5e:00:53:98", SW1.name, id="unknown-mac-known-switch_info"),
        pytest.param(SW2.mac_address, "no-such-switch", id="known-mac-unknown-switch_info"),
    ],
)
def test_switch_lookup(
    neutron: Neutron,
    neutron_server: NeutronServer,
    vlan_net: Json,
    switch_mac: str,
    switch_name: str,
) -> None:
    """A link binds when either switch_id (ngs_mac_address) or switch_info names a switch."""
    port = neutron.create_port(vlan_net["id"])
    the_link = link("Ethernet2/1", switch_mac=switch_mac, switch=switch_name)
    response = neutron.update_port(port["id"], **binding("node-5", the_link))
    assert response.status_code == 200, response.text
    assert response.json()["port"]["binding:vif_type"] == "other"
    neutron.wait_port_status(port["id"], "ACTIVE")
    # The driver's log line names the link's switch_info, not the switch it matched.
    assert neutron_server.log_lines(
        f"Successfully plugged port {port['id']}", f"on device {switch_name}"
    )


@pytest.mark.parametrize("bond_mode", ["802.3ad", "active-backup"])
def test_portgroup_binding(
    neutron: Neutron, neutron_server: NeutronServer, vlan_net: Json, bond_mode: str
) -> None:
    """A bond over two links (one per switch) binds; the fake switch plugs every link."""
    port = neutron.create_port(vlan_net["id"])
    group = {
        "id": "6b1c7f4e-0000-4000-8000-0000000000aa",
        "name": "bond0",
        "bond_mode": bond_mode,
        "bond_properties": {"bond_miimon": 100},
    }
    links = (
        link("Ethernet3/1", SW1.mac_address, SW1.name),
        link("Ethernet3/2", SW2.mac_address, SW2.name),
    )
    response = neutron.update_port(port["id"], **binding("node-6", *links, group=group))
    assert response.status_code == 200, response.text
    bound = response.json()["port"]
    assert bound["binding:vif_type"] == "other"
    assert bound["binding:profile"]["local_group_information"] == group
    neutron.wait_port_status(port["id"], "ACTIVE")

    segmentation_id = vlan_net["provider:segmentation_id"]
    commands = neutron_server.fake_switch_commands()
    for switch_port in ("Ethernet3/1", "Ethernet3/2"):
        assert f"plug port {switch_port} to network {segmentation_id}" in commands
    plugged_on = {
        device
        for device in (SW1.name, SW2.name)
        if neutron_server.log_lines(f"Successfully plugged port {port['id']}", f"device {device}")
    }
    assert plugged_on == {SW1.name, SW2.name}

    response = neutron.update_port(port["id"], **UNBIND)
    assert response.status_code == 200, response.text
    assert wait_for(
        lambda: (
            {"delete port Ethernet3/1", "delete port Ethernet3/2"}
            <= set(neutron_server.fake_switch_commands())
        )
    )
    neutron.http.delete(f"/ports/{port['id']}")


def test_delete_bound_port(neutron: Neutron, neutron_server: NeutronServer, vlan_net: Json) -> None:
    port = neutron.create_port(vlan_net["id"], **binding("node-7", link("Ethernet1/20")))
    neutron.wait_port_status(port["id"], "ACTIVE")
    response = neutron.http.delete(f"/ports/{port['id']}")
    assert response.status_code == 204
    assert response.content == b""
    response = neutron.http.get(f"/ports/{port['id']}")
    assert response.status_code == 404
    assert response.json()["NeutronError"]["type"] == "PortNotFound"
    assert wait_for(lambda: "delete port Ethernet1/20" in neutron_server.fake_switch_commands())


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        pytest.param({"X-Roles": "admin,service"}, 200, id="admin+service"),
        pytest.param({"X-Roles": "service"}, 200, id="service"),
        pytest.param({"X-Roles": "admin"}, 403, id="admin-only"),
        pytest.param({}, 403, id="no-roles"),
        pytest.param(
            {"X-Roles": "admin,service", "X-Project-Id": PROJECT}, 403, id="with-project-id"
        ),
    ],
)
def test_binding_profile_needs_service_role(
    neutron: Neutron, neutron_endpoint: str, vlan_net: Json, headers: dict[str, str], status: int
) -> None:
    port = neutron.create_port(vlan_net["id"])
    response = httpx.put(
        f"{neutron_endpoint}/v2.0/ports/{port['id']}",
        json={"port": binding("node-8", link("Ethernet4/1"))},
        headers=headers,
        timeout=60.0,
    )
    assert response.status_code == status, response.text
    if status == 403:
        assert response.json()["NeutronError"]["type"] == "PolicyNotAuthorized"


def test_project_id_header_requires_project_in_body(neutron_endpoint: str) -> None:
    response = httpx.post(
        f"{neutron_endpoint}/v2.0/networks",
        json={"network": {"name": "x", "provider:network_type": "vlan"}},
        headers={"X-Roles": "admin,service", "X-Project-Id": PROJECT},
        timeout=60.0,
    )
    assert response.status_code == 400, response.text
    assert "project_id" in response.json()["NeutronError"]["message"]


def test_memory_footprint(neutron_server: NeutronServer) -> None:
    rss = neutron_server.rss_bytes()
    assert 50 * 2**20 < rss < 2 * 2**30, rss
