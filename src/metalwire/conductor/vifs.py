"""VIF attach, detach and list, each under the node's lock and recorded in its history."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Port, Portgroup
from metalwire.db.node_inventory import Wanted
from metalwire.errors import DatabaseFailure, MetalwireError, VifAlreadyAttached
from metalwire.networking.base import NetworkInterface, VifInfo
from metalwire.networking.selection import describe
from metalwire.networking.task import Task


def _check_not_attached(task: Task, vif_id: str) -> None:
    """A VIF may sit on one node only: refuse it if this or another node has it."""
    task.attachments.check_free(vif_id)


# An operation on one VIF of a task's node: the port or portgroup it concerned, if known.
VifOperation = Callable[[Task, NetworkInterface], Port | Portgroup | None]


@dataclass(frozen=True)
class _Verb:
    done: str  # "attached"
    preposition: str  # "to"
    doing: str  # "Attaching"


_ATTACH = _Verb("attached", "to", "Attaching")
_DETACH = _Verb("detached", "from", "Detaching")


def _in_history(
    conductor: Conductor,
    context: RequestContext,
    node_ident: str,
    vif_id: str,
    verb: _Verb,
    operation: VifOperation,
    wanted: Wanted,
) -> None:
    """Run ``operation`` in an exclusive task on the node (holding the inventory ``wanted``,
    read with the lock) and record it in the history; a failure is recorded after the
    rollback and raised again."""
    node: tuple[int, str] | None = None

    def attempt() -> None:
        nonlocal node
        with conductor.exclusive_task(node_ident, context, wanted) as task:
            node = (task.node.id, task.node.uuid)
            iface = conductor.network_interface(task.node)
            target = operation(task, iface)
            where = f" {verb.preposition} {describe(target)}" if target is not None else ""
            event = f"VIF {vif_id} {verb.done}{where} by {iface.name}"
            target_uuid = None if target is None else target.uuid
            conductor.record_history(
                task, HistoryEntry("vif", event, vif_id=vif_id, target_uuid=target_uuid)
            )

    try:
        try:
            attempt()
        except VifAlreadyAttached:
            # Held by an attach whose process died? Clear that record (no lock is held
            # here, so taking the other node's cannot deadlock) and try once more.
            if node is None or not conductor.clear_interrupted_attach_elsewhere(
                vif_id, context, node[0]
            ):
                raise
            attempt()
    except MetalwireError as exc:
        if not isinstance(exc, DatabaseFailure):  # history lives in that database
            failure = f"{verb.doing} VIF {vif_id} failed: {exc}"
            conductor.record_failure(node, context, HistoryEntry.failed("vif", failure, vif_id))
        raise


def vif_attach(
    conductor: Conductor, context: RequestContext, node_ident: str, vif_info: VifInfo
) -> None:
    vif_id = vif_info["id"]

    def attach(task: Task, iface: NetworkInterface) -> Port | Portgroup | None:
        iface.validate(task)
        _check_not_attached(task, vif_id)
        attachment = iface.vif_attach(task, vif_info)
        return None if attachment is None else task.target_of(attachment)

    _in_history(conductor, context, node_ident, vif_id, _ATTACH, attach, Wanted(vif_id))


def vif_detach(conductor: Conductor, context: RequestContext, node_ident: str, vif_id: str) -> None:
    def detach(task: Task, iface: NetworkInterface) -> Port | Portgroup | None:
        target = task.find_target(vif_id)
        iface.vif_detach(task, vif_id)
        return target

    _in_history(conductor, context, node_ident, vif_id, _DETACH, detach, Wanted())


def vif_list(
    conductor: Conductor, context: RequestContext, node_ident: str
) -> list[dict[str, str]]:
    task = conductor.shared_task(node_ident, context)
    return conductor.network_interface(task.node).vif_list(task)


def detach_all(conductor: Conductor, task: Task) -> None:
    """Detach every VIF of the node (at undeploy), recording each in the history."""
    iface = conductor.network_interface(task.node)
    for entry in iface.vif_list(task):
        iface.vif_detach(task, entry["id"])
        event = f"VIF {entry['id']} detached at undeploy"
        conductor.record_history(task, HistoryEntry("vif", event, vif_id=entry["id"]))
