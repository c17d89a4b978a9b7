"""The provision state machine, with a fake deploy, clean and rescue that touch no hardware.

Each verb calls the node's network interface hooks in the order a real deployment would,
recording every step in the node history. A hook that fails leaves the node in the matching
failed state with ``last_error`` set.

The user steps a manual cleaning, a servicing or a deploy names are checked against the
steps the node's interfaces offer (``conductor/steps.py``): a deploy's with its other checks,
before anything changes, after the steps of the deploy templates its instance traits name
(``conductor/deploy_templates.py``); a cleaning's and a servicing's once accepted, before the
node's network changes, a refusal failing the verb. A cleaning's and a servicing's steps then
run in order (``conductor/step_runner.py``): the interfaces' steps change nothing, the steps
the conductor runs itself change the power, hold the node in ``clean hold`` / ``service
hold`` until ``unhold``, or wait in ``clean wait`` / ``service wait`` (a timed wait in this
verb's background thread, after the node's state is committed and its lock given back:
:func:`_wait_and_go_on`). A deploy's steps are not run; the deploy steps it would run,
merged as Ironic merges them, are recorded in the node's history when a template or the verb
gave any.

A verb is accepted once its checks passed and the node shows the verb's transient state
(``deploying``, ``cleaning``, ...). On a node whose network interface calls an external
service (a lease held across short transactions) the request is answered then, and the
steps go on in the background (``conductor/background.py``); on any other node the verb is
one transaction, answered when it is done.

A node whose network interface needs it powered on for its network steps (``neutron`` with
a Smart NIC port, whose Neutron agent runs on the NIC) is powered on around them if it is
off and powered off again after them, as Ironic's deploy, tear-down and cleaning do
(:func:`metalwire.conductor.power.powered_for_network`).

Most verbs run to completion. A node whose deploy interface is ``direct`` waits for an agent
as Ironic's does: a deploy stops in ``wait call-back`` once its provisioning network is set
up, a manual cleaning in ``clean wait`` once its cleaning network is. An inspection by the
``agent`` inspect interface stops in ``inspect wait`` once the node is on its inspection
network (``add_inspection_network``); as Ironic's default (``[inspector]
require_managed_boot``) it needs a boot interface that can boot the inspection ramdisk, and a
network interface that can put the node on that network (``validate_inspection``); leaving
the wait removes it. The inspection ramdisk's report ends an inspection's wait
(``conductor/inspection.py``, :func:`end_inspect_wait`); no deploy or cleaning agent comes
here: the node stays until ``abort`` (see :data:`ABORTS`) or until ``[conductor]
deploy_callback_timeout`` / ``clean_callback_timeout`` / ``inspect_wait_timeout`` fail it
(``callback_timeouts.py``). The other inspect interfaces
(``fake``, and ``redfish`` / ``idrac-redfish``, which have no BMC to read here) finish the
inspection at once, reading nothing, as Ironic's ``fake`` does.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from metalwire import metrics
from metalwire.conductor import deploy_templates, hardware, power, step_runner, vifs
from metalwire.conductor.boot import (
    AGENT_RESCUE,
    check_deploy_and_boot,
    check_inspection_boot,
    check_rescue_boot,
    rescue_checks_boot,
)
from metalwire.conductor.step_runner import StepKind, Stopped
from metalwire.conductor.steps import (
    check_clean_or_service_steps,
    check_deploy_steps,
    deploy_step_plan,
    needs_ramdisk,
)
from metalwire.conductor.stuck_states import target_after_failure
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db.history import HistoryEntry
from metalwire.db.models import utcnow
from metalwire.errors import (
    HardwareInspectionFailure,
    InstanceDeployFailure,
    InstanceRescueFailure,
    InstanceUnrescueFailure,
    Invalid,
    InvalidParameterValue,
    InvalidStateRequested,
    MetalwireError,
    NodeLockLost,
    NodeProtected,
)
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)


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
    "active": Transition(frozenset({"available", "deploy failed"}), "active", "deploy failed"),
    "rebuild": Transition(
        frozenset({"active", "deploy failed", "error"}), "active", "deploy failed"
    ),
    "deleted": Transition(
        frozenset(
            {
                "active",
                "deploy failed",
                "error",
                "wait call-back",
                "rescue",
                "rescue failed",
                "unrescue failed",
                "service failed",
                "service wait",  # Ironic's too: the instance deleted while servicing waits
            }
        ),
        "available",
        "error",
    ),
    "clean": Transition(frozenset({"manageable"}), "manageable", "clean failed"),
    "inspect": Transition(
        frozenset({"manageable", "inspect failed"}), "manageable", "inspect failed"
    ),
    "rescue": Transition(
        frozenset({"active", "rescue", "rescue failed", "unrescue failed", "service failed"}),
        "rescue",
        "rescue failed",
    ),
    "unrescue": Transition(
        frozenset({"rescue", "rescue failed", "unrescue failed"}), "active", "unrescue failed"
    ),
    "service": Transition(frozenset({"active", "service failed"}), "active", "service failed"),
    # A node held by a ``hold`` step resumes its steps after it; it then ends where its
    # cleaning or servicing ends (see _unhold).
    "unhold": Transition(frozenset({"clean hold", "service hold"}), "", ""),
    # abort leaves a wait state; its sources and outcome are ABORTS'
    "abort": Transition(frozenset(), "", ""),
}
#: The deploy interface whose deploy and manual cleaning wait for an agent's call-back.
AGENT_DEPLOY = "direct"
DEPLOY_WAIT, CLEAN_WAIT, INSPECT_WAIT = "wait call-back", "clean wait", "inspect wait"
SERVICE_WAIT = step_runner.WAIT["service"]
#: The states a ``hold`` step leaves a node in; ``unhold`` resumes its steps.
HOLDS = frozenset(step_runner.HOLD.values())
#: The inspect interface whose inspection waits for the ramdisk's inventory.
AGENT_INSPECT = "agent"


@dataclass(frozen=True)
class Abort:
    """What leaving a wait state by abort or by timeout does."""

    by_request: str  # the last_error of an abort by request
    hook: str | None  # the network interface hook that undoes the wait's network, if any
    failed: str  # the state the node lands in
    powers_off: bool = False  # whether the node is powered off (its ramdisk shut down)
    a_failure: bool = True  # whether landing there is a failure (an ERROR history entry)


#: The wait states ``abort`` leaves (Ironic: from ``wait call-back`` at API 1.110 only, from
#: ``inspect wait`` at 1.41), and ``service failed``, which Ironic's abort gives back to the
#: instance (``active``; metalwire's servicing boots no ramdisk, so nothing is torn down).
ABORTS: dict[str, Abort] = {
    "service failed": Abort(
        "By request, the service operation was aborted", None, "active", a_failure=False
    ),
    DEPLOY_WAIT: Abort(
        "By request, the deploy operation was aborted",
        "remove_provisioning_network",
        "deploy failed",
    ),
    CLEAN_WAIT: Abort(
        "By request, the cleaning operation was aborted", "remove_cleaning_network", "clean failed"
    ),
    # a servicing's ``wait`` step: Ironic fails the servicing and gives the node back
    SERVICE_WAIT: Abort(
        "By request, the service operation was aborted", None, "active", a_failure=False
    ),
    INSPECT_WAIT: Abort(
        "Inspection was aborted by request.",
        "remove_inspection_network",
        "inspect failed",
        powers_off=True,
    ),
}
#: Where a wait that timed out lands where that is not where its abort lands (Ironic's
#: periodic check fails a servicing; its abort gives the node back).
_TIMED_OUT = {SERVICE_WAIT: Abort("", None, "service failed")}
# Verbs a node in maintenance refuses (Ironic's NodeInMaintenance, 400). An undeploy is not
# among them: the instance of a node taken out of service must still be deletable. Nor is
# provide, which Ironic allows by default ([conductor] allow_provisioning_in_maintenance).
_NOT_IN_MAINTENANCE = frozenset({"active", "rebuild", "clean", "rescue", "unrescue"})
# The states a rescue leaves a node in, from which an undeploy runs the rescue's clean-up.
_RESCUE_STATES = frozenset({"rescue", "rescue failed", "unrescue failed"})
# instance_info keys a rescue sets and an unrescue or undeploy removes.
_RESCUE_KEYS = ("rescue_password", "hashed_rescue_password")
# What an undeploy clears, whether its tear-down succeeded or failed (as Ironic's).
_NO_INSTANCE: dict[str, Any] = {"instance_info": {}, "instance_uuid": None, "instance_name": None}
# The state each verb shows while its steps run (provide: only when it cleans).
_TRANSIENT = {
    "manage": "verifying",
    "provide": "cleaning",
    "active": "deploying",
    "rebuild": "deploying",
    "deleted": "deleting",
    "clean": "cleaning",
    "inspect": "inspecting",
    "rescue": "rescuing",
    "unrescue": "unrescuing",
    "service": "servicing",
}


@dataclass(frozen=True)
class ProvisionOptions:
    """What a provision request carries besides its verb (checked by the API)."""

    configdrive: str | dict[str, Any] | None = None
    rescue_password: str | None = None
    #: the verb's user steps: a manual cleaning's, a servicing's, a deploy's (their shape
    #: checked; whether the node offers them, ``conductor/steps.py``)
    steps: tuple[dict[str, Any], ...] = ()
    disable_ramdisk: bool = False


def _set_state(task: Task, **values: Any) -> None:
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


def _run_hook(conductor: Conductor, task: Task, hook: str) -> None:
    iface = conductor.network_interface(task.node)
    step: Callable[[Task], None] = getattr(iface, hook)
    step(task)
    conductor.record_history(task, HistoryEntry("provisioning", f"{iface.name}.{hook} done"))


class _Waiting(Exception):
    """The verb's steps stopped in a wait (or hold) state, ``state``: the node stays there,
    with the field ``values`` the wait sets; ``stopped``: a user step stopped them there."""

    def __init__(
        self, state: str, values: dict[str, Any] | None = None, stopped: Stopped | None = None
    ) -> None:
        super().__init__(state)
        self.state = state
        self.values = values or {}
        self.stopped = stopped


class _FailedAfterwards(Exception):
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


def _clean(
    conductor: Conductor, task: Task, manual: ProvisionOptions | None = None, source: str = ""
) -> None:
    """A cleaning: automated, or ``manual`` with its steps, checked before the node's
    network changes, then run (``step_runner.py``) on the cleaning network. A manual
    cleaning that boots no ramdisk (``disable_ramdisk``, or only out-of-band steps) needs no
    cleaning network and waits for no agent, as Ironic's. From a hold or a wait state
    (``source``) the kept steps go on after the one the node stopped at."""
    if task.node.provision_state != "cleaning":  # an undeploy's cleaning
        _set_state(task, provision_state="cleaning")
    if manual is None:
        with power.powered_for_network(conductor, task):
            _run_hook(conductor, task, "add_cleaning_network")
        with power.powered_for_network(conductor, task):
            _run_hook(conductor, task, "remove_cleaning_network")
        return
    if source in (step_runner.HOLD["clean"], CLEAN_WAIT):
        _resume_user_steps(conductor, task, "clean")
        return
    check_clean_or_service_steps("clean", task.node, manual.steps, manual.disable_ramdisk)
    no_ramdisk = manual.disable_ramdisk or not needs_ramdisk(task.node, manual.steps)
    step_runner.start(task, "clean", manual.steps, no_ramdisk)
    if not no_ramdisk:
        with power.powered_for_network(conductor, task):
            _run_hook(conductor, task, "add_cleaning_network")
        if waits_for_agent(task):
            raise _Waiting(CLEAN_WAIT)
    _run_user_steps(conductor, task, "clean", 0)


def _service(conductor: Conductor, task: Task, options: ProvisionOptions, source: str) -> None:
    """A servicing: its steps checked, then run (``step_runner.py``); the fake service
    steps touch no network, and the node stays on its tenant networks. From a hold or a wait
    state (``source``) the kept steps go on after the one the node stopped at."""
    if source in (step_runner.HOLD["service"], SERVICE_WAIT):
        _resume_user_steps(conductor, task, "service")
        return
    check_clean_or_service_steps("service", task.node, options.steps, options.disable_ramdisk)
    step_runner.start(task, "service", options.steps, options.disable_ramdisk)
    _run_user_steps(conductor, task, "service", 0)


def _resume_user_steps(conductor: Conductor, task: Task, kind: StepKind) -> None:
    """Go on after the step the node stopped at; or, if an abort marked that step, end the
    verb there, aborted, as Ironic's."""
    at = step_runner.current(task, kind)
    if at is None:  # nothing kept: the verb has no steps left
        _end_user_steps(conductor, task, kind)
        return
    index, step = at
    if step.get("abort_after"):
        abort = ABORTS[CLEAN_WAIT if kind == "clean" else SERVICE_WAIT]
        error = f"{abort.by_request}{_during(step)}"
        _end_user_steps(conductor, task, kind)
        raise _FailedAfterwards(TRANSITIONS[kind].failed, error)
    _run_user_steps(conductor, task, kind, index + 1)


