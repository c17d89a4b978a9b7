"""Switch interface names: what a port_id sent to a switch may be."""

from __future__ import annotations

import pytest

from metalwire.networking.port_ids import PORT_ID, port_id_problem

REAL_NAMES = [
    "Ethernet1/1",
    "swp1",
    "GigabitEthernet0/0/1",
    "xe-0/0/1:2",
    "1/1/1",
    "Eth1/1.100",
    "port-channel10",
    "ethernet1/1/1:1",
    "TenGigE0_0_0_1",
    "eth0",
]

UNSAFE_NAMES = [
    "swp1 vlan_mode=access -- set port swp2 tag=100 -- set port swp1",
    "swp1;touch /tmp/injected;echo",
    "swp1|id",
    "swp1&&id",
    "$(id)",
    "`id`",
    "swp1'",
    'swp1"',
    "swp1\nid",
    "swp1\tx",
    "Ethernet 1/1",
    " swp1",
    "swp1 ",
    "swp1>x",
    "swp1*",
    "swp1#",
    "",
]


@pytest.mark.parametrize("name", REAL_NAMES)
def test_real_switch_interface_names_are_accepted(name: str) -> None:
    assert PORT_ID.fullmatch(name)
    assert port_id_problem(name) is None


@pytest.mark.parametrize("name", UNSAFE_NAMES)
def test_names_a_shell_or_cli_reads_as_more_are_refused(name: str) -> None:
    problem = port_id_problem(name)

    assert problem is not None
    assert "letters, digits and _.:/- only" in problem


@pytest.mark.parametrize("value", [None, 1, ["swp1"], {"port": "swp1"}])
def test_what_is_no_string_is_refused(value: object) -> None:
    assert port_id_problem(value) is not None


def test_a_long_name_is_shortened_in_the_message() -> None:
    problem = port_id_problem("x;" * 500)

    assert problem is not None and len(problem) < 200
