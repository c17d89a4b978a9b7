"""The ``neutron`` network interface (and ``flat``'s Neutron side) against a real Neutron.

A real ``metalwire serve`` talks to the session's Neutron (ML2 + networking-generic-switch
with the fake switches sw1 and sw2); the tests drive it through metalwire's HTTP API and
check what Neutron holds afterwards. A second server reaches Neutron through a relay the
tests can cut, to see Neutron become unreachable in the middle of a test.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support.helpers import fault, wait_for
from tests.support.neutron import ADMIN_HEADERS, DEFAULT_SWITCHES, NeutronServer
from tests.support.server import MetalwireServer, free_port

SW1, SW2 = DEFAULT_SWITCHES
PROJECT = "metalwire-neutron-interface"
VERSION = {"X-OpenStack-Ironic-API-Version": "1.78"}
ACTIVE_TIMEOUT_S = 30.0

Json = dict[str, Any]


def link(switch_port: str, switch: str = SW1.name, switch_mac: str = SW1.mac_address) -> Json:
    return {"switch_id": switch_mac, "port_id": switch_port, "switch_info": switch}


UNKNOWN_SWITCH = link("Ethernet9/9", "nosuch", "00:00:5e:00:53:99")


class Neutron:
    """Direct access to Neutron, to set up VIF ports and check what metalwire did to them."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self.networks: dict[str, Json] = {}

    def create_network(self, name: str, physnet: str) -> Json:
        body = {
            "name": name,
            "project_id": PROJECT,
            "provider:network_type": "vlan",
            "provider:physical_network": physnet,
        }
        response = self.http.post("/networks", json={"network": body})
        assert response.status_code == 201, response.text
        network: Json = response.json()["network"]
        self.networks[name] = network
        return network

    def vif(self, network: str, **fields: Any) -> Json:
        """A new tenant port (a VIF) on one of the networks, as Nova would create it."""
        body = {"network_id": self.networks[network]["id"], "project_id": PROJECT, **fields}
        response = self.http.post("/ports", json={"port": body})
        assert response.status_code == 201, response.text
        port: Json = response.json()["port"]
        return port

    def port(self, port_id: str) -> Json:
        response = self.http.get(f"/ports/{port_id}")
        assert response.status_code == 200, response.text
        port: Json = response.json()["port"]
        return port

    def ports_on(self, network: str, mac: str | None = None) -> list[Json]:
        params = {"network_id": self.networks[network]["id"]}
        if mac:
            params["mac_address"] = mac
        response = self.http.get("/ports", params=params)
        assert response.status_code == 200, response.text
        ports: list[Json] = response.json()["ports"]
        return ports

    def wait_status(self, port_id: str, status: str) -> Json:
        port = self.port(port_id)
        deadline = time.monotonic() + ACTIVE_TIMEOUT_S
        while port["status"] != status and time.monotonic() < deadline:
            time.sleep(0.1)
            port = self.port(port_id)
        assert port["status"] == status, port
        return port

    def cleanup(self) -> None:
        for network in self.networks.values():
            for port in self.http.get("/ports", params={"network_id": network["id"]}).json()[
                "ports"
            ]:
                self.http.delete(f"/ports/{port['id']}")
            self.http.delete(f"/networks/{network['id']}")


@contextlib.contextmanager
def neutron_with(endpoint: str, networks: dict[str, str]) -> Iterator[Neutron]:
    """Direct access to Neutron with the networks ``{name: physical network}`` made for the
    block, and every port on them deleted with them afterwards."""
    with httpx.Client(
        base_url=f"{endpoint}/v2.0", headers=dict(ADMIN_HEADERS), timeout=60.0
    ) as http:
        api = Neutron(http)
        for name, physnet in networks.items():
            api.create_network(name, physnet)
        try:
            yield api
        finally:
            api.cleanup()


def assert_unbound(port: Json, mac: str) -> None:
    assert port["binding:host_id"] == ""
    assert port["binding:profile"] == {}
    assert port["binding:vif_type"] == "unbound"
    assert port["mac_address"] == mac