def _during(step: dict[str, Any]) -> str:
    """What an abort's ``last_error`` adds when a step was under way, as Ironic's."""
    return f' during or after the completion of step "{step_runner.step_name(step)}"'


def _run_user_steps(conductor: Conductor, task: Task, kind: StepKind, first: int) -> None:
    """Run the kept steps from ``first``: a hold or a wait stops them (:class:`_Waiting`);
    once all ran, the cleaning network is removed. A step that fails ends the verb in its
    failed state, in maintenance with the ``clean failure`` / ``service failure`` fault (as
    Ironic's cleaning and servicing error handlers leave it), its network removed."""
    try:
        stopped = step_runner.run(conductor, task, kind, first)
    except step_runner.StepFailed as exc:
        error = str(exc)
        try:
            _end_user_steps(conductor, task, kind)
        except NodeLockLost:
            raise
        except MetalwireError as also:
            error = f"{error}; removing its network failed too: {also}"
        fields = _failure_fields(task, kind, error)
        raise _FailedAfterwards(TRANSITIONS[kind].failed, error, fields) from None
    if stopped is not None:
        raise _Waiting(stopped.state, stopped=stopped)
    _end_user_steps(conductor, task, kind)


def _end_user_steps(conductor: Conductor, task: Task, kind: StepKind) -> None:
    """Clear the kept steps and remove the cleaning network, if the cleaning set one up."""
    on_network = kind == "clean" and not step_runner.booted_no_ramdisk(task, kind)
    step_runner.finish(task, kind)
    if on_network:
        with power.powered_for_network(conductor, task):
            _run_hook(conductor, task, "remove_cleaning_network")


