"""A switch of the switch file as networking-generic-switch's device settings."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.errors import NetworkError
from metalwire.networking import generic_switch_workers
from metalwire.networking.bonds import Bond
from metalwire.networking.generic_switch import (
    GenericSwitchDevice,
    device_config,
    hidden_errors,
    login_settings,
    operations,
)
from metalwire.networking.switch_file import parse_switch_file
from metalwire.networking.switch_ports import SwitchChange
from metalwire.networking.switchport import SwitchportConfig

SECTION = """\
[switch:tor-1]
driver_type = generic-switch
device_type = netmiko_dell_os10
address = 192.0.2.10
port = 2222
username = admin
password = s3cret
enable_secret = en4ble
mac_address = 00:00:5E:00:53:01
persist = yes
allowed_vlans = 102-103,100
"""


def test_every_option_gets_networking_generic_switch_name() -> None:
    (switch,) = parse_switch_file(SECTION, "sw.ini").values()

    assert device_config(switch) == {
        "device_type": "netmiko_dell_os10",
        "ip": "192.0.2.10",
        "port": "2222",
        "username": "admin",
        "password": "s3cret",
        "secret": "en4ble",
        "ngs_mac_address": "00:00:5e:00:53:01",
        "ngs_save_configuration": "True",
        "ngs_allowed_vlans": "100,102,103",
    }


def test_a_minimal_switch_saves_nothing_and_allows_every_vlan() -> None:
    text = "\n".join(
        line
        for line in SECTION.splitlines()
        if line.split(" ")[0] in ("[switch:tor-1]", "driver_type", "device_type", "address")
        or line.startswith(("username", "password"))
    )
    (switch,) = parse_switch_file(text, "sw.ini").values()

    config = device_config(switch)
    assert config["ngs_save_configuration"] == "False"
    assert "ngs_allowed_vlans" not in config and "port" not in config


def test_hidden_errors_finds_the_error_lines_open_vswitch_printed() -> None:
    output = (
        "ovs-vsctl set port swp9 vlan_mode=access\n"
        'ovs-vsctl: no row "swp9" in table Port\n'
        "root@switch:~# "
    )

    assert hidden_errors("netmiko_ovs_linux", output) == ['no row "swp9" in table Port']
    assert hidden_errors("netmiko_ovs_linux", "ovs-vsctl set port swp1 tag=5\n") == []
    assert hidden_errors("netmiko_cisco_ios", output) == []  # its class checks its output


def test_hidden_errors_ends_an_error_where_the_next_echoed_command_begins() -> None:
    # the shell's error output and the echo of the next command can share a line
    output = (
        'ovs-vsctl: no row "swp9" in table Portovs-vsctl set port swp9 tag=100\n'
        'ovs-vsctl: no row "swp9" in table Port\n'
    )

    assert hidden_errors("netmiko_ovs_linux", output) == ['no row "swp9" in table Port'] * 2


def test_a_login_retries_every_ten_seconds_or_a_fifth_of_a_shorter_timeout() -> None:
    assert {timeout: login_settings(timeout) for timeout in (60, 120, 10, 3)} == {
        60: {"ngs_ssh_connect_timeout": "60", "ngs_ssh_connect_interval": "10"},
        120: {"ngs_ssh_connect_timeout": "120", "ngs_ssh_connect_interval": "10"},
        10: {"ngs_ssh_connect_timeout": "10", "ngs_ssh_connect_interval": "2"},
        3: {"ngs_ssh_connect_timeout": "3", "ngs_ssh_connect_interval": "1"},
    }


def test_an_operation_may_take_its_login_timeout_and_a_minute_more() -> None:
    (switch,) = parse_switch_file(SECTION, "sw.ini").values()
    assert GenericSwitchDevice(switch).timeout == 120.0  # networking-generic-switch's 60 s
    assert GenericSwitchDevice(switch).read_login["ngs_ssh_connect_timeout"] == "10"
    shorter = GenericSwitchDevice(switch, login_timeout=5)
    five = login_settings(5)
    assert (shorter.timeout, shorter.login, shorter.read_login) == (65.0, five, five)
    assert GenericSwitchDevice(switch, timeout=2, login_timeout=5).timeout == 2


INJECTIONS = [
    "swp1 vlan_mode=access -- set port swp2 tag=100 -- set port swp1",
    "swp1;touch /tmp/injected;echo",
    "$(reboot)",
]
ACCESS = SwitchportConfig("access", 100)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What reached networking-generic-switch's worker (nothing should)."""
    calls: list[Any] = []

    def call(*args: Any) -> dict[str, Any]:
        calls.append(args)
        return {"output": "", "outputs": [], "commands": []}

    monkeypatch.setattr(generic_switch_workers, "call", call)
    return calls


