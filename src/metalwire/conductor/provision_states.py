"""The provision state machine's table: the states each verb leaves from, where it lands when
it succeeds or fails, the wait states a verb can stop in and where leaving them by ``abort``
or by a call-back timeout lands, and what a provision request carries besides its verb.

A deploy whose deploy interface is ``direct`` stops in ``wait call-back``, a manual cleaning
in ``clean wait``, an ``agent`` inspection in ``inspect wait``; a cleaning's or a servicing's
``hold`` step stops it in ``clean hold`` / ``service hold``, its ``wait`` step in ``clean
wait`` / ``service wait`` (``conductor/step_runner.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from metalwire.conductor import step_runner


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
    # cleaning or servicing ends (see provisioning.py: _unhold).
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


def during(step: dict[str, Any]) -> str:
    """What an abort's ``last_error`` adds when a step was under way, as Ironic's."""
    return f' during or after the completion of step "{step_runner.step_name(step)}"'


@dataclass(frozen=True)
class ProvisionOptions:
    """What a provision request carries besides its verb (checked by the API)."""

    configdrive: str | dict[str, Any] | None = None
    rescue_password: str | None = None
    #: the verb's user steps: a manual cleaning's, a servicing's, a deploy's (their shape
    #: checked; whether the node offers them, ``conductor/steps.py``)
    steps: tuple[dict[str, Any], ...] = ()
    disable_ramdisk: bool = False