def _failure_fields(task: Task, kind: StepKind, error: str) -> dict[str, Any]:
    """What Ironic's cleaning and servicing error handlers set on a node that failed at a
    step: maintenance, the ``clean failure`` / ``service failure`` fault, and the error as
    ``maintenance_reason`` unless one is set."""
    reason = node_db.field_value(task.node, "maintenance_reason") or error
    return {"maintenance": True, "fault": f"{kind} failure", "maintenance_reason": reason}


def _without_rescue(instance_info: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in instance_info.items() if k not in _RESCUE_KEYS}


def _rescue_steps(
    conductor: Conductor, task: Task, verb: str, options: ProvisionOptions
) -> dict[str, Any]:
    """A rescue or unrescue: the ``fake`` rescue interface's changes states only, as
    Ironic's fake, and the rescued node keeps the password; the ``agent`` one moves the node
    between networks first (:func:`_agent_rescue_network`), and its clean-up drops the
    password once the rescue ramdisk has it, as Ironic's."""
    if verb == "rescue":
        hardware.check_interface(task.node, "rescue")
    agent = hardware.interface_name(task.node, "rescue") == AGENT_RESCUE
    if agent:
        _agent_rescue_network(conductor, task, verb)
    info = _without_rescue(task.node.instance_info)
    if verb == "rescue" and not agent:
        assert options.rescue_password is not None  # the API requires one
        info["rescue_password"] = options.rescue_password
        info["hashed_rescue_password"] = hashlib.sha256(
            options.rescue_password.encode()
        ).hexdigest()
    return {"instance_info": info}


