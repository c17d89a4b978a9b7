"""What a node's deploy interface checks in ``validate`` and before a deploy, as Ironic's do.

Every deploy interface checks that ``instance_info/traits``, if set, lists traits of the
node; ``fake`` (and every other one but ``direct`` and ``ramdisk``) checks nothing more.
``ramdisk`` needs a boot interface that can boot a ramdisk (not ``fake``; the boot
interface's own checks, such as PXE's kernel and ramdisk images, are not made).
``autodetect`` is checked as the interface it would become (``checked_deploy_interface``):
``ramdisk`` for an instance that asks for one, else ``direct``.
``direct`` and ``ramdisk`` check that the ``boot_mode`` (``bios``, ``uefi``), ``secure_boot``
(``true``, ``false``) and ``disk_label`` (``msdos``, ``gpt``) that ``properties/capabilities``
or ``instance_info/capabilities`` set are valid. ``direct`` (Ironic's agent deploy) checks
the root device hints (``root_device.py``), and needs to know which image to write, unless
the storage interface boots the node from a volume (a target with boot index 0 and no
``instance_info/image_source``):

- ``instance_info/image_source`` is set;
- an image that is neither a Glance image (a UUID or ``glance://``) nor a ``file://`` or
  ``oci://`` one comes with its checksum: ``image_checksum``, or ``image_os_hash_algo`` and
  ``image_os_hash_value`` together;
- ``image_download_source`` (``instance_info``, else ``driver_info``), if set, is ``swift``,
  ``http`` or ``local``;
- the agent's proxies in ``driver_info``: ``image_http_proxy`` and ``image_https_proxy`` are
  URLs without a scheme or with ``http`` / ``https``, ``image_no_proxy`` is a comma-separated
  list of host names, IP addresses and domains (``.example.com``), each with an optional port.

metalwire has no image service: a Glance image is taken as named, its properties unchecked.
``instance_info/image_type`` is not checked: Ironic replaces any value but ``partition`` by
``whole-disk`` before its check, which so never fails.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any
from urllib.parse import urlparse

from metalwire.conductor.hardware import interface_name
from metalwire.conductor.root_device import check_root_device_hints
from metalwire.conductor.storage import boots_from_volume
from metalwire.db import nodes as node_db
from metalwire.db.models import Node
from metalwire.errors import InvalidParameterValue, MissingParameterValue
from metalwire.hardware_types import IMPLEMENTATIONS
from metalwire.networking.task import Task

#: The deploy interface that writes an image, and so needs to know which.
IMAGE_WRITING_DEPLOY = "direct"
#: The deploy interface that boots the instance's ramdisk, and the boot interfaces that can
#: (Ironic's with the ``ramdisk_boot`` capability; its ``fake`` one cannot).
RAMDISK_DEPLOY = "ramdisk"
RAMDISK_BOOTS = tuple(name for name in IMPLEMENTATIONS["boot"] if name != "fake")
#: The deploy interface that is checked (and, in Ironic, run) as the one it detects.
AUTODETECT_DEPLOY = "autodetect"
#: The deploy interfaces that check the node's deploy capabilities, and their valid values.
CAPABILITY_CHECKING_DEPLOYS = frozenset({"direct", "ramdisk"})
CAPABILITY_VALUES = {
    "boot_mode": ("bios", "uefi"),
    "secure_boot": ("true", "false"),
    "disk_label": ("msdos", "gpt"),
}
DOWNLOAD_SOURCES = ("swift", "http", "local")
PROXY_KEYS = ("image_http_proxy", "image_https_proxy")
PROXY_SCHEMES = ("", "http", "https")
_HOSTNAME_LABEL = re.compile(r"(?!-)[a-z\d-]{1,63}(?<!-)$", re.IGNORECASE)
# Image sources whose checksum Ironic finds itself (Glance's record) or computes (a file).
_SELF_CHECKSUMMED_SCHEMES = ("glance://", "file://", "oci://")


def check_deploy(task: Task) -> None:
    """Raise MissingParameterValue or InvalidParameterValue naming what the node's deploy
    interface refuses in ``instance_info``."""
    deploy_interface = checked_deploy_interface(task.node)
    if deploy_interface == RAMDISK_DEPLOY:
        check_ramdisk_boot(task.node)
    if deploy_interface in CAPABILITY_CHECKING_DEPLOYS:
        check_capabilities(task.node)
    if deploy_interface == IMAGE_WRITING_DEPLOY:
        check_root_device_hints(task.node)
        if not boots_from_volume(task):
            _check_image(task.node)
    check_instance_traits(task.node)


def checked_deploy_interface(node: Node) -> str:
    """The deploy interface whose checks the node's deploy makes: ``autodetect`` is checked
    as the interface Ironic's would switch to with its default
    ``[DEFAULT] autodetect_deploy_interfaces``."""
    name = interface_name(node, "deploy")
    if name != AUTODETECT_DEPLOY:
        return name
    return RAMDISK_DEPLOY if asks_for_ramdisk_deploy(node.instance_info) else IMAGE_WRITING_DEPLOY


def asks_for_ramdisk_deploy(instance_info: dict[str, Any]) -> bool:
    """Whether the instance asks for a ramdisk deploy, as Ironic's autodetection reads
    ``instance_info``: ``ironic_ramdisk_deploy`` with a ``boot_iso``, or with a ``kernel``
    and a ``ramdisk``. (Ironic also finds the request in a Glance image's properties, which
    metalwire does not read.)"""
    if not instance_info.get("ironic_ramdisk_deploy"):
        return False
    if instance_info.get("boot_iso"):
        return True
    return bool(instance_info.get("kernel") and instance_info.get("ramdisk"))


def check_ramdisk_boot(node: Node) -> None:
    """The node's boot interface can boot a ramdisk: InvalidParameterValue naming it if not."""
    boot_interface = interface_name(node, "boot")
    if boot_interface not in RAMDISK_BOOTS:
        raise InvalidParameterValue(
            f"Node {node.uuid}: the ramdisk deploy interface needs a boot interface that can "
            f"boot a ramdisk ({', '.join(RAMDISK_BOOTS)}), not {boot_interface!r}."
        )


