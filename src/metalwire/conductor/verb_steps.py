"""A provision verb's steps, once its checks passed and its transient state is set, and where
they leave the node (:func:`run_steps`): its target, a wait or hold state, or its failed
state with ``last_error``.

Each verb calls the node's network interface hooks in the order a real deployment would,
recording every step in the node history; nothing touches hardware. A deploy's own steps
are not run: those it would run, merged as Ironic merges them, are recorded in the node's
history when a template or the verb gave any (``conductor/verb_checks.py``). A node whose
network interface needs it powered on for its network steps (``neutron`` with a Smart NIC
port, whose Neutron agent runs on the NIC) is powered on around them if it is off and
powered off again after them, as Ironic's deploy, tear-down and cleaning do
(:func:`metalwire.conductor.power.powered_for_network`).

A node whose deploy interface is ``direct`` waits for an agent as Ironic's does: a deploy
stops in ``wait call-back`` once its provisioning network is set up. An inspection by the
``agent`` inspect interface stops in ``inspect wait`` once the node is on its inspection
network (``add_inspection_network``); the inspection ramdisk's report ends that wait
(``conductor/inspection.py``). The other inspect interfaces (``fake``, and ``redfish`` /
``idrac-redfish``, which have no BMC to read here) finish the inspection at once, reading
nothing, as Ironic's ``fake`` does.
"""

from __future__ import annotations

import logging
from typing import Any

from metalwire.conductor import clean_and_service, hardware, power, step_runner, vifs
from metalwire.conductor.boot import AGENT_RESCUE
from metalwire.conductor.node_moves import (
    FailedAfterwards,
    Waiting,
    fail,
    run_hook,
    set_state,
    waits_for_agent,
)
from metalwire.conductor.provision_states import (
    AGENT_INSPECT,
    DEPLOY_WAIT,
    HOLDS,
    INSPECT_WAIT,
    SERVICE_WAIT,
    TRANSITIONS,
    ProvisionOptions,
    Transition,
)
from metalwire.conductor.rescue import rescue_steps
from metalwire.conductor.step_runner import Stopped
from metalwire.conductor.tasks import Conductor
from metalwire.conductor.verb_checks import verify_power
from metalwire.db import nodes as node_db
from metalwire.db.history import HistoryEntry
from metalwire.errors import HardwareInspectionFailure, MetalwireError, NodeLockLost
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)

# The states a rescue leaves a node in, from which an undeploy runs the rescue's clean-up.
_RESCUE_STATES = frozenset({"rescue", "rescue failed", "unrescue failed"})
# What an undeploy clears, whether its tear-down succeeded or failed (as Ironic's).
_NO_INSTANCE: dict[str, Any] = {"instance_info": {}, "instance_uuid": None, "instance_name": None}


def run_steps(
    conductor: Conductor,
    task: Task,
    verb: str,
    transition: Transition,
    options: ProvisionOptions,
    source: str,
) -> tuple[str, Stopped | None]:
    """The verb's steps from the state ``source``, after its transient state was set; the
    state they leave the node in: its target, a wait (or hold) state, or its failed state
    with ``last_error``; and the timed ``wait`` step it waits at, if it does."""
    waiting: Waiting | None = None
    failed_afterwards: FailedAfterwards | None = None
    try:
        with task.savepoint():
            try:
                final = _steps(conductor, task, verb, options, source)
            except Waiting as wait:  # the steps so far are kept
                waiting = wait
            except FailedAfterwards as failure:  # so are the steps before it
                failed_afterwards = failure
    except NodeLockLost:
        raise  # another operation has the node now: nothing more is written
    except Exception as exc:
        if task.in_one_transaction and not isinstance(exc, MetalwireError):
            raise  # the transaction rolls back whole: the node stays as it was
        # Its transient state is committed (the request may have been answered): the node
        # must not stay in it.
        if isinstance(exc, MetalwireError):
            error = str(exc)
        else:
            LOG.exception("node %s: %s failed unexpectedly", task.node.uuid, verb)
            error = f"unexpected error: {type(exc).__name__}: {exc}"
        if verb == "deleted":
            return _failed_tear_down(conductor, task, error), None
        return fail(conductor, task, verb, transition.failed, error), None
    if failed_afterwards is not None:
        late = failed_afterwards
        return fail(conductor, task, verb, late.state, late.error, late.values), None
    if waiting is not None:
        set_state(task, provision_state=waiting.state, **waiting.values)
        conductor.record_history(task, HistoryEntry("provisioning", _stop_event(verb, waiting)))
        stopped = waiting.stopped
        return waiting.state, stopped if stopped and stopped.resume_after is not None else None
    # the steps may end elsewhere than the verb's target (a retired node's cleaning)
    target = final.pop("provision_state", transition.target)
    set_state(task, provision_state=target, target_provision_state=None, **final)
    conductor.record_history(task, HistoryEntry("provisioning", f"{verb} done: {target}"))
    return target, None


def _stop_event(verb: str, waiting: Waiting) -> str:
    """The history entry of steps stopping in a wait or hold state."""
    stopped = waiting.stopped
    if stopped is None:
        return f"{verb} waits in {waiting.state}"
    step = f"step {stopped.index + 1}"
    if stopped.state in HOLDS:
        return f"{verb} held in {stopped.state} at {step} (hold); unhold resumes it"
    if stopped.resume_after is None:
        return f"{verb} waits in {stopped.state} at {step} (wait), until abort"
    return f"{verb} waits in {stopped.state} at {step} (wait) for {stopped.resume_after:g} s"


