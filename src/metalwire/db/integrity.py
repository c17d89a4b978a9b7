"""Turns a database constraint violation into the catalog error that names what collided."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError

from metalwire.errors import Conflict, MetalwireError


def explain(exc: IntegrityError, messages: dict[str, str]) -> MetalwireError:
    """Pick the message whose column name appears in the driver's text, else a generic one.

    ``messages`` maps a column (``address``, ``name``, ...) to the message to raise. Every
    database names the violated column or constraint somewhere in its error text.
    """
    text = str(exc.orig).lower()
    for column, message in messages.items():
        if column.lower() in text:
            return Conflict(message)
    return Conflict(f"the change conflicts with existing data: {exc.orig}")