class Metalwire:
    """metalwire's HTTP API, with the few calls the tests need."""

    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, headers=VERSION, timeout=120.0)

    def node(self, name: str, interface: str = "neutron", **fields: Any) -> Json:
        body = {"name": name, "driver": "fake-hardware", "network_interface": interface, **fields}
        response = self.http.post("/v1/nodes", json=body)
        assert response.status_code == 201, response.text
        node: Json = response.json()
        return node

    def port(self, node: Json, address: str, local_link: Json, **fields: Any) -> Json:
        body = {
            "node_uuid": node["uuid"],
            "address": address,
            "local_link_connection": local_link,
            **fields,
        }
        response = self.http.post("/v1/ports", json=body)
        assert response.status_code == 201, response.text
        port: Json = response.json()
        return port

    def portgroup(self, node: Json, **fields: Any) -> Json:
        response = self.http.post("/v1/portgroups", json={"node_uuid": node["uuid"], **fields})
        assert response.status_code == 201, response.text
        portgroup: Json = response.json()
        return portgroup

    def get(self, path: str) -> Json:
        response = self.http.get(path)
        assert response.status_code == 200, response.text
        body: Json = response.json()
        return body

    def attach(self, node: str, vif: str, **target: str) -> httpx.Response:
        return self.http.post(f"/v1/nodes/{node}/vifs", json={"id": vif, **target})

    def detach(self, node: str, vif: str) -> httpx.Response:
        return self.http.delete(f"/v1/nodes/{node}/vifs/{vif}")

    def vifs(self, node: str) -> list[str]:
        return [v["id"] for v in self.get(f"/v1/nodes/{node}/vifs")["vifs"]]

    def provision(self, node: str, *verbs: str) -> Json:
        """Run provision verbs in turn; the node afterwards."""
        for verb in verbs:
            response = self.http.put(f"/v1/nodes/{node}/states/provision", json={"target": verb})
            assert response.status_code == 202, response.text
            shown = self.get(f"/v1/nodes/{node}")
            assert shown["last_error"] is None, shown["last_error"]
        return self.get(f"/v1/nodes/{node}")

    def close(self) -> None:
        self.http.close()


# -- fixtures --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def neutron(neutron_endpoint: str) -> Iterator[Neutron]:
    with httpx.Client(
        base_url=f"{neutron_endpoint}/v2.0", headers=dict(ADMIN_HEADERS), timeout=60.0
    ) as http:
        api = Neutron(http)
        api.create_network("mw-tenant-p1", "physnet1")
        api.create_network("mw-tenant-p2", "physnet2")
        api.create_network("mw-provision", "physnet1")
        api.create_network("mw-clean", "physnet1")
        try:
            yield api
        finally:
            api.cleanup()


@pytest.fixture(scope="module")
def server(
    neutron: Neutron, neutron_endpoint: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MetalwireServer]:
    env = {
        "METALWIRE_NEUTRON_URL": neutron_endpoint,
        # One by name, one by UUID: both ways of naming a network are used.
        "METALWIRE_NEUTRON_PROVISIONING_NETWORK": "mw-provision",
        "METALWIRE_NEUTRON_CLEANING_NETWORK": neutron.networks["mw-clean"]["id"],
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
    }
    with MetalwireServer(tmp_path_factory.mktemp("neutron-iface"), env=env) as running:
        yield running


@pytest.fixture(scope="module")
def api(server: MetalwireServer) -> Iterator[Metalwire]:
    client = Metalwire(server.url)
    yield client
    client.close()


@pytest.fixture(scope="module")
def hot(api: Metalwire) -> Json:
    """An active node: a PXE port on sw1, a port on an unknown switch, and a bond of two."""
    node = api.node("hot")
    api.port(node, "52:54:00:31:00:01", link("Ethernet22/1"), physical_network="physnet1")
    api.port(node, "52:54:00:31:00:02", UNKNOWN_SWITCH, pxe_enabled=False)
    bond = api.portgroup(
        node,
        name="bond-hot",
        address="52:54:00:31:00:10",
        mode="802.3ad",
        properties={"miimon": 100},
    )
    for address, member in (
        ("52:54:00:31:00:11", link("Ethernet23/1")),
        ("52:54:00:31:00:12", link("Ethernet23/2", SW2.name, SW2.mac_address)),
    ):
        api.port(
            node,
            address,
            member,
            pxe_enabled=False,
            physical_network="physnet1",
            portgroup_uuid=bond["uuid"],
        )
    shown = api.provision("hot", "manage", "provide", "active")
    assert shown["provision_state"] == "active"
    return node


