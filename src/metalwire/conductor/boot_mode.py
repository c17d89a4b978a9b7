"""A node's boot mode (``uefi`` or ``bios``) and secure boot, changed on request (API 1.76).

As Ironic 39: the change is refused (409) while the node is in a transient provision state;
the management interface is validated under the node's lock (400 when it cannot work) and
``last_error`` cleared; then the interface is asked, and since Ironic asks it after answering
202, what it refuses lands in ``last_error`` rather than in the answer. metalwire asks it
before answering, with the same outcome for the client, and records it in the history.

Only Redfish management changes either (``redfish`` and ``idrac-redfish``); the others
(``fake``, ``ipmitool``, ``noop``) refuse, as Ironic's do. metalwire drives no BMC: the
change is recorded in the node's ``boot_mode`` / ``secure_boot`` fields, and what they hold
is what the BMC is taken to report. A change to what the node already has does nothing.
Secure boot needs UEFI: enabling or disabling it on a node recorded in ``bios`` mode is
refused, as Ironic's Redfish interface refuses it.
"""

from __future__ import annotations

from typing import Any

from metalwire.conductor import hardware
from metalwire.conductor.boot_device import management_family
from metalwire.conductor.power import store
from metalwire.conductor.recorded import record_outcome
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.errors import InvalidState, UnsupportedDriverExtension
from metalwire.networking.task import Task

UEFI, LEGACY_BIOS = "uefi", "bios"
BOOT_MODES = (LEGACY_BIOS, UEFI)

#: Provision states a node leaves by itself (Ironic's UNSTABLE_STATES): no change then.
TRANSIENT_STATES = frozenset(
    {
        "deploying",
        "wait call-back",
        "cleaning",
        "clean wait",
        "verifying",
        "deleting",
        "inspecting",
        "inspect wait",
        "adopting",
        "rescuing",
        "rescue wait",
        "unrescuing",
        "servicing",
        "service wait",
    }
)

_CAPABLE = frozenset({"redfish"})


def _begin(task: Task, what: str) -> None:
    """Ironic's checks before the change: a stable provision state, a management interface
    that can work; then the node's previous error is cleared."""
    node = task.node
    if node.provision_state in TRANSIENT_STATES:
        raise InvalidState(
            f"Node {node.label} is {node.provision_state}, a state it leaves by itself; "
            f"its {what} is not changed meanwhile. Try again once it is stable."
        )
    hardware.check_interface(node, "management")
    store(task, {"last_error": None})


def _refusal(task: Task, operation: str) -> str | None:
    if management_family(task.node) in _CAPABLE:
        return None
    return str(UnsupportedDriverExtension(task.node.driver, operation))


def _change(
    conductor: Conductor, task: Task, field: str, target: Any, shown: str, refusal: str | None
) -> None:
    label = task.node.label
    if refusal is None and node_db.field_value(task.node, field) == target:
        return  # already so: Ironic's conductor changes nothing
    if refusal is None:
        store(task, {field: target})
    record_outcome(
        conductor,
        task,
        done=f"{shown} of node {label} set to {target}",
        failed=f"Could not set the {shown} of node {label} to {target}",
        refusal=refusal,
    )


def change_boot_mode(conductor: Conductor, context: RequestContext, ident: str, mode: str) -> None:
    """Change the node's boot mode to ``mode`` (one of :data:`BOOT_MODES`).

    Raises InvalidState (409) in a transient state, what the management interface's
    validation raises (400), NodeLocked (409); the interface's refusal is recorded."""
    with conductor.exclusive_task(ident, context) as task:
        _begin(task, "boot mode")
        refusal = _refusal(task, "set_boot_mode")
        _change(conductor, task, "boot_mode", mode, "boot mode", refusal)


def change_secure_boot(
    conductor: Conductor, context: RequestContext, ident: str, enabled: bool
) -> None:
    """Turn the node's secure boot on or off; errors as :func:`change_boot_mode`'s."""
    with conductor.exclusive_task(ident, context) as task:
        _begin(task, "secure boot")
        refusal = _refusal(task, "set_secure_boot_state")
        current = node_db.field_value(task.node, "secure_boot")
        if (
            refusal is None
            and current != enabled
            and node_db.field_value(task.node, "boot_mode") == LEGACY_BIOS
        ):
            refusal = f"secure boot needs UEFI, and node {task.node.uuid} boots in bios mode"
        _change(conductor, task, "secure_boot", enabled, "secure boot", refusal)
