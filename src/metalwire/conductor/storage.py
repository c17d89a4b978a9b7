"""What a node's storage interface checks in ``validate``, as Ironic's implementations do.

``noop`` (and ``fake``) check nothing. ``cinder`` checks that the node's volume connectors
and volume targets fit each other and the node: an iSCSI connector needs an iPXE-capable boot
interface, FC connectors come in WWPN/WWNN pairs, a boot capability (``iscsi_boot``,
``fibre_channel_boot`` in ``properties/capabilities``) needs a connector of its kind, and each
target needs a connector of its kind, the boot capability if it is the boot volume, and a
known volume type. ``external`` only checks that a node booting from a volume (a target with
boot index 0 and no ``instance_info/image_source``) has an iPXE-capable boot interface.
Nova's ironic driver refuses to deploy a node whose storage interface fails these checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from metalwire.conductor.hardware import interface_name
from metalwire.db.models import Node, VolumeConnector, VolumeTarget
from metalwire.errors import InvalidParameterValue
from metalwire.networking.task import Task

#: The boot interfaces that can boot from an iSCSI volume over the network.
IPXE_BOOT_INTERFACES = frozenset({"fake", "ipxe", "http-ipxe"})
ISCSI_CONNECTOR_TYPES = frozenset({"iqn"})
#: A volume type -> the node capability that lets it boot from such a volume, and the
#: connector types that reach it.
_BOOT_CAPABILITY = {"iscsi": "iscsi_boot", "fibre_channel": "fibre_channel_boot"}
_CONNECTOR_KINDS = {"iscsi": "iqn", "fibre_channel": "wwpn/wwnn"}
_TRUE = frozenset({"1", "t", "true", "on", "y", "yes"})


@dataclass(frozen=True)
class Volumes:
    connectors: Sequence[VolumeConnector]
    targets: Sequence[VolumeTarget]


def node_capability(node: Node, name: str) -> bool:
    """Whether ``properties/capabilities`` (``key:value,...``) sets ``name`` to a true value."""
    capabilities = node.properties.get("capabilities")
    if not isinstance(capabilities, str):
        return False
    for item in capabilities.split(","):
        key, _, value = item.partition(":")
        if key.strip() == name and value.strip():
            return value.strip().lower() in _TRUE
    return False


def check_storage(task: Task) -> None:
    """Raise InvalidParameterValue naming what the node's storage interface refuses."""
    storage_interface = interface_name(task.node, "storage")
    boot_interface = interface_name(task.node, "boot")
    if storage_interface not in ("cinder", "external"):
        return
    with task.reading() as work:
        volumes = Volumes(
            work.volume_connectors.on_node(task.node.id),
            work.volume_targets.on_node(task.node.id),
        )
    if storage_interface == "cinder":
        _check_cinder(task.node, volumes, boot_interface in IPXE_BOOT_INTERFACES)
    elif _boots_from_volume(task.node, volumes) and boot_interface not in IPXE_BOOT_INTERFACES:
        _fail(
            task.node,
            "external",
            "booting from a volume over the network needs an iPXE boot interface "
            f"(ipxe, http-ipxe), not {boot_interface}.",
        )


def boots_from_volume(task: Task) -> bool:
    """Whether the node's storage interface boots it from a volume, so that no image is
    written (Ironic's ``should_write_image`` answering False): only ``cinder`` and
    ``external`` do, for a node with a boot volume and no ``instance_info/image_source``."""
    if interface_name(task.node, "storage") not in ("cinder", "external"):
        return False
    with task.reading() as work:
        targets = work.volume_targets.on_node(task.node.id)
    return _boots_from_volume(task.node, Volumes((), targets))


def _boots_from_volume(node: Node, volumes: Volumes) -> bool:
    return "image_source" not in node.instance_info and any(
        t.boot_index == 0 for t in volumes.targets
    )


def _fail(node: Node, storage_interface: str, reason: str) -> None:
    raise InvalidParameterValue(
        f"Node {node.uuid}: the {storage_interface} storage interface refuses its "
        f"configuration: {reason}"
    )


def _check_cinder(node: Node, volumes: Volumes, ipxe_boot: bool) -> None:
    iscsi = [c for c in volumes.connectors if c.type in ISCSI_CONNECTOR_TYPES]
    wwpns = sum(1 for c in volumes.connectors if c.type == "wwpn")
    wwnns = sum(1 for c in volumes.connectors if c.type == "wwnn")
    if iscsi and not ipxe_boot:
        _fail(
            node,
            "cinder",
            f"iSCSI connector {iscsi[0].uuid} needs an iPXE boot interface (ipxe, http-ipxe) "
            "to boot from an iSCSI volume.",
        )
    if wwpns != wwnns:
        _fail(
            node,
            "cinder",
            "Fibre Channel needs one wwnn connector for each wwpn connector; the node has "
            f"{wwpns} wwpn and {wwnns} wwnn.",
        )
    found = {"iscsi": bool(iscsi), "fibre_channel": wwpns > 0}
    capable = {kind: node_capability(node, name) for kind, name in _BOOT_CAPABILITY.items()}
    for volume_type, capability in _BOOT_CAPABILITY.items():
        if capable[volume_type] and not found[volume_type]:
            _fail(
                node,
                "cinder",
                f"the {capability} capability needs a volume connector of type "
                f"{_CONNECTOR_KINDS[volume_type]}.",
            )
    for target in volumes.targets:
        _check_cinder_target(node, target, found, capable)


def _check_cinder_target(
    node: Node, target: VolumeTarget, found: dict[str, bool], capable: dict[str, bool]
) -> None:
    volume_type = target.volume_type
    if volume_type not in _BOOT_CAPABILITY:
        _fail(
            node,
            "cinder",
            f"volume target {target.uuid} has the volume type {volume_type!r}; the known "
            "types are 'iscsi' and 'fibre_channel'.",
        )
    if target.boot_index == 0 and not capable[volume_type]:
        _fail(
            node,
            "cinder",
            f"volume target {target.uuid} is the {volume_type} boot volume, but the node's "
            f"properties/capabilities do not set {_BOOT_CAPABILITY[volume_type]}:true.",
        )
    if not found[volume_type]:
        _fail(
            node,
            "cinder",
            f"volume target {target.uuid} is of volume type {volume_type}, but the node has "
            f"no volume connector of type {_CONNECTOR_KINDS[volume_type]}.",
        )
