"""The checks a provision verb passes before anything changes, as Ironic's conductor makes
them: a deploy's (power, deploy and boot interfaces, deploy steps), a rescue's and an
unrescue's, the power check of ``manage`` from ``enroll`` and an inspection's."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from metalwire.conductor import deploy_templates, hardware
from metalwire.conductor.boot import (
    AGENT_RESCUE,
    check_deploy_and_boot,
    check_inspection_boot,
    check_rescue_boot,
    rescue_checks_boot,
)
from metalwire.conductor.provision_states import AGENT_INSPECT
from metalwire.conductor.steps import check_deploy_steps, deploy_step_plan
from metalwire.conductor.tasks import Conductor
from metalwire.db.history import HistoryEntry
from metalwire.errors import (
    InstanceDeployFailure,
    InstanceRescueFailure,
    InstanceUnrescueFailure,
    Invalid,
    InvalidParameterValue,
    MetalwireError,
)
from metalwire.networking.task import Task


def check_deployable(
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


def plan_entry(plan: list[dict[str, Any]]) -> HistoryEntry:
    """The history entry naming the deploy steps a deploy runs, in order, and where each
    came from (its arguments are not shown: they may hold secrets)."""
    shown = ", ".join(
        f"{step['interface']}.{step['step']} (priority {step['priority']}, {step['source']})"
        for step in plan
    )
    return HistoryEntry("provisioning", f"deploy steps: {shown or 'none enabled'}")


def check_rescuable(conductor: Conductor, task: Task) -> None:
    """Refuse (InstanceRescueFailure, 400) a rescue the node's power interface, or its
    ``agent`` rescue interface, cannot do, before anything changes: the network interface
    must serve the rescue (a rescuing network for ``neutron``), the boot interface boot the
    deploy and the rescue ramdisk (``boot.py``); in Ironic's order."""
    with _refused_as(InstanceRescueFailure, "rescue", task):
        hardware.check_interface(task.node, "power")
        if hardware.interface_name(task.node, "rescue") == AGENT_RESCUE:
            conductor.network_interface(task.node).validate_rescue(task)
        if rescue_checks_boot(task.node, conductor.config):
            check_rescue_boot(task, conductor.config)


def check_unrescuable(task: Task) -> None:
    """Refuse (InstanceUnrescueFailure, 400) an unrescue the node's power interface cannot
    do, before anything changes: Ironic validates only the power interface for it."""
    with _refused_as(InstanceUnrescueFailure, "unrescue", task):
        hardware.check_interface(task.node, "power")


@contextlib.contextmanager
def _refused_as(failure: type[MetalwireError], verb: str, task: Task) -> Iterator[None]:
    """A check's Invalid raised as ``failure``, in Ironic's words for a refused ``verb``."""
    try:
        yield
    except Invalid as exc:
        raise failure(
            f"Failed to {verb} instance {task.node.instance_uuid} for node "
            f"{task.node.uuid}: Validation failed: {exc}"
        ) from None


def verify_power(task: Task) -> None:
    """A node leaves ``enroll`` only if its power interface can work, as Ironic's verify
    step decides (InvalidParameterValue naming the reason: the node goes back to ``enroll``
    with it as ``last_error``)."""
    try:
        hardware.check_interface(task.node, "power")
    except Invalid as exc:
        raise InvalidParameterValue(
            f"Failed to validate power driver interface for node {task.node.uuid}: {exc}"
        ) from None


def check_inspectable(conductor: Conductor, task: Task) -> None:
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