def _agent_rescue_network(conductor: Conductor, task: Task, verb: str) -> None:
    """The network steps of Ironic's ``agent`` rescue, in its order. A rescue unconfigures
    the tenant networks and puts the node on its rescuing network for the rescue ramdisk;
    no ramdisk runs here, so it is taken as up at once and the rescue finishes as Ironic's
    does when the agent reports it: the rescuing network removed, the tenant networks
    configured again (the rescued node is reached on them). A failure from then on is
    cleaned up (:func:`_clean_up_failed_rescue`). An unrescue removes the rescuing network
    (left by a failed rescue) and configures the tenant networks."""
    if verb == "rescue":
        with power.powered_for_network(conductor, task):
            _run_hook(conductor, task, "unconfigure_tenant_networks")
            _run_hook(conductor, task, "add_rescuing_network")
    try:
        with power.powered_for_network(conductor, task):
            _run_hook(conductor, task, "remove_rescuing_network")
            _run_hook(conductor, task, "configure_tenant_networks")
    except NodeLockLost:
        raise
    except MetalwireError as exc:
        if verb != "rescue":
            raise
        error = _clean_up_failed_rescue(conductor, task, str(exc))
        raise _FailedAfterwards(TRANSITIONS["rescue"].failed, error) from None


def _clean_up_failed_rescue(conductor: Conductor, task: Task, error: str) -> str:
    """What Ironic's rescue error handler does to a rescue that failed once its ramdisk was
    up: power the node off, then the ``agent`` rescue interface's clean-up, which removes
    the rescuing network (the rescue password goes with the failed state, :func:`_failed`).
    A node whose ``disable_power_off`` is set is not powered off, and then not cleaned up
    either, as in Ironic. Returns the ``last_error``: ``error``, and what went wrong in the
    clean-up, if anything did."""
    node = task.node
    if node_db.field_value(node, "disable_power_off"):
        return (
            f"{error}; not cleaned up: node {node.label} has disable_power_off set, so it "
            "was not powered off"
        )
    try:
        event = f"power off {node.label} after its failed rescue"
        power.change_power(conductor, task, hardware.POWER_OFF, event)
        with power.powered_for_network(conductor, task):
            _run_hook(conductor, task, "remove_rescuing_network")
    except NodeLockLost:
        raise
    except MetalwireError as exc:
        return f"{error}; cleaning up after it failed too: {exc}"
    return error