def ports_of(api: Metalwire, node: str) -> dict[str, Json]:
    ports = api.get(f"/v1/nodes/{node}/ports/detail")["ports"]
    return {p["address"]: p for p in ports}


# -- deploy and undeploy ---------------------------------------------------------------------


def test_deploy_binds_the_vifs_and_undeploy_unbinds_them(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer
) -> None:
    node = api.node("life")
    api.port(node, "52:54:00:30:00:01", link("Ethernet21/1"))
    vif = neutron.vif("mw-tenant-p1")

    # Cleaning puts the PXE port on the cleaning network, then takes it off.
    api.provision("life", "manage", "clean")
    assert wait_for(
        lambda: "plug port Ethernet21/1" in " ".join(neutron_server.fake_switch_commands())
    )
    assert neutron.ports_on("mw-clean") == []
    assert "cleaning_vif_port_id" not in ports_of(api, "life")["52:54:00:30:00:01"]["internal_info"]

    # Attaching to an available node sets the MAC and binds nothing yet.
    assert api.provision("life", "provide")["provision_state"] == "available"
    response = api.attach("life", vif["id"])
    assert response.status_code == 204, response.text
    port = neutron.port(vif["id"])
    assert port["mac_address"] == "52:54:00:30:00:01"
    assert port["binding:host_id"] == ""
    shown = ports_of(api, "life")["52:54:00:30:00:01"]
    assert shown["internal_info"]["tenant_vif_port_id"] == vif["id"]

    # Deploying binds the VIF to the node; the provisioning port is gone again.
    shown = api.provision("life", "active")
    assert shown["provision_state"] == "active"
    port = neutron.wait_status(vif["id"], "ACTIVE")
    assert port["binding:host_id"] == node["uuid"]
    assert port["binding:vnic_type"] == "baremetal"
    assert port["binding:vif_type"] == "other"
    assert port["binding:profile"] == {"local_link_information": [link("Ethernet21/1")]}
    assert neutron.ports_on("mw-provision") == []
    info = ports_of(api, "life")["52:54:00:30:00:01"]["internal_info"]
    assert "provisioning_vif_port_id" not in info
    history = api.get("/v1/nodes/life/history?detail=true")["history"]
    events = [e["event"] for e in history]
    assert "neutron.add_provisioning_network done" in events
    assert "neutron.configure_tenant_networks done" in events

    # Undeploying unbinds the VIF, detaches it and gives it back its MAC.
    assert api.provision("life", "deleted")["provision_state"] == "available"
    assert api.vifs("life") == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


# -- hot-plug on an active node --------------------------------------------------------------


def test_hot_plug_binds_at_once_and_detach_unbinds(
    api: Metalwire, neutron: Neutron, hot: Json
) -> None:
    vif = neutron.vif("mw-tenant-p1")
    h1 = ports_of(api, "hot")["52:54:00:31:00:01"]
    response = api.attach("hot", vif["id"], port_uuid=h1["uuid"])
    assert response.status_code == 204, response.text
    port = neutron.wait_status(vif["id"], "ACTIVE")
    assert port["mac_address"] == "52:54:00:31:00:01"
    assert port["binding:host_id"] == hot["uuid"]
    assert port["binding:vnic_type"] == "baremetal"
    assert port["binding:profile"] == {
        "local_link_information": [link("Ethernet22/1")],
        "physical_network": "physnet1",
    }

    response = api.detach("hot", vif["id"])
    assert response.status_code == 204, response.text
    assert api.vifs("hot") == []
    port = neutron.port(vif["id"])
    assert_unbound(port, vif["mac_address"])
    assert port["status"] == "DOWN"


