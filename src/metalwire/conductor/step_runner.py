"""The user steps of a manual cleaning or a servicing, run one by one in the order given (a
runbook's in its order), as Ironic 39's conductor runs them.

The steps the conductor runs itself (``steps.CONDUCTOR_STEPS``) do what their names say:

- ``power_on``, ``power_off``, ``reboot`` change the node's power through metalwire's power
  path (``power.py``: ``target_power_state`` while it changes, a history entry); a power-off
  of a node with ``disable_power_off`` fails the step, as Ironic refuses it.
- ``hold`` stops the steps: the node stays in ``clean hold`` / ``service hold`` until
  ``unhold`` resumes them after it (or ``abort`` marks them to end there, as Ironic's abort
  of a step that cannot be aborted).
- ``wait`` with ``args.seconds`` pauses that long, at most ``[conductor]
  max_conductor_wait_step_seconds`` (a longer one is cut to it, noted in the history), in
  ``clean wait`` / ``service wait``, then the steps go on (``timed_waits.py``); without
  ``seconds`` the node stays in that wait state until ``abort`` or the call-back timeout.

The interfaces' steps drive no hardware (metalwire has none to drive, whatever the
implementation): they end at once.

While the steps run, ``clean_step`` / ``service_step`` show the current one, and the node's
``driver_internal_info`` keeps the whole list (``clean_steps`` / ``service_steps``), the
current step's index (``clean_step_index`` / ``service_step_index``) and whether the verb
booted no ramdisk (``cleaning_disable_ramdisk`` / ``service_disable_ramdisk``), Ironic's keys,
and, while a timed ``wait`` step waits, metalwire's own ``metalwire_clean_wait`` /
``metalwire_service_wait``: its length in seconds, when it ends and the conductor (``[DEFAULT]
host``) waiting. Each is written with the state it goes with, so a node held or waiting across
a restart is resumed (or aborted) from what is stored. The wait's record goes when its step
ends; once the steps end, or fail, all of it is cleared (``kept_steps.py``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from metalwire.conductor import hardware, power
from metalwire.conductor.kept_steps import NO_RAMDISK, RUNNING, WAIT_RECORD, StepKind, cleared
from metalwire.conductor.steps import wait_seconds
from metalwire.conductor.tasks import Conductor
from metalwire.db import nodes as node_db
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node
from metalwire.errors import MetalwireError
from metalwire.networking.task import Task

#: The state each kind shows while held, while waiting (while running: ``RUNNING``).
HOLD: dict[StepKind, str] = {"clean": "clean hold", "service": "service hold"}
WAIT: dict[StepKind, str] = {"clean": "clean wait", "service": "service wait"}
_POWER_STEPS = {
    "power_on": hardware.POWER_ON,
    "power_off": hardware.POWER_OFF,
    "reboot": hardware.REBOOT,
}


def kind_of(state: str) -> StepKind | None:
    """Whose steps a node in ``state`` (held, waiting or running) is in, if any."""
    for kind in ("clean", "service"):
        if state in (RUNNING[kind], HOLD[kind], WAIT[kind]):
            return kind
    return None


@dataclass(frozen=True)
class Stopped:
    """The steps stopped before their end: the node stays in ``state``; a timed wait goes on
    after ``resume_after`` seconds from step ``index``, at ``ends_at`` (ISO 8601, UTC), which
    tells it from any other wait at that step, in the thread of the ``conductor`` (host)
    recorded."""

    state: str
    index: int
    resume_after: float | None = None
    ends_at: str | None = None
    conductor: str | None = None


def waiting_at(node: Node) -> Stopped | None:
    """The timed ``wait`` step a node waits at, as its record keeps it; None if it waits at
    none (or at a ``wait`` without seconds)."""
    kind = kind_of(node.provision_state)
    if kind is None or node.provision_state != WAIT[kind]:
        return None
    internal = node.driver_internal_info
    record = internal.get(WAIT_RECORD[kind])
    index = internal.get(f"{kind}_step_index")
    if not isinstance(record, dict) or index is None:
        return None
    return Stopped(
        WAIT[kind], int(index), record["seconds"], record["ends_at"], record["conductor"]
    )


class StepFailed(MetalwireError):
    """A step failed; the message names the node and the step."""


def step_name(step: Mapping[str, Any]) -> str:
    return f"{step.get('interface')}.{step.get('step')}"


def start(task: Task, kind: StepKind, steps: Sequence[Mapping[str, Any]], no_ramdisk: bool) -> None:
    """Keep the verb's steps on the node before the first runs."""
    fields = cleared(kind, task.node.driver_internal_info)
    fields["driver_internal_info"] |= {
        f"{kind}_steps": [dict(step) for step in steps],
        f"{kind}_step_index": None,
        NO_RAMDISK[kind]: no_ramdisk,
    }
    power.store(task, fields)


