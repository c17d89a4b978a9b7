"""The one test of whether a text is a UUID, of whether a switch_id is a switch's address,
and the one reading of a MAC address, shared by every layer and the command line."""

from __future__ import annotations

import re
import uuid
from typing import Any

_MAC = re.compile(r"^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$", re.IGNORECASE)
_DATAPATH_ID = re.compile(r"^[0-9a-f]{16}$", re.IGNORECASE)


def is_uuid(value: str) -> bool:
    """Whether ``value`` is a UUID in its canonical, hyphenated form (in either case)."""
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


def is_uuid_like(value: str) -> bool:
    """Whether ``value`` reads as a UUID in any of the spellings Ironic takes for one in a path
    (upper case, without hyphens, in braces, ``urn:uuid:``)."""
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def is_switch_address(value: str) -> bool:
    """Whether a ``local_link_connection.switch_id`` is a MAC address (``:`` or ``-``
    separated) or a 16-digit OpenFlow datapath ID, the switch identities Ironic takes."""
    return bool(_MAC.match(value) or _DATAPATH_ID.match(value))


def normalized_mac(value: Any) -> str | None:
    """A MAC address (``:`` or ``-`` separated, either case) as metalwire stores one: lower
    case, ``:`` separated; None for anything else."""
    if not isinstance(value, str) or not _MAC.match(value):
        return None
    return value.lower().replace("-", ":")
