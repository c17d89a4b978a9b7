"""The rules of ``ironic-networking`` bonds (networking/bonds.py), one at a time."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.db.models import Port, Portgroup
from metalwire.errors import InvalidParameterValue
from metalwire.networking.bonds import (
    Bond,
    bond_name,
    bond_record,
    check_bond_members,
    ovs_bond_command,
    ovs_unbond_command,
    parse_lag,
    recorded_bond,
    split_bonds,
)
from metalwire.networking.generic_switch import operations
from metalwire.networking.switch_file import SwitchDefinition
from metalwire.networking.switch_vifs import APPLIED_KEY, applied, applied_bond, applied_record
from metalwire.networking.switchport import SwitchportConfig

GROUP = "33333333-0000-4000-8000-000000000001"
SWITCHES = {
    name: SwitchDefinition(name, "generic-switch", "netmiko_ovs_linux", "192.0.2.1", "u", 1)
    for name in ("tor-1", "tor-2")
}


def _group(lag: Any = None, name: str | None = "n1 bond/0") -> Portgroup:
    extra = {} if lag is None else {"lag": lag}
    return Portgroup(id=7, uuid=GROUP, name=name, extra=extra)


def _port(n: int, switch: str = "tor-1", port_id: str | None = None) -> Port:
    link = {"switch_id": switch, "port_id": port_id or f"swp{n}"}
    return Port(
        id=n,
        uuid=f"22222222-0000-4000-8000-{n:012d}",
        portgroup_id=7,
        extra={},
        local_link_connection=link,
    )


@pytest.mark.parametrize(
    ("lag", "problem"),
    [
        ({"mode": "access"}, "'aggregation_mode' is required"),
        ({"mode": "access", "aggregation_mode": "pagp"}, "aggregation_mode 'pagp' is not"),
        ({"mode": "access", "aggregation_mode": "lacp", "allowed_vlans": [5]}, "not allowed in"),
        ({"mode": "trunk", "aggregation_mode": "lacp", "allowed_vlans": [5, 5]}, "twice"),
        ({"mode": "access", "aggregation_mode": "lacp", "native_vlan": 5000}, "outside 1-4094"),
        ({"mode": "access", "aggregation_mode": "lacp", "speed": 1}, "unknown key(s) 'speed'"),
    ],
)
def test_a_bad_lag_is_refused_naming_the_portgroup(lag: Any, problem: str) -> None:
    with pytest.raises(InvalidParameterValue, match=f"portgroup {GROUP}: .*") as raised:
        parse_lag(_group(lag))
    assert problem in str(raised.value)


def test_the_bond_is_named_after_the_portgroup_in_characters_a_switch_takes() -> None:
    assert bond_name(_group()) == "n1-bond-0"
    assert bond_name(_group(name=None)) == "bond-33333333"


def test_members_on_two_switches_or_with_a_shell_character_are_refused() -> None:
    lag = {"mode": "access", "aggregation_mode": "static"}
    switch, bond = check_bond_members(_group(lag), [_port(1), _port(2)], SWITCHES)
    assert (switch.name, bond) == ("tor-1", Bond("n1-bond-0", ("swp1", "swp2"), "static"))
    with pytest.raises(InvalidParameterValue, match=r"member port \S+02 is on switch tor-2"):
        check_bond_members(_group(lag), [_port(1), _port(2, "tor-2")], SWITCHES)
    with pytest.raises(InvalidParameterValue, match="port_id 'swp2;reboot'"):
        check_bond_members(_group(lag), [_port(1), _port(2, port_id="swp2;reboot")], SWITCHES)
    with pytest.raises(InvalidParameterValue, match="no member ports"):
        check_bond_members(_group(lag), [], SWITCHES)


def test_members_of_one_bond_must_want_one_configuration() -> None:
    group = _group({"mode": "access", "aggregation_mode": "static"})
    alone = Port(id=9, uuid="22222222-0000-4000-8000-000000000009", portgroup_id=None)
    tenant = SwitchportConfig("access", 200)
    plain, bonds = split_bonds([group], [(_port(1), tenant), (_port(2), tenant), (alone, None)])
    assert [port.id for port, _ in plain] == [9]
    assert [(g.uuid, config) for g, config in bonds] == [(GROUP, tenant)]
    with pytest.raises(InvalidParameterValue, match=f"Portgroup {GROUP} is a bond"):
        split_bonds([group], [(_port(1), tenant), (_port(2), SwitchportConfig("access", 300))])


def test_the_ovs_bond_command_checks_every_member_before_changing_anything() -> None:
    command = ovs_bond_command(Bond("b", ("swp1", "swp2"), "lacp"))
    checks, change = command.split(" && ovs-vsctl --if-exists")
    assert (
        checks == "ovs-vsctl iface-to-br swp1 >/dev/null && ovs-vsctl iface-to-br swp2 >/dev/null"
    )
    assert "--may-exist add-bond" in change and "lacp=active" in change


def test_a_member_recorded_in_a_bond_reads_it_back() -> None:
    bond = Bond("b", ("swp1", "swp2"), "lacp")
    assert recorded_bond(bond_record(bond)) == bond
    for stored in (None, {}, {"name": "b"}, {"name": "b", "members": []}, "b"):
        assert recorded_bond(stored) is None


def test_a_port_reads_back_the_configuration_and_bond_it_recorded() -> None:
    bond = Bond("b", ("swp1", "swp2"), "lacp")
    for config in (SwitchportConfig("access", 200, ()), SwitchportConfig("trunk", 5, (6, 7))):
        for member_of in (bond, None):
            port = Port(internal_info={APPLIED_KEY: applied_record(config, member_of)})
            assert (applied(port), applied_bond(port)) == (config, member_of)
    # a member set to no VLAN still knows its bond, so that a later change takes it apart
    port = Port(internal_info={APPLIED_KEY: applied_record(None, bond)})
    assert (applied(port), applied_bond(port)) == (None, bond)
    assert applied_record(None, None) is None


def test_the_ovs_unbond_command_gives_each_member_back_its_own_port() -> None:
    assert ovs_unbond_command(Bond("b", ("swp1", "swp2"))) == (
        "ovs-vsctl --if-exists del-port b -- "
        '--may-exist add-port "$(ovs-vsctl iface-to-br swp1)" swp1 -- '
        '--may-exist add-port "$(ovs-vsctl iface-to-br swp1)" swp2'
    )


def test_an_old_bond_is_taken_apart_before_anything_else_where_metalwire_knows_how() -> None:
    old, new = Bond("old", ("swp1", "swp2")), Bond("new", ("swp1", "swp2"))
    access = SwitchportConfig("access", 200)

    plain = operations("swp1", access, None, None, "netmiko_ovs_linux", previous_bond=old)
    renamed = operations("new", access, None, new, "netmiko_ovs_linux", previous_bond=old)
    same = operations("old", access, None, old, "netmiko_ovs_linux", previous_bond=old)
    elsewhere = operations("swp1", access, None, None, "netmiko_cisco_ios", previous_bond=old)

    assert plain[0] == ("send_commands_to_device", [[ovs_unbond_command(old)]], {})
    assert [call[0] for call in plain[1:]] == ["plug_port_to_network"]
    assert renamed[0] == ("send_commands_to_device", [[ovs_unbond_command(old)]], {})
    assert renamed[1] == ("send_commands_to_device", [[ovs_bond_command(new)]], {})
    assert ovs_unbond_command(old) not in str(same)
    assert [call[0] for call in elsewhere] == ["plug_port_to_network"]
