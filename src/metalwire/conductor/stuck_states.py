"""Provision states that no process resumes: a node found in one while its lock is free was left
there by a process that stopped half-way (``kill -9``, a lost host, an error after a commit).

A provision verb on a node whose network interface calls an external service commits each
step as it goes (``deploying``, the network steps, ``active``), holding the node by a lease;
a process that dies between two steps leaves the node in the transient state, and no verb
leaves it from there. As Ironic does at a conductor's start and take-over, such a node is
failed: it moves to the state the verb's own failure would have left (``deploying`` to
``deploy failed``, ``deleting`` to ``error``, ...), ``last_error`` says what happened and an
ERROR history entry records it. A cleaning or a servicing cut short also loses the steps it
kept (``clean_step`` / ``service_step`` and those of ``driver_internal_info``,
``kept_steps.py``), as Ironic's cleaning and servicing error handlers clear them. From there
the usual verbs apply (``rebuild``, ``deleted``, ``manage``).

A power change cut short the same way (on such a node ``target_power_state`` is committed
before the power state) leaves ``target_power_state`` set with nobody changing the power. As
Ironic clears it when a conductor restarts, it is cleared, with ``last_error`` and an ERROR
history entry saying the power state shown may not be the machine's.

Two places apply it, both holding the node's lock, so no live operation is under way:

- every task that takes the node's lock (:meth:`Conductor._open`), before its own work;
- the periodic provision check (:func:`fail_stuck_nodes`, every ``[conductor]
  check_provision_state_interval`` seconds), which opens a task on each such node whose
  lease has run out, so a node nobody touches is not left waiting for an operator.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from metalwire.conductor.kept_steps import cleared, running_kind
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db.models import utcnow
from metalwire.errors import NodeLocked, NodeNotFound
from metalwire.networking.task import Task

if TYPE_CHECKING:
    from metalwire.conductor.tasks import Conductor

LOG = logging.getLogger(__name__)

#: Each transient provision state and where a node left in it goes (Ironic's "fail" event).
FAILED_STATES: dict[str, str] = {
    "deploying": "deploy failed",
    "cleaning": "clean failed",
    "verifying": "enroll",
    "inspecting": "inspect failed",
    "adopting": "adopt failed",
    "rescuing": "rescue failed",
    "unrescuing": "unrescue failed",
    "deleting": "error",
    "servicing": "service failed",
}

#: Where a node in a failure state is still heading: Ironic's state machine counts a failure
#: state as no stable one, so a node that failed keeps a target (``enroll`` and ``error``
#: are stable: none).
FAILED_TARGETS: dict[str, str] = {
    "deploy failed": "active",
    "clean failed": "available",
    "inspect failed": "manageable",
    "adopt failed": "active",
    "rescue failed": "rescue",
    "unrescue failed": "active",
    "service failed": "active",
}


def target_after_failure(failed: str, heading_for: str | None) -> str | None:
    """The ``target_provision_state`` of a node that failed into ``failed`` on its way to
    ``heading_for``: the failure state's, except that a manual cleaning's failure keeps
    ``manageable``, as Ironic's cleaning error handler does."""
    if failed == "clean failed" and heading_for == "manageable":
        return heading_for
    return FAILED_TARGETS.get(failed)


def recover(task: Task, holder: str) -> list[tuple[str, str]]:
    """Undo what an interrupted operation left on the task's node: its lease dropped, a
    transient provision state failed, a power change's target cleared. The history entries
    to record, as (event type, error); none when nothing was left. The caller holds the
    node's lock as ``holder``."""
    entries = []
    _drop_dead_lease(task, holder)
    error = _clear_power_change(task)
    if error is not None:
        entries.append(("power", error))
    error = _fail_if_stuck(task)  # last: its error is the one last_error keeps
    if error is not None:
        entries.append(("provisioning", error))
    return entries


def _drop_dead_lease(task: Task, holder: str) -> None:
    """A reservation other than ours on a node whose lock we hold is a lease its holder did
    not release and let run out (a single transaction takes such a node without writing a
    lease of its own): cleared, so the node no longer shows it and the check leaves it."""
    reservation = task.node.reservation
    if reservation is not None and reservation != holder:
        LOG.info("Node %s: dropping the lease %s left, run out", task.node.uuid, reservation)
        task.inventory.update_node({"reservation": None, "lock_expires_at": None})
        task.reload()


def _fail_if_stuck(task: Task) -> str | None:
    node = task.node
    failed = FAILED_STATES.get(node.provision_state)
    if failed is None:
        return None
    task.recovered = node.provision_state
    error = (
        f"The operation in {node.provision_state!r} was cut short (its process stopped) and "
        f"cannot be resumed; the node was moved to {failed!r}."
    )
    # As Ironic's cleaning and servicing error handlers: no stale step left on the node.
    kind = running_kind(node.provision_state)
    steps = {} if kind is None else cleared(kind, node.driver_internal_info)
    task.inventory.update_node(
        {
            "provision_state": failed,
            "target_provision_state": target_after_failure(failed, node.target_provision_state),
            "last_error": error,
            "provision_updated_at": utcnow(),
            **steps,
        }
    )
    task.reload()
    return error


def _clear_power_change(task: Task) -> str | None:
    target = node_db.field_value(task.node, "target_power_state")
    if target is None:
        return None
    task.recovered = "power change"
    error = (
        f"The power change to {target!r} was cut short (its process stopped); the power "
        f"state shown, {task.node.power_state!r}, may not be the machine's."
    )
    task.inventory.update_node({"target_power_state": None, "last_error": error})
    task.reload()
    return error


def fail_stuck_nodes(conductor: Conductor, context: RequestContext) -> list[str]:
    """Recover every node an interrupted operation left (a transient provision state, a
    power change under way) whose lock nobody holds (its holder's lease ran out); the UUIDs
    of the nodes recovered. A node taken meanwhile is left to its holder, and seen again at
    the next check if it is still stuck then."""
    with conductor.db.reading() as work:
        candidates = work.nodes.interrupted_unlocked(list(FAILED_STATES), time.time())
    failed = []
    for uuid in candidates:
        try:
            with conductor.exclusive_task(uuid, context) as task:
                if task.recovered is not None:  # opening the task recovered it
                    failed.append(uuid)
        except (NodeLocked, NodeNotFound) as exc:
            LOG.info("Node %s: not checked for an interrupted provision state: %s", uuid, exc)
    return failed
