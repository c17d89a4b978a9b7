"""Leaving a wait state other than by the verb's own steps: ``abort`` (and the call-back
timeouts, ``conductor/callback_timeouts.py``), which undo the wait's network and land the node
where :data:`metalwire.conductor.provision_states.ABORTS` says, ``abort`` of a held node,
which marks its steps to end once the hold ends, and the end of an ``agent`` inspection's
wait when its ramdisk reported (``conductor/inspection.py``)."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from metalwire import metrics
from metalwire.conductor import hardware, power, step_runner
from metalwire.conductor.node_moves import fail, failure_fields, run_hook, set_state
from metalwire.conductor.provision_states import (
    ABORTS,
    HOLDS,
    INSPECT_WAIT,
    SERVICE_WAIT,
    TRANSITIONS,
    Abort,
    during,
)
from metalwire.conductor.stuck_states import target_after_failure
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db.history import HistoryEntry
from metalwire.errors import InvalidStateRequested, MetalwireError, NodeLockLost
from metalwire.networking.task import Task

#: Where a wait that timed out lands where that is not where its abort lands (Ironic's
#: periodic check fails a servicing; its abort gives the node back).
_TIMED_OUT = {SERVICE_WAIT: Abort("", None, "service failed")}


def abort_wait(
    conductor: Conductor, context: RequestContext, ident: str, reason: str | None = None
) -> None:
    """Leave a wait state of :data:`ABORTS` (or ``service failed``), undoing its network:
    by request, or on a call-back timeout (``reason``). Raises InvalidStateRequested from
    any other state.

    A requested abort is counted with the provision verbs once committed; a timeout is no
    verb anybody asked for and is not."""
    with conductor.exclusive_task(ident, context) as task:
        node = task.node
        if reason is None and node.provision_state in HOLDS:
            _abort_after_held_step(conductor, task)
            return
        abort = ABORTS.get(node.provision_state)
        if reason is not None:
            abort = _TIMED_OUT.get(node.provision_state, abort)
        if abort is None:
            raise InvalidStateRequested(
                f'The requested action "abort" can not be performed on node {node.label} '
                f'while it is in state "{node.provision_state}".'
            )
        begun = time.monotonic()
        interface = node.network_interface
        kind = step_runner.kind_of(node.provision_state)
        at = None if kind is None else step_runner.current(task, kind)
        if reason is None:
            error = abort.by_request + ("" if at is None else during(at[1]))
        else:  # timed out: at a user step, as that step's failure (Ironic's error handlers)
            error = reason + ("" if at is None else f" Failed on step {at[1]}.")
        failure = (
            {}
            if reason is None or at is None or kind is None
            else (failure_fields(task, kind, error))
        )
        started = f"abort started from {node.provision_state}" if reason is None else reason
        conductor.record_history(task, HistoryEntry("provisioning", started))
        if kind is not None and step_runner.booted_no_ramdisk(task, kind):
            abort = dataclasses.replace(abort, hook=None)  # no cleaning network to remove
        if kind is not None:
            step_runner.finish(task, kind)
        try:
            _undo_wait_network(conductor, task, abort)
        except MetalwireError as exc:
            error = f"{error}; undoing its network failed: {exc}"
            conductor.record_history(task, HistoryEntry.failed("provisioning", error))
        else:
            entry = HistoryEntry.failed if abort.a_failure else HistoryEntry
            conductor.record_history(task, entry("provisioning", f"{error}: {abort.failed}"))
        set_state(
            task,
            provision_state=abort.failed,
            target_provision_state=target_after_failure(abort.failed, node.target_provision_state),
            last_error=error,
            **_power_after_abort(conductor, task, abort),
            **failure,
        )
    if reason is None and conductor.config.metrics.enabled:
        metrics.provision_ended("abort", interface, abort.failed, time.monotonic() - begun)


def _abort_after_held_step(conductor: Conductor, task: Task) -> None:
    """Ironic's abort of a held node: the ``hold`` step cannot be aborted, so the verb is
    marked to end, aborted, once that step ends; the node stays held until ``unhold``, which
    then ends it in ``clean failed`` / ``service failed``."""
    kind = step_runner.kind_of(task.node.provision_state)
    assert kind is not None
    at = step_runner.current(task, kind)
    if at is None or at[1].get("abort_after"):
        return
    power.store(task, {f"{kind}_step": {**at[1], "abort_after": True}})
    event = (
        f"abort asked in {task.node.provision_state}: the {kind} ends, aborted, once its hold "
        "step ends (unhold)"
    )
    conductor.record_history(task, HistoryEntry("provisioning", event))


def end_inspect_wait(conductor: Conductor, task: Task, error: str | None) -> str:
    """End an ``agent`` inspection whose ramdisk reported (``conductor/inspection.py``), as
    Ironic's: the inspection network removed and the node powered off (rebooted, left on, if
    its ``disable_power_off`` is set; left on with ``[inspector] power_off`` false), then
    ``manageable``, or ``inspect failed`` with ``error`` when processing the report failed.
    A network that could not be removed fails the inspection too, its reason added to
    ``last_error``. Returns the state reached."""
    wait = ABORTS[INSPECT_WAIT]
    try:
        _undo_wait_network(conductor, task, wait)
    except NodeLockLost:
        raise
    except MetalwireError as exc:
        clean_up = f"Inspection clean up failed: unable to remove inspection ports: {exc}"
        error = clean_up if error is None else f"{error}. Also {clean_up}"
    set_state(task, **_power_after_abort(conductor, task, wait))
    if error is not None:
        return fail(conductor, task, "inspect", wait.failed, error)
    target = TRANSITIONS["inspect"].target
    set_state(task, provision_state=target, target_provision_state=None, last_error=None)
    conductor.record_history(task, HistoryEntry("provisioning", f"inspect done: {target}"))
    return target


def _undo_wait_network(conductor: Conductor, task: Task, abort: Abort) -> None:
    if abort.hook is None:
        return
    with task.savepoint(), power.powered_for_network(conductor, task):
        run_hook(conductor, task, abort.hook)


def _power_after_abort(conductor: Conductor, task: Task, abort: Abort) -> dict[str, Any]:
    """As Ironic's end of an inspection: the node is powered off, or rebooted (left on) if
    its ``disable_power_off`` is set, or left on if ``[inspector] power_off`` is false."""
    if not abort.powers_off or not conductor.config.inspector.power_off:
        return {}
    if node_db.field_value(task.node, "disable_power_off"):
        return {}
    return {"power_state": hardware.POWER_OFF}