def _ovs() -> GenericSwitchDevice:
    (switch,) = parse_switch_file(SECTION.replace("dell_os10", "ovs_linux"), "sw.ini").values()
    return GenericSwitchDevice(switch)


@pytest.mark.parametrize("port_id", INJECTIONS)
def test_no_operation_is_built_for_a_port_name_a_shell_reads_as_more(port_id: str) -> None:
    with pytest.raises(NetworkError, match=r"letters, digits and _\.:/- only"):
        operations(port_id, ACCESS, None, device_type="netmiko_ovs_linux")
    bond = Bond("bond0", ("swp1", port_id))
    with pytest.raises(NetworkError, match="refused to send the switch a command"):
        operations("bond0", ACCESS, None, bond, "netmiko_ovs_linux")
    with pytest.raises(NetworkError):
        operations("swp1", ACCESS, None, None, "netmiko_ovs_linux", previous_bond=bond)


@pytest.mark.parametrize("port_id", INJECTIONS)
def test_a_device_sends_nothing_for_a_port_name_a_shell_reads_as_more(
    port_id: str, sent: list[Any]
) -> None:
    device = _ovs()

    with pytest.raises(NetworkError, match=r"letters, digits and _\.:/- only"):
        device.set_port(port_id, ACCESS, None)
    with pytest.raises(NetworkError):
        device.render([SwitchChange(device.switch, port_id, ACCESS, None)])
    with pytest.raises(NetworkError, match=r"letters, digits and _\.:/- only"):
        device.read_ports(["swp1", port_id])

    assert sent == []


def test_real_interface_names_are_sent(sent: list[Any]) -> None:
    device = _ovs()

    operations("Ethernet1/1", ACCESS, None, device_type="netmiko_ovs_linux")
    device.set_port("xe-0/0/1:2", ACCESS, None)

    assert len(sent) == 1


def _sub_ports(*vlans: int) -> dict[str, list[dict[str, int]]]:
    return {"sub_ports": [{"segmentation_id": vlan} for vlan in vlans]}


def test_a_trunk_given_another_vlan_list_is_cleared_of_the_old_one_first() -> None:
    (switch,) = parse_switch_file(SECTION, "sw.ini").values()
    old = SwitchportConfig("trunk", 200, (200, 210, 220))
    new = SwitchportConfig("trunk", 200, (200, 230))
    change = SwitchChange(switch, "swp1", new, old)
    (undo,) = change.reverse()

    forward = operations(change.port_id, change.config, change.previous)
    back = operations(undo.port_id, undo.config, undo.previous)

    assert forward == [
        ("delete_port", ["swp1", 200], {"trunk_details": _sub_ports(210, 220)}),
        ("plug_port_to_network", ["swp1", 200], {"trunk_details": _sub_ports(230)}),
    ]
    assert back == [
        ("delete_port", ["swp1", 200], {"trunk_details": _sub_ports(230)}),
        ("plug_port_to_network", ["swp1", 200], {"trunk_details": _sub_ports(210, 220)}),
    ]


def test_a_port_is_cleared_only_when_it_leaves_a_trunk() -> None:
    trunk = SwitchportConfig("hybrid", 200, (200, 210))
    access, other = SwitchportConfig("access", 200), SwitchportConfig("access", 300)

    assert [name for name, _, _ in operations("swp1", trunk, trunk)] == ["plug_port_to_network"]
    assert [name for name, _, _ in operations("swp1", trunk, access)] == ["plug_port_to_network"]
    assert [name for name, _, _ in operations("swp1", other, access)] == ["plug_port_to_network"]
    assert operations("swp1", access, trunk)[0] == (
        "delete_port",
        ["swp1", 200],
        {"trunk_details": _sub_ports(210)},
    )
    assert operations("swp1", None, access) == [("delete_port", ["swp1", 200], {})]
