"""What a node's boot interface checks in ``validate``, before a deploy and before a rescue,
as Ironic 39's do.

The network-booting interfaces (``pxe``, ``ipxe``, ``http``, ``http-ipxe``) need:

- a port (the MAC addresses the DHCP server answers);
- for ``ipxe`` and ``http-ipxe`` (and for any of them under the ``anaconda`` deploy):
  ``[deploy] http_url`` and ``[deploy] http_root``;
- valid deploy capabilities (``boot_mode``, ``secure_boot``, ``disk_label``), and not both
  ``instance_info/image_source`` and ``instance_info/boot_iso``;
- the agent ramdisk: ``driver_info/deploy_kernel`` and ``deploy_ramdisk``, else ``[conductor]
  deploy_kernel_by_arch`` and ``deploy_ramdisk_by_arch`` for the node's ``cpu_arch``, else
  ``[conductor] deploy_kernel`` and ``deploy_ramdisk``. A ``ramdisk`` deploy boots no agent,
  and needs none unless the node is cleaned after its undeploy.

The virtual media interfaces (``redfish-virtual-media``, ``redfish-https``,
``idrac-redfish-virtual-media``) need the agent ramdisk too (``driver_info/deploy_iso`` will
do instead of a kernel and a ramdisk; the rescue ones while the node is being rescued), and
the Redfish BMC's ``driver_info`` (``bmc.py``). ``redfish-https`` also asks the BMC whether it
can boot over UEFI HTTP, which metalwire, driving no BMC, does not.

Both check the instance's images only when the boot interface boots the instance itself (a
``ramdisk`` or ``anaconda`` deploy, which boot no local disk) and no volume is booted: a
``boot_iso``, else the instance's ``kernel`` and ``ramdisk`` (for ``anaconda`` with its
``image_source``; for ``ramdisk`` an ``image_source`` will do), unless the image is a whole disk
one (``_boots_whole_disk``). metalwire has no image service: a Glance image is taken as named,
its properties unchecked, and a ``boot_iso`` is not read.

A rescue (the ``agent`` rescue interface) checks the boot as a deploy does, then the rescue
ramdisk: ``driver_info/rescue_kernel`` and ``rescue_ramdisk``, else the ``[conductor]
rescue_*_by_arch`` pair for the node's ``cpu_arch``, else ``[conductor] rescue_kernel`` and
``rescue_ramdisk`` (virtual media: or ``driver_info/rescue_iso``);
``fake`` and ``redfish-https`` cannot boot one. ``fake`` boots check nothing else.

An ``agent`` inspection boots the deploy ramdisk, and its checks are those of that boot
without the instance (Ironic's ``validate_inspection``): a network boot's port, HTTP server,
capabilities and ramdisk, what is missing said to be "Insufficient information provided for
managed inspection"; a virtual media boot's ISO or ramdisk and BMC. ``fake`` cannot boot it.
"""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

from metalwire.conductor.bmc import check_bmc_driver_info
from metalwire.conductor.clean_and_service import cleans_automatically
from metalwire.conductor.deploy import (
    RAMDISK_DEPLOY,
    check_capabilities,
    check_deploy,
    check_ramdisk_boot,
    checked_deploy_interface,
    is_glance_image,
)
from metalwire.conductor.hardware import interface_name
from metalwire.conductor.storage import boots_from_volume
from metalwire.config import Config
from metalwire.db.models import Node
from metalwire.errors import (
    InvalidParameterValue,
    MissingParameterValue,
    UnsupportedDriverExtension,
)
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)

#: The boot interfaces that boot the node over its network, and those of them that use iPXE.
NETWORK_BOOTS = ("pxe", "ipxe", "http", "http-ipxe")
IPXE_BOOTS = ("ipxe", "http-ipxe")
#: The boot interfaces that insert an ISO through the Redfish BMC.
VIRTUAL_MEDIA_BOOTS = ("redfish-virtual-media", "redfish-https", "idrac-redfish-virtual-media")
#: Those of them that can boot the rescue ramdisk (``redfish-https`` cannot, nor can ``fake``).
RESCUE_VIRTUAL_MEDIA_BOOTS = ("redfish-virtual-media", "idrac-redfish-virtual-media")
#: The deploy interfaces whose ``validate`` starts with the boot interface's, and those of them
#: that skip it when ``[agent] manage_agent_boot`` is off.
BOOT_VALIDATING_DEPLOYS = (
    "anaconda",
    "ansible",
    "bootc",
    "custom-agent",
    "direct",
    "ramdisk",
)
AGENT_BOOT_DEPLOYS = ("bootc", "custom-agent", "direct")
#: The deploy interfaces that make the boot interface boot the instance (Ironic's boot
#: option: ``kickstart`` and ``ramdisk``; any other boots the node's disk, ``local``).
KICKSTART_DEPLOY = "anaconda"
#: The ``instance_info/image_type`` of an image that is not a whole disk.
PARTITION_IMAGE = "partition"
#: The rescue interface that boots the rescue ramdisk through the boot interface.
AGENT_RESCUE = "agent"
#: The provision states in which the virtual media boot boots the rescue ramdisk.
RESCUE_STATES = ("rescuing", "rescue wait", "rescue failed", "unrescuing", "unrescue failed")


