"""Power state changes, under the node's lock and recorded in its history.

As Ironic's conductor does: ``target_power_state`` names where the node is going while the
change runs, the power interface is validated first, and a node being cleaned refuses every
change. Ironic lets a node in maintenance change its power state, and so does metalwire.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from typing import Any

from metalwire.conductor import hardware
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node
from metalwire.errors import InvalidParameterValue, InvalidState, InvalidStateRequested
from metalwire.networking.task import Task

# Provision states during which the power is the cleaning's to drive, not a client's.
_CLEANING = frozenset({"cleaning", "clean wait"})
_POWERING_OFF = frozenset({hardware.POWER_OFF, hardware.SOFT_POWER_OFF})


def store(task: Task, values: Mapping[str, Any]) -> None:
    """Write node fields, columns or not, in the task's transaction, and reload the node."""
    task.inventory.update_node(values)
    task.reload()


def check_target(node_ident: str, power_state: str | None, target: str) -> None:
    if target not in hardware.POWER_TARGETS:
        raise InvalidStateRequested(
            f'The requested action "{target}" can not be performed on node "{node_ident}" '
            f'while it is in state "{power_state}".'
        )


def set_power_state(
    conductor: Conductor,
    context: RequestContext,
    ident: str,
    target: str,
    timeout: int | None = None,
) -> None:
    """Move the node's power to ``target`` (one of hardware.POWER_TARGETS).

    Raises InvalidStateRequested (400) for an unknown target or a node being cleaned,
    InvalidState (409) for a power-off of a node with ``disable_power_off``, as Ironic's,
    InvalidParameterValue (400) when the power interface cannot work or does not offer
    the target, NodeLocked (409).
    """
    with conductor.exclusive_task(ident, context) as task:
        node = task.node
        check_target(ident, node.power_state, target)
        if node.provision_state in _CLEANING:
            raise InvalidStateRequested(
                f'The requested action "{target}" can not be performed on node '
                f'"{ident}" while it is in state "{node.provision_state}".'
            )
        refuse_power_off(node, target)
        hardware.check_interface(node, "power")
        if target not in hardware.supported_power_targets(node):
            raise InvalidParameterValue(
                f"The driver {node.driver} does not support the power state, {target}"
            )
        waited = "" if timeout is None else f" (timeout {timeout} s)"
        event = f"{target}{waited} on {node.label}"
        change_power(conductor, task, target, event, also={"last_error": None})


def refuse_power_off(node: Node, target: str) -> None:
    """InvalidState (409) for a power-off of a node with ``disable_power_off``, as Ironic's."""
    if target in _POWERING_OFF and node_db.field_value(node, "disable_power_off"):
        raise InvalidState(f"Failed to set node power state to {target}.")


def change_power(
    conductor: Conductor,
    task: Task,
    target: str,
    event: str,
    also: Mapping[str, Any] | None = None,
) -> None:
    """Move the node's power to ``target`` under the task's lock: ``target_power_state``
    (and the fields ``also``) while it changes (a fake power interface's change is
    immediate), the history entry ``event`` with where the power is now."""
    after = hardware.power_after(target)
    store(task, {"target_power_state": after, **(also or {})})
    conductor.record_history(task, HistoryEntry("power", f"{event}: now {after}"))
    store(task, {"power_state": after, "target_power_state": None})


@contextlib.contextmanager
def powered_for_network(conductor: Conductor, task: Task) -> Iterator[None]:
    """Around network steps (deploy, undeploy, cleaning) of a node whose network interface
    needs it powered on (``need_power_on``: a Smart NIC port, whose Neutron agent runs on
    the NIC), power the node on if it is off, and power it off again once the steps are
    done, ``[agent] neutron_agent_poll_interval`` twice over after the last of them, so that
    the agent has applied it. As Ironic's conductor: a step that fails leaves the node on."""
    node = task.node
    if (
        not conductor.network_interface(node).need_power_on(task)
        or node.power_state != hardware.POWER_OFF
    ):
        yield
        return
    hardware.check_interface(node, "power")
    why = "for the network of its Smart NIC ports"
    change_power(conductor, task, hardware.POWER_ON, f"power on {node.label} {why}")
    yield
    time.sleep(2 * conductor.config.agent.neutron_agent_poll_interval)
    change_power(
        conductor, task, hardware.POWER_OFF, f"power off {node.label} again, its network set"
    )


def synced_power_state(task: Task) -> dict[str, Any]:
    """The fields Ironic's power sync sets on a node it verifies: a power state. A node that
    never had one, whose power metalwire has not switched, is off."""
    return {"power_state": hardware.POWER_OFF} if task.node.power_state is None else {}
