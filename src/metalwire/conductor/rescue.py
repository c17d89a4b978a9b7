"""A rescue and an unrescue: the ``fake`` rescue interface's change states only, the
``agent`` one's move the node between its tenant and rescuing networks, as Ironic's."""

from __future__ import annotations

import hashlib
from typing import Any

from metalwire.conductor import hardware, power
from metalwire.conductor.boot import AGENT_RESCUE
from metalwire.conductor.node_moves import FailedAfterwards, run_hook, without_rescue
from metalwire.conductor.provision_states import TRANSITIONS, ProvisionOptions
from metalwire.conductor.tasks import Conductor
from metalwire.db import nodes as node_db
from metalwire.errors import MetalwireError, NodeLockLost
from metalwire.networking.task import Task


def rescue_steps(
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
    info = without_rescue(task.node.instance_info)
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
            run_hook(conductor, task, "unconfigure_tenant_networks")
            run_hook(conductor, task, "add_rescuing_network")
    try:
        with power.powered_for_network(conductor, task):
            run_hook(conductor, task, "remove_rescuing_network")
            run_hook(conductor, task, "configure_tenant_networks")
    except NodeLockLost:
        raise
    except MetalwireError as exc:
        if verb != "rescue":
            raise
        error = _clean_up_failed_rescue(conductor, task, str(exc))
        raise FailedAfterwards(TRANSITIONS["rescue"].failed, error) from None


def _clean_up_failed_rescue(conductor: Conductor, task: Task, error: str) -> str:
    """What Ironic's rescue error handler does to a rescue that failed once its ramdisk was
    up: power the node off, then the ``agent`` rescue interface's clean-up, which removes
    the rescuing network (the rescue password goes with the failed state, ``node_moves.fail``).
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
            run_hook(conductor, task, "remove_rescuing_network")
    except NodeLockLost:
        raise
    except MetalwireError as exc:
        return f"{error}; cleaning up after it failed too: {exc}"
    return error
