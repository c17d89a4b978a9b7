"""The provision verbs (``PUT /v1/nodes/{node}/states/provision``): a fake deploy, clean,
inspect, rescue and service that touch no hardware, through the state machine of
``conductor/provision_states.py``.

A verb is accepted once its checks passed (``conductor/verb_checks.py``) and the node shows
the verb's transient state (``deploying``, ``cleaning``, ...). On a node whose network
interface calls an external service (a lease held across short transactions) the request is
answered then, and the steps (``conductor/verb_steps.py``) go on in the background
(``conductor/background.py``); on any other node the verb is one transaction, answered when
it is done. A hook that fails leaves the node in the matching failed state with
``last_error`` set.

Most verbs run to completion. A verb that stops in a wait state stays there until its
ramdisk reports (an inspection, ``conductor/inspection.py``), until ``abort``
(``conductor/aborts.py``), or until ``[conductor] deploy_callback_timeout`` /
``clean_callback_timeout`` / ``inspect_wait_timeout`` fail it (``callback_timeouts.py``); a
cleaning's or a servicing's timed ``wait`` step goes on by itself
(``conductor/timed_waits.py``), a ``hold`` step with ``unhold``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from metalwire import metrics
from metalwire.conductor import hardware, step_runner
from metalwire.conductor.aborts import abort_wait
from metalwire.conductor.clean_and_service import cleans_automatically
from metalwire.conductor.kept_steps import RUNNING
from metalwire.conductor.node_moves import set_state
from metalwire.conductor.provision_states import HOLDS, TRANSITIONS, ProvisionOptions
from metalwire.conductor.step_runner import Stopped
from metalwire.conductor.tasks import Conductor
from metalwire.conductor.timed_waits import sleep, wait_and_go_on
from metalwire.conductor.verb_checks import (
    check_deployable,
    check_inspectable,
    check_rescuable,
    check_unrescuable,
    plan_entry,
)
from metalwire.conductor.verb_steps import run_steps
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db.history import HistoryEntry
from metalwire.errors import InvalidStateRequested, NodeProtected

# Verbs a node in maintenance refuses (Ironic's NodeInMaintenance, 400). An undeploy is not
# among them: the instance of a node taken out of service must still be deletable. Nor is
# provide, which Ironic allows by default ([conductor] allow_provisioning_in_maintenance).
_NOT_IN_MAINTENANCE = frozenset({"active", "rebuild", "clean", "rescue", "unrescue"})
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
        wait_and_go_on(conductor, context, ident, timed, accepted, pause or sleep)
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
        if verb == "provide" and node_db.field_value(node, "retired"):
            raise InvalidStateRequested(
                f'Node {node.label} is retired; "provide" is not allowed (unset retired first).'
            )
        if verb in ("rebuild", "deleted") and node_db.field_value(node, "protected"):
            raise NodeProtected(
                f"Node {node.label} is protected and cannot be "
                f"{'rebuilt' if verb == 'rebuild' else 'undeployed'}; unset 'protected' first."
            )
        plan: list[dict[str, Any]] | None = None
        if verb in ("active", "rebuild"):
            plan = check_deployable(conductor, task, options.steps)
            conductor.network_interface(node).validate(task)
        if verb in ("rescue", "unrescue"):
            hardware.check_interface(node, "rescue")
        if verb == "rescue":
            check_rescuable(conductor, task)
        if verb == "unrescue":
            check_unrescuable(task)
        if verb == "inspect":
            check_inspectable(conductor, task)
        source = node.provision_state
        started = f"{verb} started from {source}"
        conductor.record_history(task, HistoryEntry("provisioning", started))
        if plan is not None:
            conductor.record_history(task, plan_entry(plan))
        clean = cleans_automatically(conductor.config.conductor, node)
        transient = _TRANSIENT.get(verb) if verb != "provide" or clean else None
        shown = {} if transient is None else {"provision_state": transient}
        set_state(task, target_provision_state=transition.target, last_error=None, **shown)
        if not task.in_one_transaction:
            accepted()
        begun = time.monotonic()
        interface = node.network_interface
        state, timed = run_steps(conductor, task, verb, transition, options, source)
    # Counted once committed: a verb run again after a conflict at its commit counts once.
    if conductor.config.metrics.enabled:
        metrics.provision_ended(verb, interface, state, time.monotonic() - begun)
    wait_and_go_on(conductor, context, ident, timed, accepted, pause or sleep)


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
        set_state(task, provision_state=RUNNING[kind], last_error=None)
        if not task.in_one_transaction:
            accepted()
        begun = time.monotonic()
        interface = node.network_interface
        state, timed = run_steps(
            conductor, task, kind, TRANSITIONS[kind], ProvisionOptions(), source
        )
    if conductor.config.metrics.enabled:
        metrics.provision_ended("unhold", interface, state, time.monotonic() - begun)
    return timed