def _add_inspection_network(conductor: Conductor, task: Task) -> None:
    """Put the node on its inspection network for the ramdisk, as Ironic's ``agent``
    inspection does before it boots it. A failure is Ironic's "unable to start inspection"
    (what the hook did is undone by the hook itself), and the node is left powered off, as
    Ironic's inspection error handler leaves it (rebooted, so on, if its
    ``disable_power_off`` is set)."""
    try:
        with power.powered_for_network(conductor, task):
            _run_hook(conductor, task, "add_inspection_network")
    except NodeLockLost:
        raise
    except MetalwireError as exc:
        failure = HardwareInspectionFailure(f"unable to start inspection: {exc}")
        node = task.node
        keep_on = bool(node_db.field_value(node, "disable_power_off"))
        target = hardware.REBOOT if keep_on else hardware.POWER_OFF
        event = f"{target} {node.label} after its inspection failed to start"
        power.change_power(conductor, task, target, event)
        raise _FailedAfterwards(TRANSITIONS["inspect"].failed, str(failure)) from None


def _steps(
    conductor: Conductor, task: Task, verb: str, options: ProvisionOptions, source: str
) -> dict[str, Any]:
    """Run a verb's steps from the node's state ``source``; return the final field values
    to store."""
    clean = conductor.config.conductor.automated_clean
    if verb == "manage":
        if source == "enroll":
            _verify_power(task)
        return power.synced_power_state(task)
    if verb in ("rescue", "unrescue"):
        return _rescue_steps(conductor, task, verb, options)
    if verb == "provide":
        if clean:
            _clean(conductor, task)
        return {}
    if verb == "clean":
        _clean(conductor, task, manual=options, source=source)
        return {}
    if verb == "inspect":
        if hardware.interface_name(task.node, "inspect") == AGENT_INSPECT:
            _add_inspection_network(conductor, task)
            # the node is booted into the inspection ramdisk
            raise _Waiting(INSPECT_WAIT, {"power_state": hardware.POWER_ON})
        return {}
    if verb == "service":
        _service(conductor, task, options, source)
        return {}
    if verb in ("active", "rebuild"):
        with power.powered_for_network(conductor, task):
            _run_hook(conductor, task, "add_provisioning_network")
        if waits_for_agent(task):
            raise _Waiting(DEPLOY_WAIT)
        with power.powered_for_network(conductor, task):
            _run_hook(conductor, task, "remove_provisioning_network")
            _run_hook(conductor, task, "configure_tenant_networks")
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
            _run_hook(conductor, task, "remove_rescuing_network")
        _run_hook(conductor, task, "unconfigure_tenant_networks")
        if source == DEPLOY_WAIT:  # the deploy stopped on its provisioning network
            _run_hook(conductor, task, "remove_provisioning_network")
    vifs.detach_all(conductor, task)
    if source == SERVICE_WAIT:  # the servicing's kept steps go with the instance
        step_runner.finish(task, "service")
    torn_down: dict[str, Any] = {"power_state": "power off", **_NO_INSTANCE}
    if not conductor.config.conductor.automated_clean:
        return torn_down
    # As Ironic's: once torn down the node has no instance; a cleaning that fails then
    # leaves it in "clean failed" without one, so the instance's deletion is done.
    _set_state(task, **torn_down)
    try:
        with task.savepoint():
            _clean(conductor, task)
    except NodeLockLost:
        raise
    except MetalwireError as exc:
        raise _FailedAfterwards("clean failed", str(exc)) from None
    return torn_down