def test_portgroup_binding_sends_every_link_and_the_bond(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer, hot: Json
) -> None:
    vif = neutron.vif("mw-tenant-p1")
    bond = api.get("/v1/portgroups/bond-hot")
    response = api.attach("hot", vif["id"], portgroup_uuid=bond["uuid"])
    assert response.status_code == 204, response.text
    port = neutron.wait_status(vif["id"], "ACTIVE")
    assert port["mac_address"] == "52:54:00:31:00:10"
    assert port["binding:host_id"] == hot["uuid"]
    assert port["binding:profile"] == {
        "local_link_information": [
            link("Ethernet23/1"),
            link("Ethernet23/2", SW2.name, SW2.mac_address),
        ],
        "local_group_information": {
            "id": bond["uuid"],
            "name": "bond-hot",
            "bond_mode": "802.3ad",
            "bond_properties": {"bond_miimon": 100},
        },
        "physical_network": "physnet1",
    }
    commands = " ".join(neutron_server.fake_switch_commands())
    assert "plug port Ethernet23/1" in commands and "plug port Ethernet23/2" in commands

    assert api.detach("hot", vif["id"]).status_code == 204
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_failed_binding_is_a_clear_error_and_leaves_nothing(
    api: Metalwire, neutron: Neutron, hot: Json
) -> None:
    vif = neutron.vif("mw-tenant-p1")
    h2 = ports_of(api, "hot")["52:54:00:31:00:02"]
    response = api.attach("hot", vif["id"], port_uuid=h2["uuid"])
    assert response.status_code == 502, response.text
    message = fault(response)
    assert f"Attaching VIF {vif['id']} to port {h2['uuid']}" in message
    assert f"Neutron PUT /v2.0/ports/{vif['id']} (bind VIF port {vif['id']}" in message
    assert "binding:vif_type is binding_failed" in message
    assert "Everything already done was undone." in message

    assert api.vifs("hot") == []
    assert "tenant_vif_port_id" not in ports_of(api, "hot")["52:54:00:31:00:02"]["internal_info"]
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])
    assert api.get("/v1/nodes/hot")["provision_state"] == "active"
    history = api.get("/v1/nodes/hot/history?detail=true")["history"]
    assert any(e["severity"] == "ERROR" and vif["id"] in e["event"] for e in history)


# -- physical networks and MAC changes -------------------------------------------------------


def test_physical_networks_choose_the_port(api: Metalwire, neutron: Neutron) -> None:
    node = api.node("phys")
    q1 = api.port(node, "52:54:00:32:00:01", link("Ethernet24/1"), physical_network="physnet1")
    q2 = api.port(
        node,
        "52:54:00:32:00:02",
        link("Ethernet24/2", SW2.name, SW2.mac_address),
        physical_network="physnet2",
    )
    on_p2, on_p1, another_p2 = (
        neutron.vif("mw-tenant-p2"),
        neutron.vif("mw-tenant-p1"),
        neutron.vif("mw-tenant-p2"),
    )

    # A MAC Neutron refuses (another port of the network has it): nothing is left behind.
    squatter = neutron.vif("mw-tenant-p1", mac_address=q1["address"])
    response = api.attach("phys", on_p1["id"])
    assert response.status_code == 502, response.text
    message = fault(response)
    assert f"Neutron PUT /v2.0/ports/{on_p1['id']} (set MAC of VIF port" in message
    assert "HTTP 409 MacAddressInUse" in message
    assert api.vifs("phys") == []
    assert neutron.port(on_p1["id"])["mac_address"] == on_p1["mac_address"]
    assert neutron.http.delete(f"/ports/{squatter['id']}").status_code == 204

    assert api.attach("phys", on_p2["id"]).status_code == 204
    assert neutron.port(on_p2["id"])["mac_address"] == q2["address"]
    assert api.attach("phys", on_p1["id"]).status_code == 204
    assert neutron.port(on_p1["id"])["mac_address"] == q1["address"]
    shown = ports_of(api, "phys")
    assert shown[q2["address"]]["internal_info"]["tenant_vif_port_id"] == on_p2["id"]
    assert shown[q1["address"]]["internal_info"]["tenant_vif_port_id"] == on_p1["id"]

    response = api.attach("phys", another_p2["id"])
    assert response.status_code == 400, response.text
    message = fault(response)
    assert f"port {q1['uuid']}" in message and "physical network physnet1" in message
    assert f"is busy with VIF {on_p2['id']}" in message
    assert neutron.port(another_p2["id"])["mac_address"] == another_p2["mac_address"]

    # A new MAC on a port with a VIF goes to the VIF's Neutron port too.
    response = api.http.patch(
        f"/v1/ports/{q2['uuid']}",
        json=[{"op": "replace", "path": "/address", "value": "52:54:00:32:00:22"}],
    )
    assert response.status_code == 200, response.text
    assert neutron.port(on_p2["id"])["mac_address"] == "52:54:00:32:00:22"

    for vif in (on_p2, on_p1):
        assert api.detach("phys", vif["id"]).status_code == 204
        assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_unknown_vif_is_refused(api: Metalwire, hot: Json) -> None:
    missing = "0b8ad9a2-7ac6-4e8c-8a34-2f0d4c3f5e61"
    response = api.attach("hot", missing)
    assert response.status_code == 400, response.text
    assert f"Neutron has no port {missing}" in fault(response)
    assert api.vifs("hot") == []


