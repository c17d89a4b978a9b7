"""A port's ``local_link_connection.port_id`` goes into the switch's commands: on an
``ironic-networking`` node it must be a switch interface name, through every way a port gets
there, on a real ``metalwire serve`` and the emulated switch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.helpers import RAMDISK_NODE
from tests.support.switch import EmulatedSwitch, PortVlan
from tests.switch.conftest import OTHER, PROVISIONING, TENANT, TOR_1_MAC
from tests.switch.test_ironic_networking_states import _node, _provision

# another port's VLAN changed with ovs-vsctl's own "--" separator (no shell metacharacter)
OVS_INJECTION = f"swp1 vlan_mode=access -- set port swp2 tag={PROVISIONING} -- set port swp1"
ALLOWED = "letters, digits and _.:/- only"


def _shell_injection(marker: Path) -> str:
    return f"swp1;touch {marker};echo"


def _new_node(http: Any, name: str, interface: str = "ironic-networking", **fields: Any) -> str:
    body = {
        "name": name,
        "driver": "fake-hardware",
        "network_interface": interface,
        **RAMDISK_NODE,
        **fields,
    }
    resp = http.post("/v1/nodes", json=body)
    assert resp.status_code == 201, resp.text
    return str(resp.json()["uuid"])


def _port_body(node: str, port_id: str) -> dict[str, Any]:
    return {
        "node_uuid": node,
        "address": "52:54:00:00:00:09",
        "local_link_connection": {"switch_id": "tor-1", "port_id": port_id},
    }


def _refused(resp: Any) -> str:
    assert resp.status_code == 400, resp.text
    message = str(resp.json()["error_message"])
    assert "local_link_connection port_id" in message and ALLOWED in message, message
    return message


def _untouched(switch: EmulatedSwitch, marker: Path) -> None:
    assert switch.port_vlan("swp1") == PortVlan(tag=None, vlan_mode=None, trunks=())
    assert switch.port_vlan("swp2").tag == OTHER
    assert not marker.exists()


@pytest.mark.parametrize("kind", ["ovs", "shell"])
def test_a_port_create_naming_more_than_a_switch_interface_is_refused(
    emulated_switch: EmulatedSwitch, http_for: Any, tmp_path: Path, kind: str
) -> None:
    switch = emulated_switch
    http = http_for(switch)
    switch.set_access_vlan("swp2", OTHER)  # another tenant's node, on its VLAN
    marker = tmp_path / "injected"
    # deployed without a port, which no network boot can boot: by the fake interfaces
    node = _new_node(http, "evil", deploy_interface="fake", boot_interface="fake")
    port_id = OVS_INJECTION if kind == "ovs" else _shell_injection(marker)

    _refused(http.post("/v1/ports", json=_port_body(node, port_id)))

    assert http.get(f"/v1/ports?node={node}").json()["ports"] == []
    for verb in ("manage", "provide", "active"):
        _provision(http, "evil", verb)
    _untouched(switch, marker)


@pytest.mark.parametrize("kind", ["ovs", "shell"])
def test_a_port_patch_naming_more_than_a_switch_interface_is_refused(
    emulated_switch: EmulatedSwitch, http_for: Any, tmp_path: Path, kind: str
) -> None:
    switch = emulated_switch
    http = http_for(switch)
    switch.set_access_vlan("swp2", OTHER)
    marker = tmp_path / "injected"
    access = {"mode": "access", "native_vlan": TENANT}
    port = _node(http, "evil", "ramdisk", "swp3", extra={"switchport": access})["uuid"]
    port_id = OVS_INJECTION if kind == "ovs" else _shell_injection(marker)
    patch = [{"op": "replace", "path": "/local_link_connection/port_id", "value": port_id}]

    message = _refused(http.patch(f"/v1/ports/{port}", json=patch))

    assert port in message
    link = http.get(f"/v1/ports/{port}").json()["local_link_connection"]
    assert link == {"switch_id": "tor-1", "port_id": "swp3"}
    for verb in ("manage", "provide", "active"):
        _provision(http, "evil", verb)
    assert switch.port_vlan("swp3").tag == TENANT
    _untouched(switch, marker)
    # nor on an active node, where a change of the link is applied at once
    _refused(http.patch(f"/v1/ports/{port}", json=patch))
    assert switch.port_vlan("swp3").tag == TENANT
    _untouched(switch, marker)


def test_a_port_enters_an_ironic_networking_node_only_with_a_switch_interface_name(
    emulated_switch: EmulatedSwitch, http_for: Any, tmp_path: Path
) -> None:
    switch = emulated_switch
    http = http_for(switch)
    switch.set_access_vlan("swp2", OTHER)
    marker = tmp_path / "injected"
    # metalwire programs no switch for a flat or noop node: Ironic takes any name there (and
    # only a MAC address or a datapath ID as the switch)
    flat = _new_node(http, "flat", "noop")
    body = _port_body(flat, _shell_injection(marker))
    body["local_link_connection"]["switch_id"] = TOR_1_MAC
    resp = http.post("/v1/ports", json=body)
    assert resp.status_code == 201, resp.text
    port = resp.json()["uuid"]
    target = _new_node(http, "target")

    # moved to an ironic-networking node
    move = [{"op": "replace", "path": "/node_uuid", "value": target}]
    assert port in _refused(http.patch(f"/v1/ports/{port}", json=move))
    # its node changed to ironic-networking
    change = [{"op": "replace", "path": "/network_interface", "value": "ironic-networking"}]
    assert port in _refused(http.patch("/v1/nodes/flat", json=change))
    assert http.get("/v1/nodes/flat").json()["network_interface"] == "noop"

    # with a switch interface name, both go through
    rename = [{"op": "replace", "path": "/local_link_connection/port_id", "value": "Eth1/1.100"}]
    assert http.patch(f"/v1/ports/{port}", json=rename).status_code == 200
    assert http.patch("/v1/nodes/flat", json=change).status_code == 200
    assert http.patch(f"/v1/ports/{port}", json=move).status_code == 200
    _untouched(switch, marker)


REAL_NAMES = ["Ethernet1/1", "GigabitEthernet0/0/1", "xe-0/0/1:2", "1/1/1", "port-channel10"]


def test_real_switch_interface_names_are_taken(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    http = http_for(emulated_switch)
    node = _new_node(http, "n")

    for number, port_id in enumerate(REAL_NAMES):
        body = {**_port_body(node, port_id), "address": f"52:54:00:00:01:0{number}"}
        resp = http.post("/v1/ports", json=body)
        assert resp.status_code == 201, resp.text
        patch = [{"op": "replace", "path": "/local_link_connection/port_id", "value": "swp1"}]
        resp = http.patch(f"/v1/ports/{resp.json()['uuid']}", json=patch)
        assert resp.status_code == 200, resp.text