def do_provisioning_action(
    conductor: Conductor,
    context: RequestContext,
    ident: str,
    verb: str,
    options: ProvisionOptions | None = None,
    accepted: Callable[[], None] = lambda: None,
    pause: Callable[[float], bool] | None = None,
) -> None:
    """Move the node through ``verb``; raises InvalidStateRequested for a disallowed one,
    UnsupportedDriverExtension when the node's rescue interface cannot rescue.

    ``accepted`` is called once the verb's checks passed and its transient state is
    committed, if the steps may take long (the node's interface calls an external service):
    the request is answered then. A step that fails leaves the node in the verb's failed
    state with ``last_error`` either way; only the checks before it raise. ``pause`` sleeps
    a timed ``wait`` step's seconds, False if the process stops meanwhile."""
    options = options or ProvisionOptions()
    if verb == "abort":
        abort_wait(conductor, context, ident)
        return
    if verb == "unhold":
        timed = _unhold(conductor, context, ident, accepted)
        _wait_and_go_on(conductor, context, ident, timed, accepted, pause or _sleep)
        return
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
        if node.maintenance and verb in _NOT_IN_MAINTENANCE:
            raise InvalidStateRequested(
                f'Node {node.label} is in maintenance; "{verb}" is not allowed.'
            )
        if verb in ("rebuild", "deleted") and node_db.field_value(node, "protected"):
            raise NodeProtected(
                f"Node {node.label} is protected and cannot be "
                f"{'rebuilt' if verb == 'rebuild' else 'undeployed'}; unset 'protected' first."
            )
        plan: list[dict[str, Any]] | None = None
        if verb in ("active", "rebuild"):
            plan = _check_deployable(conductor, task, options.steps)
            conductor.network_interface(node).validate(task)
        if verb in ("rescue", "unrescue"):
            hardware.check_interface(node, "rescue")
        if verb == "rescue":
            _check_rescuable(conductor, task)
        if verb == "unrescue":
            _check_unrescuable(task)
        if verb == "inspect":
            _check_inspectable(conductor, task)
        source = node.provision_state
        started = f"{verb} started from {source}"
        conductor.record_history(task, HistoryEntry("provisioning", started))
        if plan is not None:
            conductor.record_history(task, _plan_entry(plan))
        clean = conductor.config.conductor.automated_clean
        transient = _TRANSIENT.get(verb) if verb != "provide" or clean else None
        shown = {} if transient is None else {"provision_state": transient}
        _set_state(task, target_provision_state=transition.target, last_error=None, **shown)
        if not task.in_one_transaction:
            accepted()
        begun = time.monotonic()
        interface = node.network_interface
        state, timed = _run_steps(conductor, task, verb, transition, options, source)
    # Counted once committed: a verb run again after a conflict at its commit counts once.
    if conductor.config.metrics.enabled:
        metrics.provision_ended(verb, interface, state, time.monotonic() - begun)
    _wait_and_go_on(conductor, context, ident, timed, accepted, pause or _sleep)


def _sleep(seconds: float) -> bool:
    time.sleep(seconds)
    return True


def _unhold(
    conductor: Conductor, context: RequestContext, ident: str, accepted: Callable[[], None]
) -> Stopped | None:
    """Resume the steps of a node held by a ``hold`` step after it (``unhold``, API 1.85):
    the node shows ``cleaning`` / ``servicing`` again and ends where its cleaning or
    servicing ends. Raises InvalidStateRequested for a node not held, as Ironic's. The
    timed ``wait`` step the steps then wait at, if any."""
    with conductor.exclusive_task(ident, context) as task:
        node = task.node
        kind = step_runner.kind_of(node.provision_state)
        if node.provision_state not in HOLDS or kind is None:
            raise InvalidStateRequested(
                f'The requested action "unhold" can not be performed on node '
                f'{node.label} while it is in state "{node.provision_state}".'
            )
        source = node.provision_state
        conductor.record_history(task, HistoryEntry("provisioning", f"unhold: {kind} resumes"))
        _set_state(task, provision_state=step_runner.RUNNING[kind], last_error=None)
        if not task.in_one_transaction:
            accepted()
        begun = time.monotonic()
        interface = node.network_interface
        state, timed = _run_steps(
            conductor, task, kind, TRANSITIONS[kind], ProvisionOptions(), source
        )
    if conductor.config.metrics.enabled:
        metrics.provision_ended("unhold", interface, state, time.monotonic() - begun)
    return timed


def _wait_and_go_on(
    conductor: Conductor,
    context: RequestContext,
    ident: str,
    timed: Stopped | None,
    accepted: Callable[[], None],
    pause: Callable[[float], bool],
) -> None:
    """After a timed ``wait`` step was committed (the node in ``clean wait`` / ``service
    wait``, its lock given back): answer the request, sleep in this background thread (no
    transaction open, the event loop free), then go on with the steps after it, as long as
    the node still waits at that step (an abort meanwhile ended the wait). Again for each
    timed wait that follows. A process that stops meanwhile cuts the pause short and goes no
    further: the node stays in its wait state (``abort``, the call-back timeout)."""
    while timed is not None:
        accepted()
        assert timed.resume_after is not None
        if not pause(timed.resume_after):
            LOG.info("node %s: stopping, its wait step is not resumed", ident)
            return
        timed = _after_timed_wait(conductor, context, ident, timed)