# -- the deprecated extra/vif_port_id --------------------------------------------------------


def _set_legacy_vif(api: Metalwire, kind: str, uuid: str, vif: str | None) -> httpx.Response:
    op = (
        {"op": "add", "path": "/extra/vif_port_id", "value": vif}
        if vif is not None
        else {"op": "remove", "path": "/extra/vif_port_id"}
    )
    return api.http.patch(f"/v1/{kind}/{uuid}", json=[op])


def test_legacy_vif_port_id_tells_neutron_as_post_vifs_does(
    api: Metalwire, neutron: Neutron
) -> None:
    node = api.node("legacy")
    port = api.port(node, "52:54:00:34:00:01", link("Ethernet26/1"))
    vif = neutron.vif("mw-tenant-p1")

    response = _set_legacy_vif(api, "ports", port["uuid"], vif["id"])
    assert response.status_code == 200, response.text
    assert "deprecated" in response.headers["Warning"]
    assert neutron.port(vif["id"])["mac_address"] == port["address"]
    assert api.vifs("legacy") == [vif["id"]]
    assert api.get(f"/v1/ports/{port['uuid']}")["extra"] == {"vif_port_id": vif["id"]}

    response = _set_legacy_vif(api, "ports", port["uuid"], None)
    assert response.status_code == 200, response.text
    assert api.vifs("legacy") == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])

    # On create too: the port exists, then the VIF's Neutron port takes its MAC.
    created = api.http.post(
        "/v1/ports",
        json={
            "node_uuid": node["uuid"],
            "address": "52:54:00:34:00:02",
            "local_link_connection": link("Ethernet26/2"),
            "extra": {"vif_port_id": vif["id"]},
        },
    )
    assert created.status_code == 201, created.text
    assert neutron.port(vif["id"])["mac_address"] == "52:54:00:34:00:02"
    assert api.vifs("legacy") == [vif["id"]]
    history = api.get("/v1/nodes/legacy/history?detail=true")["history"]
    legacy = [e for e in history if "extra/vif_port_id" in e["event"]]
    assert [e["severity"] for e in legacy] == ["WARNING"] * 3
    assert api.detach("legacy", vif["id"]).status_code == 204
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_legacy_vif_port_id_neutron_refuses_stores_nothing(
    api: Metalwire, neutron: Neutron
) -> None:
    node = api.node("legacy-refused")
    port = api.port(node, "52:54:00:35:00:01", link("Ethernet27/1"))
    vif = neutron.vif("mw-tenant-p1")
    squatters = [
        neutron.vif("mw-tenant-p1", mac_address=mac)
        for mac in ("52:54:00:35:00:01", "52:54:00:35:00:02")
    ]

    response = _set_legacy_vif(api, "ports", port["uuid"], vif["id"])
    assert response.status_code == 502, response.text
    assert "MacAddressInUse" in fault(response)
    assert api.get(f"/v1/ports/{port['uuid']}")["extra"] == {}
    assert api.vifs("legacy-refused") == []

    response = api.http.post(
        "/v1/ports",
        json={
            "node_uuid": node["uuid"],
            "address": "52:54:00:35:00:02",
            "local_link_connection": link("Ethernet27/2"),
            "extra": {"vif_port_id": vif["id"]},
        },
    )
    assert response.status_code == 502, response.text
    assert api.get("/v1/ports?address=52:54:00:35:00:02")["ports"] == []
    assert api.vifs("legacy-refused") == []
    assert neutron.port(vif["id"])["mac_address"] == vif["mac_address"]
    for squatter in squatters:
        assert neutron.http.delete(f"/ports/{squatter['id']}").status_code == 204


