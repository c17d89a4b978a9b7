"""Switchport configurations: Ironic's schema rules and 400 messages."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.errors import InvalidParameterValue
from metalwire.networking.switchport import (
    SwitchportConfig,
    check_pxe_mode,
    check_vlans_allowed,
    parse_network_value,
    parse_switchport,
)

PORT = "3b3f2e52-6f6f-4d0e-9d3e-9d0b7b2f0a11"


def test_access_and_trunk_configurations_are_read() -> None:
    assert parse_switchport(PORT, {"mode": "access", "native_vlan": 100}) == SwitchportConfig(
        "access", 100
    )
    trunk = parse_switchport(
        PORT, {"mode": "trunk", "native_vlan": 10, "allowed_vlans": [20, 30], "lag_name": "bond0"}
    )
    assert trunk == SwitchportConfig("trunk", 10, (20, 30), "bond0")
    assert trunk.vlans == frozenset({10, 20, 30})


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ({"mode": "routed", "native_vlan": 1}, "mode 'routed' is not one of"),
        ({"mode": "access", "native_vlan": 5000}, "native_vlan 5000 is outside 1-4094"),
        ({"mode": "access", "native_vlan": "100"}, "native_vlan '100' is not an integer"),
        ({"mode": "access", "native_vlan": 1, "speed": 10}, "unknown key(s) 'speed'"),
        ({"mode": "access"}, "'native_vlan' is required"),
        ({"mode": "access", "native_vlan": 1, "allowed_vlans": [2]}, "not allowed in 'access'"),
        ({"mode": "trunk", "native_vlan": 1}, "mode 'trunk' needs allowed_vlans"),
        ({"mode": "hybrid", "native_vlan": 1, "allowed_vlans": [2, 2]}, "lists a VLAN twice"),
        ({"mode": "trunk", "native_vlan": 1, "allowed_vlans": [0]}, "allowed_vlans: 0 is outside"),
        ({"mode": "access", "native_vlan": 1, "mtu": 9217}, "mtu 9217"),
        ("access", "'access' is not an object"),
    ],
)
def test_a_bad_configuration_is_refused_naming_port_and_reason(value: Any, reason: str) -> None:
    with pytest.raises(InvalidParameterValue) as caught:
        parse_switchport(PORT, value)
    message = str(caught.value)
    assert message.startswith(f"Invalid switchport configuration for port {PORT}: ")
    assert reason in message


def test_a_pxe_enabled_port_must_be_in_access_mode() -> None:
    check_pxe_mode(PORT, True, SwitchportConfig("access", 100))
    check_pxe_mode(PORT, False, SwitchportConfig("trunk", 10, (20,)))
    with pytest.raises(InvalidParameterValue, match="PXE-enabled ports must use 'access' mode"):
        check_pxe_mode(PORT, True, SwitchportConfig("trunk", 10, (20,)))


def test_vlans_outside_the_switch_list_or_else_the_global_list_are_refused() -> None:
    check_vlans_allowed({999}, "tor-1", "x", None, None)
    check_vlans_allowed({150}, "tor-1", "x", frozenset({150}), frozenset({1}))
    with pytest.raises(InvalidParameterValue) as caught:
        check_vlans_allowed({100, 999}, "tor-1", "port P switchport", frozenset({100}), None)
    assert str(caught.value) == (
        "VLANs [999] are not allowed for port P switchport on switch tor-1. Allowed VLANs: [100]"
    )
    with pytest.raises(InvalidParameterValue, match=r"VLANs \[5\] are not allowed"):
        check_vlans_allowed({5}, "tor-1", "x", None, frozenset({6}))


def test_state_network_values_in_ironic_format() -> None:
    assert parse_network_value("access/native_vlan=10", "cleaning") == SwitchportConfig(
        "access", 10
    )
    assert parse_network_value("trunk/native_vlan=10/allowed_vlans=20-22", "idle") == (
        SwitchportConfig("trunk", 10, (20, 21, 22))
    )
    for bad in ("access", "flat/native_vlan=1", "access/native_vlan=x", "access/vlan=3"):
        with pytest.raises(InvalidParameterValue, match=f"Invalid cleaning network value '{bad}'"):
            parse_network_value(bad, "cleaning")
