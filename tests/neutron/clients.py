"""The two HTTP APIs the Neutron tests drive: Neutron's own, to make VIF ports and see what
metalwire did to them, and metalwire's; with the switch links and the checks they share."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import httpx

from tests.support.helpers import settled_node
from tests.support.neutron import ADMIN_HEADERS, DEFAULT_SWITCHES

SW1, SW2 = DEFAULT_SWITCHES
PROJECT = "metalwire-neutron-interface"
VERSION = {"X-OpenStack-Ironic-API-Version": "1.78"}
ACTIVE_TIMEOUT_S = 30.0

Json = dict[str, Any]


def link(switch_port: str, switch: str = SW1.name, switch_mac: str = SW1.mac_address) -> Json:
    return {"switch_id": switch_mac, "port_id": switch_port, "switch_info": switch}


UNKNOWN_SWITCH = link("Ethernet9/9", "nosuch", "00:00:5e:00:53:99")
#: The steps a manual cleaning here runs (a ``clean`` needs some, as in Ironic).
CLEAN_STEPS = [{"interface": "vendor", "step": "log_passthrough"}]


def provision(verb: str) -> Json:
    """The body of a provision state change to ``verb``, with clean steps for ``clean``."""
    return {"target": verb, "clean_steps": CLEAN_STEPS} if verb == "clean" else {"target": verb}


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

    def create_routed_network(self, name: str, physnets: dict[str, str]) -> Json:
        """A routed provider network: one vlan segment per physical network, each with a
        subnet of its own (``{physnet: cidr}``). Its ports get their address once Neutron
        knows their host (deferred IP allocation). The network carries ``segments_by_physnet``
        (``{physnet: segment id}``)."""
        segments = [
            {"provider:network_type": "vlan", "provider:physical_network": physnet}
            for physnet in physnets
        ]
        body = {"name": name, "project_id": PROJECT, "segments": segments}
        response = self.http.post("/networks", json={"network": body})
        assert response.status_code == 201, response.text
        network: Json = response.json()["network"]
        self.networks[name] = network
        found = self.http.get("/segments", params={"network_id": network["id"]}).json()
        by_physnet = {s["physical_network"]: s["id"] for s in found["segments"]}
        for physnet, cidr in physnets.items():
            subnet = {
                "network_id": network["id"],
                "segment_id": by_physnet[physnet],
                "cidr": cidr,
                "ip_version": 4,
                "project_id": PROJECT,
            }
            response = self.http.post("/subnets", json={"subnet": subnet})
            assert response.status_code == 201, response.text
        network["segments_by_physnet"] = by_physnet
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
            response = self.http.put(f"/v1/nodes/{node}/states/provision", json=provision(verb))
            assert response.status_code == 202, response.text
            shown = settled_node(lambda: self.get(f"/v1/nodes/{node}"))
            assert shown["last_error"] is None, shown["last_error"]
        return self.get(f"/v1/nodes/{node}")

    def deploy_with(self, node: str, vif: str, **target: str) -> Json:
        """Deploy an available node with ``vif`` attached (to ``target`` if given), then
        detach it: an active node with no VIF. A ``neutron`` deploy fails with no VIF to
        bind, as Ironic's does."""
        response = self.attach(node, vif, **target)
        assert response.status_code == 204, response.text
        assert self.provision(node, "active")["provision_state"] == "active"
        response = self.detach(node, vif)
        assert response.status_code == 204, response.text
        return self.get(f"/v1/nodes/{node}")

    def close(self) -> None:
        self.http.close()
