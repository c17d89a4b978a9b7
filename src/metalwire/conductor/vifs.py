"""VIF attach, detach and list, each under the node's lock and recorded in its history."""

from __future__ import annotations

from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.errors import DatabaseFailure, MetalwireError, VifAlreadyAttached
from metalwire.networking.base import VifInfo
from metalwire.networking.selection import describe
from metalwire.networking.task import Task


def _check_not_attached(task: Task, vif_id: str) -> None:
    """A VIF may sit on one node only: refuse it if this or another node has it."""
    task.attachments.check_free(vif_id)


def vif_attach(
    conductor: Conductor,
    context: RequestContext,
    node_ident: str,
    vif_info: VifInfo,
) -> None:
    vif_id = vif_info["id"]
    node: tuple[int, str] | None = None

    def attempt() -> None:
        nonlocal node
        with conductor.exclusive_task(node_ident, context) as task:
            node = (task.node.id, task.node.uuid)
            iface = conductor.network_interface(task.node)
            iface.validate(task)
            _check_not_attached(task, vif_id)
            iface.vif_attach(task, vif_info)
            target = task.find_target(vif_id)
            where = f" to {describe(target)}" if target is not None else ""
            conductor.record_history(
                task,
                "vif",
                f"VIF {vif_id} attached{where} by {iface.name}",
                vif_id=vif_id,
                target_uuid=None if target is None else target.uuid,
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
            conductor.record_failure(
                node, context, "vif", f"Attaching VIF {vif_id} failed: {exc}", vif_id=vif_id
            )
        raise


def vif_detach(conductor: Conductor, context: RequestContext, node_ident: str, vif_id: str) -> None:
    node: tuple[int, str] | None = None
    try:
        with conductor.exclusive_task(node_ident, context) as task:
            node = (task.node.id, task.node.uuid)
            iface = conductor.network_interface(task.node)
            target = task.find_target(vif_id)
            iface.vif_detach(task, vif_id)
            where = f" from {describe(target)}" if target is not None else ""
            conductor.record_history(
                task,
                "vif",
                f"VIF {vif_id} detached{where} by {iface.name}",
                vif_id=vif_id,
                target_uuid=None if target is None else target.uuid,
            )
    except MetalwireError as exc:
        if not isinstance(exc, DatabaseFailure):  # history lives in that database
            conductor.record_failure(
                node, context, "vif", f"Detaching VIF {vif_id} failed: {exc}", vif_id=vif_id
            )
        raise


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
        conductor.record_history(
            task, "vif", f"VIF {entry['id']} detached at undeploy", vif_id=entry["id"]
        )
