"""What the repositories of named step sets share: deploy templates and runbooks.

Each is a row named by its UUID or by its name (both unique keys, so of two writes racing
for one name the second gets the 409 its key gives) holding a list of steps as one JSON
value, in the order given.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, TypeVar

from sqlalchemy import Select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire.db import integrity, lookups
from metalwire.db.models import DeployTemplate, Runbook
from metalwire.db.pagination import Page, paginate
from metalwire.errors import NotFound

R = TypeVar("R", DeployTemplate, Runbook)

SessionScope = Callable[[], contextlib.AbstractContextManager[Session]]


def listed(
    session: Session,
    query: Select[Any],
    model: type[R],
    missing: Callable[[str], NotFound],
    page: Page,
    sortable: frozenset[str],
) -> list[R]:
    """One page of the rows ``query`` selects."""
    rows: list[R] = paginate(session, query, model, page, set(sortable), missing)
    return rows


class StepSets(Generic[R]):
    """A table of named step sets, bound to a unit of work's session."""

    model: ClassVar[type[Any]]
    noun: ClassVar[str]  # "deploy template": how a conflict names the row
    missing: ClassVar[type[NotFound]]

    def __init__(self, session: SessionScope) -> None:
        self._session = session

    def _conflict(self, exc: IntegrityError, values: Mapping[str, Any]) -> Exception:
        return integrity.explain(
            exc,
            {
                "name": f"A {self.noun} with name {values.get('name')} already exists.",
                "uuid": f"A {self.noun} with UUID {values.get('uuid')} already exists.",
            },
        )

    def get(self, ident: str, *, locked: bool = False) -> R:
        with self._session() as session:
            row: R = lookups.by_uuid_or_name(
                session, self.model, self.missing, ident, locked=locked
            )
            return row

    def create(self, values: Mapping[str, Any]) -> R:
        with self._session() as session:
            row: R = integrity.insert(session, self.model(**values), values, self._conflict)
            return row

    def update(self, uuid: str, changes: Mapping[str, Any]) -> R:
        with self._session() as session:
            row: R = lookups.by_uuid_or_name(session, self.model, self.missing, uuid)
            return integrity.change(session, row, changes, self._conflict)

    def delete(self, uuid: str) -> None:
        with self._session() as session:
            row = lookups.by_uuid_or_name(session, self.model, self.missing, uuid, locked=True)
            integrity.remove(session, row, f"{self.noun.capitalize()} {uuid}")
