"""Provision states that no process resumes: a node found in one while its lock is free was left
there by a process that stopped half-way (``kill -9``, a lost host, an error after a commit).

A provision verb on a node whose network interface calls an external service commits each
step as it goes (``deploying``, the network steps, ``active``), holding the node by a lease;
a process that dies between two steps leaves the node in the transient state, and no verb
leaves it from there. As Ironic does at a conductor's start and take-over, such a node is
failed: it moves to the state the verb's own failure would have left (``deploying`` to
``deploy failed``, ``deleting`` to ``error``, ...), ``last_error`` says what happened and an
ERROR history entry records it. From there the usual verbs apply (``rebuild``, ``deleted``,
``manage``).

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

from metalwire.context import RequestContext
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


def fail_if_stuck(task: Task) -> str | None:
    """Fail the task's node if it is in a transient provision state; the error recorded, or
    None when the node was not stuck. The caller holds the node's lock."""
    node = task.node
    failed = FAILED_STATES.get(node.provision_state)
    if failed is None:
        return None
    task.failed_stuck_state = node.provision_state
    error = (
        f"The operation in {node.provision_state!r} was cut short (its process stopped) and "
        f"cannot be resumed; the node was moved to {failed!r}."
    )
    task.inventory.update_node(
        {
            "provision_state": failed,
            "target_provision_state": None,
            "last_error": error,
            "provision_updated_at": utcnow(),
        }
    )
    task.reload()
    return error


def fail_stuck_nodes(conductor: Conductor, context: RequestContext) -> list[str]:
    """Fail every node in a transient provision state whose lock nobody holds (its holder's
    lease ran out); the UUIDs of the nodes failed. A node taken meanwhile is left to its
    holder, and seen again at the next check if it is still stuck then."""
    with conductor.db.reading() as work:
        candidates = work.nodes.in_states_unlocked(list(FAILED_STATES), time.time())
    failed = []
    for uuid in candidates:
        try:
            with conductor.exclusive_task(uuid, context) as task:
                if task.failed_stuck_state is not None:  # opening the task failed it
                    failed.append(uuid)
        except (NodeLocked, NodeNotFound) as exc:
            LOG.info("Node %s: not checked for an interrupted provision state: %s", uuid, exc)
    return failed