class _Boot(NamedTuple):
    """What one check of a node's boot reads: the node, its boot interface's name, the
    configuration and Ironic's boot option (``local``, ``ramdisk`` or ``kickstart``: whether
    the boot interface boots the instance itself, and how)."""

    node: Node
    name: str
    config: Config
    option: str


def check_boot(task: Task, config: Config, deploy_interface: str | None = None) -> None:
    """Raise MissingParameterValue or InvalidParameterValue naming what the node's boot
    interface lacks to boot the deploy ramdisk and the instance. ``deploy_interface`` is the
    one the deploy runs with, when it is not the node's (``autodetect`` switched)."""
    boot = _boot(task.node, config, deploy_interface)
    if boot.name in NETWORK_BOOTS:
        _check_network_boot(task, boot)
    elif boot.name in VIRTUAL_MEDIA_BOOTS:
        _check_virtual_media_boot(task, boot)


def check_deploy_and_boot(task: Task, config: Config, switched: bool = False) -> None:
    """The deploy interface's whole ``validate``: a ramdisk deploy's boot interface can boot
    a ramdisk, then the boot interface's checks (if the deploy interface makes them), then
    the deploy interface's own (``deploy.py``). ``switched``: as a deploy checks them, once
    ``autodetect`` switched to the interface it detects (``validate`` checks them before)."""
    detected = checked_deploy_interface(task.node)
    if detected == RAMDISK_DEPLOY:
        check_ramdisk_boot(task.node)
    if deploy_checks_boot(task.node, config):
        check_boot(task, config, detected if switched else None)
    check_deploy(task)


def check_rescue_boot(task: Task, config: Config) -> None:
    """The boot interface's checks for a rescue of a deployed node (deployed with the
    interface ``autodetect`` switched to): its deploy checks, then the rescue ramdisk;
    UnsupportedDriverExtension for a boot interface that cannot boot one."""
    detected = checked_deploy_interface(task.node)
    check_boot(task, config, detected)
    boot = _boot(task.node, config, detected)
    if boot.name in NETWORK_BOOTS:
        _check_agent_ramdisk(boot, "rescue")
    elif boot.name in RESCUE_VIRTUAL_MEDIA_BOOTS:
        _check_virtual_media_ramdisk(boot, _virtual_media_mode(boot.node))
    else:
        raise UnsupportedDriverExtension(boot.node.driver, "validate_rescue")


def check_inspection_boot(task: Task, config: Config) -> None:
    """The boot interface's checks before an ``agent`` inspection: what booting the deploy
    ramdisk needs; UnsupportedDriverExtension for a boot interface that cannot boot it."""
    boot = _boot(task.node, config, None)
    if boot.name in NETWORK_BOOTS:
        try:
            _check_ramdisk_network_boot(task, boot)
        except MissingParameterValue as exc:
            raise InvalidParameterValue(
                f"Insufficient information provided for managed inspection: {exc}"
            ) from None
    elif boot.name in VIRTUAL_MEDIA_BOOTS:
        _check_virtual_media_ramdisk(boot, "deploy")
    else:
        raise UnsupportedDriverExtension(task.node.driver, "validate_inspection")


def deploy_checks_boot(node: Node, config: Config) -> bool:
    """Whether the node's deploy interface (``autodetect``: the one it would switch to)
    validates its boot interface first."""
    deploy = checked_deploy_interface(node)
    if deploy in AGENT_BOOT_DEPLOYS:
        return config.agent.manage_agent_boot
    return deploy in BOOT_VALIDATING_DEPLOYS


def rescue_checks_boot(node: Node, config: Config) -> bool:
    """Whether the node's rescue interface validates its boot interface (``agent`` does)."""
    return interface_name(node, "rescue") == AGENT_RESCUE and config.agent.manage_agent_boot


def _boot(node: Node, config: Config, deploy_interface: str | None) -> _Boot:
    deploy = deploy_interface or interface_name(node, "deploy")
    option = {KICKSTART_DEPLOY: "kickstart", RAMDISK_DEPLOY: "ramdisk"}.get(deploy, "local")
    return _Boot(node, interface_name(node, "boot"), config, option)


