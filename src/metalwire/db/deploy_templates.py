"""The deploy template repository: every statement on the ``deploy_templates`` table.

A template is named by its UUID or by its name (a trait); both are unique keys, so of two
writes racing for one name the second gets the 409 its key gives.
"""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select
from sqlalchemy.orm import Session

from metalwire.db import lookups, step_sets
from metalwire.db.models import DeployTemplate
from metalwire.db.pagination import Page
from metalwire.errors import DeployTemplateNotFound

# As Ironic 39: any column but the JSON ones.
SORTABLE = frozenset({"id", "uuid", "name", "created_at", "updated_at"})


def get(session: Session, ident: str, *, locked: bool = False) -> DeployTemplate:
    """The template of this UUID, or else of this name (``locked``: its row locked until
    the transaction ends); raises DeployTemplateNotFound (404)."""
    return lookups.by_uuid_or_name(
        session, DeployTemplate, DeployTemplateNotFound, ident, locked=locked
    )


def list_templates(session: Session, page: Page) -> list[DeployTemplate]:
    """One page of the templates."""
    query = select(DeployTemplate)
    return step_sets.listed(session, query, DeployTemplate, DeployTemplateNotFound, page, SORTABLE)


class DeployTemplates(step_sets.StepSets[DeployTemplate]):
    """The deploy_templates table, bound to a unit of work's session."""

    model = DeployTemplate
    noun = "deploy template"
    missing = DeployTemplateNotFound

    def named(self, names: Collection[str]) -> list[DeployTemplate]:
        """The templates whose names are among ``names``, oldest first."""
        if not names:
            return []
        with self._session() as session:
            query = select(DeployTemplate).where(DeployTemplate.name.in_(list(names)))
            return list(session.scalars(query.order_by(DeployTemplate.id)))
