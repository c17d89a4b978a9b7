"""Checks of client input that need no database: types, formats, version gates.

Every message names the field and what was wrong with it.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import FromClause, String

from metalwire.api.fields import Access, Field, by_name
from metalwire.api.microversion import LINK_NETWORK_TYPE, Version, too_old
from metalwire.errors import InvalidParameterValue, MissingParameterValue, NotAcceptable
from metalwire.identifiers import is_switch_address, is_uuid, is_uuid_like, normalized_mac

_UNRESERVED = re.compile(r"^[A-Za-z0-9\-._~]+$")
_HOSTNAME_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$", re.IGNORECASE)
_CONDUCTOR_GROUP = re.compile(r"^[A-Za-z0-9_.\-]*$")
_KINDS: dict[str, type | tuple[type, ...]] = {"str": str, "bool": bool, "dict": dict, "list": list}
LOCAL_LINK_KEYS = {"switch_id", "port_id", "switch_info", "hostname", "network_type"}
# OVN VTEP switch keys: Ironic 39 takes them from 1.90 and refuses them again (406) from
# 1.105, which removed the support; below 1.90 they are 406 too. metalwire never stores them.
OVN_VTEP_KEYS = {"vtep-logical-switch", "vtep-physical-switch"}
LINK_NETWORK_TYPES = ("managed", "unmanaged")
OVN_VTEP_VERSIONS = range(90, 105)


def mac_address(value: Any, field: str = "address") -> str:
    normalized = normalized_mac(value)
    if normalized is None:
        raise InvalidParameterValue(f"Expected a MAC address but received {value!r} for {field}.")
    return normalized


def uuid_value(value: Any, field: str) -> str:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise InvalidParameterValue(
            f"Expected a UUID for {field} but received {value!r}."
        ) from None


def conductor_group(value: Any) -> str:
    """A conductor group: letters, digits, '_', '-' and '.', stored lowercased, since groups
    are case-insensitive (as Ironic's and Nova's ``[ironic] conductor_group``)."""
    if not isinstance(value, str) or not _CONDUCTOR_GROUP.match(value):
        raise InvalidParameterValue(
            f"Invalid conductor_group {value!r}: expected letters, digits, '_', '-' or '.' only."
        )
    return value.lower()


def host_port(value: str, field: str) -> None:
    """Refuse ``value`` (400) unless it reads as ``host[:port]``, an IPv6 host in brackets
    when a port follows, as Ironic 39 reads a conductor's host name and marker: no host, or
    a port that is no number, is refused."""
    if value.startswith("["):
        host, closed, rest = value[1:].partition("]")
        if not closed:
            raise InvalidParameterValue(f"{field}: the IPv6 address {value!r} has no ']'")
        port = rest.partition(":")[2] if ":" in rest else None
    elif value.count(":") == 1:
        host, port = value.split(":")
    else:
        host, port = value, None
    if port is not None:
        try:
            int(port)
        except ValueError:
            raise InvalidParameterValue(f"{field}: the port {port!r} is not a number") from None
    if not host:
        raise InvalidParameterValue(f"Missing host in {field}")  # Ironic's words


def is_logical_name(value: str) -> bool:
    """Ironic's logical name: 1 to 255 RFC 3986 unreserved characters."""
    return len(value) <= 255 and _UNRESERVED.match(value) is not None


def uuid_or_name(value: str, name: str) -> str:
    """A query or path value naming a resource by its UUID (any spelling) or logical name; a
    400 in Ironic's words for anything else."""
    if not (is_logical_name(value) or is_uuid_like(value)):  # the cheaper test first
        raise InvalidParameterValue(f"Expected UUID or name for {name}: {value}")
    return value


def logical_name(value: Any, field: str, version: Version) -> str:
    """Names: RFC 3986 unreserved characters from 1.10, hostname rules before it."""
    if not isinstance(value, str) or not value or len(value) > 255:
        raise InvalidParameterValue(
            f"Cannot use {value!r} as {field}: it must be a non-empty string of at most 255 "
            "characters."
        )
    if is_uuid(value):
        raise InvalidParameterValue(f"Cannot use {value!r} as {field}: it looks like a UUID.")
    ok = (
        _UNRESERVED.match(value)
        if version.at_least(10)
        else all(_HOSTNAME_LABEL.match(part) for part in value.split("."))
    )
    if not ok:
        allowed = (
            "RFC 3986 unreserved characters (letters, digits, '-', '.', '_', '~')"
            if version.at_least(10)
            else "a valid host name"
        )
        raise InvalidParameterValue(f"Cannot use {value!r} as {field}: it must be {allowed}.")
    return value