def _check_network_boot(task: Task, boot: _Boot) -> None:
    _check_ramdisk_network_boot(task, boot)
    _check_instance_images(task, boot)


def _check_ramdisk_network_boot(task: Task, boot: _Boot) -> None:
    """What a network boot of the deploy ramdisk needs: a port, the HTTP server for iPXE (or
    a kickstart deploy), valid capabilities, the ramdisk's kernel and initramfs."""
    node = boot.node
    if not task.ports:
        raise MissingParameterValue(
            f"Node {node.uuid}: the {boot.name} boot interface needs a port to boot from; "
            "the node has none."
        )
    if boot.name in IPXE_BOOTS or boot.option == "kickstart":
        _check_http_server(boot)
    check_capabilities(node)
    info = node.instance_info
    if info.get("image_source") and info.get("boot_iso"):
        raise _image_source_and_boot_iso(node)
    _check_agent_ramdisk(boot, "deploy")


def _check_virtual_media_boot(task: Task, boot: _Boot) -> None:
    _check_virtual_media_ramdisk(boot, _virtual_media_mode(boot.node))
    _check_instance_images(task, boot)


def _check_http_server(boot: _Boot) -> None:
    missing = [
        f"[deploy] {option}"
        for option in ("http_url", "http_root")
        if not getattr(boot.config.deploy, option)
    ]
    if missing:
        why = (
            f"the {boot.name} boot interface" if boot.name in IPXE_BOOTS else "the anaconda deploy"
        )
        raise MissingParameterValue(
            f"Node {boot.node.uuid}: {why} needs the conductor's HTTP server, and "
            f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set."
        )


def _check_virtual_media_ramdisk(boot: _Boot, mode: str) -> None:
    """An ISO (``<mode>_iso``, or its old ``redfish_<mode>_iso``) or a kernel and a ramdisk,
    then the Redfish BMC's ``driver_info``."""
    if not _agent_iso(boot.node, mode):
        _check_agent_ramdisk(boot, mode, iso_instead=True)
    check_bmc_driver_info(boot.node, "redfish", "boot")


def _agent_iso(node: Node, mode: str) -> Any:
    info = node.driver_info
    return info.get(f"{mode}_iso") or info.get(f"redfish_{mode}_iso")


def _virtual_media_mode(node: Node) -> str:
    return "rescue" if node.provision_state in RESCUE_STATES else "deploy"


def _check_agent_ramdisk(boot: _Boot, mode: str, iso_instead: bool = False) -> None:
    """The ``mode`` (``deploy`` or ``rescue``) ramdisk's kernel and ramdisk, looked for as
    Ironic does: the node's ``driver_info``, then ``[conductor] <mode>_kernel_by_arch`` and
    ``<mode>_ramdisk_by_arch`` for its ``properties/cpu_arch``, then ``[conductor]
    <mode>_kernel`` and ``<mode>_ramdisk``. A place holding only one of the pair does not
    count (logged, or refused under ``error_on_ramdisk_config_inconsistency``)."""
    node = boot.node
    if not _needs_agent_ramdisk(boot, mode):
        return
    keys = (f"{mode}_kernel", f"{mode}_ramdisk")
    if _holds_pair(boot, [node.driver_info.get(key) for key in keys], "driver_info sets"):
        return
    arch = node.properties.get("cpu_arch")
    options = boot.config.conductor
    by_arch = [getattr(options, f"{key}_by_arch").get(arch) if arch else None for key in keys]
    where = f"[conductor] {keys[0]}_by_arch and {keys[1]}_by_arch have, for {arch},"
    if _holds_pair(boot, by_arch, where):
        return
    missing = [key for key in keys if not getattr(options, key)]
    if missing:
        iso = f" (or driver_info/{mode}_iso)" if iso_instead else ""
        for_arch = (
            f", [conductor] {keys[0]}_by_arch and {keys[1]}_by_arch for {arch}" if arch else ""
        )
        raise MissingParameterValue(
            f"Node {node.uuid}: the {boot.name} boot interface needs the {mode} ramdisk: "
            f"driver_info/{keys[0]} and driver_info/{keys[1]}{iso}{for_arch}, or [conductor] "
            f"{keys[0]} and {keys[1]}; missing: {', '.join(missing)}."
        )


