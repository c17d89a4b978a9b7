"""A cleaning (automated, or manual with its steps) and a servicing.

An automated cleaning puts the node on its cleaning network and takes it off again. The user
steps a manual cleaning or a servicing names are checked against the steps the node's
interfaces offer (``conductor/steps.py``) once the verb is accepted, before the node's
network changes, a refusal failing the verb; they then run in order
(``conductor/step_runner.py``): the interfaces' steps change nothing, the steps the
conductor runs itself change the power, hold the node in ``clean hold`` / ``service hold``
until ``unhold``, or wait in ``clean wait`` / ``service wait`` (a timed wait goes on in the
verb's background thread, ``conductor/timed_waits.py``). A manual cleaning whose deploy
interface is ``direct`` waits in ``clean wait`` for an agent once its cleaning network is
set up. A step that fails ends the verb in its failed state, in maintenance, as Ironic's
cleaning and servicing error handlers leave it.
"""

from __future__ import annotations

from metalwire.conductor import power, step_runner
from metalwire.conductor.kept_steps import StepKind
from metalwire.conductor.node_moves import (
    FailedAfterwards,
    Waiting,
    failure_fields,
    run_hook,
    set_state,
    waits_for_agent,
)
from metalwire.conductor.provision_states import (
    ABORTS,
    CLEAN_WAIT,
    SERVICE_WAIT,
    TRANSITIONS,
    ProvisionOptions,
    during,
)
from metalwire.conductor.steps import check_clean_or_service_steps, needs_ramdisk
from metalwire.conductor.tasks import Conductor
from metalwire.config import ConductorOptions
from metalwire.db import nodes as node_db
from metalwire.db.models import Node
from metalwire.errors import MetalwireError, NodeLockLost
from metalwire.networking.task import Task


def cleans_automatically(options: ConductorOptions, node: Node) -> bool:
    """Whether providing or tearing down the node cleans it, as Ironic decides: the node's
    ``automated_clean`` when set (true or false), else ``[conductor] automated_clean``."""
    own = node_db.field_value(node, "automated_clean")
    return options.automated_clean if own is None else bool(own)


def clean(
    conductor: Conductor, task: Task, manual: ProvisionOptions | None = None, source: str = ""
) -> None:
    """A cleaning: automated, or ``manual`` with its steps, checked before the node's
    network changes, then run (``step_runner.py``) on the cleaning network. A manual
    cleaning that boots no ramdisk (``disable_ramdisk``, or only out-of-band steps) needs no
    cleaning network and waits for no agent, as Ironic's. From a hold or a wait state
    (``source``) the kept steps go on after the one the node stopped at."""
    if task.node.provision_state != "cleaning":  # an undeploy's cleaning
        set_state(task, provision_state="cleaning")
    if manual is None:
        with power.powered_for_network(conductor, task):
            run_hook(conductor, task, "add_cleaning_network")
        with power.powered_for_network(conductor, task):
            run_hook(conductor, task, "remove_cleaning_network")
        return
    if source in (step_runner.HOLD["clean"], CLEAN_WAIT):
        _resume_user_steps(conductor, task, "clean")
        return
    check_clean_or_service_steps("clean", task.node, manual.steps, manual.disable_ramdisk)
    no_ramdisk = manual.disable_ramdisk or not needs_ramdisk(task.node, manual.steps)
    step_runner.start(task, "clean", manual.steps, no_ramdisk)
    if not no_ramdisk:
        with power.powered_for_network(conductor, task):
            run_hook(conductor, task, "add_cleaning_network")
        if waits_for_agent(task):
            raise Waiting(CLEAN_WAIT)
    _run_user_steps(conductor, task, "clean", 0)


def service(conductor: Conductor, task: Task, options: ProvisionOptions, source: str) -> None:
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
        error = f"{abort.by_request}{during(step)}"
        _end_user_steps(conductor, task, kind)
        raise FailedAfterwards(TRANSITIONS[kind].failed, error)
    _run_user_steps(conductor, task, kind, index + 1)


def _run_user_steps(conductor: Conductor, task: Task, kind: StepKind, first: int) -> None:
    """Run the kept steps from ``first``: a hold or a wait stops them (:class:`Waiting`);
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
        fields = failure_fields(task, kind, error)
        raise FailedAfterwards(TRANSITIONS[kind].failed, error, fields) from None
    if stopped is not None:
        raise Waiting(stopped.state, stopped=stopped)
    _end_user_steps(conductor, task, kind)


def _end_user_steps(conductor: Conductor, task: Task, kind: StepKind) -> None:
    """Clear the kept steps and remove the cleaning network, if the cleaning set one up."""
    on_network = kind == "clean" and not step_runner.booted_no_ramdisk(task, kind)
    step_runner.finish(task, kind)
    if on_network:
        with power.powered_for_network(conductor, task):
            run_hook(conductor, task, "remove_cleaning_network")
