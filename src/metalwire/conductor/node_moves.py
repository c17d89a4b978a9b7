"""What every verb's steps share to move a node: its provision state written (with the
inspection timestamps a move sets, as Ironic's), a network interface hook run and recorded in
the history, the signals of steps that stop in a wait or hold state (:class:`Waiting`) or fail
once the steps before are done for good (:class:`FailedAfterwards`), and the node landing in
a failed state with ``last_error`` (:func:`fail`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from metalwire.conductor import hardware
from metalwire.conductor.kept_steps import StepKind
from metalwire.conductor.provision_states import AGENT_DEPLOY, INSPECT_WAIT
from metalwire.conductor.step_runner import Stopped
from metalwire.conductor.stuck_states import target_after_failure
from metalwire.conductor.tasks import Conductor
from metalwire.db import nodes as node_db
from metalwire.db.history import HistoryEntry
from metalwire.db.models import utcnow
from metalwire.networking.task import Task

# instance_info keys a rescue sets and an unrescue or undeploy removes.
_RESCUE_KEYS = ("rescue_password", "hashed_rescue_password")


def set_state(task: Task, **values: Any) -> None:
    if "provision_state" in values:
        values.update(_inspection_times(task.node.provision_state, values["provision_state"]))
    task.inventory.update_node({"provision_updated_at": utcnow(), **values})
    task.reload()


def _inspection_times(before: str, after: str) -> dict[str, Any]:
    """The inspection timestamps a move from ``before`` to ``after`` sets, as Ironic's: an
    inspection starting clears the last finish, one ending well records its finish."""
    now = utcnow().replace(tzinfo=dt.UTC).isoformat()
    if after == "inspecting":
        return {"inspection_started_at": now, "inspection_finished_at": None}
    if before in ("inspecting", INSPECT_WAIT) and after == "manageable":
        return {"inspection_started_at": None, "inspection_finished_at": now}
    if before in ("inspecting", INSPECT_WAIT) and after == "inspect failed":
        return {"inspection_started_at": None}
    return {}


def run_hook(conductor: Conductor, task: Task, hook: str) -> None:
    iface = conductor.network_interface(task.node)
    step: Callable[[Task], None] = getattr(iface, hook)
    step(task)
    conductor.record_history(task, HistoryEntry("provisioning", f"{iface.name}.{hook} done"))


class Waiting(Exception):
    """The verb's steps stopped in a wait (or hold) state, ``state``: the node stays there,
    with the field ``values`` the wait sets; ``stopped``: a user step stopped them there."""

    def __init__(
        self, state: str, values: dict[str, Any] | None = None, stopped: Stopped | None = None
    ) -> None:
        super().__init__(state)
        self.state = state
        self.values = values or {}
        self.stopped = stopped


class FailedAfterwards(Exception):
    """A step failed once the steps before it were done for good: the node lands in
    ``state`` with ``last_error`` ``error`` (and the field ``values``), and what those steps
    wrote is kept."""

    def __init__(self, state: str, error: str, values: dict[str, Any] | None = None) -> None:
        super().__init__(error)
        self.state = state
        self.error = error
        self.values = values or {}


def waits_for_agent(task: Task) -> bool:
    return hardware.interface_name(task.node, "deploy") == AGENT_DEPLOY


def fail(
    conductor: Conductor,
    task: Task,
    verb: str,
    state: str,
    error: str,
    values: dict[str, Any] | None = None,
) -> str:
    """Leave the node in the failed ``state`` with ``last_error`` (and the field ``values``);
    returns the state. A failed rescue drops the rescue password fields, as Ironic's does,
    whichever step failed."""
    conductor.record_history(task, HistoryEntry.failed("provisioning", f"{verb} failed: {error}"))
    dropped = {"instance_info": without_rescue(task.node.instance_info)} if verb == "rescue" else {}
    target = target_after_failure(state, task.node.target_provision_state)
    set_state(
        task,
        provision_state=state,
        target_provision_state=target,
        last_error=error,
        **dropped,
        **(values or {}),
    )
    return state


def failure_fields(task: Task, kind: StepKind, error: str) -> dict[str, Any]:
    """What Ironic's cleaning and servicing error handlers set on a node that failed at a
    step: maintenance, the ``clean failure`` / ``service failure`` fault, and the error as
    ``maintenance_reason`` unless one is set."""
    reason = node_db.field_value(task.node, "maintenance_reason") or error
    return {"maintenance": True, "fault": f"{kind} failure", "maintenance_reason": reason}


def without_rescue(instance_info: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in instance_info.items() if k not in _RESCUE_KEYS}