def warn_about_unpaired_ramdisks(config: Config) -> None:
    """At start, as Ironic's conductor: log each architecture the ``*_by_arch`` options give a
    kernel without a ramdisk, or a ramdisk without a kernel (such nodes boot neither)."""
    options = config.conductor
    for mode in ("deploy", "rescue"):
        kernels = set(getattr(options, f"{mode}_kernel_by_arch"))
        ramdisks = set(getattr(options, f"{mode}_ramdisk_by_arch"))
        for has, lacks, arches in (
            ("kernel", "ramdisk", kernels - ramdisks),
            ("ramdisk", "kernel", ramdisks - kernels),
        ):
            if arches:
                LOG.warning(
                    "[conductor] %s_%s_by_arch names %s, which [conductor] %s_%s_by_arch "
                    "does not: such nodes take their %s ramdisk from elsewhere",
                    mode,
                    has,
                    ", ".join(sorted(arches)),
                    mode,
                    lacks,
                    mode,
                )


def _holds_pair(boot: _Boot, pair: list[Any], where: str) -> bool:
    """Whether a kernel and a ramdisk are both given; one alone is an inconsistency: logged,
    so that the next place is looked at, or refused when the configuration says so."""
    if all(pair):
        return True
    if any(pair):
        problem = (
            f"Node {boot.node.uuid}: {where} only one of a kernel and a ramdisk; "
            "that place is not used"
        )
        if boot.config.conductor.error_on_ramdisk_config_inconsistency:
            raise MissingParameterValue(
                f"{problem} ([conductor] error_on_ramdisk_config_inconsistency)."
            )
        LOG.warning("%s.", problem)
    return False


def _needs_agent_ramdisk(boot: _Boot, mode: str) -> bool:
    """A rescue and a deploy boot the agent; a ramdisk deploy only if cleaning follows it."""
    if mode != "deploy" or boot.option != "ramdisk":
        return True
    return cleans_automatically(boot.config.conductor, boot.node)


def _check_instance_images(task: Task, boot: _Boot) -> None:
    """The images the boot interface boots the instance from, when it boots it itself."""
    node = boot.node
    if boot.option == "local" or boots_from_volume(task):
        return
    info = node.instance_info
    if info.get("boot_iso"):
        if info.get("image_source"):
            raise _image_source_and_boot_iso(node)
        return
    wanted = _wanted_images(node, boot.option)
    missing = [key for key, value in wanted.items() if not value]
    if missing:
        raise MissingParameterValue(
            f"Node {node.uuid}: the instance's images are missing from instance_info: "
            f"{', '.join(missing)} (or a volume to boot from)."
        )
    image_source = wanted.get("image_source")
    if _boots_whole_disk(node) or is_glance_image(image_source or ""):
        return
    unnamed = [key for key in ("kernel", "ramdisk") if not wanted.get(key)]
    if unnamed:
        raise MissingParameterValue(
            f"Node {node.uuid}: the image {image_source} is not a Glance image, so "
            f"instance_info must name its {' and '.join(unnamed)}."
        )


def _wanted_images(node: Node, option: str) -> dict[str, Any]:
    info = node.instance_info
    kernel, ramdisk, image_source = (
        info.get("kernel"),
        info.get("ramdisk"),
        info.get("image_source"),
    )
    if option == "ramdisk":
        if kernel or ramdisk or not image_source:
            return {"kernel": kernel, "ramdisk": ramdisk}
        return {"image_source": image_source}
    wanted: dict[str, Any] = {"image_source": image_source}
    if not _boots_whole_disk(node) and not is_glance_image(str(image_source or "")):
        wanted.update(kernel=kernel, ramdisk=ramdisk)
    return wanted


def _boots_whole_disk(node: Node) -> bool:
    """Whether the instance's image is a whole disk image, as Ironic infers it before it
    validates: ``instance_info/image_type`` if set (anything but ``partition``); else a
    Glance image is not (metalwire takes it as having a kernel and a ramdisk), an OCI one is,
    and any other one is unless ``instance_info`` names a kernel or a ramdisk (Ironic infers
    that only once the image's URL answered; metalwire reads no URL and assumes it did)."""
    info = node.instance_info
    image_source = info.get("image_source")
    if not image_source:
        return bool(node.driver_internal_info.get("is_whole_disk_image"))
    if info.get("image_type"):
        return bool(info["image_type"] != PARTITION_IMAGE)
    if is_glance_image(str(image_source)):
        return False
    if str(image_source).startswith("oci://"):
        return True
    return not info.get("kernel") and not info.get("ramdisk")


def _image_source_and_boot_iso(node: Node) -> InvalidParameterValue:
    return InvalidParameterValue(
        f"Node {node.uuid}: instance_info sets both image_source and boot_iso; "
        "an instance boots from one of them."
    )
