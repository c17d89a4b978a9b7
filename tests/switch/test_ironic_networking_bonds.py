"""A LAG portgroup of ``ironic-networking`` is an Open vSwitch bond on the emulated switch,
through a real ``metalwire serve``: the bond's VLAN is read back from Open vSwitch and seen
by pings.

The server side is one member carrying traffic: server 1 (behind ``swp1``, the bond's first
member, which an active-backup bond sends and receives on) pings server 3 on a plain port;
server 2 (behind ``swp2``, the backup member) stays silent.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx

from tests.support.helpers import RAMDISK_NODE, settled_node
from tests.support.switch import EmulatedSwitch, PortVlan
from tests.switch.conftest import IDLE, OTHER, TENANT
from tests.switch.test_ironic_networking_states import _provision

LAG = {"mode": "access", "aggregation_mode": "static"}


def _bonded_node(http: httpx.Client, name: str, ports: list[str | None]) -> dict[str, Any]:
    resp = http.post(
        "/v1/nodes",
        json={
            "name": name,
            "driver": "fake-hardware",
            "network_interface": "ironic-networking",
            **RAMDISK_NODE,
        },
    )
    assert resp.status_code == 201, resp.text
    node = resp.json()
    body = {"node_uuid": node["uuid"], "name": f"{name}-lag", "extra": {"lag": LAG}}
    resp = http.post("/v1/portgroups", json=body)
    assert resp.status_code == 201, resp.text
    portgroup = dict(resp.json())
    for number, switch_port in enumerate(ports, start=1):
        link = {"switch_id": "tor-1", "port_id": switch_port} if switch_port else {}
        resp = http.post(
            "/v1/ports",
            json={
                "node_uuid": node["uuid"],
                "portgroup_uuid": portgroup["uuid"],
                "address": f"52:54:00:00:01:0{number}",
                "local_link_connection": link,
                "pxe_enabled": number == 1,
            },
        )
        assert resp.status_code == 201, resp.text
    for verb in ("manage", "provide"):
        _provision(http, name, verb)
    return portgroup


def _ping_soon(switch: EmulatedSwitch, source: int, destination: int) -> bool:
    """A new bond enables its member within a moment: a few tries."""
    for _ in range(10):
        if switch.ping(source, destination):
            return True
        time.sleep(0.3)
    return False


def test_a_vif_on_a_lag_portgroup_puts_its_bond_on_the_vif_network_and_detach_on_idle(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    switch = emulated_switch
    http = http_for(switch, METALWIRE_IRONIC_NETWORKING_VIF_NETWORKS=f"tenant-a:{TENANT}")
    switch.set_access_vlan("swp3", TENANT)
    portgroup = _bonded_node(http, "e", ["swp1", "swp2"])

    _provision(http, "e", "active")  # the deploy's idle network makes the bond
    assert switch.vsctl("get", "port", "e-lag", "bond_mode").strip() == "active-backup"
    assert switch.vsctl("list-ifaces", "br0").split() == ["swp1", "swp2", "swp3"]
    assert switch.port_vlan("e-lag") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())

    body = {"id": "vif-e", "network": "tenant-a", "portgroup_uuid": portgroup["uuid"]}
    preview = http.post("/v1/nodes/e/vifs", json=body, headers={"X-Metalwire-Dry-Run": "true"})
    assert preview.status_code == 200, preview.text
    (changes,) = preview.json()["switch_changes"]
    (bond,) = changes["ports"]  # one change for the bond, shown on its first member
    assert (bond["port_id"], bond["to"]["native_vlan"]) == ("e-lag", TENANT), bond
    assert "add-bond" in bond["commands"][0] and "e-lag swp1 swp2" in bond["commands"][0]
    assert switch.port_vlan("e-lag").tag == IDLE  # nothing was sent
    resp = http.post("/v1/nodes/e/vifs", json=body)
    assert resp.status_code == 204, resp.text
    assert switch.port_vlan("e-lag") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    assert _ping_soon(switch, 1, 3)

    # the audit reads the bond by its name, not its members as ports of their own
    audit = http.post("/v1/metalwire/audit", json={})
    assert audit.status_code == 200, audit.text
    assert (audit.json()["findings"], audit.json()["not_checked"]) == ([], [])
    switch.set_access_vlan("e-lag", OTHER)  # behind metalwire's back
    (finding,) = http.post("/v1/metalwire/audit", json={}).json()["findings"]
    assert finding["kind"] == "switchport_mismatch", finding
    assert (finding["expected"]["port_id"], finding["expected"]["tag"]) == ("e-lag", TENANT)
    assert finding["actual"]["tag"] == OTHER
    switch.set_access_vlan("e-lag", TENANT)

    assert http.delete("/v1/nodes/e/vifs/vif-e").status_code == 204
    assert switch.port_vlan("e-lag") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
    assert not switch.ping(1, 3)


def test_a_bond_whose_second_member_the_switch_lacks_leaves_the_first_as_it_was(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    switch = emulated_switch
    http = http_for(switch, METALWIRE_IRONIC_NETWORKING_VIF_NETWORKS=f"tenant-a:{TENANT}")
    switch.set_access_vlan("swp1", OTHER)
    _bonded_node(http, "f", ["swp1", "swp9"])

    resp = http.put("/v1/nodes/f/states/provision", json={"target": "active"})

    assert resp.status_code == 202, resp.text
    shown = settled_node(lambda: http.get("/v1/nodes/f").json(), timeout=60)
    assert shown["provision_state"] == "deploy failed", shown
    assert (
        "Switch tor-1 port f-lag: the switch answered: no interface named swp9"
        in (shown["last_error"])
    ), shown["last_error"]
    # one ovs-vsctl transaction: the first member was not taken into a bond
    assert switch.port_vlan("swp1") == PortVlan(tag=OTHER, vlan_mode="access", trunks=())
    assert "f-lag" not in switch.vsctl("list-ports", "br0").split()


def _port_on(http: httpx.Client, node: str, switch_port: str) -> str:
    ports = http.get(f"/v1/ports?node={node}&fields=uuid,local_link_connection").json()["ports"]
    (uuid,) = [p["uuid"] for p in ports if p["local_link_connection"]["port_id"] == switch_port]
    return str(uuid)


def _patch(http: httpx.Client, portgroup: dict[str, Any], patch: list[dict[str, Any]]) -> None:
    resp = http.patch(f"/v1/portgroups/{portgroup['uuid']}", json=patch)
    assert resp.status_code == 200, resp.text


def _audit_finds_nothing(http: httpx.Client) -> None:
    """The audit compares each switch port with what metalwire last set on it: a bond it
    made is read by its name as long as the members record it."""
    audit = http.post("/v1/metalwire/audit", json={})
    assert audit.status_code == 200, audit.text
    assert (audit.json()["findings"], audit.json()["not_checked"]) == ([], []), audit.json()


def test_a_renamed_lag_portgroup_moves_its_bond_and_one_losing_its_lag_takes_it_apart(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    """One deployed node (one deploy keeps the test short): its bond follows a rename at the
    next change, and is taken apart at the next change once the portgroup loses extra.lag."""
    switch = emulated_switch
    http = http_for(switch, METALWIRE_IRONIC_NETWORKING_VIF_NETWORKS=f"tenant-a:{TENANT}")
    switch.set_access_vlan("swp3", TENANT)
    portgroup = _bonded_node(http, "g", ["swp1", "swp2"])
    _provision(http, "g", "active")
    assert sorted(switch.vsctl("list-ports", "br0").split()) == ["g-lag", "swp3"]
    body = {"id": "vif-g", "network": "tenant-a", "portgroup_uuid": portgroup["uuid"]}

    # renamed: the old bond is taken apart and the new one made, in one change
    _patch(http, portgroup, [{"op": "replace", "path": "/name", "value": "g-bond"}])
    _audit_finds_nothing(http)  # until then the switch holds the bond by its old name
    resp = http.post("/v1/nodes/g/vifs", json=body)
    assert resp.status_code == 204, resp.text
    assert sorted(switch.vsctl("list-ports", "br0").split()) == ["g-bond", "swp3"]
    assert switch.vsctl("get", "port", "g-bond", "bond_mode").strip() == "active-backup"
    assert switch.port_vlan("g-bond") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    assert _ping_soon(switch, 1, 3)
    assert http.delete("/v1/nodes/g/vifs/vif-g").status_code == 204
    assert switch.port_vlan("g-bond").tag == IDLE

    # no LAG any more: its members are ports of their own, the bond goes first
    _patch(http, portgroup, [{"op": "remove", "path": "/extra/lag"}])
    _audit_finds_nothing(http)  # the bond stays on the switch until the members' next change
    preview = http.post("/v1/nodes/g/vifs", json=body, headers={"X-Metalwire-Dry-Run": "true"})
    assert preview.status_code == 200, preview.text
    (changes,) = preview.json()["switch_changes"]
    assert [c["port_id"] for c in changes["ports"]] == ["swp1", "swp2"], changes
    for change in changes["ports"]:
        assert change["commands"][0].startswith("ovs-vsctl --if-exists del-port g-bond"), change
    resp = http.post("/v1/nodes/g/vifs", json=body)

    assert resp.status_code == 204, resp.text
    assert sorted(switch.vsctl("list-ports", "br0").split()) == ["swp1", "swp2", "swp3"]
    for member in ("swp1", "swp2"):
        assert switch.port_vlan(member) == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    assert _ping_soon(switch, 1, 3)
    swp1 = http.get(f"/v1/ports/{_port_on(http, 'g', 'swp1')}").json()
    # a port of its own: no bond recorded any more
    assert swp1["internal_info"]["switchport_applied"] == {
        "mode": "access",
        "native_vlan": TENANT,
        "allowed_vlans": [],
    }
    assert http.delete("/v1/nodes/g/vifs/vif-g").status_code == 204
    assert switch.port_vlan("swp1").tag == IDLE
    assert switch.port_vlan("swp2").tag == IDLE


def test_a_bond_made_by_a_change_that_fails_later_is_taken_apart(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    switch = emulated_switch
    http = http_for(switch)
    portgroup = _bonded_node(http, "g", ["swp1", "swp2"])
    body = {
        "node_uuid": portgroup["node_uuid"],
        "address": "52:54:00:00:01:09",
        "local_link_connection": {"switch_id": "tor-1", "port_id": "swp9"},
        "pxe_enabled": False,
    }
    resp = http.post("/v1/ports", json=body)
    assert resp.status_code == 201, resp.text

    # the bond is made first, then the port the switch lacks fails the whole change
    resp = http.put("/v1/nodes/g/states/provision", json={"target": "active"})

    assert resp.status_code == 202, resp.text
    shown = settled_node(lambda: http.get("/v1/nodes/g").json(), timeout=60)
    assert shown["provision_state"] == "deploy failed", shown
    assert "Switch tor-1 port swp9" in shown["last_error"], shown["last_error"]
    assert "not put back" not in shown["last_error"], shown["last_error"]
    assert switch.vsctl("list-ports", "br0").split() == ["swp1", "swp2", "swp3"]
    assert switch.port_vlan("swp1") == PortVlan(tag=None, vlan_mode=None, trunks=())


def _bond_members(http: httpx.Client, node: str) -> dict[str, Any]:
    ports = http.get(f"/v1/ports?node={node}&fields=local_link_connection,internal_info").json()
    return {
        p["local_link_connection"]["port_id"]: p["internal_info"]["switchport_applied"]
        for p in ports["ports"]
    }


def test_a_bond_member_deleted_or_moved_away_leaves_the_bond_for_the_idle_network(
    emulated_switch: EmulatedSwitch, http_for: Any, tmp_path: Path
) -> None:
    """The bond is made again of the members left, on the VLAN it carried; the switch
    interface of the port deleted (or moved to another node) no longer carries the tenant's
    VLAN. With one member left there is no bond any more: that member is a port of its own
    on the same VLAN."""
    switch = emulated_switch
    http = http_for(switch, METALWIRE_IRONIC_NETWORKING_VIF_NETWORKS=f"tenant-a:{TENANT}")
    portgroup = _bonded_node(http, "d", ["swp1", "swp2", "swp3"])
    _provision(http, "d", "active")
    body = {"id": "vif-d", "network": "tenant-a", "portgroup_uuid": portgroup["uuid"]}
    assert http.post("/v1/nodes/d/vifs", json=body).status_code == 204
    assert switch.vsctl("list-ports", "br0").split() == ["d-lag"]
    tenant = PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    assert switch.port_vlan("d-lag") == tenant
    recorded = _bond_members(http, "d")

    # a delete whose records the database refuses leaves the bond as it was
    database = tmp_path / "server" / "metalwire.db"
    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute(
            "CREATE TRIGGER refuse_delete BEFORE UPDATE OF internal_info ON ports "
            "BEGIN SELECT RAISE(ABORT, 'injected commit failure'); END"
        )
        db.commit()
    resp = http.delete(f"/v1/ports/{_port_on(http, 'd', 'swp3')}")
    assert resp.status_code == 409 and "injected commit failure" in resp.text, resp.text
    assert switch.vsctl("list-ports", "br0").split() == ["d-lag"]
    assert switch.port_vlan("d-lag") == tenant
    assert _bond_members(http, "d") == recorded
    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute("DROP TRIGGER refuse_delete")
        db.commit()

    resp = http.delete(f"/v1/ports/{_port_on(http, 'd', 'swp3')}")

    assert resp.status_code == 204, resp.text
    assert sorted(switch.vsctl("list-ports", "br0").split()) == ["d-lag", "swp3"]
    assert switch.port_vlan("swp3") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
    assert switch.port_vlan("d-lag") == tenant
    left = _bond_members(http, "d")
    assert sorted(left) == ["swp1", "swp2"]
    assert {tuple(r["bond"]["members"]) for r in left.values()} == {("swp1", "swp2")}, left
    _audit_finds_nothing(http)

    resp = http.post(
        "/v1/nodes",
        json={"name": "e", "driver": "fake-hardware", "network_interface": "ironic-networking"},
    )
    assert resp.status_code == 201, resp.text
    assert http.put("/v1/nodes/d/maintenance", json={}).status_code == 202
    moved = [
        {"op": "replace", "path": "/node_uuid", "value": resp.json()["uuid"]},
        {"op": "remove", "path": "/portgroup_uuid"},
    ]
    resp = http.patch(f"/v1/ports/{_port_on(http, 'd', 'swp2')}", json=moved)

    assert resp.status_code == 200, resp.text
    assert resp.json()["internal_info"]["switchport_applied"]["native_vlan"] == IDLE
    assert sorted(switch.vsctl("list-ports", "br0").split()) == ["swp1", "swp2", "swp3"]
    assert switch.port_vlan("swp2") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
    assert switch.port_vlan("swp1") == tenant
    assert _bond_members(http, "d") == {
        "swp1": {"mode": "access", "native_vlan": TENANT, "allowed_vlans": []}
    }

    # the member left is a port of its own at its next change too, not a bond of one
    assert http.delete("/v1/nodes/d/maintenance").status_code == 202
    _audit_finds_nothing(http)
    resp = http.delete("/v1/nodes/d/vifs/vif-d")
    assert resp.status_code == 204, resp.text
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
    assert "d-lag" not in switch.vsctl("list-ports", "br0").split()


def test_a_lag_portgroup_of_one_member_is_a_port_of_its_own_on_open_vswitch(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    """Open vSwitch cannot bond one interface: the lone member carries the portgroup's
    networks as a port of its own, as the member a bond keeps when the other leaves; a
    second member added later makes the bond at the next change."""
    switch = emulated_switch
    http = http_for(switch, METALWIRE_IRONIC_NETWORKING_VIF_NETWORKS=f"tenant-a:{TENANT}")
    switch.set_access_vlan("swp3", TENANT)
    portgroup = _bonded_node(http, "s", ["swp1"])

    _provision(http, "s", "active")
    shown = http.get("/v1/nodes/s").json()
    assert (shown["provision_state"], shown["last_error"]) == ("active", None), shown
    assert "s-lag" not in switch.vsctl("list-ports", "br0").split()
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())

    body = {"id": "vif-s", "network": "tenant-a", "portgroup_uuid": portgroup["uuid"]}
    resp = http.post("/v1/nodes/s/vifs", json=body)
    assert resp.status_code == 204, resp.text
    assert switch.port_vlan("swp1") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    assert _ping_soon(switch, 1, 3)
    audit = http.post("/v1/metalwire/audit", json={})
    assert audit.status_code == 200, audit.text
    assert (audit.json()["findings"], audit.json()["not_checked"]) == ([], [])

    assert http.delete("/v1/nodes/s/vifs/vif-s").status_code == 204
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())

    # a second member: the next change makes the bond of both
    second = {
        "node_uuid": shown["uuid"],
        "portgroup_uuid": portgroup["uuid"],
        "address": "52:54:00:00:01:02",
        "local_link_connection": {"switch_id": "tor-1", "port_id": "swp2"},
    }
    resp = http.post("/v1/ports", json=second)
    assert resp.status_code == 201, resp.text
    assert http.post("/v1/nodes/s/vifs", json=body).status_code == 204
    assert switch.vsctl("get", "port", "s-lag", "bond_mode").strip() == "active-backup"
    assert switch.port_vlan("s-lag") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    assert _ping_soon(switch, 1, 3)
