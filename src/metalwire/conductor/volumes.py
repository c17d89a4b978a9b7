"""Volume connectors and targets: written under their node's lock.

As Ironic's conductor: a connector or target may be changed or removed only while its node
is powered off (InvalidStateRequested, 400), since a running node may be using the volume.
"""

from __future__ import annotations

import uuid as uuid_module
from typing import Any, Literal

from metalwire.conductor.hardware import POWER_OFF
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.history import HistoryEntry
from metalwire.db.models import VolumeConnector, VolumeTarget
from metalwire.db.volumes import VolumeRepository
from metalwire.db.work import Work
from metalwire.errors import InvalidStateRequested
from metalwire.networking.task import Task

Resource = Literal["volume_connectors", "volume_targets"]
_NOUN = {"volume_connectors": "volume connector", "volume_targets": "volume target"}


def _repository(work: Work, resource: Resource) -> VolumeRepository[Any]:
    repository: VolumeRepository[Any] = getattr(work, resource)
    return repository


def _node_of(conductor: Conductor, resource: Resource, uuid: str) -> int:
    with conductor.db.reading() as work:
        node_id: int = _repository(work, resource).get(uuid).node_id
    return node_id


def _check_powered_off(task: Task, resource: Resource, action: str) -> None:
    if task.node.power_state != POWER_OFF:
        raise InvalidStateRequested(
            f'The requested action "{_NOUN[resource]} {action}" can not be performed on node '
            f'"{task.node.uuid}" while it is in state "{task.node.power_state}".'
        )


def create(
    conductor: Conductor, context: RequestContext, resource: Resource, values: dict[str, Any]
) -> VolumeConnector | VolumeTarget:
    """Create the row on ``values["node_uuid"]``'s node; Conflict (409) for a duplicate."""
    stored = {k: v for k, v in values.items() if k != "node_uuid"}
    stored["uuid"] = stored.get("uuid") or str(uuid_module.uuid4())
    with conductor.exclusive_task(values["node_uuid"], context) as task, task.writing() as work:
        row = _repository(work, resource).create({**stored, "node_id": task.node.id})
        conductor.record_history(
            task, HistoryEntry("volume", f"{_NOUN[resource]} {row.uuid} created")
        )
    result: VolumeConnector | VolumeTarget = row
    return result


def update(
    conductor: Conductor,
    context: RequestContext,
    resource: Resource,
    uuid: str,
    changes: dict[str, Any],
) -> VolumeConnector | VolumeTarget:
    """Apply ``changes`` (``node_uuid`` moves the row); the node must be powered off."""
    with conductor.exclusive_task(_node_of(conductor, resource, uuid), context) as task:
        _check_powered_off(task, resource, "update")
        stored = dict(changes)
        if "node_uuid" in stored:
            with task.reading() as work:
                stored["node_id"] = work.nodes.get(stored.pop("node_uuid")).id
        with task.writing() as work:
            row = _repository(work, resource).update(uuid, stored)
        conductor.record_history(task, HistoryEntry("volume", f"{_NOUN[resource]} {uuid} updated"))
    result: VolumeConnector | VolumeTarget = row
    return result


def delete(conductor: Conductor, context: RequestContext, resource: Resource, uuid: str) -> None:
    with conductor.exclusive_task(_node_of(conductor, resource, uuid), context) as task:
        _check_powered_off(task, resource, "deletion")
        with task.writing() as work:
            _repository(work, resource).delete(uuid)
        conductor.record_history(task, HistoryEntry("volume", f"{_NOUN[resource]} {uuid} deleted"))
