"""``ironic-networking`` per provision state, through a real ``metalwire serve`` driving the
emulated switch with networking-generic-switch's ``netmiko_ovs_linux``: what each state sets
is read back from Open vSwitch and seen by pings between the servers behind it.

Each switch operation is a real SSH login (about 3 s): every test keeps to a few, and the
deploys of two nodes on one switch run at once (the switch lock queues them).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from tests.support.helpers import DIRECT_IMAGE, RAMDISK_NODE, RESCUE_RAMDISK, settled_node
from tests.support.switch import EmulatedSwitch, PortVlan
from tests.switch.conftest import CLEANING, IDLE, OTHER, PROVISIONING, TENANT


def _node(
    http: httpx.Client, name: str, deploy: str, switch_port: str, **port: Any
) -> dict[str, Any]:
    body = {
        "name": name,
        "driver": "fake-hardware",
        "network_interface": "ironic-networking",
        **RAMDISK_NODE,
        "deploy_interface": deploy,
        **({"instance_info": DIRECT_IMAGE} if deploy == "direct" else {}),
    }
    resp = http.post("/v1/nodes", json=body)
    assert resp.status_code == 201, resp.text
    node = resp.json()
    number = int(switch_port.removeprefix("swp"))
    resp = http.post(
        "/v1/ports",
        json={
            "node_uuid": node["uuid"],
            "address": f"52:54:00:00:00:0{number}",
            "local_link_connection": {"switch_id": "tor-1", "port_id": switch_port},
            **port,
        },
    )
    assert resp.status_code == 201, resp.text
    for verb in ("manage", "provide"):
        _provision(http, name, verb)
    return dict(resp.json())


def _provision(http: httpx.Client, node: str, verb: str, version: str = "1.78") -> None:
    """Run the verb; return once its steps, which go on after the 202, are done."""
    resp = http.put(
        f"/v1/nodes/{node}/states/provision",
        json={"target": verb},
        headers={"X-OpenStack-Ironic-API-Version": version},
    )
    assert resp.status_code == 202, resp.text
    settled_node(lambda: _state(http, node))


def _state(http: httpx.Client, node: str) -> dict[str, Any]:
    return dict(http.get(f"/v1/nodes/{node}").json())


def _logins(switch: EmulatedSwitch) -> int:
    return switch.log("sshd").count("Accepted publickey")


def test_ramdisk_deploys_put_ports_on_their_switchport_then_idle_at_undeploy(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    switch = emulated_switch
    http = http_for(switch)
    switch.set_access_vlan("swp3", OTHER)
    access = {"mode": "access", "native_vlan": TENANT}
    trunk = {"mode": "trunk", "native_vlan": TENANT, "allowed_vlans": [TENANT, 210]}
    # mtu is checked as Ironic checks it, not sent: it never makes the port look changed
    port_a = _node(http, "a", "ramdisk", "swp1", extra={"switchport": {**access, "mtu": 9000}})
    port_b = _node(http, "b", "ramdisk", "swp2", extra={"switchport": trunk}, pxe_enabled=False)
    # enrol, manage and provide leave the ports alone
    assert switch.port_vlan("swp1") == PortVlan(tag=None, vlan_mode=None, trunks=())

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda name: _provision(http, name, "active"), ["a", "b"]))

    assert [_state(http, n)["provision_state"] for n in ("a", "b")] == ["active", "active"]
    assert switch.port_vlan("swp1") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    assert switch.port_vlan("swp2") == PortVlan(
        tag=TENANT, vlan_mode="native-untagged", trunks=(TENANT, 210)
    )
    assert switch.ping(1, 2)
    assert not switch.ping(1, 3)

    # another extra key of a port already on its switchport changes nothing on the switch
    logins = _logins(switch)
    patch = [{"op": "add", "path": "/extra/rack", "value": "r7"}]
    resp = http.patch(f"/v1/ports/{port_a['uuid']}", json=patch)
    assert resp.status_code == 200, resp.text
    assert _logins(switch) == logins

    # a new switchport on an active node moves the port at once
    patch = [{"op": "add", "path": "/extra/switchport", "value": {**access, "native_vlan": OTHER}}]
    resp = http.patch(f"/v1/ports/{port_b['uuid']}", json=patch)
    assert resp.status_code == 200, resp.text
    assert switch.port_vlan("swp2") == PortVlan(tag=OTHER, vlan_mode="access", trunks=())
    assert switch.ping(2, 3)
    assert not switch.ping(1, 2)

    _provision(http, "a", "deleted")
    assert _state(http, "a")["provision_state"] == "available"
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())


def test_direct_deploy_waits_on_the_provisioning_vlan_and_cleaning_on_the_cleaning_vlan(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    switch = emulated_switch
    http = http_for(
        switch,
        METALWIRE_CONDUCTOR_DEPLOY_CALLBACK_TIMEOUT="1",
        METALWIRE_CONDUCTOR_CLEAN_CALLBACK_TIMEOUT="0",
        METALWIRE_CONDUCTOR_CHECK_PROVISION_STATE_INTERVAL="0.5",
    )
    switch.set_access_vlan("swp2", PROVISIONING)  # a "conductor" on the provisioning network
    _node(http, "c", "direct", "swp1")

    _provision(http, "c", "active")
    shown = _state(http, "c")
    assert (shown["provision_state"], shown["target_provision_state"]) == (
        "wait call-back",
        "active",
    )
    assert switch.port_vlan("swp1") == PortVlan(tag=PROVISIONING, vlan_mode="access", trunks=())
    assert switch.ping(1, 2)

    # no agent calls back: the deploy fails past deploy_callback_timeout, back on idle
    deadline = time.monotonic() + 30
    while _state(http, "c")["provision_state"] == "wait call-back" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _state(http, "c")["provision_state"] == "deploy failed"
    assert "Timeout reached while waiting for callback" in _state(http, "c")["last_error"]
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())

    for verb in ("deleted", "manage", "clean"):
        body: dict[str, Any] = {"target": verb}
        if verb == "clean":
            body["clean_steps"] = [{"interface": "deploy", "step": "erase_devices"}]
        resp = http.put("/v1/nodes/c/states/provision", json=body)
        assert resp.status_code == 202, resp.text
        settled_node(lambda: _state(http, "c"))
    assert _state(http, "c")["provision_state"] == "clean wait"
    assert switch.port_vlan("swp1") == PortVlan(tag=CLEANING, vlan_mode="access", trunks=())

    _provision(http, "c", "abort", version="1.13")
    assert _state(http, "c")["provision_state"] == "clean failed"
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())


def test_a_vif_naming_its_network_moves_the_port_at_once_and_detach_returns_it_to_idle(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    switch = emulated_switch
    http = http_for(switch, METALWIRE_IRONIC_NETWORKING_VIF_NETWORKS=f"tenant-a:{TENANT}")
    switch.set_access_vlan("swp2", TENANT)
    switch.set_access_vlan("swp3", OTHER)
    _node(http, "d", "ramdisk", "swp1")  # no switchport: the VIF decides
    _provision(http, "d", "active")
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())

    resp = http.post("/v1/nodes/d/vifs", json={"id": "vif-a", "network": "tenant-a"})

    assert resp.status_code == 204, resp.text
    assert switch.port_vlan("swp1") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    assert switch.ping(1, 2)
    assert not switch.ping(1, 3)
    assert [v["id"] for v in http.get("/v1/nodes/d/vifs").json()["vifs"]] == ["vif-a"]
    bad = http.post("/v1/nodes/d/vifs", json={"id": "vif-b", "network": "nowhere"})
    assert bad.status_code == 400, bad.text
    assert "network 'nowhere' is neither a VLAN ID" in bad.text

    assert http.delete("/v1/nodes/d/vifs/vif-a").status_code == 204
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
    assert not switch.ping(1, 2)


def test_an_undeploy_while_the_deploy_waits_takes_the_port_off_the_provisioning_vlan(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    """Nova deletes an instance whose ``direct`` deploy still waits for its agent: the undeploy
    runs from ``wait call-back`` and leaves the switch port on the idle VLAN."""
    switch = emulated_switch
    http = http_for(switch)
    _node(http, "w", "direct", "swp1")
    _provision(http, "w", "active")
    assert _state(http, "w")["provision_state"] == "wait call-back"
    assert switch.port_vlan("swp1") == PortVlan(tag=PROVISIONING, vlan_mode="access", trunks=())

    _provision(http, "w", "deleted")

    assert _state(http, "w")["provision_state"] == "available"
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())


def _switch_events(http: httpx.Client, node: str) -> list[str]:
    history = http.get(f"/v1/nodes/{node}/history", params={"detail": "true"}).json()["history"]
    return [e["event"] for e in history if e["event_type"] == "network"]


def test_every_switch_port_change_is_in_the_node_history_the_idle_reset_too(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    """A deploy's switchport was recorded nowhere in the history, and neither was the
    reset of the trunk to the idle network at undeploy: an operator reading the history
    could not tell what the switch port had been set to, or when."""
    switch = emulated_switch
    http = http_for(switch)
    trunk = {"mode": "trunk", "native_vlan": TENANT, "allowed_vlans": [TENANT, 210]}
    _node(http, "t", "ramdisk", "swp1", extra={"switchport": trunk}, pxe_enabled=False)
    assert _switch_events(http, "t") == []  # enrol, manage and provide leave the port alone

    _provision(http, "t", "active")
    _provision(http, "t", "deleted")

    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
    tenant = f"trunk, native VLAN {TENANT}, VLANs {TENANT},210"
    assert _switch_events(http, "t") == [
        f"Switch tor-1 port swp1 set to access VLAN {PROVISIONING} (was no VLAN configuration)",
        f"Switch tor-1 port swp1 set to access VLAN {IDLE} (was access VLAN {PROVISIONING})",
        f"Switch tor-1 port swp1 set to {tenant} (was access VLAN {IDLE})",
        f"Switch tor-1 port swp1 set to access VLAN {IDLE} (was {tenant})",  # the undeploy
    ]


def test_an_agent_rescue_boots_on_the_rescuing_vlan_then_back_on_the_tenant_one(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    """As Ironic's ``ironic-networking``: an ``agent`` rescue takes the port off its tenant
    VLAN and puts it on the rescuing network for the rescue ramdisk; once that is up (at once
    here) it goes back to its tenant VLAN. An unrescue leaves it there."""
    switch = emulated_switch
    http = http_for(switch)
    switchport = {"mode": "access", "native_vlan": TENANT}
    _node(http, "r", "ramdisk", "swp1", extra={"switchport": switchport}, pxe_enabled=False)
    rescue_info = {**RESCUE_RAMDISK, "rescuing_network": f"access/native_vlan={OTHER}"}
    patch = [
        {"op": "replace", "path": "/rescue_interface", "value": "agent"},
        *({"op": "add", "path": f"/driver_info/{k}", "value": v} for k, v in rescue_info.items()),
    ]
    assert http.patch("/v1/nodes/r", json=patch).status_code == 200
    _provision(http, "r", "active")
    deployed = len(_switch_events(http, "r"))

    resp = http.put(
        "/v1/nodes/r/states/provision",
        json={"target": "rescue", "rescue_password": "s3cret"},
        headers={"X-OpenStack-Ironic-API-Version": "1.38"},
    )

    assert resp.status_code == 202, resp.text
    shown = settled_node(lambda: _state(http, "r"))
    assert (shown["provision_state"], shown["last_error"]) == ("rescue", None)
    assert switch.port_vlan("swp1") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    tenant = f"access VLAN {TENANT}"
    assert _switch_events(http, "r")[deployed:] == [
        f"Switch tor-1 port swp1 set to access VLAN {IDLE} (was {tenant})",
        f"Switch tor-1 port swp1 set to access VLAN {OTHER} (was access VLAN {IDLE})",
        f"Switch tor-1 port swp1 set to access VLAN {IDLE} (was access VLAN {OTHER})",
        f"Switch tor-1 port swp1 set to {tenant} (was access VLAN {IDLE})",
    ]

    _provision(http, "r", "unrescue", version="1.38")
    assert _state(http, "r")["provision_state"] == "active"
    assert switch.port_vlan("swp1") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())

    # With no rescuing network named anywhere, the rescue ramdisk boots on the port's own
    # switchport, as Ironic's falls back to it.
    patch = [{"op": "remove", "path": "/driver_info/rescuing_network"}]
    assert http.patch("/v1/nodes/r", json=patch).status_code == 200
    unrescued = len(_switch_events(http, "r"))
    resp = http.put(
        "/v1/nodes/r/states/provision",
        json={"target": "rescue", "rescue_password": "s3cret"},
        headers={"X-OpenStack-Ironic-API-Version": "1.38"},
    )
    assert resp.status_code == 202, resp.text
    shown = settled_node(lambda: _state(http, "r"))
    assert (shown["provision_state"], shown["last_error"]) == ("rescue", None)
    assert _switch_events(http, "r")[unrescued:] == [
        f"Switch tor-1 port swp1 set to access VLAN {IDLE} (was {tenant})",
        f"Switch tor-1 port swp1 set to {tenant} (was access VLAN {IDLE})",  # the rescue's
        f"Switch tor-1 port swp1 set to access VLAN {IDLE} (was {tenant})",
        f"Switch tor-1 port swp1 set to {tenant} (was access VLAN {IDLE})",
    ]


def test_an_agent_inspection_waits_on_the_inspection_vlan_and_its_timeout_puts_it_back(
    emulated_switch: EmulatedSwitch, http_for: Any
) -> None:
    """As Ironic's ``ironic-networking``: an ``agent`` inspection puts the port on the
    inspection network while the node waits for its ramdisk; past ``[conductor]
    inspect_wait_timeout`` the inspection fails and the port is back on the idle network.
    A network value it cannot apply refuses the inspection before anything is set."""
    switch = emulated_switch
    http = http_for(
        switch,
        METALWIRE_IRONIC_NETWORKING_INSPECTION_NETWORK=f"access/native_vlan={OTHER}",
        METALWIRE_CONDUCTOR_INSPECT_WAIT_TIMEOUT="1",
        METALWIRE_CONDUCTOR_CHECK_PROVISION_STATE_INTERVAL="0.5",
    )
    switch.set_access_vlan("swp2", OTHER)  # the inspection service's side
    _node(http, "i", "ramdisk", "swp1")
    _provision(http, "i", "manage")
    patch = [
        {"op": "replace", "path": "/inspect_interface", "value": "agent"},
        {"op": "add", "path": "/driver_info/inspection_network", "value": "access/vlan=7"},
    ]
    assert http.patch("/v1/nodes/i", json=patch).status_code == 200

    resp = http.put("/v1/nodes/i/states/provision", json={"target": "inspect"})

    assert resp.status_code == 400, resp.text
    assert "Invalid inspection network value 'access/vlan=7'" in resp.text
    assert _state(http, "i")["provision_state"] == "manageable"
    assert switch.port_vlan("swp1") == PortVlan(tag=None, vlan_mode=None, trunks=())

    unset = [{"op": "remove", "path": "/driver_info/inspection_network"}]
    assert http.patch("/v1/nodes/i", json=unset).status_code == 200
    _provision(http, "i", "inspect")

    assert _state(http, "i")["provision_state"] == "inspect wait"
    assert switch.port_vlan("swp1") == PortVlan(tag=OTHER, vlan_mode="access", trunks=())
    assert switch.ping(1, 2)

    deadline = time.monotonic() + 30
    while _state(http, "i")["provision_state"] == "inspect wait" and time.monotonic() < deadline:
        time.sleep(0.2)
    shown = _state(http, "i")
    assert shown["provision_state"] == "inspect failed"
    assert shown["last_error"].startswith("Timeout reached while inspecting the node.")
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
    assert _switch_events(http, "i") == [
        f"Switch tor-1 port swp1 set to access VLAN {OTHER} (was no VLAN configuration)",
        f"Switch tor-1 port swp1 set to access VLAN {IDLE} (was access VLAN {OTHER})",
    ]
