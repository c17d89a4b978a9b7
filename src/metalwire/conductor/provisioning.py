"""The provision state machine, with a fake deploy and clean that touch no hardware.

Each verb runs to completion inside the request, calling the node's network interface hooks
in the order a real deployment would, and recording every step in the node history. A hook
that fails leaves the node in the matching failed state with ``last_error`` set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from metalwire.conductor import vifs
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db.history import HistoryEntry
from metalwire.db.models import utcnow
from metalwire.errors import InvalidStateRequested, MetalwireError, NodeProtected
from metalwire.networking.task import Task


@dataclass(frozen=True)
class Transition:
    sources: frozenset[str]
    target: str  # the state the node is in when the verb succeeded
    failed: str  # the state it lands in when a step fails


TRANSITIONS: dict[str, Transition] = {
    "manage": Transition(
        frozenset({"enroll", "available", "inspect failed", "clean failed", "adopt failed"}),
        "manageable",
        "enroll",
    ),
    "provide": Transition(frozenset({"manageable"}), "available", "clean failed"),
    "active": Transition(frozenset({"available"}), "active", "deploy failed"),
    "rebuild": Transition(frozenset({"active", "deploy failed"}), "active", "deploy failed"),
    "deleted": Transition(frozenset({"active", "deploy failed", "error"}), "available", "error"),
    "clean": Transition(frozenset({"manageable"}), "manageable", "clean failed"),
    "service": Transition(frozenset({"active", "service failed"}), "active", "service failed"),
    # A node leaves a hold state (deploy/clean/service hold) with unhold; the fake steps run
    # to completion within the request and never hold, so no state metalwire reaches allows
    # it: the answer is Ironic's for a node that is not held.
    "unhold": Transition(frozenset(), "", ""),
}


def _set_state(conductor: Conductor, task: Task, **values: Any) -> None:
    task.inventory.update_node({"provision_updated_at": utcnow(), **values})
    task.reload()


def _run_hook(conductor: Conductor, task: Task, hook: str) -> None:
    iface = conductor.network_interface(task.node)
    step: Callable[[Task], None] = getattr(iface, hook)
    step(task)
    conductor.record_history(task, HistoryEntry("provisioning", f"{iface.name}.{hook} done"))


def _clean(conductor: Conductor, task: Task) -> None:
    _set_state(conductor, task, provision_state="cleaning")
    _run_hook(conductor, task, "add_cleaning_network")
    _run_hook(conductor, task, "remove_cleaning_network")


def _steps(conductor: Conductor, task: Task, verb: str) -> dict[str, Any]:
    """Run a verb's steps; return the final field values to store."""
    clean = conductor.config.conductor.automated_clean
    if verb == "manage":
        _set_state(conductor, task, provision_state="verifying")
        return {}
    if verb == "provide":
        if clean:
            _clean(conductor, task)
        return {}
    if verb == "clean":
        _clean(conductor, task)
        return {}
    if verb == "service":
        # The fake service steps touch no network: the node stays on its tenant networks.
        _set_state(conductor, task, provision_state="servicing")
        return {}
    if verb in ("active", "rebuild"):
        _set_state(conductor, task, provision_state="deploying")
        _run_hook(conductor, task, "add_provisioning_network")
        _run_hook(conductor, task, "remove_provisioning_network")
        _run_hook(conductor, task, "configure_tenant_networks")
        return {"power_state": "power on"}
    # deleted: undeploy
    _set_state(conductor, task, provision_state="deleting")
    _run_hook(conductor, task, "unconfigure_tenant_networks")
    vifs.detach_all(conductor, task)
    if clean:
        _clean(conductor, task)
    return {"power_state": "power off", "instance_info": {}, "instance_uuid": None}


def do_provisioning_action(
    conductor: Conductor, context: RequestContext, ident: str, verb: str
) -> None:
    """Move the node through ``verb``; raises InvalidStateRequested for a disallowed one."""
    transition = TRANSITIONS.get(verb)
    if transition is None:
        raise InvalidStateRequested(
            f'The requested action "{verb}" is not supported; supported actions are '
            f"{', '.join(sorted(TRANSITIONS))}."
        )
    with conductor.exclusive_task(ident, context) as task:
        node = task.node
        if node.provision_state not in transition.sources:
            raise InvalidStateRequested(
                f'The requested action "{verb}" can not be performed on node '
                f'{node.label} while it is in state "{node.provision_state}".'
            )
        if node.maintenance and verb in ("active", "rebuild", "deleted", "provide", "clean"):
            raise InvalidStateRequested(
                f'Node {node.label} is in maintenance; "{verb}" is not allowed.'
            )
        if verb in ("rebuild", "deleted") and node_db.field_value(node, "protected"):
            raise NodeProtected(
                f"Node {node.label} is protected and cannot be "
                f"{'rebuilt' if verb == 'rebuild' else 'undeployed'}; unset 'protected' first."
            )
        if verb in ("active", "rebuild"):
            conductor.network_interface(node).validate(task)
        started = f"{verb} started from {node.provision_state}"
        conductor.record_history(task, HistoryEntry("provisioning", started))
        _set_state(conductor, task, target_provision_state=transition.target, last_error=None)
        try:
            with task.savepoint():
                final = _steps(conductor, task, verb)
        except MetalwireError as exc:
            conductor.record_history(
                task, HistoryEntry.failed("provisioning", f"{verb} failed: {exc}")
            )
            _set_state(
                conductor,
                task,
                provision_state=transition.failed,
                target_provision_state=None,
                last_error=str(exc),
            )
            return
        _set_state(
            conductor, task, provision_state=transition.target, target_provision_state=None, **final
        )
        conductor.record_history(
            task, HistoryEntry("provisioning", f"{verb} done: {transition.target}")
        )
