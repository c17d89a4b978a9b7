"""LLDP TLVs as the inspection hooks read them (``conductor/lldp.py``): each chassis and
port ID subtype, the first value of each kind kept for the plugin data, and what does not
read."""

from __future__ import annotations

import pytest

from metalwire.conductor.lldp import MalformedTlv, local_link, parsed


def tlv(kind: int, value: bytes) -> list[object]:
    return [kind, value.hex()]


MAC = bytes.fromhex("885a92ec5459")


@pytest.mark.parametrize(
    ("value", "read"),
    [
        (bytes([4]) + MAC, "88:5a:92:ec:54:59"),  # MAC address
        (bytes([5, 1, 192, 0, 2, 1]), "192.0.2.1"),  # network address, IPv4
        (bytes([5, 2]) + bytes(15) + bytes([1]), "::1"),  # network address, IPv6
        (bytes([7]) + b"leaf-1", "leaf-1"),  # locally assigned
    ],
)
def test_each_chassis_id_subtype_reads_as_ironic_reads_it(value: bytes, read: str) -> None:
    assert parsed([tlv(1, value)]) == {"switch_chassis_id": read}


@pytest.mark.parametrize(
    ("value", "read"),
    [
        (bytes([3]) + MAC, "88:5a:92:ec:54:59"),
        (bytes([5]) + b"Ethernet1/18", "Ethernet1/18"),
        (bytes([1]) + b"uplink", "uplink"),
    ],
)
def test_each_port_id_subtype_reads_as_ironic_reads_it(value: bytes, read: str) -> None:
    assert local_link([tlv(2, value)]) == {"port_id": read}


def test_only_a_chassis_id_that_is_a_mac_address_is_the_switch_id() -> None:
    assert local_link([tlv(1, bytes([7]) + b"leaf-1"), tlv(5, b"leaf-1")]) == {
        "switch_info": "leaf-1"
    }
    assert local_link([tlv(1, bytes([4]) + MAC)]) == {"switch_id": "88:5a:92:ec:54:59"}


@pytest.mark.parametrize(
    "tlvs",
    [
        [[2, "zz"]],  # not hexadecimal
        [tlv(2, bytes([6]) + b"circuit")],  # a port ID subtype Ironic does not read
        [tlv(1, bytes([4, 1, 2]))],  # a MAC address too short
        [tlv(1, bytes([5, 9, 1, 2, 3, 4]))],  # an unknown address family
        [tlv(5, b"\xff\xfe")],  # not UTF-8
        ["not a pair"],
    ],
)
def test_a_tlv_that_does_not_read_gives_no_link(tlvs: list[object]) -> None:
    with pytest.raises(MalformedTlv):
        local_link(tlvs)


def test_the_plugin_data_keeps_the_first_of_each_and_skips_what_does_not_read() -> None:
    tlvs = [
        tlv(5, b"first"),
        tlv(5, b"second"),
        tlv(2, bytes([6]) + b"circuit"),
        tlv(6, b"NX-OS"),
        tlv(3, bytes([0, 120])),
    ]

    assert parsed(tlvs) == {"switch_system_name": "first", "switch_system_description": "NX-OS"}
