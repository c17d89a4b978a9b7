"""What ``ironic-networking`` records of a switch port (``internal_info.switchport_applied``)
stays true across later saves of the port, and a port cabled elsewhere (its
``local_link_connection`` changed or removed) or deleted leaves no switch port on its network,
through a real ``metalwire serve`` on the emulated switch."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.support.helpers import settled_node
from tests.support.switch import EmulatedSwitch, PortVlan
from tests.switch.conftest import CLEANING, IDLE, OTHER, TENANT
from tests.switch.test_ironic_networking_states import _node, _provision, _state

ACCESS_TENANT = {"mode": "access", "native_vlan": TENANT}


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


def _access(vlan: int) -> PortVlan:
    return PortVlan(tag=vlan, vlan_mode="access", trunks=())


def test_a_link_moved_on_an_active_node_resets_the_old_switch_port_and_sets_the_new(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    switch = emulated_switch
    http = http_for(switch)
    port = _node(http, "m", "ramdisk", "swp1", extra={"switchport": ACCESS_TENANT})["uuid"]
    _provision(http, "m", "active")
    assert switch.port_vlan("swp1") == _access(TENANT)
    switch.set_access_vlan("swp2", OTHER)  # whatever the new switch port was left on

    moved = [{"op": "replace", "path": "/local_link_connection/port_id", "value": "swp2"}]
    resp = http.patch(f"/v1/ports/{port}", json=moved)

    assert resp.status_code == 200, resp.text
    assert switch.port_vlan("swp1") == _access(IDLE)  # no longer the node's: reset
    assert switch.port_vlan("swp2") == _access(TENANT)
    assert _applied(http, port) == {"mode": "access", "native_vlan": TENANT, "allowed_vlans": []}

    # the link and the switchport removed at once (a switchport needs a link)
    removed = [
        {"op": "remove", "path": "/local_link_connection"},
        {"op": "remove", "path": "/extra/switchport"},
    ]
    resp = http.patch(f"/v1/ports/{port}", json=removed)

    assert resp.status_code == 200, resp.text
    assert switch.port_vlan("swp2") == _access(IDLE)
    assert _applied(http, port) is None
    assert "switchport_applied" not in http.get(f"/v1/ports/{port}").json()["internal_info"]


def test_a_link_moved_while_cleaning_puts_the_new_switch_port_on_the_cleaning_network(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    switch = emulated_switch
    http = http_for(switch, METALWIRE_CONDUCTOR_CLEAN_CALLBACK_TIMEOUT="0")
    port = _node(http, "c", "direct", "swp1")["uuid"]
    _provision(http, "c", "manage")
    body = {
        "target": "clean",
        "clean_steps": [{"interface": "deploy", "step": "erase_devices"}],
    }
    assert http.put("/v1/nodes/c/states/provision", json=body).status_code == 202
    settled_node(lambda: _state(http, "c"))
    assert _state(http, "c")["provision_state"] == "clean wait"
    assert switch.port_vlan("swp1") == _access(CLEANING)

    moved = [{"op": "replace", "path": "/local_link_connection/port_id", "value": "swp3"}]
    resp = http.patch(f"/v1/ports/{port}", json=moved)

    assert resp.status_code == 200, resp.text
    assert switch.port_vlan("swp1") == _access(IDLE)
    assert switch.port_vlan("swp3") == _access(CLEANING)

    _provision(http, "c", "abort", version="1.13")  # back on idle: the new switch port
    assert switch.port_vlan("swp3") == _access(IDLE)


def test_a_port_deleted_from_an_active_node_leaves_its_switch_port_on_idle(
    emulated_switch: EmulatedSwitch, http_for: Any, tmp_path: Path
) -> None:
    """A delete the database refuses is a 409 naming its reason, the switch port left on
    the tenant's VLAN and the port as it was; once taken, the switch port goes idle."""
    switch = emulated_switch
    http = http_for(switch)
    port = _node(http, "d", "ramdisk", "swp1", extra={"switchport": ACCESS_TENANT})["uuid"]
    _provision(http, "d", "active")
    assert switch.port_vlan("swp1") == _access(TENANT)
    recorded = http.get(f"/v1/ports/{port}").json()

    database = tmp_path / "server" / "metalwire.db"
    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute(
            "CREATE TRIGGER refuse_delete BEFORE DELETE ON ports "
            "BEGIN SELECT RAISE(ABORT, 'injected refusal'); END"
        )
        db.commit()
    resp = http.delete(f"/v1/ports/{port}")

    assert resp.status_code == 409, resp.text
    assert json.loads(resp.json()["error_message"])["faultstring"] == (
        f"Port {port} cannot be deleted: the database refused it (injected refusal)."
    )
    assert switch.port_vlan("swp1") == _access(TENANT)  # put back with the failed delete
    assert http.get(f"/v1/ports/{port}").json() == recorded

    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute("DROP TRIGGER refuse_delete")
        db.commit()
    assert http.delete(f"/v1/ports/{port}").status_code == 204

    assert switch.port_vlan("swp1") == _access(IDLE)


