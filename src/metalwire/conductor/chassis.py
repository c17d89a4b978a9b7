"""Chassis: created, changed and deleted in one transaction each.

A chassis belongs to no node, so no node lock is taken; the rule that every node's
``chassis_uuid`` names a chassis is kept by the chassis row's lock
(:mod:`metalwire.db.chassis`): a delete is refused (ChassisNotEmpty, 400) while a node is
in the chassis. Like a node's create, a chassis change writes no node history.
"""

from __future__ import annotations

import uuid as uuid_module
from typing import Any

from metalwire.conductor.tasks import Conductor
from metalwire.db.models import Chassis
from metalwire.errors import StaleUpdate


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
        check_unchanged(work.chassis.get(uuid, locked=True), expected, f"chassis {uuid}")
        return work.chassis.update(uuid, changes)


def check_unchanged(current: object, expected: dict[str, Any], label: str) -> None:
    """Raise StaleUpdate if the locked row ``current`` no longer holds the ``expected``
    values a patch was made from (``label`` names it: "chassis <uuid>")."""
    for name, value in expected.items():
        if _empty_as_none(getattr(current, name)) != _empty_as_none(value):
            raise StaleUpdate(
                f"The {label} changed ({name}) while this update was prepared; retry it."
            )


def _empty_as_none(value: Any) -> Any:
    return None if value in (None, {}, "") else value


def delete(conductor: Conductor, uuid: str) -> None:
    with conductor.db.writing() as work:
        work.chassis.delete(uuid)
