"""The switch file loader: Ironic's [switch:<name>] sections, and errors that name the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from metalwire.errors import InvalidParameterValue
from metalwire.networking.switch_file import (
    find_switch,
    load_switch_file,
    parse_switch_file,
    parse_vlan_ranges,
)

GOOD = """\
# top-of-rack switches
[switch:tor-1]
driver_type = generic-switch
device_type = netmiko_ovs_linux
address = 192.0.2.10
port = 2222
username = admin
password = s3cret
mac_address = 00:00:5E:00:53:01
persist = true
allowed_vlans = 100,200-202

[switch:tor-2]
driver_type = generic-switch
device_type = netmiko_ovs_linux
address = 192.0.2.11
username = admin
key_file = /etc/metalwire/tor-2.key
"""


def test_a_switch_file_gives_each_section_its_switch() -> None:
    switches = parse_switch_file(GOOD, "switches.ini")

    tor1, tor2 = switches["tor-1"], switches["tor-2"]
    assert (tor1.address, tor1.port, tor1.username, tor1.password) == (
        "192.0.2.10",
        2222,
        "admin",
        "s3cret",
    )
    assert tor1.mac_address == "00:00:5e:00:53:01"
    assert tor1.persist is True
    assert tor1.allowed_vlans == frozenset({100, 200, 201, 202})
    assert tor1.line == 2
    assert (tor2.key_file, tor2.port, tor2.persist, tor2.allowed_vlans) == (
        "/etc/metalwire/tor-2.key",
        None,
        False,
        None,
    )


def test_the_password_stays_out_of_the_repr() -> None:
    assert "s3cret" not in repr(parse_switch_file(GOOD, "switches.ini"))


def test_find_switch_by_name_or_by_mac_in_any_case() -> None:
    switches = parse_switch_file(GOOD, "switches.ini")

    assert find_switch(switches, "tor-2") is switches["tor-2"]
    assert find_switch(switches, "00:00:5E:00:53:01") is switches["tor-1"]
    assert find_switch(switches, "tor-9") is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tor-1]\n", "line 1: section [tor-1] is not [switch:<name>]"),
        ("address = x\n", "line 1: option 'address' comes before any [switch:<name>] section"),
        ("[switch:a]\nspeed = 10\n", "line 2: unknown option 'speed'"),
        ("[switch:a]\nnot an option\n", "line 2: expected 'key = value'"),
        ("[switch:a]\n[switch:a]\n", "line 2: switch 'a' is defined twice (first on line 1)"),
        (GOOD.replace("port = 2222", "port = ssh"), "line 6: switch 'tor-1': port 'ssh' is not"),
        (GOOD.replace("persist = true", "persist = maybe"), "line 10: switch 'tor-1': persist"),
        (GOOD.replace("200-202", "202-200"), "line 11: switch 'tor-1': allowed_vlans"),
        (GOOD.replace("00:00:5E:00:53:01", "tor"), "line 9: switch 'tor-1': mac_address 'tor'"),
        (
            GOOD.replace(
                "driver_type = generic-switch\ndevice_type = netmiko_ovs_linux\n"
                "address = 192.0.2.11",
                "driver_type = generic-switch\naddress = 192.0.2.11",
            ),
            "line 13: switch 'tor-2': device_type is required",
        ),
        (
            GOOD.replace("key_file = /etc/metalwire/tor-2.key\n", ""),
            "line 17: switch 'tor-2': needs a password or a key_file",
        ),
        (
            GOOD.replace("generic-switch", "netconf-openconfig", 1),
            "line 3: switch 'tor-1': driver_type 'netconf-openconfig' is not one of",
        ),
    ],
)
def test_a_mistake_is_refused_with_its_line(text: str, message: str) -> None:
    with pytest.raises(InvalidParameterValue, match=r"^switch file sw\.ini ") as caught:
        parse_switch_file(text, "sw.ini")
    assert message in str(caught.value)
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    "name", ["rack4/tor-1", "..", "../tor-1", ".hidden", "tor 1", "tor;1", "tor-1$", "tor\\1"]
)
def test_a_switch_name_that_cannot_name_a_file_is_refused(name: str) -> None:
    text = GOOD.replace("[switch:tor-2]", f"[switch:{name}]")

    with pytest.raises(InvalidParameterValue) as caught:
        parse_switch_file(text, "sw.ini")

    message = str(caught.value)
    assert message.startswith(f"switch file sw.ini line 13: switch name {name!r} in [switch:")
    assert "letters, digits and _.- only, and may not begin with '.'" in message


@pytest.mark.parametrize("name", ["tor-9", "TOR_1", "rack4.tor-1", "r4-tor.1", "1"])
def test_a_switch_name_of_letters_digits_and_dots_is_taken(name: str) -> None:
    assert name in parse_switch_file(GOOD.replace("[switch:tor-2]", f"[switch:{name}]"), "sw")


def test_an_unreadable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameterValue, match=r"switches.ini: cannot be read"):
        load_switch_file(tmp_path / "switches.ini")


def test_vlan_ranges_expand_and_refuse_what_is_not_a_vlan() -> None:
    assert parse_vlan_ranges("100, 102-104,,106") == frozenset({100, 102, 103, 104, 106})
    assert parse_vlan_ranges(["7", "9-10"]) == frozenset({7, 9, 10})
    for bad in ("0", "4095", "x", "5-3"):
        with pytest.raises(InvalidParameterValue, match=repr(bad)):
            parse_vlan_ranges(bad)
