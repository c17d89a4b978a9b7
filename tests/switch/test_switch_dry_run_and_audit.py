"""The dry run of an attach and the drift audit of ``ironic-networking`` against the emulated
switch, through a real ``metalwire serve``, the ``metalwire`` program and the real switch.

The dry run lists, per switch, the port it would move and the commands networking-generic-
switch would send (rendered from its device class, nothing sent: the switch is read back
unchanged); the real attach then does what it listed. The audit reads the switch back and
reports a port changed behind metalwire's back. A few SSH logins in all (about 3 s each).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cli.conftest import clean_env, run_metalwire
from tests.support.server import MetalwireServer
from tests.support.switch import EmulatedSwitch, PortVlan
from tests.switch.conftest import HEADERS, _serve
from tests.switch.test_ironic_networking_states import _node, _provision

TENANT, OTHER, IDLE = 200, 300, 999
DRY_RUN = {"X-Metalwire-Dry-Run": "true"}


@pytest.fixture
def served(emulated_switch: EmulatedSwitch, tmp_path: Path) -> Iterator[MetalwireServer]:
    server = _serve(
        tmp_path,
        emulated_switch,
        METALWIRE_IRONIC_NETWORKING_VIF_NETWORKS=f"tenant-a:{TENANT}",
    )
    with server:
        yield server


def _access(vlan: int) -> dict[str, Any]:
    return {"mode": "access", "native_vlan": vlan, "allowed_vlans": []}


def test_the_dry_run_lists_the_switch_commands_sends_none_and_the_attach_does_them(
    emulated_switch: EmulatedSwitch, served: MetalwireServer
) -> None:
    switch = emulated_switch
    http = httpx.Client(base_url=served.url, headers=HEADERS, timeout=120)
    port = _node(http, "dry", "ramdisk", "swp1")
    _provision(http, "dry", "active")
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
    body = {"id": "vif-a", "network": "tenant-a"}

    resp = http.post("/v1/nodes/dry/vifs", json=body, headers=DRY_RUN)

    assert resp.status_code == 200, resp.text
    assert resp.json()["switch_changes"] == [
        {
            "switch": "tor-1",
            "device_type": "netmiko_ovs_linux",
            "ports": [
                {
                    "port_uuid": port["uuid"],
                    "port_id": "swp1",
                    "from": _access(IDLE),
                    "to": _access(TENANT),
                    "commands": [
                        "ovs-vsctl set port swp1 vlan_mode=access",
                        f"ovs-vsctl set port swp1 tag={TENANT}",
                    ],
                }
            ],
            "commands_unavailable": None,
        }
    ]
    cli = run_metalwire(
        *("node", "vif", "attach", "dry", "vif-a", "--dry-run", "--vif-info", "network=tenant-a"),
        env=clean_env(METALWIRE_URL=served.url),
    )
    assert cli.code == 0, cli.stderr
    table = cli.stdout.split("Switch changes (nothing was sent):\n")[1]
    row = [cell.strip() for cell in table.splitlines()[3].strip("|").split("|")]
    assert row == [
        "tor-1",
        "swp1",
        port["uuid"],
        f"access {IDLE}",
        f"access {TENANT}",
        f"ovs-vsctl set port swp1 vlan_mode=access; ovs-vsctl set port swp1 tag={TENANT}",
    ]
    # a server whose switch worker cannot start (a TMPDIR too long for its socket) still
    # lists the change, and says why there are no commands
    deep = served.data_dir / ("t" * 100)
    deep.mkdir()
    served.env["TMPDIR"] = str(deep)
    served.stop()
    served.start()
    answer = http.post("/v1/nodes/dry/vifs", json=body, headers=DRY_RUN)
    assert answer.status_code == 200, answer.text
    (changes,) = answer.json()["switch_changes"]
    assert [port["commands"] for port in changes["ports"]] == [None]
    said = changes["commands_unavailable"]
    assert said.startswith(
        f"commands not available: render commands failed: cannot listen on {deep}/"
    ), said
    assert said.endswith("/worker.sock: AF_UNIX path too long"), said
    del served.env["TMPDIR"]
    served.stop()
    served.start()
    bad = http.post("/v1/nodes/dry/vifs", json={"id": "vif-b", "network": "x"}, headers=DRY_RUN)
    assert bad.status_code == 400, bad.text
    assert "network 'x' is neither a VLAN ID" in bad.text
    # nothing was sent, nothing recorded
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
    assert http.get("/v1/nodes/dry/vifs").json()["vifs"] == []

    assert http.post("/v1/nodes/dry/vifs", json=body).status_code == 204
    assert switch.port_vlan("swp1") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    http.close()


def _logins(switch: EmulatedSwitch) -> int:
    return switch.log("sshd").count("Accepted publickey")


def _audit(http: httpx.Client) -> dict[str, Any]:
    resp = http.post("/v1/metalwire/audit", json={})
    assert resp.status_code == 200, resp.text
    return dict(resp.json())


def test_the_audit_reads_each_switch_once_and_finds_a_port_changed_behind_its_back(
    emulated_switch: EmulatedSwitch, served: MetalwireServer
) -> None:
    switch = emulated_switch
    http = httpx.Client(base_url=served.url, headers=HEADERS, timeout=120)
    trunk = {"mode": "trunk", "native_vlan": TENANT, "allowed_vlans": [TENANT, 210]}
    access = {"mode": "access", "native_vlan": OTHER}
    first = _node(
        http, "audited", "ramdisk", "swp1", extra={"switchport": trunk}, pxe_enabled=False
    )
    resp = http.post(
        "/v1/ports",
        json={
            "node_uuid": first["node_uuid"],
            "address": "52:54:00:00:01:02",
            "local_link_connection": {"switch_id": "tor-1", "port_id": "swp2"},
            "extra": {"switchport": access},
        },
    )
    assert resp.status_code == 201, resp.text
    _provision(http, "audited", "active")
    assert switch.port_vlan("swp1") == PortVlan(
        tag=TENANT, vlan_mode="native-untagged", trunks=(TENANT, 210)
    )

    before = _logins(switch)
    clean = _audit(http)
    assert (clean["findings"], clean["not_checked"]) == ([], [])
    assert _logins(switch) == before + 1  # both ports in one login

    switch.set_access_vlan("swp1", OTHER)  # behind metalwire's back
    report = _audit(http)

    (finding,) = report["findings"]
    assert finding["kind"] == "switchport_mismatch"
    assert finding["target_uuid"] == first["uuid"]
    where = {"switch": "tor-1", "port_id": "swp1"}
    trunks = {"trunks": [TENANT, 210]}  # an access plug behind its back left them
    assert finding["expected"] == {**where, "tag": TENANT, "vlan_mode": "native-untagged", **trunks}
    assert finding["actual"] == {**where, "tag": OTHER, "vlan_mode": "access", **trunks}
    assert finding["message"].startswith("Switch tor-1 port swp1 (port ")
    assert report["not_checked"] == []
    http.close()


def test_a_switch_that_cannot_be_read_lists_its_ports_as_not_checked_through_the_cli(
    emulated_switch: EmulatedSwitch, served: MetalwireServer
) -> None:
    switch = emulated_switch
    http = httpx.Client(base_url=served.url, headers=HEADERS, timeout=120)
    port = _node(http, "unread", "ramdisk", "swp1")
    _provision(http, "unread", "active")  # metalwire set swp1 (idle)
    key = Path(switch.key_file)
    hidden = key.with_name(key.name + ".away")
    key.rename(hidden)  # the next login cannot authenticate
    try:
        started = time.monotonic()
        report = _audit(http)
        # the audit gives up on the login within its own connect timeout (10 s), not the
        # 60 s changes wait, holding the switch's lock no longer
        assert time.monotonic() - started < 30
        cli = run_metalwire("audit", "--latest", env=clean_env(METALWIRE_URL=served.url))
    finally:
        hidden.rename(key)

    assert report["findings"] == []
    (item,) = report["not_checked"]
    assert (item["target_uuid"], item["where"]) == (port["uuid"], "switch tor-1 port swp1")
    assert item["reason"].startswith("the switch was not read: "), item
    assert cli.code == 0, cli.stderr
    assert f"Not checked: node {port['node_uuid']} switch tor-1 port swp1: " in cli.stderr
    http.close()


def test_the_periodic_audit_reads_the_switches_back_without_neutron(
    emulated_switch: EmulatedSwitch, tmp_path: Path
) -> None:
    """``[conductor] audit_interval`` audits ``ironic-networking`` nodes on a server with no
    Neutron, as ``POST /v1/metalwire/audit`` does: the latest findings show a switch port
    changed behind metalwire's back."""
    switch = emulated_switch
    server = _serve(tmp_path, switch, METALWIRE_CONDUCTOR_AUDIT_INTERVAL="2")
    with server, httpx.Client(base_url=server.url, headers=HEADERS, timeout=120) as http:
        port = _node(http, "periodic", "ramdisk", "swp1")
        _provision(http, "periodic", "active")  # metalwire set swp1 (idle)
        switch.set_access_vlan("swp1", OTHER)  # behind metalwire's back

        deadline = time.monotonic() + 60
        latest = http.get("/v1/metalwire/audit/latest").json()
        while not latest["findings"] and time.monotonic() < deadline:
            time.sleep(0.5)
            latest = http.get("/v1/metalwire/audit/latest").json()

        assert latest["checked_at"] is not None, server.log()
        (finding,) = latest["findings"]
        assert (finding["kind"], finding["target_uuid"]) == ("switchport_mismatch", port["uuid"])