def check_capabilities(node: Node) -> None:
    """The deploy capabilities (boot mode, secure boot, disk label) that
    ``properties/capabilities`` or ``instance_info/capabilities`` set have a value Ironic
    knows: InvalidParameterValue naming the first that does not."""
    requested = _instance_capabilities(node)
    for name, valid in CAPABILITY_VALUES.items():
        for field, value in (
            ("properties/capabilities", node_capability_value(node, name)),
            ("instance_info/capabilities", requested.get(name)),
        ):
            if value and value not in valid:
                raise InvalidParameterValue(
                    f"Node {node.uuid}: {field} sets {name} to {value!r}; valid are "
                    f"{', '.join(valid)}."
                )


def node_capability_value(node: Node, name: str) -> str | None:
    """``name``'s value in ``properties/capabilities`` (``key:value,...``); an item that is
    not one ``key:value`` pair is ignored, as by Ironic."""
    capabilities = node.properties.get("capabilities")
    if not capabilities or not isinstance(capabilities, str):
        return None
    for item in capabilities.split(","):
        parts = item.split(":")
        if len(parts) == 2 and parts[0] and parts[1] and parts[0].strip() == name:
            return parts[1].strip()
    return None


def _instance_capabilities(node: Node) -> dict[str, Any]:
    """``instance_info/capabilities``: an object, or its JSON text (as Nova sends it)."""
    capabilities = node.instance_info.get("capabilities", {})
    if isinstance(capabilities, str):
        try:
            capabilities = json.loads(capabilities)
        except ValueError:
            capabilities = None
    if not isinstance(capabilities, dict):
        raise InvalidParameterValue(
            f"Node {node.uuid}: instance_info/capabilities must be an object or its JSON text."
        )
    return capabilities