# -- flat with Neutron -----------------------------------------------------------------------


def test_flat_sets_the_mac_and_binds_to_the_compute_host(api: Metalwire, neutron: Neutron) -> None:
    api.node("flatn", "flat", instance_info={"nova_host_id": "compute-7"})
    api.port(api.get("/v1/nodes/flatn"), "52:54:00:33:00:01", link("Ethernet25/1"))
    vif = neutron.vif("mw-tenant-p1")
    api.provision("flatn", "manage", "provide")

    assert api.attach("flatn", vif["id"]).status_code == 204
    port = neutron.port(vif["id"])
    assert port["mac_address"] == "52:54:00:33:00:01"
    assert port["binding:host_id"] == ""

    assert api.provision("flatn", "active")["provision_state"] == "active"
    port = neutron.port(vif["id"])
    assert port["binding:host_id"] == "compute-7"
    assert port["binding:vnic_type"] == "baremetal"
    assert port["binding:profile"] == {"local_link_information": [link("Ethernet25/1")]}

    assert api.provision("flatn", "deleted")["provision_state"] == "available"
    assert api.vifs("flatn") == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


# -- an ironic.conf [neutron] section, as it is ------------------------------------------------


@pytest.fixture(scope="module")
def ironic_conf_server(
    neutron: Neutron, neutron_endpoint: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MetalwireServer]:
    """A server configured only by an INI file with Ironic's section and option names."""
    data_dir: Path = tmp_path_factory.mktemp("ironic-conf")
    conf = data_dir / "ironic.conf"
    conf.write_text(
        "[DEFAULT]\n"
        "transport_url = fake://\n"
        "enabled_deploy_interfaces = direct\n"
        "[conductor]\n"
        "automated_clean = false\n"
        "[neutron]\n"
        "auth_type = none\n"
        f"endpoint_override = {neutron_endpoint}\n"
        "request_timeout = 60\n"
        "status_code_retries = 1\n"
        "status_code_retry_delay = 0.5\n"
        "port_setup_delay = 0\n"
        "provisioning_network = mw-provision\n"
        f"cleaning_network = {neutron.networks['mw-clean']['id']}\n"
        "add_all_ports = false\n"
    )
    with MetalwireServer(data_dir, config=conf) as running:
        yield running


def test_an_ironic_conf_neutron_section_works_as_it_is(
    ironic_conf_server: MetalwireServer, neutron: Neutron
) -> None:
    api = Metalwire(ironic_conf_server.url)
    node = api.node("ironic-conf")
    api.port(node, "52:54:00:35:00:01", link("Ethernet27/1"))
    vif = neutron.vif("mw-tenant-p1")
    api.provision("ironic-conf", "manage", "provide")
    assert api.attach("ironic-conf", vif["id"]).status_code == 204
    assert neutron.port(vif["id"])["mac_address"] == "52:54:00:35:00:01"

    assert api.provision("ironic-conf", "active")["provision_state"] == "active"
    assert neutron.wait_status(vif["id"], "ACTIVE")["binding:host_id"] == node["uuid"]
    history = api.get("/v1/nodes/ironic-conf/history?detail=true")["history"]
    assert "neutron.add_provisioning_network done" in [e["event"] for e in history]
    api.close()

    log = ironic_conf_server.log()
    assert "[DEFAULT] transport_url is an Ironic option metalwire does not use" in log
    assert "[neutron] add_all_ports is an Ironic option metalwire does not use" in log
    assert "deprecated" not in log


# -- Neutron unreachable ---------------------------------------------------------------------


