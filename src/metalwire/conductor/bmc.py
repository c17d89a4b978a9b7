"""What the ``ipmitool`` and ``redfish`` power and management interfaces want in
``driver_info``, checked as Ironic 39's check it before they talk to the BMC.

``ipmitool``: ``ipmi_address`` is set (for the power interface an IP address or a host name
of lower-case letters, digits and hyphens); ``ipmi_protocol_version`` is ``2.0`` or ``1.5``;
``ipmi_port`` and ``ipmi_terminal_port`` are port numbers; ``ipmi_bridging`` is ``no``,
``single`` (with ``ipmi_target_channel`` and ``ipmi_target_address``) or ``dual`` (with
``ipmi_transit_channel`` and ``ipmi_transit_address`` as well); ``ipmi_priv_level`` is
``ADMINISTRATOR``, ``CALLBACK``, ``OPERATOR`` or ``USER``; ``ipmi_hex_kg_key`` has an even
number of characters; ``ipmi_cipher_suite`` is a number, and not with IPMI 1.5.

``redfish``: ``redfish_address`` is set, and is a URL with a host (``https://`` is assumed
when it has no scheme and authority; an IPv6 address alone is taken in brackets) whose scheme,
user information, host, path, query and fragment are valid as RFC 3986 reads them;
``redfish_system_id`` is a string; ``redfish_verify_ca`` a Boolean (or its text) or a file or
directory on this host; ``redfish_auth_type`` ``basic``, ``session`` or ``auto``.

metalwire runs no ``ipmitool``: bridging is taken as supported.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import rfc3986
import rfc3986.exceptions
import rfc3986.validators

from metalwire.db.models import Node
from metalwire.errors import Invalid, InvalidParameterValue, MissingParameterValue

# The driver_info key a BMC-driving implementation cannot work without.
BMC_ADDRESS = {"ipmitool": "ipmi_address", "redfish": "redfish_address"}
IPMI_PROTOCOL_VERSIONS = ("2.0", "1.5")
IPMI_PRIVILEGE_LEVELS = ("ADMINISTRATOR", "CALLBACK", "OPERATOR", "USER")
IPMI_BRIDGING = ("single", "dual", "no")
IPMI_BRIDGE_KEYS = {
    "single": ("ipmi_target_channel", "ipmi_target_address"),
    "dual": (
        "ipmi_target_channel",
        "ipmi_target_address",
        "ipmi_transit_channel",
        "ipmi_transit_address",
    ),
}
REDFISH_AUTH_TYPES = ("basic", "session", "auto")
BOOLEAN_WORDS = ("1", "t", "true", "on", "y", "yes", "0", "f", "false", "off", "n", "no")
_MAX_PORT = 65535
_HOST_NAME = re.compile(r"^[a-z0-9]([a-z0-9\-]{0,61}[a-z0-9])?(\.[a-z0-9\-_]{0,62}[a-z0-9])*\.?$")
_MAX_HOST_NAME = 255


class Problem(NamedTuple):
    """What an interface refuses in ``driver_info``, and as which error."""

    text: str
    error: type[Invalid] = InvalidParameterValue


def bmc_family(implementation: str) -> str:
    """The Ironic implementation ``implementation`` is, or derives from: ``idrac-redfish``
    is a ``redfish``, ``intel-ipmitool`` an ``ipmitool``; any other is its own."""
    for family in BMC_ADDRESS:
        if implementation.endswith(family):
            return family
    return implementation


def check_bmc_driver_info(node: Node, implementation: str, kind: str) -> None:
    """Raise MissingParameterValue or InvalidParameterValue naming what the ``kind``
    (``power``, ``management`` or ``inspect``) interface ``implementation`` (or the family it
    derives from, :func:`bmc_family`) refuses in ``driver_info``; nothing for an
    implementation that drives no BMC."""
    family = bmc_family(implementation)
    if family not in BMC_ADDRESS:
        return
    key = BMC_ADDRESS[family]
    if not node.driver_info.get(key):
        raise MissingParameterValue(
            f"Node {node.uuid}: the {implementation} {kind} interface needs driver_info/{key}, "
            "which is not set."
        )
    problem = _CHECKS[family](node, kind)
    if problem:
        raise problem.error(f"Node {node.uuid}: {problem.text}.")


def _ipmitool_problem(node: Node, kind: str) -> Problem | None:
    info = node.driver_info
    version = str(info.get("ipmi_protocol_version", "2.0"))
    if version not in IPMI_PROTOCOL_VERSIONS:
        return _not_one_of("ipmi_protocol_version", version, IPMI_PROTOCOL_VERSIONS)
    ports = (("ipmi_terminal_port", _terminal_port(node)), ("ipmi_port", info.get("ipmi_port")))
    for key, value in ports:
        if value is not None and not _is_port(value):
            return Problem(f"driver_info/{key} {value!r} is not a port number (0-{_MAX_PORT})")
    problem = _bridging_problem(info) or _ipmi_credentials_problem(info, version)
    if problem or kind != "power":
        return problem
    return _ipmi_address_problem(info["ipmi_address"])


def _terminal_port(node: Node) -> Any:
    """The console's port: the one set, else the one metalwire's conductor allocated."""
    return node.driver_info.get("ipmi_terminal_port") or node.driver_internal_info.get(
        "allocated_ipmi_terminal_port"
    )


def _is_port(value: Any) -> bool:
    try:
        return 0 <= int(value) <= _MAX_PORT
    except (TypeError, ValueError):
        return False


def _bridging_problem(info: dict[str, Any]) -> Problem | None:
    bridging = info.get("ipmi_bridging", "no")
    if bridging == "no":
        return None
    if bridging not in IPMI_BRIDGE_KEYS:
        return _not_one_of("ipmi_bridging", bridging, IPMI_BRIDGING)
    missing = [key for key in IPMI_BRIDGE_KEYS[bridging] if info.get(key) is None]
    if missing:
        keys = ", ".join(f"driver_info/{key}" for key in missing)
        return Problem(f"{bridging} IPMI bridging needs {keys}", MissingParameterValue)
    return None


def _ipmi_credentials_problem(info: dict[str, Any], version: str) -> Problem | None:
    level = info.get("ipmi_priv_level", "ADMINISTRATOR")
    if level not in IPMI_PRIVILEGE_LEVELS:
        return _not_one_of("ipmi_priv_level", level, IPMI_PRIVILEGE_LEVELS)
    kg_key = info.get("ipmi_hex_kg_key")
    if kg_key and (not isinstance(kg_key, str) or len(kg_key) % 2):
        return Problem("driver_info/ipmi_hex_kg_key must have an even number of hexadecimal digits")
    cipher_suite = info.get("ipmi_cipher_suite")
    if cipher_suite is None:
        return None
    if not _is_integer(cipher_suite):
        return Problem(f"driver_info/ipmi_cipher_suite {cipher_suite!r} is not a number")
    if version == "1.5":
        return Problem("driver_info/ipmi_cipher_suite cannot be used with IPMI 1.5")
    return None


def _is_integer(value: Any) -> bool:
    try:
        int(value)
    except (TypeError, ValueError):
        return False
    return True


def _is_ip_address(value: Any) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def _is_host_name(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= _MAX_HOST_NAME and bool(_HOST_NAME.match(value))


def _ipmi_address_problem(address: Any) -> Problem | None:
    if _is_ip_address(address) or _is_host_name(address):
        return None
    return Problem(
        f"driver_info/ipmi_address {address!r} is neither an IP address nor a host name "
        "(lower-case letters, digits, hyphens and dots)"
    )


def _redfish_problem(node: Node, kind: str) -> Problem | None:
    info = node.driver_info
    if not _is_redfish_url(info["redfish_address"]):
        return Problem(
            f"driver_info/redfish_address {info['redfish_address']!r} is not a URL with a "
            "host, such as https://bmc.example.com"
        )
    system_id = info.get("redfish_system_id")
    if system_id is not None and not isinstance(system_id, str):
        return Problem(
            "driver_info/redfish_system_id must be a path such as /redfish/v1/Systems/1, "
            f"not {system_id!r}"
        )
    verify_ca = info.get("redfish_verify_ca", True)
    if not _is_verify_ca(verify_ca):
        return Problem(
            "driver_info/redfish_verify_ca must be a Boolean or the path of a file or "
            f"directory on this host, not {verify_ca!r}"
        )
    auth_type = info.get("redfish_auth_type", "auto")
    if auth_type not in REDFISH_AUTH_TYPES:
        return _not_one_of("redfish_auth_type", auth_type, REDFISH_AUTH_TYPES)
    return None


def _is_redfish_url(address: Any) -> bool:
    """As Ironic's Redfish driver reads the address: ``https://`` is assumed when the text
    has no scheme and authority; the result needs a scheme and a host, and its parts must
    be valid RFC 3986."""
    if not isinstance(address, str):
        return False
    if _is_ipv6(address):
        address = f"[{address}]"
    parsed = rfc3986.uri_reference(address)
    if not parsed.scheme or not parsed.authority:
        parsed = rfc3986.uri_reference(f"https://{address}")
    validator = (
        rfc3986.validators.Validator()
        .require_presence_of("scheme", "host")
        .check_validity_of("scheme", "userinfo", "host", "path", "query", "fragment")
    )
    try:
        validator.validate(parsed)
    except rfc3986.exceptions.RFC3986Exception:
        return False
    return True


def _is_ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _is_verify_ca(value: Any) -> bool:
    if isinstance(value, bool):
        return True
    if not isinstance(value, str):
        return False
    return os.path.exists(value) or value.strip().lower() in BOOLEAN_WORDS


def _not_one_of(key: str, value: Any, valid: tuple[str, ...]) -> Problem:
    return Problem(f"driver_info/{key} {value!r} is not one of {', '.join(valid)}")


_CHECKS: dict[str, Callable[[Node, str], Problem | None]] = {
    "ipmitool": _ipmitool_problem,
    "redfish": _redfish_problem,
}
