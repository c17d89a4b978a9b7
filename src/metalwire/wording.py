"""How messages count things: ``1 user``, ``2 users``; shared by every layer, like
:mod:`metalwire.identifiers`."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, in its plural (``noun + "s"`` unless given) unless one."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"
