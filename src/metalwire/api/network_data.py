"""A node's ``network_data``: the static network configuration a config drive hands the
instance (OpenStack's ``network_data.json``: ``links``, ``networks``, ``services``), checked
as Ironic 39 checks it.

A node's ``network_data`` is either empty or a whole document: the three lists, each entry
valid for its ``type``. Keys the format does not describe are kept as given. A PATCH that sets
the whole field must give a whole document (Ironic refuses ``{}`` and ``null`` there: remove
the field to empty it); a PATCH inside it must leave it empty or whole.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from metalwire.api.jsonpatch import operations_at
from metalwire.errors import InvalidParameterValue

PHYSICAL_LINK_TYPES = (
    "bridge",
    "dvs",
    "hw_veb",
    "hyperv",
    "ovs",
    "tap",
    "vhostuser",
    "vif",
    "phy",
)
BOND_MODES = (
    "802.3ad",
    "balance-rr",
    "active-backup",
    "balance-xor",
    "broadcast",
    "balance-tlb",
    "balance-alb",
)
SERVICE_TYPES = ("dns",)
SECTIONS = ("links", "networks", "services")
MTU_RANGE = (1, 65535)

_MAC = re.compile(r"(?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2}", re.IGNORECASE)
_PREFIX_LENGTH = re.compile(r"/[0-9]{1,2}$")
_ZONE = re.compile(r"[0-9A-Za-z]+")

# (value, where it is in the document); raises InvalidParameterValue
Check = Callable[[Any, str], None]


def check_document(value: Any, *, empty_allowed: bool) -> None:
    """Refuse (400, naming where and what) a ``network_data`` Ironic 39 refuses; ``{}`` and
    ``null`` pass only when ``empty_allowed``."""
    if empty_allowed and (value is None or value == {}):
        return
    to_empty = " (remove the field to leave it empty)" if value is None or value == {} else ""
    if not isinstance(value, dict):
        _refuse("", f"{_shown(value)} is not an object holding {_listed(SECTIONS)}{to_empty}")
    missing = [section for section in SECTIONS if section not in value]
    if missing:
        _refuse(
            "",
            f"{_listed(missing)} missing; a network_data object holds {_listed(SECTIONS)}"
            + to_empty,
        )
    _list_of(_link)(value["links"], "links")
    _list_of(_network)(value["networks"], "networks")
    _list_of(_service(_ip_host))(value["services"], "services")


def check_patch_values(patch: Any) -> None:
    """Each whole ``network_data`` a JSON Patch adds or replaces must be a whole document."""
    for operation in operations_at(patch, "/network_data"):
        if operation.get("op") in ("add", "replace") and "value" in operation:
            check_document(operation["value"], empty_allowed=False)


@dataclass(frozen=True)
class _Shape:
    """An object of the document: the keys it must have, and the checks of those it has."""

    required: tuple[str, ...]
    checks: Mapping[str, Check]

    def __call__(self, value: Any, where: str) -> None:
        if not isinstance(value, dict):
            _refuse(where, f"{_shown(value)} is not an object")
        missing = [key for key in self.required if key not in value]
        if missing:
            _refuse(where, f"{_listed(missing)} missing")
        for key, check in self.checks.items():
            if key in value:
                check(value[key], f"{where}.{key}")


def _typed(kinds: Mapping[str, _Shape], noun: str) -> Check:
    """An object whose ``type`` says which shape it has."""

    def check(value: Any, where: str) -> None:
        if not isinstance(value, dict):
            _refuse(where, f"{_shown(value)} is not an object")
        kind = value.get("type")
        if "type" not in value:
            _refuse(where, f"type missing; a {noun}'s type is one of {_listed(kinds)}")
        if not isinstance(kind, str) or kind not in kinds:
            _refuse(f"{where}.type", f"{_shown(kind)} is not one of {_listed(kinds)}")
        kinds[kind](value, where)

    return check


def _list_of(item: Check) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, list):
            _refuse(where, f"{_shown(value)} is not a list")
        for index, entry in enumerate(value):
            item(entry, f"{where}[{index}]")

    return check


def _one_of(choices: tuple[str, ...]) -> Check:
    def check(value: Any, where: str) -> None:
        if value not in choices:
            _refuse(where, f"{_shown(value)} is not one of {_listed(choices)}")

    return check


def _string(value: Any, where: str) -> None:
    if not isinstance(value, str):
        _refuse(where, f"{_shown(value)} is not a string")


def _integer(value: Any, where: str) -> None:
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not whole:
        _refuse(where, f"{_shown(value)} is not an integer")


def _mtu(value: Any, where: str) -> None:
    if value is None:
        return
    low, high = MTU_RANGE
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not low <= value <= high:
        _refuse(where, f"{_shown(value)} is not an MTU from {low} to {high} (or null)")


def _mac(value: Any, where: str) -> None:
    if not isinstance(value, str) or not _MAC.fullmatch(value):
        _refuse(where, f"{_shown(value)} is not a MAC address (six hex pairs, ':' or '-')")


def _octets(text: str, leading_zeros: bool) -> list[int] | None:
    """The four numbers of a dotted IPv4 address, or None if ``text`` is not one."""
    parts = text.split(".")
    if len(parts) != 4:
        return None
    octets = []
    for part in parts:
        if not (part.isascii() and part.isdigit() and 1 <= len(part) <= 3):
            return None
        if part.startswith("0") and len(part) > 1 and not leading_zeros:
            return None
        octets.append(int(part))
    return octets if max(octets) <= 255 else None


def _is_ipv4_host(text: str) -> bool:
    return _octets(text, leading_zeros=True) is not None


def _is_ipv4_network(text: str) -> bool:
    return _octets(text, leading_zeros=False) is not None


def _is_ipv4_netmask(text: str) -> bool:
    """Contiguous ones from /0 to /31: Ironic 39 refuses 255.255.255.255."""
    octets = _octets(text, leading_zeros=False)
    if octets is None:
        return False
    mask = int.from_bytes(bytes(octets), "big")
    zeros = mask ^ 0xFFFFFFFF
    return zeros != 0 and zeros & (zeros + 1) == 0


def _is_ipv6(text: str, *, prefix: bool = False, zone: bool = False, dotted: bool = False) -> bool:
    """An IPv6 address; ``prefix`` allows a ``/64`` after it, ``zone`` a ``%eth0`` after a
    link-local one, ``dotted`` an IPv4 address as its last 32 bits."""
    if prefix:
        text = _PREFIX_LENGTH.sub("", text, count=1)
    address, percent, scope = text.partition("%")
    if (percent and not zone) or "/" in address or ("." in address and not dotted):
        return False
    try:
        parsed = ipaddress.IPv6Address(address)
    except ValueError:
        return False
    return not percent or (parsed.is_link_local and _ZONE.fullmatch(scope) is not None)


def _address(test: Callable[[str], bool], noun: str) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, str) or not test(value):
            _refuse(where, f"{_shown(value)} is not {noun}")

    return check


_ipv4_host = _address(_is_ipv4_host, "an IPv4 address")
_ipv4_network = _address(_is_ipv4_network, "an IPv4 network address")
_ipv4_netmask = _address(_is_ipv4_netmask, "an IPv4 netmask (0.0.0.0 to 255.255.255.254)")
_ipv6_host = _address(
    lambda text: _is_ipv6(text, prefix=True, zone=True, dotted=True),
    "an IPv6 address",
)
_ipv6_gateway = _address(lambda text: _is_ipv6(text, zone=True, dotted=True), "an IPv6 address")
_ipv6_plain = _address(_is_ipv6, "an IPv6 address without a prefix length or zone")
_ip_host = _address(
    lambda text: _is_ipv4_host(text) or _is_ipv6(text, prefix=True, zone=True, dotted=True),
    "an IPv4 or IPv6 address",
)


def _service(address: Check) -> _Shape:
    return _Shape(("address", "type"), {"address": address, "type": _one_of(SERVICE_TYPES)})


_LINK_COMMON: Mapping[str, Check] = {"id": _string, "mtu": _mtu, "vif_id": _string}
_ETHERNET_LINK = _Shape(
    ("ethernet_mac_address", "id", "type"), {**_LINK_COMMON, "ethernet_mac_address": _mac}
)
_BOND_LINK = _Shape(
    ("ethernet_mac_address", "id", "type", "bond_mode", "bond_links"),
    {
        **_LINK_COMMON,
        "ethernet_mac_address": _mac,
        "bond_mode": _one_of(BOND_MODES),
        "bond_links": _list_of(_string),
    },
)
_VLAN_LINK = _Shape(
    ("vlan_mac_address", "id", "type", "vlan_link", "vlan_id"),
    {**_LINK_COMMON, "vlan_mac_address": _mac, "vlan_id": _integer, "vlan_link": _string},
)
_link = _typed(
    {**dict.fromkeys(PHYSICAL_LINK_TYPES, _ETHERNET_LINK), "bond": _BOND_LINK, "vlan": _VLAN_LINK},
    "link",
)


def _network_shape(host: Check, netmask: Check, network: Check, gateway: Check) -> _Shape:
    route = _Shape(
        ("gateway", "netmask", "network"),
        {
            "network": network,
            "netmask": netmask,
            "gateway": gateway,
            "services": _list_of(_service(host)),
        },
    )
    return _Shape(
        ("id", "link", "network_id", "type"),
        {
            "id": _string,
            "link": _string,
            "network_id": _string,
            "ip_address": host,
            "netmask": netmask,
            "routes": _list_of(route),
        },
    )


_IPV4_NETWORK = _network_shape(_ipv4_host, _ipv4_netmask, _ipv4_network, _ipv4_host)
_IPV6_NETWORK = _network_shape(_ipv6_host, _ipv6_plain, _ipv6_plain, _ipv6_gateway)
_network = _typed(
    {
        "ipv4": _IPV4_NETWORK,
        "ipv4_dhcp": _IPV4_NETWORK,
        "ipv6": _IPV6_NETWORK,
        "ipv6_dhcp": _IPV6_NETWORK,
        "ipv6_slaac": _IPV6_NETWORK,
    },
    "network",
)


def _refuse(where: str, what: str) -> NoReturn:
    """Refuse the document: ``where`` is the path of what is wrong in it ("" for itself)."""
    raise InvalidParameterValue(f"Invalid network_data: {where + ': ' if where else ''}{what}.")


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _listed(names: Any) -> str:
    return ", ".join(str(name) for name in names)
