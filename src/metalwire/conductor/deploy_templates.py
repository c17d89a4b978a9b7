"""Deploy templates: created, changed and deleted in one transaction each.

A template belongs to no node, so no node lock is taken; its name and UUID are unique keys
(409 for one taken).
"""

from __future__ import annotations

import uuid as uuid_module
from typing import Any

from metalwire.conductor.chassis import check_unchanged
from metalwire.conductor.tasks import Conductor
from metalwire.db.models import DeployTemplate


def create(conductor: Conductor, values: dict[str, Any]) -> DeployTemplate:
    """A new template (a UUID of its own unless given); Conflict (409) for a name or UUID
    taken."""
    stored = {**values, "uuid": values.get("uuid") or str(uuid_module.uuid4())}
    with conductor.db.writing() as work:
        return work.deploy_templates.create(stored)


def update(
    conductor: Conductor, uuid: str, changes: dict[str, Any], expected: dict[str, Any]
) -> DeployTemplate:
    """Apply ``changes`` if the template still holds the ``expected`` values its patch was
    made from (else StaleUpdate: the API prepares the patch again)."""
    with conductor.db.writing() as work:
        current = work.deploy_templates.get(uuid, locked=True)
        check_unchanged(current, expected, f"deploy template {uuid}")
        return work.deploy_templates.update(uuid, changes)


def delete(conductor: Conductor, uuid: str) -> None:
    with conductor.db.writing() as work:
        work.deploy_templates.delete(uuid)
