"""The one test of whether a text is a UUID, shared by every layer and the command line."""

from __future__ import annotations

import uuid


def is_uuid(value: str) -> bool:
    """Whether ``value`` is a UUID in its canonical, hyphenated form (in either case)."""
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False