def local_link_connection(
    value: Any, version: Version, is_smartnic: bool = False
) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidParameterValue("local_link_connection must be a JSON object.")
    vtep = sorted(OVN_VTEP_KEYS & set(value))
    if vtep and version.minor not in OVN_VTEP_VERSIONS:
        raise NotAcceptable(
            f"Request not acceptable. local_link_connection keys {', '.join(vtep)} exist only "
            f"at API versions 1.{OVN_VTEP_VERSIONS.start} to 1.{OVN_VTEP_VERSIONS.stop - 1} "
            f"(Ironic removed OVN VTEP support in 1.{OVN_VTEP_VERSIONS.stop}); the request "
            f"used {version}."
        )
    unknown = set(value) - LOCAL_LINK_KEYS
    if unknown:
        raise InvalidParameterValue(
            f"local_link_connection has unknown keys {sorted(unknown)}; allowed keys are "
            f"{sorted(LOCAL_LINK_KEYS)}."
        )
    _check_link_values(value)
    if value and value.get("network_type") != "unmanaged":
        _check_link_keys(value, is_smartnic)
    return _with_normal_switch_id(value)


def _with_normal_switch_id(value: dict[str, Any]) -> dict[str, Any]:
    """As Ironic: a switch_id that is a MAC address (or a 16-digit OpenFlow datapath ID) is
    kept in lower case, ``:``-separated, which is what Neutron's binding then carries. Any
    other switch_id (a switch of ``ironic-networking``'s switch file by name) is kept."""
    switch_id = value.get("switch_id")
    if isinstance(switch_id, str) and is_switch_address(switch_id):
        return {**value, "switch_id": switch_id.lower().replace("-", ":")}
    return value


def _check_link_values(value: dict[str, Any]) -> None:
    """As Ironic's schema: every value a string, network_type one of LINK_NETWORK_TYPES."""
    for key, item in value.items():
        if not isinstance(item, str):
            raise InvalidParameterValue(
                f"local_link_connection/{key} must be a string, not {type(item).__name__} {item!r}."
            )
    network_type = value.get("network_type")
    if network_type is not None and network_type not in LINK_NETWORK_TYPES:
        raise InvalidParameterValue(
            f"local_link_connection/network_type {network_type!r} is not one of "
            f"{', '.join(repr(t) for t in LINK_NETWORK_TYPES)}."
        )


def smart_nic_link(value: Any) -> None:
    """A Smart NIC port is created with a link naming its port and its host, or with no link
    at all: an empty or unmanaged link is a 400 too, as Ironic checks it on create."""
    if value is not None:
        _check_link_keys(value, is_smartnic=True)


def link_network_type_allowed(link: Any, version: Version) -> None:
    """local_link_connection/network_type exists from 1.64: a link given with it earlier is
    a 406, as in Ironic."""
    if isinstance(link, dict) and "network_type" in link:
        refuse_link_network_type(version)


def refuse_link_network_type(version: Version) -> None:
    if not version.at_least(LINK_NETWORK_TYPE):
        raise too_old("local_link_connection/network_type", LINK_NETWORK_TYPE, version)


def _check_link_keys(value: dict[str, Any], is_smartnic: bool) -> None:
    """As Ironic: a link names its port and either its switch or, as a Smart NIC's does, its
    host; a Smart NIC's link must name the host."""
    if is_smartnic:
        needed = {"port_id", "hostname"}
    elif "switch_id" in value or "hostname" not in value:
        needed = {"port_id", "switch_id"}
    else:
        needed = {"port_id", "hostname"}
    missing = needed - set(value)
    if missing:
        also = (
            " (the port is a Smart NIC: is_smartnic true)"
            if is_smartnic
            else " (or 'port_id' and 'hostname', as a Smart NIC's link)"
        )
        raise InvalidParameterValue(
            f"local_link_connection must contain {sorted(needed)}{also}; missing {sorted(missing)}."
        )


