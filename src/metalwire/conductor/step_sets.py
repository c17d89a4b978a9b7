"""Named step sets (deploy templates, runbooks): created, changed and deleted in one
transaction each.

A step set belongs to no node, so no node lock is taken; its name and UUID are unique keys
(409 for one taken). A change carries the values its patch was made from and is refused
(StaleUpdate) if another writer changed them meanwhile: the API prepares it again.
"""

from __future__ import annotations

import uuid as uuid_module
from collections.abc import Callable
from typing import Any, TypeVar

from metalwire.conductor.inventory import check_unchanged
from metalwire.conductor.tasks import Conductor
from metalwire.db.models import DeployTemplate, Runbook
from metalwire.db.step_sets import StepSets
from metalwire.db.work import Work

R = TypeVar("R", DeployTemplate, Runbook)
Table = Callable[[Work], StepSets[R]]


def create(conductor: Conductor, table: Table[R], values: dict[str, Any]) -> R:
    """A new row (a UUID of its own unless given); Conflict (409) for a name or UUID taken."""
    stored = {**values, "uuid": values.get("uuid") or str(uuid_module.uuid4())}
    with conductor.db.writing() as work:
        return table(work).create(stored)


def update(
    conductor: Conductor,
    table: Table[R],
    uuid: str,
    changes: dict[str, Any],
    expected: dict[str, Any],
) -> R:
    """Apply ``changes`` if the row still holds the ``expected`` values (else StaleUpdate)."""
    with conductor.db.writing() as work:
        rows = table(work)
        current = rows.get(uuid, locked=True)
        check_unchanged(rows.noun, uuid, current, expected)
        return rows.update(uuid, changes)


def delete(conductor: Conductor, table: Table[R], uuid: str) -> None:
    with conductor.db.writing() as work:
        table(work).delete(uuid)


def deploy_templates(work: Work) -> StepSets[DeployTemplate]:
    return work.deploy_templates


def runbooks(work: Work) -> StepSets[Runbook]:
    return work.runbooks