def check_instance_traits(node: Node) -> None:
    """``instance_info/traits`` (Nova's flavor's required traits), if set, is a list of
    trait names the node has: InvalidParameterValue otherwise, whatever the deploy interface."""
    traits = node.instance_info.get("traits")
    if not traits:
        return
    if not isinstance(traits, list) or not all(isinstance(t, str) for t in traits):
        raise InvalidParameterValue(
            f"Node {node.uuid}: instance_info/traits must be a list of strings, not {traits!r}."
        )
    missing = sorted(set(traits) - set(node_db.field_value(node, "traits") or ()))
    if missing:
        raise InvalidParameterValue(
            f"Node {node.uuid}: instance_info/traits names traits the node does not have: "
            f"{', '.join(missing)}."
        )


def _check_image(node: Node) -> None:
    info: dict[str, Any] = node.instance_info
    image_source = info.get("image_source")
    if not image_source:
        raise MissingParameterValue(
            f"Node {node.uuid} failed to validate deploy image info: "
            "instance_info/image_source is missing."
        )
    if not isinstance(image_source, str):
        raise InvalidParameterValue(
            f"Node {node.uuid}: instance_info/image_source must be a string, not {image_source!r}."
        )
    if not _checksum_found_elsewhere(image_source) and not _has_checksum(info):
        raise MissingParameterValue(
            f"Node {node.uuid}: the image {image_source} needs instance_info/image_checksum, "
            "or instance_info/image_os_hash_algo and image_os_hash_value together."
        )
    _check_download_source(node.uuid, info, node.driver_info)
    _check_proxies(node.uuid, node.driver_info)


def is_glance_image(image_source: str) -> bool:
    """A Glance image is named by ``glance://...`` or by its UUID (hyphens optional)."""
    if image_source.startswith("glance://"):
        return True
    try:
        return uuid.UUID(image_source).hex == image_source.replace("-", "").lower()
    except ValueError:
        return False


def _checksum_found_elsewhere(image_source: str) -> bool:
    return is_glance_image(image_source) or image_source.startswith(_SELF_CHECKSUMMED_SCHEMES)


def _has_checksum(info: dict[str, Any]) -> bool:
    algo, value = info.get("image_os_hash_algo"), info.get("image_os_hash_value")
    if algo or value:
        return bool(algo and value)  # one without the other is not enough
    return bool(info.get("image_checksum"))


def _check_download_source(
    node_uuid: str, info: dict[str, Any], driver_info: dict[str, Any]
) -> None:
    source = info.get("image_download_source") or driver_info.get("image_download_source")
    if source and source not in DOWNLOAD_SOURCES:
        raise InvalidParameterValue(
            f"Node {node_uuid}: invalid image_download_source {source!r}; "
            f"valid are {', '.join(DOWNLOAD_SOURCES)}."
        )


def _check_proxies(node_uuid: str, driver_info: dict[str, Any]) -> None:
    problems = [
        f"driver_info/{key} {driver_info[key]!r} has a scheme other than http or https"
        for key in PROXY_KEYS
        if driver_info.get(key) and not _is_proxy_url(driver_info[key])
    ]
    no_proxy = driver_info.get("image_no_proxy")
    if no_proxy is not None and not is_valid_no_proxy(no_proxy):
        problems.append(
            f"driver_info/image_no_proxy {no_proxy!r} is not a comma-separated list of host "
            "names, IP addresses or domains (a domain starts with a dot, not '*.')"
        )
    if problems:
        raise InvalidParameterValue(f"Node {node_uuid}: {'; '.join(problems)}.")


def _is_proxy_url(value: Any) -> bool:
    return isinstance(value, str) and urlparse(value).scheme in PROXY_SCHEMES


def is_valid_no_proxy(value: Any) -> bool:
    """Whether ``value`` is a list the agent can put in ``no_proxy``: comma-separated host
    names, IP addresses and domains (``.example.com``), each with an optional ``:port``."""
    if not isinstance(value, str):
        return False
    for entry in value.split(","):
        host = entry.strip().split(":")[0]
        if host and not _is_host_or_domain(host):
            return False
    return True


def _is_host_or_domain(host: str) -> bool:
    limit = 253
    if host.startswith("."):
        host, limit = host[1:], 251
    return len(host) <= limit and all(_HOSTNAME_LABEL.match(label) for label in host.split("."))