def check_kinds(values: dict[str, Any], fields: tuple[Field, ...]) -> None:
    known = by_name(fields)
    for name, value in values.items():
        field = known.get(name)
        if field is None or value is None or field.kind == "any":
            continue
        expected = _KINDS[field.kind]
        if not isinstance(value, expected):
            raise InvalidParameterValue(
                f"Invalid value for field {name}: expected {field.kind}, got "
                f"{type(value).__name__} {value!r}."
            )


def check_create_body(
    body: Any, fields: tuple[Field, ...], version: Version, required: tuple[str, ...]
) -> dict[str, Any]:
    """Validate a create request's body; returns it as a dict."""
    if not isinstance(body, dict):
        raise InvalidParameterValue("The request body must be a JSON object.")
    known = by_name(fields)
    for name in body:
        field = known.get(name)
        if field is None:
            raise InvalidParameterValue(f"Unknown attribute for this resource: {name}.")
        # read-only before the version, as Ironic's schema refuses them (400) at any version
        if field.access is Access.READ_ONLY:
            raise InvalidParameterValue(f"Field {name} is read-only and cannot be set.")
        if field.unknown_below and not field.settable_at(version.minor):
            raise InvalidParameterValue(
                f"Unknown attribute for this resource at version {version}: {name} (API "
                f"1.{field.since} or later)."
            )
        if not field.settable_at(version.minor):
            raise too_old(f"Field {name}", field.since, version)
        if field.access is Access.PATCH_ONLY:
            raise InvalidParameterValue(
                f"Field {name} cannot be set when creating; set it with PATCH afterwards."
            )
    for name in required:
        if body.get(name) in (None, ""):
            raise MissingParameterValue(f"Mandatory field missing: {name}.")
    # a null uuid is no uuid: one is made, as Ironic's create schemas allow
    values = booleans({k: v for k, v in body.items() if k != "uuid" or v is not None}, fields)
    check_kinds(values, fields)
    return values


def check_lengths(values: Mapping[str, Any], table: FromClause) -> None:
    """Strings for ``table``'s columns fit their length, checked before the database sees them.

    SQLite would store a longer string, PostgreSQL and MariaDB refuse it: checking here gives
    every database the same 400.
    """
    for name, value in values.items():
        column = table.columns.get(name)
        if column is None or not isinstance(value, str) or not isinstance(column.type, String):
            continue
        limit = column.type.length
        if limit is not None and len(value) > limit:
            raise InvalidParameterValue(
                f"Invalid value for {name}: {len(value)} characters, at most {limit} allowed."
            )


def _length(table: FromClause, name: str) -> int | None:
    kind = table.columns[name].type
    return kind.length if isinstance(kind, String) else None


# oslo.utils' strict bool_from_string, which Ironic applies to every boolean field.
TRUE_WORDS = ("1", "t", "true", "on", "y", "yes")
FALSE_WORDS = ("0", "f", "false", "off", "n", "no")
_ACCEPTED_WORDS = ", ".join(repr(w) for w in sorted(TRUE_WORDS + FALSE_WORDS))


def boolean(value: Any, field: str) -> bool:
    """A JSON boolean, or a string spelling one in any case with surrounding spaces ignored.

    The ``baremetal`` CLI sends several flags as strings ("True", "False"). Numbers are
    refused, as Ironic's schema refuses them.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
    raise InvalidParameterValue(
        f"Invalid value for field {field}: {value!r} is not a boolean; use JSON true or "
        f"false, or one of the strings {_ACCEPTED_WORDS}."
    )


def booleans(values: dict[str, Any], fields: tuple[Field, ...]) -> dict[str, Any]:
    """``values`` with every non-null value of a boolean field converted to a JSON boolean."""
    known = by_name(fields)
    out = dict(values)
    for name, value in values.items():
        field = known.get(name)
        if field is not None and field.kind == "bool" and value is not None:
            out[name] = boolean(value, name)
    return out


def checked_patch(changes: dict[str, Any], fields: tuple[Field, ...]) -> dict[str, Any]:
    """The changed fields of a patched document, booleans converted and kinds checked."""
    converted = booleans(changes, fields)
    check_kinds(converted, fields)
    return converted