def _after_timed_wait(
    conductor: Conductor, context: RequestContext, ident: str, waited: Stopped
) -> Stopped | None:
    with conductor.exclusive_task(ident, context) as task:
        kind = step_runner.kind_of(task.node.provision_state)
        at = None if kind is None else step_runner.current(task, kind)
        if (
            kind is None
            or task.node.provision_state != waited.state
            or at is None
            or (at[0] != waited.index)
        ):
            LOG.info("node %s left its wait meanwhile; its steps do not go on", task.node.uuid)
            return None
        event = f"{kind} goes on after its wait of {waited.resume_after:g} s"
        conductor.record_history(task, HistoryEntry("provisioning", event))
        _set_state(task, provision_state=step_runner.RUNNING[kind])
        _state, timed = _run_steps(
            conductor, task, kind, TRANSITIONS[kind], ProvisionOptions(), waited.state
        )
    return timed


def _verify_power(task: Task) -> None:
    """A node leaves ``enroll`` only if its power interface can work, as Ironic's verify
    step decides (InvalidParameterValue naming the reason: the node goes back to ``enroll``
    with it as ``last_error``)."""
    try:
        hardware.check_interface(task.node, "power")
    except Invalid as exc:
        raise InvalidParameterValue(
            f"Failed to validate power driver interface for node {task.node.uuid}: {exc}"
        ) from None


def _check_inspectable(conductor: Conductor, task: Task) -> None:
    """As Ironic's: the power interface, then the inspect interface, each raising what its
    validate raises (for ``agent``: :func:`check_managed_inspection`)."""
    hardware.check_interface(task.node, "power")
    hardware.check_interface(task.node, "inspect")
    check_managed_inspection(conductor, task)


def check_managed_inspection(conductor: Conductor, task: Task) -> None:
    """An ``agent`` inspection needs the boot interface to boot the ramdisk (``boot.py``)
    and the network interface to put the node on its inspection network, as Ironic's
    default ``[inspector] require_managed_boot`` wants; any other inspect interface,
    nothing."""
    if hardware.interface_name(task.node, "inspect") != AGENT_INSPECT:
        return
    check_inspection_boot(task, conductor.config)
    conductor.network_interface(task.node).validate_inspection(task)


def _check_deployable(
    conductor: Conductor, task: Task, deploy_steps: tuple[dict[str, Any], ...]
) -> list[dict[str, Any]] | None:
    """Refuse (InstanceDeployFailure, 400) a deploy or rebuild the node's power or deploy
    interface cannot do, or whose deploy steps the node does not take, with its reason,
    before anything changes. The power interface is asked first, as by Ironic: its reason is
    the one given when both refuse. The deploy interface's checks include the boot
    interface's (``boot.py``); the deploy steps are checked last: those of the deploy
    templates the node's instance traits name, then those given with the verb. Returns the
    deploy steps the deploy runs (``steps.deploy_step_plan``, empty when all are disabled)
    if any came from either, else None."""
    try:
        hardware.check_interface(task.node, "power")
        check_deploy_and_boot(task, conductor.config, switched=True)
        from_templates = deploy_templates.checked_template_steps(task)
        given = check_deploy_steps(task.node, deploy_steps)
    except Invalid as exc:
        raise InstanceDeployFailure(
            f"Failed to validate deploy or power info for node {task.node.uuid}: {exc}"
        ) from None
    if not from_templates and not given:
        return None
    return deploy_step_plan(task.node, given, from_templates)


def _plan_entry(plan: list[dict[str, Any]]) -> HistoryEntry:
    """The history entry naming the deploy steps a deploy runs, in order, and where each
    came from (its arguments are not shown: they may hold secrets)."""
    shown = ", ".join(
        f"{step['interface']}.{step['step']} (priority {step['priority']}, {step['source']})"
        for step in plan
    )
    return HistoryEntry("provisioning", f"deploy steps: {shown or 'none enabled'}")


def _check_rescuable(conductor: Conductor, task: Task) -> None:
    """Refuse (InstanceRescueFailure, 400) a rescue the node's power interface, or its
    ``agent`` rescue interface, cannot do, before anything changes: the network interface
    must serve the rescue (a rescuing network for ``neutron``), the boot interface boot the
    deploy and the rescue ramdisk (``boot.py``); in Ironic's order."""
    try:
        hardware.check_interface(task.node, "power")
        if hardware.interface_name(task.node, "rescue") == AGENT_RESCUE:
            conductor.network_interface(task.node).validate_rescue(task)
        if rescue_checks_boot(task.node, conductor.config):
            check_rescue_boot(task, conductor.config)
    except Invalid as exc:
        raise InstanceRescueFailure(
            f"Failed to rescue instance {task.node.instance_uuid} for node "
            f"{task.node.uuid}: Validation failed: {exc}"
        ) from None