class Relay:
    """A TCP relay to Neutron that can forward, refuse connections, or swallow requests."""

    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.mode = "forward"
        self._listener: socket.socket | None = None
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self.swallowed = 0  # connections accepted and never answered

    def _listen(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with self._lock:
                self._open.append(conn)
            if self.mode == "forward":
                upstream = socket.create_connection(self.target)
                with self._lock:
                    self._open.append(upstream)
                for a, b in ((conn, upstream), (upstream, conn)):
                    threading.Thread(target=self._pump, args=(a, b), daemon=True).start()
            else:  # held open and never answered
                with self._lock:
                    self.swallowed += 1

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def _drop_connections(self) -> None:
        with self._lock:
            sockets, self._open = self._open, []
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def forward(self) -> None:
        self.mode = "forward"
        self._drop_connections()
        if self._listener is None:
            self._listen()

    def refuse(self) -> None:
        if self._listener is not None:
            # shutdown() wakes the thread blocked in accept(); close() alone would not.
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        self._drop_connections()

    def swallow(self) -> None:
        self.mode = "swallow"
        self._drop_connections()
        if self._listener is None:
            self._listen()

    def close(self) -> None:
        self.refuse()


@pytest.fixture(scope="module")
def relay(neutron_endpoint: str) -> Iterator[Relay]:
    running = Relay(neutron_endpoint)
    running.forward()
    yield running
    running.close()


@pytest.fixture(scope="module")
def cut_api(relay: Relay, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Metalwire]:
    """A second server, reaching Neutron through the relay with short timeouts."""
    env = {
        "METALWIRE_NEUTRON_URL": relay.url,
        "METALWIRE_NEUTRON_TIMEOUT": "4",
        "METALWIRE_NEUTRON_RETRIES": "1",
    }
    data_dir: Path = tmp_path_factory.mktemp("neutron-cut")
    with MetalwireServer(data_dir, env=env) as running:
        client = Metalwire(running.url)
        yield client
        client.close()


def test_neutron_unreachable_mid_test(cut_api: Metalwire, relay: Relay, neutron: Neutron) -> None:
    api = cut_api
    api.node("cut")
    api.port(api.get("/v1/nodes/cut"), "52:54:00:34:00:01", link("Ethernet26/1"))
    noop = api.node("bystander", "noop")
    api.port(noop, "52:54:00:34:00:09", link("Ethernet26/9"))
    vif, other = neutron.vif("mw-tenant-p1"), neutron.vif("mw-tenant-p1")
    assert api.attach("cut", vif["id"]).status_code == 204
    assert neutron.port(vif["id"])["mac_address"] == "52:54:00:34:00:01"

    # Connections refused: a clear 503 at once, naming the call; the VIF stays attached.
    relay.refuse()
    began = time.monotonic()
    response = api.detach("cut", vif["id"])
    assert response.status_code == 503, response.text
    message = fault(response)
    assert f"Neutron GET /v2.0/ports/{vif['id']}" in message
    assert f"Neutron at {relay.url}/v2.0 is unreachable" in message
    assert "detach can be retried" in message
    assert time.monotonic() - began < 10
    assert api.vifs("cut") == [vif["id"]]

    # No answer at all: the attach fails after the timeouts, and other nodes do not wait.
    relay.swallow()
    result: dict[str, Any] = {}

    def attach_other() -> None:
        started = time.monotonic()
        result["response"] = api.attach("cut", other["id"])
        result["seconds"] = time.monotonic() - started

    attaching = threading.Thread(target=attach_other)
    swallowed = relay.swallowed
    attaching.start()
    assert wait_for(lambda: relay.swallowed > swallowed), "the attach never reached Neutron"
    for step in (
        lambda: api.attach("bystander", "noop-vif"),
        lambda: api.vifs("bystander"),
        lambda: api.get("/v1/nodes/bystander"),
        lambda: api.get("/v1/nodes/cut/vifs"),
        lambda: api.detach("bystander", "noop-vif"),
    ):
        started = time.monotonic()
        step()
        assert time.monotonic() - started < 1.5
    assert attaching.is_alive(), "the other nodes' calls should finish while Neutron hangs"
    attaching.join(60)
    response = result["response"]
    assert response.status_code == 503, response.text
    message = fault(response)
    assert f"Attaching VIF {other['id']} to node" in message
    assert "nothing was changed" in message
    assert f"Neutron GET /v2.0/ports/{other['id']}" in message
    assert "no answer within 4 s (ReadTimeout)" in message
    assert result["seconds"] >= 4
    assert api.vifs("cut") == [vif["id"]]

    # Neutron back: the detach goes through and the MAC is restored.
    relay.forward()
    response = api.detach("cut", vif["id"])
    assert response.status_code == 204, response.text
    assert api.vifs("cut") == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])
    assert neutron.port(other["id"])["mac_address"] == other["mac_address"]
