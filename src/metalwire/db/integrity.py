"""Writes rows and turns a constraint violation into the catalog error that names what collided."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire.db.models import Base, utcnow
from metalwire.errors import Conflict, MetalwireError, MissingParameterValue, ResourceInUse

M = TypeVar("M", bound=Base)
# Builds the error for a violation from the values that were being written.
Explainer = Callable[[IntegrityError, Mapping[str, Any]], Exception]


# How SQLite, PostgreSQL and MariaDB name the column of a NOT NULL violation.
_NOT_NULL = (
    re.compile(r"not null constraint failed: \w+\.(\w+)"),
    re.compile(r'null value in column "(\w+)"'),
    re.compile(r"column '(\w+)' cannot be null"),
)


def explain(exc: IntegrityError, messages: dict[str, str]) -> MetalwireError:
    """Pick the message whose column name appears in the driver's text, else a generic one.

    ``messages`` maps a column (``address``, ``name``, ...) to the message to raise. Every
    database names the violated column or constraint somewhere in its error text. A NOT NULL
    violation is a value the request left out or set to null: a 400 naming the field.
    """
    text = str(exc.orig).lower()
    for pattern in _NOT_NULL:
        found = pattern.search(text)
        if found:
            return MissingParameterValue(f"Field {found[1]} cannot be null or removed.")
    for column, message in messages.items():
        if column.lower() in text:
            return Conflict(message)
    return Conflict(f"the change conflicts with existing data: {exc.orig}")


def _flush(session: Session, values: Mapping[str, Any], conflict: Explainer) -> None:
    try:
        session.flush()
    except IntegrityError as exc:
        raise conflict(exc, values) from None


def insert(session: Session, row: M, values: Mapping[str, Any], conflict: Explainer) -> M:
    """Add ``row`` (made from ``values``); a violated key raises ``conflict``'s error."""
    session.add(row)
    _flush(session, values, conflict)
    return row


def change(session: Session, row: M, changes: Mapping[str, Any], conflict: Explainer) -> M:
    """Set ``changes`` and ``updated_at`` on ``row``; a violated key raises ``conflict``'s error."""
    for key, value in changes.items():
        setattr(row, key, value)
    row.updated_at = utcnow()  # type: ignore[attr-defined]
    _flush(session, {**changes, "uuid": row.uuid}, conflict)  # type: ignore[attr-defined]
    return row


def remove(session: Session, row: Base, label: str) -> None:
    """Delete ``row``; a key, check or trigger of the database that refuses it is a 409
    naming ``label`` (``"Port <uuid>"``) and the database's reason, nothing deleted."""
    session.delete(row)
    try:
        session.flush()
    except IntegrityError as exc:
        raise ResourceInUse(
            f"{label} cannot be deleted: the database refused it ({_reason(exc)})."
        ) from None


def _reason(exc: IntegrityError) -> str:
    """The driver's own words, without the statement SQLAlchemy appends."""
    lines = str(exc.orig).strip().splitlines()
    return lines[0] if lines else "no reason given"
