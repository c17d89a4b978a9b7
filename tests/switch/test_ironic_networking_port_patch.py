"""What ``ironic-networking`` records of a switch port (``internal_info.switchport_applied``)
stays true across later saves of the port, through a real ``metalwire serve`` on the
emulated switch."""

from __future__ import annotations

from typing import Any

from tests.support.switch import EmulatedSwitch, PortVlan
from tests.switch.conftest import IDLE, OTHER, TENANT
from tests.switch.test_ironic_networking_states import _node, _provision


def _applied(http: Any, port: str) -> Any:
    return http.get(f"/v1/ports/{port}").json()["internal_info"].get("switchport_applied")


def test_a_switchport_patch_on_an_active_node_stays_recorded_after_later_saves(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    switch = emulated_switch
    http = http_for(switch)
    access = {"mode": "access", "native_vlan": TENANT}
    port = _node(http, "h", "ramdisk", "swp1", extra={"switchport": access})["uuid"]
    _provision(http, "h", "active")
    assert switch.port_vlan("swp1").tag == TENANT

    moved = [{"op": "add", "path": "/extra/switchport", "value": {**access, "native_vlan": OTHER}}]
    assert http.patch(f"/v1/ports/{port}", json=moved).status_code == 200
    later = [
        [{"op": "add", "path": "/extra/note", "value": "rack 4"}],
        [{"op": "replace", "path": "/pxe_enabled", "value": False}],
        [{"op": "add", "path": "/local_link_connection/switch_info", "value": "tor-1"}],
    ]
    for patch in later:
        resp = http.patch(f"/v1/ports/{port}", json=patch)
        assert resp.status_code == 200, resp.text

    assert switch.port_vlan("swp1") == PortVlan(tag=OTHER, vlan_mode="access", trunks=())
    assert _applied(http, port) == {"mode": "access", "native_vlan": OTHER, "allowed_vlans": []}


def test_a_switchport_patch_leaves_a_port_on_the_network_its_vif_named(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    switch = emulated_switch
    http = http_for(switch, METALWIRE_IRONIC_NETWORKING_VIF_NETWORKS=f"tenant-a:{TENANT}")
    port = _node(http, "k", "ramdisk", "swp1")["uuid"]
    _provision(http, "k", "active")
    resp = http.post("/v1/nodes/k/vifs", json={"id": "vif-k", "network": "tenant-a"})
    assert resp.status_code == 204, resp.text
    assert switch.port_vlan("swp1").tag == TENANT

    patch = [
        {
            "op": "add",
            "path": "/extra/switchport",
            "value": {"mode": "access", "native_vlan": OTHER},
        }
    ]
    resp = http.patch(f"/v1/ports/{port}", json=patch)

    assert resp.status_code == 200, resp.text
    # as at deploy, the attached VIF's network wins over the port's switchport
    assert switch.port_vlan("swp1") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    assert _applied(http, port) == {"mode": "access", "native_vlan": TENANT, "allowed_vlans": []}
    assert http.delete("/v1/nodes/k/vifs/vif-k").status_code == 204
    assert switch.port_vlan("swp1").tag == IDLE
