"""Ironic's rule on a port's connectivity, through a real ``metalwire serve``: its link,
``pxe_enabled``, physical network and portgroup change only while its node is in enroll,
manageable, inspecting or inspect wait, or in maintenance (409 otherwise, nothing stored),
for the interfaces that do not set the network up anew for such a change (``noop``,
``flat``, ``neutron``)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.helpers import RAMDISK_NODE, fault, settled_node
from tests.support.server import MetalwireServer

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
LINK = {"switch_id": "00:00:5e:00:53:01", "port_id": "Ethernet1/1"}
_MACS = itertools.count(1)
CONNECTIVITY_PATCHES = {
    "local_link_connection": [
        {"op": "add", "path": "/local_link_connection/port_id", "value": "Ethernet1/2"}
    ],
    "pxe_enabled": [{"op": "replace", "path": "/pxe_enabled", "value": False}],
    "physical_network": [{"op": "add", "path": "/physical_network", "value": "physnet2"}],
}


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    env = {"METALWIRE_ENABLED_NETWORK_INTERFACES": "noop,flat,neutron"}
    with (
        MetalwireServer(tmp_path_factory.mktemp("server"), env=env) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
    ):
        yield client


def _provision(http: httpx.Client, node: str, verb: str) -> dict[str, Any]:
    resp = http.put(f"/v1/nodes/{node}/states/provision", json={"target": verb})
    assert resp.status_code == 202, resp.text
    return settled_node(lambda: dict(http.get(f"/v1/nodes/{node}").json()))


def _node_in(http: httpx.Client, name: str, interface: str, verbs: list[str]) -> dict[str, Any]:
    """A node with one port and a portgroup, brought to its state by ``verbs``."""
    body = {
        "name": name,
        "driver": "fake-hardware",
        "network_interface": interface,
        **RAMDISK_NODE,
    }
    resp = http.post("/v1/nodes", json=body)
    assert resp.status_code == 201, resp.text
    node = resp.json()
    resp = http.post("/v1/portgroups", json={"node_uuid": node["uuid"], "name": f"{name}-pg"})
    assert resp.status_code == 201, resp.text
    port = {
        "node_uuid": node["uuid"],
        "address": f"52:54:00:44:{next(_MACS):02x}:01",
        "local_link_connection": LINK,
        "physical_network": "physnet1",
    }
    resp = http.post("/v1/ports", json=port)
    assert resp.status_code == 201, resp.text
    for verb in verbs:
        node = _provision(http, name, verb)
    return {"node": node, "port": resp.json(), "portgroup": f"{name}-pg"}


def _connectivity_patches(portgroup_uuid: str) -> dict[str, list[dict[str, Any]]]:
    joins = [{"op": "add", "path": "/portgroup_uuid", "value": portgroup_uuid}]
    return {**CONNECTIVITY_PATCHES, "portgroup_uuid": joins}


@pytest.mark.server
@pytest.mark.parametrize(
    ("interface", "verbs", "state"),
    [
        ("noop", ["manage", "provide"], "available"),
        ("flat", ["manage", "provide"], "available"),
        ("neutron", ["manage", "provide"], "available"),
        ("noop", ["manage", "provide", "active"], "active"),
        ("flat", ["manage", "provide", "active"], "active"),
        # a deployed neutron node: tests/neutron/test_neutron_interface.py, with a Neutron
    ],
)
def test_a_port_of_a_node_past_manageable_keeps_its_connectivity_unless_in_maintenance(
    http: httpx.Client, interface: str, verbs: list[str], state: str
) -> None:
    name = f"{interface}-{state}"
    made = _node_in(http, name, interface, verbs)
    assert made["node"]["provision_state"] == state
    port = made["port"]
    portgroup = http.get(f"/v1/portgroups/{made['portgroup']}").json()["uuid"]
    patches = _connectivity_patches(portgroup)

    for field, patch in patches.items():
        resp = http.patch(f"/v1/ports/{port['uuid']}", json=patch)
        assert resp.status_code == 409, (field, resp.text)
        message = fault(resp)
        assert f"Port {port['uuid']} cannot change its {field}" in message
        assert f"node {made['node']['uuid']} ({name}) is in provision state '{state}'" in message
        assert "maintenance" in message
    assert http.get(f"/v1/ports/{port['uuid']}").json() == port

    note = [{"op": "add", "path": "/extra/label", "value": "eno1"}]
    assert http.patch(f"/v1/ports/{port['uuid']}", json=note).status_code == 200

    assert http.put(f"/v1/nodes/{name}/maintenance", json={}).status_code == 202
    for field, patch in patches.items():
        resp = http.patch(f"/v1/ports/{port['uuid']}", json=patch)
        assert resp.status_code == 200, (field, resp.text)
    changed = http.get(f"/v1/ports/{port['uuid']}").json()
    assert changed["local_link_connection"]["port_id"] == "Ethernet1/2"
    assert changed["pxe_enabled"] is False
    assert changed["portgroup_uuid"] == portgroup


@pytest.mark.server
@pytest.mark.parametrize("interface", ["noop", "flat"])
def test_a_port_of_a_manageable_node_changes_its_connectivity(
    http: httpx.Client, interface: str
) -> None:
    name = f"{interface}-manageable"
    made = _node_in(http, name, interface, ["manage"])
    port = made["port"]
    portgroup = http.get(f"/v1/portgroups/{made['portgroup']}").json()["uuid"]
    for field, patch in _connectivity_patches(portgroup).items():
        resp = http.patch(f"/v1/ports/{port['uuid']}", json=patch)
        assert resp.status_code == 200, (field, resp.text)


@pytest.mark.server
def test_a_portgroup_moves_to_a_node_past_manageable_only_in_maintenance(
    http: httpx.Client,
) -> None:
    """As Ironic: the node a portgroup moves to is enroll, manageable, inspecting or inspect
    wait, or in maintenance (409 otherwise, the portgroup left where it was)."""
    to = _node_in(http, "pg-to", "flat", ["manage", "provide"])["node"]
    origin = _node_in(http, "pg-from", "noop", [])
    group = http.get(f"/v1/portgroups/{origin['portgroup']}").json()
    moved = [{"op": "replace", "path": "/node_uuid", "value": to["uuid"]}]

    resp = http.patch(f"/v1/portgroups/{group['uuid']}", json=moved)
    assert resp.status_code == 409, resp.text
    assert fault(resp) == (
        f"Portgroup {group['uuid']} cannot move to node {to['uuid']} (pg-to) in provision "
        "state 'available'; only to a node in enroll, inspect wait, inspecting, manageable "
        "or in maintenance."
    )
    assert http.get(f"/v1/portgroups/{group['uuid']}").json()["node_uuid"] == group["node_uuid"]

    assert http.put("/v1/nodes/pg-to/maintenance", json={}).status_code == 202
    resp = http.patch(f"/v1/portgroups/{group['uuid']}", json=moved)
    assert resp.status_code == 200, resp.text
    assert resp.json()["node_uuid"] == to["uuid"]
