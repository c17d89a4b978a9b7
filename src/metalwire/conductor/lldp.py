"""LLDP advertisements as the inspection ramdisk reports them: per interface, the TLVs it
received as ``[type, hex value]`` pairs (IEEE 802.1AB's basic management set).

What the ``parse-lldp`` and ``local-link-connection`` inspection hooks read from them, as
Ironic 39's: the switch's chassis ID, the port ID, the port description and the system
name and description, each by its subtype (a MAC address as ``aa:bb:cc:dd:ee:ff``, a
network address as its text, the other subtypes as UTF-8 text).
"""

from __future__ import annotations

import binascii
import ipaddress
from dataclasses import dataclass
from typing import Any

CHASSIS_ID, PORT_ID, PORT_DESCRIPTION, SYSTEM_NAME, SYSTEM_DESCRIPTION = 1, 2, 4, 5, 6

# the subtypes of a chassis ID and of a port ID (802.1AB 8.5.2.2, 8.5.3.2): how each value
# reads; 6 is not a port ID subtype Ironic reads (agent circuit ID)
_TEXT, _MAC, _NETWORK_ADDRESS = "text", "mac_address", "network_address"
_CHASSIS_SUBTYPES = {1: _TEXT, 2: _TEXT, 3: _TEXT, 4: _MAC, 5: _NETWORK_ADDRESS, 6: _TEXT, 7: _TEXT}
_PORT_SUBTYPES = {1: _TEXT, 2: _TEXT, 3: _MAC, 4: _NETWORK_ADDRESS, 5: _TEXT, 7: _TEXT}
# IANA address families of a network address subtype, and their lengths
_FAMILIES = {1: 4, 2: 16, 6: 6}


class MalformedTlv(ValueError):
    """A TLV whose value does not read as its type says."""


@dataclass(frozen=True)
class Identifier:
    """A chassis or port ID: how its subtype reads (``mac_address``, ``network_address``,
    ``text``) and its value."""

    kind: str
    value: str


def _mac(data: bytes) -> str:
    if len(data) < 6:
        raise MalformedTlv(f"a MAC address needs 6 bytes, not {len(data)}")
    return ":".join(f"{byte:02x}" for byte in data[:6])


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedTlv(f"not UTF-8 text: {exc}") from None


def _network_address(data: bytes) -> str:
    if not data or data[0] not in _FAMILIES:
        raise MalformedTlv(f"unknown address family {data[:1].hex() or 'none'}")
    size = _FAMILIES[data[0]]
    address = data[1 : 1 + size]
    if len(address) < size:
        raise MalformedTlv(f"an address of family {data[0]} needs {size} bytes")
    if size == 6:
        return _mac(address)
    return str(ipaddress.ip_address(address))


def identifier(data: bytes, subtypes: dict[int, str]) -> Identifier:
    """A chassis or port ID TLV's value: its subtype byte, then the ID."""
    if not data or data[0] not in subtypes:
        raise MalformedTlv(f"unknown subtype {data[:1].hex() or 'none'}")
    kind, rest = subtypes[data[0]], bytes(data[1:])
    if kind == _MAC:
        return Identifier(kind, _mac(rest))
    if kind == _NETWORK_ADDRESS:
        return Identifier(kind, _network_address(rest))
    return Identifier(kind, _text(rest))


def decoded(tlvs: Any) -> list[tuple[int, bytes]]:
    """The ``[type, hex value]`` pairs as types and bytes; raises MalformedTlv for a pair
    that is not one."""
    if not isinstance(tlvs, list):
        raise MalformedTlv(f"expected a list of [type, hex value] pairs, not {tlvs!r}")
    found = []
    for pair in tlvs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise MalformedTlv(f"expected a [type, hex value] pair, not {pair!r}")
        kind, value = pair
        if not isinstance(kind, int) or not isinstance(value, str):
            raise MalformedTlv(f"expected a [type, hex value] pair, not {pair!r}")
        try:
            found.append((kind, binascii.unhexlify(value)))
        except (binascii.Error, ValueError):
            raise MalformedTlv(f"the value of TLV type {kind} is not hexadecimal") from None
    return found


def parsed(tlvs: Any) -> dict[str, str]:
    """What ``parse-lldp`` keeps of an interface's TLVs, under Ironic's names; the first of
    each wins, and a TLV that does not read is left out."""
    names = {
        CHASSIS_ID: "switch_chassis_id",
        PORT_ID: "switch_port_id",
        PORT_DESCRIPTION: "switch_port_description",
        SYSTEM_NAME: "switch_system_name",
        SYSTEM_DESCRIPTION: "switch_system_description",
    }
    found: dict[str, str] = {}
    try:
        pairs = decoded(tlvs)
    except MalformedTlv:
        return found
    for kind, data in pairs:
        if kind not in names or names[kind] in found:
            continue
        try:
            if kind == CHASSIS_ID:
                value = identifier(data, _CHASSIS_SUBTYPES).value
            elif kind == PORT_ID:
                value = identifier(data, _PORT_SUBTYPES).value
            else:
                value = _text(data)
        except MalformedTlv:
            continue
        found[names[kind]] = value
    return found


def local_link(tlvs: Any) -> dict[str, str]:
    """The ``local_link_connection`` an interface's TLVs give, as Ironic's hook reads them:
    ``switch_id`` from a chassis ID that is a MAC address, ``port_id`` from the port ID,
    ``switch_info`` from the system name. Raises MalformedTlv if any of those TLVs does not
    read (Ironic then leaves the port alone)."""
    link: dict[str, str] = {}
    for kind, data in decoded(tlvs):
        if kind == CHASSIS_ID:
            chassis = identifier(data, _CHASSIS_SUBTYPES)
            if chassis.kind == _MAC:
                link["switch_id"] = chassis.value
        elif kind == PORT_ID:
            link["port_id"] = identifier(data, _PORT_SUBTYPES).value
        elif kind == SYSTEM_NAME:
            link["switch_info"] = _text(data)
    return link
