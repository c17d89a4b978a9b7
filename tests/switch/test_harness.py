"""The emulated switch itself: VLAN isolation on the wire, read-back, SSH login, teardown."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.switch import EmulatedSwitch, PortVlan, SwitchError, parse_port_vlan


def test_servers_on_one_vlan_reach_each_other_and_not_across_vlans(
    emulated_switch: EmulatedSwitch,
) -> None:
    switch = emulated_switch
    switch.set_access_vlan("swp1", 100)
    switch.set_access_vlan("swp2", 100)
    switch.set_access_vlan("swp3", 200)

    assert switch.port_vlan("swp1") == PortVlan(tag=100, vlan_mode="access", trunks=())
    assert switch.port_vlan("swp3") == PortVlan(tag=200, vlan_mode="access", trunks=())
    assert switch.ping(1, 2)
    assert not switch.ping(1, 3)
    assert not switch.ping(2, 3)

    switch.set_access_vlan("swp3", 100)
    assert switch.ping(1, 3)


def test_a_trunk_port_reads_back_its_native_and_allowed_vlans(
    emulated_switch: EmulatedSwitch,
) -> None:
    emulated_switch.vsctl("set", "port", "swp2", "vlan_mode=native-untagged", "tag=10")
    emulated_switch.vsctl("set", "port", "swp2", "trunks=10,20,30")

    assert emulated_switch.port_vlan("swp2") == PortVlan(
        tag=10, vlan_mode="native-untagged", trunks=(10, 20, 30)
    )
    emulated_switch.clear_vlan("swp2")
    assert emulated_switch.port_vlan("swp2") == PortVlan(tag=None, vlan_mode=None, trunks=())


def test_ssh_login_with_the_switch_key_runs_ovs_vsctl_on_this_switch(
    emulated_switch: EmulatedSwitch,
) -> None:
    emulated_switch.set_access_vlan("swp3", 300)
    result = subprocess.run(
        [
            "ssh",
            "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null",
            "-i", str(emulated_switch.key_file),
            "-p", str(emulated_switch.ssh_port),
            f"{emulated_switch.username}@{emulated_switch.ssh_host}",
            "ovs-vsctl get port swp3 tag",
        ],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "300"


def test_leaving_the_switch_removes_namespaces_daemons_and_files() -> None:
    switch = EmulatedSwitch(ports=2)
    with switch:
        namespaces = [switch.namespace, switch.server_namespace(1), switch.server_namespace(2)]
        directory = switch.directory
        pids = switch.daemon_pids()
        assert set(pids) == {"ovsdb-server", "ovs-vswitchd", "sshd"}
        assert set(namespaces) <= set(_namespaces())

    assert not set(namespaces) & set(_namespaces())
    assert not Path(directory).exists()
    for pid in pids.values():
        assert not Path(f"/proc/{pid}").exists()
    with pytest.raises(SwitchError, match="not running"):
        switch.port_vlan("swp1")


def test_two_switches_at_once_do_not_share_ports_or_vlans() -> None:
    with EmulatedSwitch(ports=1) as first, EmulatedSwitch(ports=1) as second:
        first.set_access_vlan("swp1", 11)
        second.set_access_vlan("swp1", 22)

        assert first.namespace != second.namespace
        assert first.port_vlan("swp1").tag == 11
        assert second.port_vlan("swp1").tag == 22


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("[]\n[]\n[]\n", PortVlan(tag=None, vlan_mode=None, trunks=())),
        ("100\naccess\n[]\n", PortVlan(tag=100, vlan_mode="access", trunks=())),
        (
            "5\nnative-untagged\n[5, 7]\n",
            PortVlan(tag=5, vlan_mode="native-untagged", trunks=(5, 7)),
        ),
    ],
)
def test_parse_port_vlan_reads_empty_and_set_columns(output: str, expected: PortVlan) -> None:
    assert parse_port_vlan(output) == expected


def _namespaces() -> list[str]:
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    return [line.split()[0] for line in listing.stdout.splitlines() if line]