def test_a_new_vlan_list_of_a_trunk_replaces_the_old_one_on_the_switch(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    switch = emulated_switch
    http = http_for(switch)
    trunk = {"mode": "trunk", "native_vlan": TENANT, "allowed_vlans": [TENANT, 210, 220]}
    port = _node(http, "t", "ramdisk", "swp1", pxe_enabled=False, extra={"switchport": trunk})[
        "uuid"
    ]
    _provision(http, "t", "active")
    assert switch.port_vlan("swp1") == PortVlan(
        tag=TENANT, vlan_mode="native-untagged", trunks=(TENANT, 210, 220)
    )

    narrower = {**trunk, "allowed_vlans": [TENANT, 230]}
    patch = [{"op": "add", "path": "/extra/switchport", "value": narrower}]
    resp = http.patch(f"/v1/ports/{port}", json=patch)

    assert resp.status_code == 200, resp.text
    assert switch.port_vlan("swp1") == PortVlan(
        tag=TENANT, vlan_mode="native-untagged", trunks=(TENANT, 230)
    )
    assert _applied(http, port) == {
        "mode": "trunk",
        "native_vlan": TENANT,
        "allowed_vlans": [TENANT, 230],
    }

    hybrid = {"mode": "hybrid", "native_vlan": OTHER, "allowed_vlans": [OTHER, 240]}
    patch = [{"op": "add", "path": "/extra/switchport", "value": hybrid}]
    resp = http.patch(f"/v1/ports/{port}", json=patch)

    assert resp.status_code == 200, resp.text
    assert switch.port_vlan("swp1") == PortVlan(
        tag=OTHER, vlan_mode="native-untagged", trunks=(240, OTHER)
    )


def test_a_port_stored_with_a_name_no_longer_sent_can_still_be_moved_to_a_right_one(
    emulated_switch: EmulatedSwitch, http_for: Any, tmp_path: Path
) -> None:
    """A port whose port_id was stored before such names were refused (a row written by an
    older release): metalwire cannot reset that switch port, but the operator can still put
    the right name in, and the new switch port is set; the old one is left to be reset by
    hand, and the log says so."""
    switch = emulated_switch
    http = http_for(switch)
    port = _node(http, "legacy", "ramdisk", "swp1", extra={"switchport": ACCESS_TENANT})["uuid"]
    _provision(http, "legacy", "active")
    assert switch.port_vlan("swp1") == _access(TENANT)
    with sqlite3.connect(tmp_path / "server" / "metalwire.db") as db:  # as an old release kept it
        db.execute(
            "UPDATE ports SET local_link_connection = ? WHERE uuid = ?",
            (json.dumps({"switch_id": "tor-1", "port_id": "swp1 x"}), port),
        )

    moved = [{"op": "replace", "path": "/local_link_connection/port_id", "value": "swp2"}]
    resp = http.patch(f"/v1/ports/{port}", json=moved)

    assert resp.status_code == 200, resp.text
    assert switch.port_vlan("swp2") == _access(TENANT)
    assert switch.port_vlan("swp1") == _access(TENANT)  # left as it was: reset by hand
    log = http_for.servers[-1].log()
    assert "its switch tor-1 port is not reset" in log and "reset it on the switch by hand" in log


def _empty_node(http: Any, name: str) -> str:
    body = {"name": name, "driver": "fake-hardware", "network_interface": "ironic-networking"}
    resp = http.post("/v1/nodes", json=body)
    assert resp.status_code == 201, resp.text
    return str(resp.json()["uuid"])


def test_a_port_moved_to_another_node_leaves_its_old_switch_port_on_idle_or_nothing(
    emulated_switch: EmulatedSwitch, http_for: Any, tmp_path: Path
) -> None:
    """An active node's port moves to another node once its node is in maintenance
    (metalwire refuses the move otherwise; Ironic 39 refuses none): the tenant's VLAN must not
    stay on the switch port the port leaves behind, and a move that cannot be stored leaves
    the switch port as it was."""
    switch = emulated_switch
    http = http_for(switch)
    port = _node(http, "from", "ramdisk", "swp1", extra={"switchport": ACCESS_TENANT})["uuid"]
    _provision(http, "from", "active")
    assert switch.port_vlan("swp1") == _access(TENANT)
    to = _empty_node(http, "to")
    resp = http.put("/v1/nodes/from/maintenance", json={"reason": "recabling"})
    assert resp.status_code == 202, resp.text
    moved = [{"op": "replace", "path": "/node_uuid", "value": to}]

    database = tmp_path / "server" / "metalwire.db"
    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute(
            "CREATE TRIGGER refuse_move BEFORE UPDATE OF node_id ON ports "
            "BEGIN SELECT RAISE(ABORT, 'injected commit failure'); END"
        )
        db.commit()
    resp = http.patch(f"/v1/ports/{port}", json=moved)

    assert resp.status_code == 409 and "injected commit failure" in resp.text, resp.text
    assert switch.port_vlan("swp1") == _access(TENANT)  # put back with the failed move
    stored = http.get(f"/v1/ports/{port}").json()
    assert stored["node_uuid"] == _state(http, "from")["uuid"]
    assert stored["internal_info"]["switchport_applied"]["native_vlan"] == TENANT

    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute("DROP TRIGGER refuse_move")
        db.commit()
    resp = http.patch(f"/v1/ports/{port}", json=moved)

    assert resp.status_code == 200, resp.text
    assert resp.json()["node_uuid"] == to
    assert switch.port_vlan("swp1") == _access(IDLE)
    assert _applied(http, port) == {"mode": "access", "native_vlan": IDLE, "allowed_vlans": []}


def test_a_link_moved_onto_a_switch_port_set_for_another_port_is_refused(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    """A switch port metalwire set (here a trunk) for a port still cabled there is not
    taken over: a trunk's VLANs are only added to, so the other port's would stay, and the
    other port's node would set it back at its next state change."""
    switch = emulated_switch
    http = http_for(switch)
    trunk = {"mode": "trunk", "native_vlan": TENANT, "allowed_vlans": [TENANT, 210]}
    holder = _node(http, "q", "ramdisk", "swp2", pxe_enabled=False, extra={"switchport": trunk})
    other = {"mode": "trunk", "native_vlan": OTHER, "allowed_vlans": [OTHER, 230]}
    port = _node(http, "p", "ramdisk", "swp1", pxe_enabled=False, extra={"switchport": other})
    for name in ("q", "p"):
        _provision(http, name, "active")
    held = PortVlan(tag=TENANT, vlan_mode="native-untagged", trunks=(TENANT, 210))
    assert switch.port_vlan("swp2") == held

    moved = [{"op": "replace", "path": "/local_link_connection/port_id", "value": "swp2"}]
    resp = http.patch(f"/v1/ports/{port['uuid']}", json=moved)

    assert resp.status_code == 409, resp.text
    assert f"metalwire set that switch port for port {holder['uuid']}" in resp.text, resp.text
    assert switch.port_vlan("swp2") == held
    assert switch.port_vlan("swp1") == PortVlan(
        tag=OTHER, vlan_mode="native-untagged", trunks=(230, OTHER)
    )
    link = http.get(f"/v1/ports/{port['uuid']}").json()["local_link_connection"]
    assert link["port_id"] == "swp1"


def test_a_port_of_a_node_in_maintenance_is_deleted_when_its_idle_network_is_unusable(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    """Maintenance is the way out when the switch port cannot be reset, also when the reason
    is found before the switch is called (here the node's own idle network is malformed):
    the port is deleted, its switch port left as it is and the log says so."""
    switch = emulated_switch
    http = http_for(switch)
    port = _node(http, "w", "ramdisk", "swp1", extra={"switchport": ACCESS_TENANT})["uuid"]
    _provision(http, "w", "active")
    bad = [{"op": "add", "path": "/driver_info/idle_network", "value": "access/native_vlan=x"}]
    assert http.patch("/v1/nodes/w", json=bad).status_code == 200
    resp = http.delete(f"/v1/ports/{port}")
    assert resp.status_code == 400 and "Invalid idle network value" in resp.text, resp.text
    assert http.put("/v1/nodes/w/maintenance", json={}).status_code == 202

    resp = http.delete(f"/v1/ports/{port}")

    assert resp.status_code == 204, resp.text
    assert http.get(f"/v1/ports/{port}").status_code == 404
    assert switch.port_vlan("swp1") == _access(TENANT)  # to be reset by hand
    log = http_for.servers[-1].log()
    assert f"Deleting port {port} of node" in log and "switch tor-1 port swp1 not reset" in log


def test_a_port_moved_and_recabled_at_once_records_no_switch_port_it_was_not_set_on(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    """Moved to another node with a new link in the same PATCH: the old switch port is reset,
    the new one is left for the new node's next state change, and the port records nothing
    metalwire set (what the new switch port is on is not known)."""
    switch = emulated_switch
    http = http_for(switch)
    port = _node(http, "from", "ramdisk", "swp1", extra={"switchport": ACCESS_TENANT})["uuid"]
    _provision(http, "from", "active")
    switch.set_access_vlan("swp2", OTHER)
    to = _empty_node(http, "to")
    assert http.put("/v1/nodes/from/maintenance", json={}).status_code == 202
    moved = [
        {"op": "replace", "path": "/node_uuid", "value": to},
        {"op": "replace", "path": "/local_link_connection/port_id", "value": "swp2"},
    ]

    resp = http.patch(f"/v1/ports/{port}", json=moved)

    assert resp.status_code == 200, resp.text
    assert switch.port_vlan("swp1") == _access(IDLE)
    assert switch.port_vlan("swp2") == _access(OTHER)
    assert "switchport_applied" not in resp.json()["internal_info"]
    assert "switchport_applied" not in http.get(f"/v1/ports/{port}").json()["internal_info"]