def booted_no_ramdisk(task: Task, kind: StepKind) -> bool:
    """Whether the steps kept on the node run without a ramdisk (and so with no cleaning
    network)."""
    return bool(task.node.driver_internal_info.get(NO_RAMDISK[kind]))


def current(task: Task, kind: StepKind) -> tuple[int, dict[str, Any]] | None:
    """The index and the step the node is at, None if none has started."""
    index = task.node.driver_internal_info.get(f"{kind}_step_index")
    step = _shown_step(task, kind)
    if index is None or not step:
        return None
    return int(index), step


def _shown_step(task: Task, kind: StepKind) -> dict[str, Any]:
    return dict(node_db.field_value(task.node, f"{kind}_step") or {})


def run(conductor: Conductor, task: Task, kind: StepKind, first: int = 0) -> Stopped | None:
    """Run the kept steps from index ``first``; None once all ran (the caller then clears
    them, :func:`finish`), or where they stopped. Raises StepFailed naming the step that failed."""
    steps: list[dict[str, Any]] = list(task.node.driver_internal_info.get(f"{kind}_steps") or [])
    for index in range(first, len(steps)):
        step = steps[index]
        internal = {
            **{k: v for k, v in task.node.driver_internal_info.items() if k != WAIT_RECORD[kind]},
            f"{kind}_step_index": index,
        }
        power.store(task, {f"{kind}_step": step, "driver_internal_info": internal})
        try:
            stopped = _run_one(conductor, task, kind, step, index)
        except StepFailed:
            raise
        except MetalwireError as exc:
            raise StepFailed(
                f"Node {task.node.uuid} failed {kind} step {step_name(step)}: {exc}"
            ) from None
        if stopped is not None and stopped.resume_after is not None:
            return _keep_wait(conductor, task, kind, stopped)
        if stopped is not None:
            return stopped
    return None


def _keep_wait(conductor: Conductor, task: Task, kind: StepKind, stopped: Stopped) -> Stopped:
    """Record a timed wait with its step (:data:`WAIT_RECORD`): a conductor started after
    this one stopped goes on from it."""
    assert stopped.resume_after is not None
    ends = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=stopped.resume_after)
    waiting = dataclasses.replace(
        stopped, ends_at=ends.isoformat(), conductor=conductor.config.default.host
    )
    record = {
        "seconds": waiting.resume_after,
        "ends_at": waiting.ends_at,
        "conductor": waiting.conductor,
    }
    internal = {**task.node.driver_internal_info, WAIT_RECORD[kind]: record}
    power.store(task, {"driver_internal_info": internal})
    return waiting


def _run_one(
    conductor: Conductor, task: Task, kind: StepKind, step: Mapping[str, Any], index: int
) -> Stopped | None:
    name = step.get("step")
    if name in _POWER_STEPS:
        target = _POWER_STEPS[str(name)]
        power.refuse_power_off(task.node, target)
        hardware.check_interface(task.node, "power")
        event = f"{target} {task.node.label} by {kind} step {step_name(step)}"
        power.change_power(conductor, task, target, event)
        return None
    if name == "hold":
        return Stopped(HOLD[kind], index)
    if name == "wait":
        args = step.get("args") or {}
        if "seconds" not in args:
            return Stopped(WAIT[kind], index)
        return Stopped(WAIT[kind], index, _capped(conductor, task, kind, wait_seconds(args)))
    return None  # an interface's step: no hardware to drive


def _capped(conductor: Conductor, task: Task, kind: StepKind, seconds: int) -> int:
    cap = conductor.config.conductor.max_conductor_wait_step_seconds
    if seconds <= cap:
        return seconds
    event = (
        f"{kind} step wait asked for {seconds} s, more than [conductor] "
        f"max_conductor_wait_step_seconds; waiting {cap} s"
    )
    conductor.record_history(task, HistoryEntry("provisioning", event))
    return cap


def finish(task: Task, kind: StepKind) -> None:
    """Clear the steps kept on the node: they ended, failed or were aborted."""
    power.store(task, cleared(kind, task.node.driver_internal_info))
