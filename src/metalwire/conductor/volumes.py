"""Volume connectors and targets: written under their node's lock.

As Ironic's conductor: a connector or target may be changed only while its node is powered
off (InvalidStateRequested, 400), since a running node may be using the volume; it may be
removed while its node is powered off, or whatever its power state while the node is enroll,
manageable or adopt failed (no instance can be using the volume then).
A row moved to another node (a PATCH of ``node_uuid``) changes both nodes: both are locked,
in the order of their ids as a port's move locks them, and both must be powered off.
"""

from __future__ import annotations

import contextlib
import uuid as uuid_module
from collections.abc import Iterator
from typing import Any, Literal

from metalwire.conductor.hardware import POWER_OFF
from metalwire.conductor.tasks import Conductor, until_still_there
from metalwire.context import RequestContext
from metalwire.db.history import HistoryEntry
from metalwire.db.models import VolumeConnector, VolumeTarget
from metalwire.db.volumes import VolumeRepository
from metalwire.db.work import Work
from metalwire.errors import (
    InvalidParameterValue,
    InvalidStateRequested,
    NodeNotFound,
    StaleUpdate,
)
from metalwire.networking.task import Task

Resource = Literal["volume_connectors", "volume_targets"]
_NOUN = {"volume_connectors": "volume connector", "volume_targets": "volume target"}
# The provision states in which a connector or target is deleted whatever the node's power
# state (Ironic's DELETE_ALLOWED_STATES).
_DELETE_AT_ANY_POWER = frozenset({"enroll", "manageable", "adopt failed"})


def _repository(work: Work, resource: Resource) -> VolumeRepository[Any]:
    repository: VolumeRepository[Any] = getattr(work, resource)
    return repository


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


@contextlib.contextmanager
def _locked(
    conductor: Conductor, context: RequestContext, resource: Resource, uuid: str, node_id: int
) -> Iterator[Task]:
    """The task of ``node_id``, the node the row was read on; StaleUpdate if the row moved
    to another node before the lock was taken."""
    with conductor.exclusive_task(node_id, context) as task:
        _check_still_on(task, resource, uuid)
        yield task


@contextlib.contextmanager
def _locked_both(
    conductor: Conductor,
    context: RequestContext,
    resource: Resource,
    uuid: str,
    node_ids: tuple[int, int],
) -> Iterator[tuple[Task, Task]]:
    """The tasks of the node the row is on and of the one it moves to, both locks held
    (taken in the order of the node ids)."""
    source, destination = node_ids
    with conductor.exclusive_tasks(node_ids, context) as tasks:
        _check_still_on(tasks[source], resource, uuid)
        yield tasks[source], tasks[destination]


def _check_still_on(task: Task, resource: Resource, uuid: str) -> None:
    with task.reading() as work:
        node_id = _repository(work, resource).get(uuid).node_id
    if node_id != task.node.id:
        raise StaleUpdate(f"The {_NOUN[resource]} {uuid} moved to another node meanwhile; retry.")


def _read(
    conductor: Conductor, resource: Resource, uuid: str, node_ident: str | None
) -> tuple[int, int]:
    """The id of the node the row is on and of the node it is to be on; a node to move to
    that does not exist is a bad value of the patch (400), as in Ironic."""
    with conductor.db.reading() as work:
        node_id: int = _repository(work, resource).get(uuid).node_id
        if not node_ident:
            return node_id, node_id
        try:
            return node_id, work.nodes.get(node_ident).id
        except NodeNotFound:
            raise InvalidParameterValue(
                f"Cannot move {_NOUN[resource]} {uuid} to node {node_ident}: no such node."
            ) from None


def update(
    conductor: Conductor,
    context: RequestContext,
    resource: Resource,
    uuid: str,
    changes: dict[str, Any],
) -> VolumeConnector | VolumeTarget:
    """Apply ``changes`` (``node_uuid`` moves the row); its node, and the node it moves to,
    must be powered off."""
    stored = {k: v for k, v in changes.items() if k != "node_uuid"}

    def attempt() -> VolumeConnector | VolumeTarget:
        node_id, destination = _read(conductor, resource, uuid, changes.get("node_uuid"))
        if destination == node_id:
            with _locked(conductor, context, resource, uuid, node_id) as task:
                return _store(conductor, task, (task,), resource, uuid, stored)
        with _locked_both(conductor, context, resource, uuid, (node_id, destination)) as tasks:
            moved = {**stored, "node_id": destination}
            return _store(conductor, tasks[0], tasks, resource, uuid, moved)

    return until_still_there(attempt)


def _store(
    conductor: Conductor,
    task: Task,
    changed_nodes: tuple[Task, ...],
    resource: Resource,
    uuid: str,
    stored: dict[str, Any],
) -> VolumeConnector | VolumeTarget:
    """Write ``stored`` through ``task`` once each of ``changed_nodes`` is powered off."""
    for each in changed_nodes:
        _check_powered_off(each, resource, "update")
    with task.writing() as work:
        row: VolumeConnector | VolumeTarget = _repository(work, resource).update(uuid, stored)
    for each in changed_nodes:
        conductor.record_history(each, HistoryEntry("volume", f"{_NOUN[resource]} {uuid} updated"))
    return row


def delete(conductor: Conductor, context: RequestContext, resource: Resource, uuid: str) -> None:
    def attempt() -> None:
        node_id, _ = _read(conductor, resource, uuid, None)
        with _locked(conductor, context, resource, uuid, node_id) as task:
            if task.node.provision_state not in _DELETE_AT_ANY_POWER:
                _check_powered_off(task, resource, "deletion")
            with task.writing() as work:
                _repository(work, resource).delete(uuid)
            event = HistoryEntry("volume", f"{_NOUN[resource]} {uuid} deleted")
            conductor.record_history(task, event)

    until_still_there(attempt)
