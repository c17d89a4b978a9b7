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
from metalwire.api.microversion import Version
from metalwire.db.models import NodeHistory
from metalwire.errors import InvalidParameterValue, MissingParameterValue, NotAcceptable

_MAC = re.compile(r"^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$", re.IGNORECASE)
_UNRESERVED = re.compile(r"^[A-Za-z0-9\-._~]+$")
_HOSTNAME_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$", re.IGNORECASE)
_KINDS: dict[str, type | tuple[type, ...]] = {"str": str, "bool": bool, "dict": dict, "list": list}
LOCAL_LINK_KEYS = {"switch_id", "port_id", "switch_info", "hostname", "network_type"}


def mac_address(value: Any, field: str = "address") -> str:
    if not isinstance(value, str) or not _MAC.match(value):
        raise InvalidParameterValue(f"Expected a MAC address but received {value!r} for {field}.")
    return value.lower().replace("-", ":")


def uuid_value(value: Any, field: str) -> str:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise InvalidParameterValue(
            f"Expected a UUID for {field} but received {value!r}."
        ) from None


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


def is_uuid(value: str) -> bool:
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


def local_link_connection(value: Any, is_smartnic: bool = False) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidParameterValue("local_link_connection must be a JSON object.")
    unknown = set(value) - LOCAL_LINK_KEYS
    if unknown:
        raise InvalidParameterValue(
            f"local_link_connection has unknown keys {sorted(unknown)}; allowed keys are "
            f"{sorted(LOCAL_LINK_KEYS)}."
        )
    if value and value.get("network_type") != "unmanaged":
        needed = {"port_id", "hostname"} if is_smartnic else {"port_id", "switch_id"}
        missing = needed - set(value)
        if missing:
            raise InvalidParameterValue(
                f"local_link_connection must contain {sorted(needed)}; missing {sorted(missing)}."
            )
    return value


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
        if field.since > version.minor:
            raise NotAcceptable(
                f"Field {name} requires API version 1.{field.since} or later; the request "
                f"used {version}."
            )
        if field.access is Access.READ_ONLY:
            raise InvalidParameterValue(f"Field {name} is read-only and cannot be set.")
    for name in required:
        if body.get(name) in (None, ""):
            raise MissingParameterValue(f"Mandatory field missing: {name}.")
    check_kinds(body, fields)
    return dict(body)


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


_USER_LIMIT = _length(NodeHistory.__table__, "user")


def user_header(value: str | None) -> str | None:
    """The ``X-User-Id`` header, which node history records: it must fit that column."""
    if value is not None and _USER_LIMIT is not None and len(value) > _USER_LIMIT:
        raise InvalidParameterValue(
            f"Invalid X-User-Id header: {len(value)} characters, at most {_USER_LIMIT} allowed."
        )
    return value
