"""The deploy template repository: every statement on the ``deploy_templates`` table.

A template is named by its UUID or by its name (a trait); both are unique keys, so of two
writes racing for one name the second gets the 409 its key gives.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire.db import integrity
from metalwire.db.models import DeployTemplate
from metalwire.db.pagination import Page, paginate
from metalwire.errors import DeployTemplateNotFound
from metalwire.identifiers import is_uuid_like

# As Ironic 39: any column but the JSON ones.
SORTABLE = frozenset({"id", "uuid", "name", "created_at", "updated_at"})

SessionScope = Callable[[], contextlib.AbstractContextManager[Session]]


def _conflict(exc: IntegrityError, values: Mapping[str, Any]) -> Exception:
    return integrity.explain(
        exc,
        {
            "name": f"A deploy template with name {values.get('name')} already exists.",
            "uuid": f"A deploy template with UUID {values.get('uuid')} already exists.",
        },
    )


def get(session: Session, ident: str, *, locked: bool = False) -> DeployTemplate:
    """The template of this UUID, or else of this name (``locked``: its row locked until
    the transaction ends); raises DeployTemplateNotFound (404)."""
    column = DeployTemplate.uuid if is_uuid_like(ident) else DeployTemplate.name
    query = select(DeployTemplate).where(column == ident)
    row = session.scalars(query.with_for_update() if locked else query).one_or_none()
    if row is None:
        raise DeployTemplateNotFound(ident)
    return row


def list_templates(session: Session, page: Page) -> list[DeployTemplate]:
    """One page of the templates."""
    rows: list[DeployTemplate] = paginate(
        session, select(DeployTemplate), DeployTemplate, page, set(SORTABLE), DeployTemplateNotFound
    )
    return rows


class DeployTemplates:
    """The deploy_templates table, bound to a unit of work's session."""

    def __init__(self, session: SessionScope) -> None:
        self._session = session

    def get(self, ident: str, *, locked: bool = False) -> DeployTemplate:
        with self._session() as session:
            return get(session, ident, locked=locked)

    def named(self, names: Collection[str]) -> list[DeployTemplate]:
        """The templates whose names are among ``names``, oldest first."""
        if not names:
            return []
        with self._session() as session:
            query = select(DeployTemplate).where(DeployTemplate.name.in_(list(names)))
            return list(session.scalars(query.order_by(DeployTemplate.id)))

    def create(self, values: Mapping[str, Any]) -> DeployTemplate:
        with self._session() as session:
            return integrity.insert(session, DeployTemplate(**values), values, _conflict)

    def update(self, uuid: str, changes: Mapping[str, Any]) -> DeployTemplate:
        with self._session() as session:
            return integrity.change(session, get(session, uuid), changes, _conflict)

    def delete(self, uuid: str) -> None:
        with self._session() as session:
            row = get(session, uuid, locked=True)
            integrity.remove(session, row, f"Deploy template {uuid}")
