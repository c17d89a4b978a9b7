"""Virtual media: attach an image to a node's virtual CD, disk or floppy drive, detach it.

As Ironic 39's conductor: each operation validates the node's management interface under
the node's lock (a ``no-management`` interface, or a BMC interface without its address, is
refused at once, 400), then asks the interface. Only Ironic's ``redfish`` management
implements virtual media; every other interface (``fake``, ``ipmitool``, ...) refuses it, and
since Ironic runs the request after answering 204, that refusal is recorded in the node's
history and ``last_error``, not answered. metalwire runs it before answering, with the same
outcome: 204, and the failure recorded. It drives no BMC, so ``redfish`` records the
attached images on the node (``virtual_media`` among its stored attributes, not a field)
and lists them as Ironic's redfish interface lists a BMC's devices.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from metalwire.conductor import hardware
from metalwire.conductor.power import store
from metalwire.conductor.recorded import record_outcome
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.errors import UnsupportedDriverExtension
from metalwire.networking.task import Task
from metalwire.redact import without_userinfo

#: The device types virtual media can stand in for, as Ironic names them.
DEVICES = ("disk", "cdrom", "floppy")

#: The management implementations with virtual media (Ironic 39: redfish only).
_CAPABLE = frozenset({"redfish"})

#: Redfish's media type of each device type, as Ironic's redfish interface maps them.
_REDFISH_MEDIA_TYPES = {"cdrom": "CD", "disk": "USBStick", "floppy": "Floppy"}

#: URL schemes the BMC reads itself: the conductor cannot download them.
_BMC_ONLY_SCHEMES = frozenset({"nfs", "cifs", "smb"})

#: Where a redfish node's attached images are kept: device type -> image URL.
_RECORD = "virtual_media"


def _attached(task: Task) -> dict[str, str]:
    return dict(node_db.field_value(task.node, _RECORD) or {})


def _supports(task: Task) -> bool:
    return hardware.interface_name(task.node, "management") in _CAPABLE


def _unsupported(task: Task, operation: str) -> str | None:
    """Why the node's management interface cannot do ``operation``, or None if it can."""
    if _supports(task):
        return None
    return str(UnsupportedDriverExtension(task.node.driver, operation))


def _download_refusal(image_url: str, download_source: str) -> str | None:
    """Ironic's refusal, before the interface is asked, of an image its conductor would
    have to download (``local``) from where only the BMC can read it."""
    scheme = urlsplit(image_url).scheme.lower()
    if download_source == "local" and scheme in _BMC_ONLY_SCHEMES:
        return (
            f"image_download_source is local, but the image URL {image_url} uses {scheme}, "
            "which only the BMC can read; use image_download_source http."
        )
    return None


def attach(
    conductor: Conductor,
    context: RequestContext,
    ident: str,
    device_type: str,
    image_url: str,
    download_source: str = "local",
) -> None:
    """Attach ``image_url`` as the node's ``device_type`` (one of :data:`DEVICES`)."""
    shown_url = without_userinfo(image_url)  # no password in the history or on the node
    with conductor.exclusive_task(ident, context) as task:
        hardware.check_interface(task.node, "management")
        refusal = _download_refusal(shown_url, download_source) or _unsupported(
            task, "attach_virtual_media"
        )
        if refusal is None:
            store(task, {_RECORD: {**_attached(task), device_type: shown_url}})
        label = task.node.label
        record_outcome(
            conductor,
            task,
            done=f"Device {device_type} attached to node {label} from {shown_url}",
            failed=f"Could not attach device {device_type} to node {label}",
            refusal=refusal,
        )


def detach(
    conductor: Conductor, context: RequestContext, ident: str, device_types: list[str] | None
) -> None:
    """Detach the node's ``device_types`` (each of :data:`DEVICES`), or all of them."""
    with conductor.exclusive_task(ident, context) as task:
        hardware.check_interface(task.node, "management")
        named = ", ".join(device_types) if device_types else "all devices"
        refusal = _unsupported(task, "detach_virtual_media")
        if refusal is None:
            detached = set(device_types or DEVICES)
            kept = {d: url for d, url in _attached(task).items() if d not in detached}
            store(task, {_RECORD: kept})
        label = task.node.label
        record_outcome(
            conductor,
            task,
            done=f"Device(s) {named} detached from node {label}",
            failed=f"Could not detach device(s) {named} from node {label}",
            refusal=refusal,
        )


def listed(conductor: Conductor, context: RequestContext, ident: str) -> list[dict[str, Any]]:
    """The node's virtual media devices; UnsupportedDriverExtension (400) for a management
    interface without virtual media, as Ironic answers at once."""
    task = conductor.shared_task(ident, context)
    hardware.check_interface(task.node, "management")
    if not _supports(task):
        raise UnsupportedDriverExtension(task.node.driver, "get_virtual_media")
    attached = _attached(task)
    return [
        {
            "media_types": [_REDFISH_MEDIA_TYPES[device]],
            "inserted": device in attached,
            "image": attached.get(device, ""),
        }
        for device in DEVICES
    ]
