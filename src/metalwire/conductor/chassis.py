"""Chassis: created, changed and deleted in one transaction each.

A chassis belongs to no node, so no node lock is taken; the rule that every node's
``chassis_uuid`` names a chassis is kept by the chassis row's lock
(:mod:`metalwire.db.chassis`): a delete is refused (ChassisNotEmpty, 400) while a node is
in the chassis. Like a node's create, a chassis change writes no node history.
"""

from __future__ import annotations

import uuid as uuid_module
from typing import Any

from metalwire.conductor.inventory import check_unchanged
from metalwire.conductor.tasks import Conductor
from metalwire.db.models import Chassis


def create(conductor: Conductor, values: dict[str, Any]) -> Chassis:
    """A new chassis (a UUID of its own unless given); Conflict (409) for a UUID taken."""
    stored = {**values, "uuid": values.get("uuid") or str(uuid_module.uuid4())}
    with conductor.db.writing() as work:
        return work.chassis.create(stored)


def update(
    conductor: Conductor, uuid: str, changes: dict[str, Any], expected: dict[str, Any]
) -> Chassis:
    """Apply ``changes`` if the chassis still holds the ``expected`` values its patch was
    made from (else StaleUpdate: the API prepares the patch again)."""
    with conductor.db.writing() as work:
        check_unchanged("chassis", uuid, work.chassis.get(uuid, locked=True), expected)
        return work.chassis.update(uuid, changes)


def delete(conductor: Conductor, uuid: str) -> None:
    with conductor.db.writing() as work:
        work.chassis.delete(uuid)