def _check_unrescuable(task: Task) -> None:
    """Refuse (InstanceUnrescueFailure, 400) an unrescue the node's power interface cannot
    do, before anything changes: Ironic validates only the power interface for it."""
    try:
        hardware.check_interface(task.node, "power")
    except Invalid as exc:
        raise InstanceUnrescueFailure(
            f"Failed to unrescue instance {task.node.instance_uuid} for node "
            f"{task.node.uuid}: Validation failed: {exc}"
        ) from None


def _run_steps(
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
    waiting: _Waiting | None = None
    failed_afterwards: _FailedAfterwards | None = None
    try:
        with task.savepoint():
            try:
                final = _steps(conductor, task, verb, options, source)
            except _Waiting as wait:  # the steps so far are kept
                waiting = wait
            except _FailedAfterwards as failure:  # so are the steps before it
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
        return _failed(conductor, task, verb, transition.failed, error), None
    if failed_afterwards is not None:
        late = failed_afterwards
        return _failed(conductor, task, verb, late.state, late.error, late.values), None
    if waiting is not None:
        _set_state(task, provision_state=waiting.state, **waiting.values)
        conductor.record_history(task, HistoryEntry("provisioning", _stop_event(verb, waiting)))
        stopped = waiting.stopped
        return waiting.state, stopped if stopped and stopped.resume_after is not None else None
    _set_state(task, provision_state=transition.target, target_provision_state=None, **final)
    conductor.record_history(
        task, HistoryEntry("provisioning", f"{verb} done: {transition.target}")
    )
    return transition.target, None


def _stop_event(verb: str, waiting: _Waiting) -> str:
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


def _failed(
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
    dropped = (
        {"instance_info": _without_rescue(task.node.instance_info)} if verb == "rescue" else {}
    )
    target = target_after_failure(state, task.node.target_provision_state)
    _set_state(
        task,
        provision_state=state,
        target_provision_state=target,
        last_error=error,
        **dropped,
        **(values or {}),
    )
    return state


def _failed_tear_down(conductor: Conductor, task: Task, error: str) -> str:
    """Leave a node whose tear-down failed in ``error`` without its instance, as Ironic's:
    the instance is deleted for its owner (Nova's delete ends), the node waits for the
    operator. Its VIF records go too, without a further call to the network (Ironic's detach
    of a node in ``error`` makes none): the instance's network ports are its owner's to
    delete, and a retried undeploy puts the node's own ports back as they were. One
    transaction: the node is never seen in ``error`` with its instance."""
    state = TRANSITIONS["deleted"].failed
    with task.atomic():
        _failed(conductor, task, "deleted", state, f"Failed to tear down: {error}")
        _forget_vifs(conductor, task)
        _set_state(task, **_NO_INSTANCE)
    return state


def _forget_vifs(conductor: Conductor, task: Task) -> None:
    """Remove the node's VIF records (the network was not undone), each in the history."""
    for vif_id in [attachment.vif_id for attachment in task.attachments]:
        task.attachments.remove(vif_id)
        event = f"VIF {vif_id} forgotten after the failed tear-down; its network not undone"
        conductor.record_history(task, HistoryEntry("vif", event, vif_id=vif_id))


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
            error = abort.by_request + ("" if at is None else _during(at[1]))
        else:  # timed out: at a user step, as that step's failure (Ironic's error handlers)
            error = reason + ("" if at is None else f" Failed on step {at[1]}.")
        failure = (
            {}
            if reason is None or at is None or kind is None
            else (_failure_fields(task, kind, error))
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
        _set_state(
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
    _set_state(task, **_power_after_abort(conductor, task, wait))
    if error is not None:
        return _failed(conductor, task, "inspect", wait.failed, error)
    target = TRANSITIONS["inspect"].target
    _set_state(task, provision_state=target, target_provision_state=None, last_error=None)
    conductor.record_history(task, HistoryEntry("provisioning", f"inspect done: {target}"))
    return target


def _undo_wait_network(conductor: Conductor, task: Task, abort: Abort) -> None:
    if abort.hook is None:
        return
    with task.savepoint(), power.powered_for_network(conductor, task):
        _run_hook(conductor, task, abort.hook)


def _power_after_abort(conductor: Conductor, task: Task, abort: Abort) -> dict[str, Any]:
    """As Ironic's end of an inspection: the node is powered off, or rebooted (left on) if
    its ``disable_power_off`` is set, or left on if ``[inspector] power_off`` is false."""
    if not abort.powers_off or not conductor.config.inspector.power_off:
        return {}
    if node_db.field_value(task.node, "disable_power_off"):
        return {}
    return {"power_state": hardware.POWER_OFF}
