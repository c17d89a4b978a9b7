"""The runbook repository: every statement on the ``runbooks`` table.

A runbook is named by its UUID or by its name (both unique keys: of two writes racing for
one name the second gets the 409 its key gives). A project sees its own runbooks and the
public ones.
"""

from __future__ import annotations

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from metalwire.db import lookups, step_sets
from metalwire.db.models import Runbook
from metalwire.db.pagination import Page
from metalwire.errors import RunbookNotFound

# As Ironic 39: any column but the JSON ones (extra, steps, traits).
SORTABLE = frozenset(
    {
        "id",
        "uuid",
        "name",
        "description",
        "public",
        "owner",
        "disable_ramdisk",
        "created_at",
        "updated_at",
    }
)


def get(session: Session, ident: str) -> Runbook:
    """The runbook of this UUID, or else of this name; raises RunbookNotFound (404)."""
    return lookups.by_uuid_or_name(session, Runbook, RunbookNotFound, ident)


def list_runbooks(session: Session, project: str | None, page: Page) -> list[Runbook]:
    """One page of the runbooks; with ``project``, those it owns and the public ones."""
    query = select(Runbook)
    if project is not None:
        query = query.where(or_(Runbook.owner == project, Runbook.public.is_(True)))
    return step_sets.listed(session, query, Runbook, RunbookNotFound, page, SORTABLE)


class Runbooks(step_sets.StepSets[Runbook]):
    """The runbooks table, bound to a unit of work's session."""

    model = Runbook
    noun = "runbook"
    missing = RunbookNotFound
