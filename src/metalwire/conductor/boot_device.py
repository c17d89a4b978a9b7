"""A node's boot device: the devices its management interface offers, set and read.

As Ironic 39's conductor: setting and reading validate the management interface under the
node's lock (a BMC interface without its address is refused, 400); the list of supported
devices is read without a lock or a validation. Each implementation offers its own devices
(fake: pxe; noop: pxe and disk; ipmitool: pxe, disk, cdrom, bios, safe; redfish: pxe, disk,
cdrom, bios, uefihttp) and refuses any other one (400).

metalwire drives no BMC: for ``ipmitool`` and ``redfish`` the device set (and whether it
persists) is recorded on the node (``boot_device`` among its stored attributes, not a field)
and read back; a node whose device was never set answers ``null`` for both, as Ironic does
when the BMC does not say. ``fake`` and ``noop`` set nothing and answer what Ironic's answer
whatever was set: pxe, once (fake), or pxe, persistent (noop).
"""

from __future__ import annotations

from typing import Any

from metalwire.conductor import hardware
from metalwire.conductor.bmc import bmc_family
from metalwire.conductor.power import store
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node
from metalwire.errors import InvalidParameterValue, UnsupportedDriverExtension

PXE, DISK, CDROM, BIOS, SAFE, UEFIHTTP = "pxe", "disk", "cdrom", "bios", "safe", "uefihttp"

#: The devices each family of management interfaces can boot from, in Ironic's order.
SUPPORTED = {
    "fake": (PXE,),
    "noop": (PXE, DISK),
    "ipmitool": (PXE, DISK, CDROM, BIOS, SAFE),
    "redfish": (PXE, DISK, CDROM, BIOS, UEFIHTTP),
}

#: What the interfaces that talk to no BMC answer, whatever was set.
_FIXED = {
    "fake": {"boot_device": PXE, "persistent": False},
    "noop": {"boot_device": PXE, "persistent": True},
}

#: Where a BMC-driving interface's boot device is kept: {"boot_device", "persistent"}.
_RECORD = "boot_device"
_UNKNOWN: dict[str, Any] = {"boot_device": None, "persistent": None}


def management_family(node: Node) -> str:
    """The Ironic implementation the node's management interface is, or derives from
    (``intel-ipmitool`` is an ``ipmitool``, ``idrac-redfish`` a ``redfish``)."""
    return bmc_family(hardware.interface_name(node, "management"))


def _offered(node: Node, operation: str) -> tuple[str, ...]:
    devices = SUPPORTED.get(management_family(node))
    if devices is None:
        raise UnsupportedDriverExtension(node.driver, operation)
    return devices


def supported_boot_devices(conductor: Conductor, context: RequestContext, ident: str) -> list[str]:
    """The devices the node's management interface can boot from (no lock, no validation,
    as in Ironic)."""
    task = conductor.shared_task(ident, context)
    return list(_offered(task.node, "get_supported_boot_devices"))


def set_boot_device(
    conductor: Conductor, context: RequestContext, ident: str, device: str, persistent: bool
) -> None:
    """Set the device the node boots from next (or always, ``persistent``).

    Raises InvalidParameterValue (400) for a device the interface does not offer, what the
    management interface's validation raises (400), NodeLocked (409).
    """
    with conductor.exclusive_task(ident, context) as task:
        node = task.node
        hardware.check_interface(node, "management")
        devices = _offered(node, "set_boot_device")
        if device not in devices:
            raise InvalidParameterValue(
                f"Invalid boot device {device!r} for node {node.label}: its "
                f"{hardware.interface_name(node, 'management')} management interface offers "
                f"{', '.join(devices)}."
            )
        if management_family(node) not in _FIXED:
            store(task, {_RECORD: {"boot_device": device, "persistent": persistent}})
        how = "persistent" if persistent else "next boot only"
        conductor.record_history(
            task, HistoryEntry("management", f"boot device of {node.label} set to {device} ({how})")
        )


def get_boot_device(conductor: Conductor, context: RequestContext, ident: str) -> dict[str, Any]:
    """``{"boot_device", "persistent"}``: what was set, or ``null`` for both when unknown.

    Under the node's lock after the management interface's validation, as in Ironic (400
    when it cannot work, NodeLocked 409)."""
    with conductor.exclusive_task(ident, context) as task:
        node = task.node
        hardware.check_interface(node, "management")
        family = management_family(node)
        _offered(node, "get_boot_device")
        if family in _FIXED:
            return dict(_FIXED[family])
        return dict(node_db.field_value(node, _RECORD) or _UNKNOWN)