def _steps(
    conductor: Conductor, task: Task, verb: str, options: ProvisionOptions, source: str
) -> dict[str, Any]:
    """Run a verb's steps from the node's state ``source``; return the final field values
    to store."""
    if verb == "manage":
        if source == "enroll":
            verify_power(task)
        return power.synced_power_state(task)
    if verb in ("rescue", "unrescue"):
        return rescue_steps(conductor, task, verb, options)
    if verb == "provide":
        if clean_and_service.cleans_automatically(conductor.config.conductor, task.node):
            clean_and_service.clean(conductor, task)
        return {}
    if verb == "clean":
        clean_and_service.clean(conductor, task, manual=options, source=source)
        return {}
    if verb == "inspect":
        if hardware.interface_name(task.node, "inspect") == AGENT_INSPECT:
            add_inspection_network(conductor, task)
            # the node is booted into the inspection ramdisk
            raise Waiting(INSPECT_WAIT, {"power_state": hardware.POWER_ON})
        return {}
    if verb == "service":
        clean_and_service.service(conductor, task, options, source)
        return {}
    if verb in ("active", "rebuild"):
        with power.powered_for_network(conductor, task):
            run_hook(conductor, task, "add_provisioning_network")
        if waits_for_agent(task):
            raise Waiting(DEPLOY_WAIT)
        with power.powered_for_network(conductor, task):
            run_hook(conductor, task, "remove_provisioning_network")
            run_hook(conductor, task, "configure_tenant_networks")
        if options.configdrive is None:
            return {"power_state": hardware.POWER_ON}
        # Stored as given, as Ironic stores a configdrive that needs no Swift upload.
        info = {**task.node.instance_info, "configdrive": options.configdrive}
        return {"power_state": hardware.POWER_ON, "instance_info": info}
    return _undeploy(conductor, task, source)


def _undeploy(conductor: Conductor, task: Task, source: str) -> dict[str, Any]:
    with power.powered_for_network(conductor, task):
        if (
            source in _RESCUE_STATES
            and hardware.interface_name(task.node, "rescue") == AGENT_RESCUE
        ):
            # As Ironic's tear-down, the agent rescue's clean-up first: what a failed rescue
            # (or one a dead process cut short) left on the rescuing network is removed.
            run_hook(conductor, task, "remove_rescuing_network")
        run_hook(conductor, task, "unconfigure_tenant_networks")
        if source == DEPLOY_WAIT:  # the deploy stopped on its provisioning network
            run_hook(conductor, task, "remove_provisioning_network")
    vifs.detach_all(conductor, task)
    if source == SERVICE_WAIT:  # the servicing's kept steps go with the instance
        step_runner.finish(task, "service")
    torn_down: dict[str, Any] = {"power_state": "power off", **_NO_INSTANCE}
    if not clean_and_service.cleans_automatically(conductor.config.conductor, task.node):
        return torn_down  # available, retired or not, as Ironic's skipped cleaning ends
    # As Ironic's: once torn down the node has no instance; a cleaning that fails then
    # leaves it in "clean failed" without one, so the instance's deletion is done.
    set_state(task, **torn_down)
    try:
        with task.savepoint():
            clean_and_service.clean(conductor, task)
    except NodeLockLost:
        raise
    except MetalwireError as exc:
        raise FailedAfterwards("clean failed", str(exc)) from None
    if node_db.field_value(task.node, "retired"):
        return {**torn_down, "provision_state": "manageable"}  # not offered again, as Ironic
    return torn_down


def add_inspection_network(conductor: Conductor, task: Task) -> None:
    """Put the node on its inspection network for the ramdisk, as Ironic's ``agent``
    inspection does before it boots it. A failure is Ironic's "unable to start inspection"
    (what the hook did is undone by the hook itself), and the node is left powered off, as
    Ironic's inspection error handler leaves it (rebooted, so on, if its
    ``disable_power_off`` is set)."""
    try:
        with power.powered_for_network(conductor, task):
            run_hook(conductor, task, "add_inspection_network")
    except NodeLockLost:
        raise
    except MetalwireError as exc:
        failure = HardwareInspectionFailure(f"unable to start inspection: {exc}")
        node = task.node
        keep_on = bool(node_db.field_value(node, "disable_power_off"))
        target = hardware.REBOOT if keep_on else hardware.POWER_OFF
        event = f"{target} {node.label} after its inspection failed to start"
        power.change_power(conductor, task, target, event)
        raise FailedAfterwards(TRANSITIONS["inspect"].failed, str(failure)) from None


def _failed_tear_down(conductor: Conductor, task: Task, error: str) -> str:
    """Leave a node whose tear-down failed in ``error`` without its instance, as Ironic's:
    the instance is deleted for its owner (Nova's delete ends), the node waits for the
    operator. Its VIF records go too, without a further call to the network (Ironic's detach
    of a node in ``error`` makes none): the instance's network ports are its owner's to
    delete, and a retried undeploy puts the node's own ports back as they were. One
    transaction: the node is never seen in ``error`` with its instance."""
    state = TRANSITIONS["deleted"].failed
    with task.atomic():
        fail(conductor, task, "deleted", state, f"Failed to tear down: {error}")
        _forget_vifs(conductor, task)
        set_state(task, **_NO_INSTANCE)
    return state


def _forget_vifs(conductor: Conductor, task: Task) -> None:
    """Remove the node's VIF records (the network was not undone), each in the history."""
    for vif_id in [attachment.vif_id for attachment in task.attachments]:
        task.attachments.remove(vif_id)
        event = f"VIF {vif_id} forgotten after the failed tear-down; its network not undone"
        conductor.record_history(task, HistoryEntry("vif", event, vif_id=vif_id))
