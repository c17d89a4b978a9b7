"""What a hardware type reads, as ``GET /v1/drivers/{name}/properties`` and
``.../raid/logical_disk_properties`` describe it.

As Ironic: a hardware type's properties are the ``driver_info`` keys its default interface of
each kind reads (a node that names other interfaces may read others), and its logical disk
properties those its default RAID interface takes in a target RAID configuration. The
descriptions are metalwire's, and say what metalwire checks (``bmc.py``, ``deploy.py``,
``raid.py``).
"""

from __future__ import annotations

from collections.abc import Mapping

from metalwire import hardware_types
from metalwire.conductor import bmc, deploy, raid
from metalwire.config import DefaultOptions
from metalwire.errors import RaidNotSupported

_OPTIONAL = "Optional."


def _one_of(values: tuple[str, ...]) -> str:
    return ", ".join(values)


IPMITOOL = {
    "ipmi_address": "IP address or host name of the node's BMC. Required.",
    "ipmi_username": "User name on the BMC. Optional.",
    "ipmi_password": "Password of ipmi_username; shown as ****** in answers. Optional.",
    "ipmi_port": "Remote IPMI RMCP port (0-65535). Optional.",
    "ipmi_terminal_port": "Port of the serial-over-LAN console (0-65535). Optional.",
    "ipmi_protocol_version": (
        f"IPMI protocol version: {_one_of(bmc.IPMI_PROTOCOL_VERSIONS)}; default 2.0. Optional."
    ),
    "ipmi_priv_level": (
        f"Privilege level on the BMC: {_one_of(bmc.IPMI_PRIVILEGE_LEVELS)}; default "
        "ADMINISTRATOR. Optional."
    ),
    "ipmi_hex_kg_key": "BMC key in hexadecimal (an even number of digits). Optional.",
    "ipmi_cipher_suite": "Number of the IPMI cipher suite (not with IPMI 1.5). Optional.",
    "ipmi_bridging": (
        f"Bridging to reach the BMC: {_one_of(bmc.IPMI_BRIDGING)}; default no. Optional."
    ),
    "ipmi_target_channel": "Channel of the target controller; required with bridging.",
    "ipmi_target_address": "Address of the target controller; required with bridging.",
    "ipmi_transit_channel": "Transit channel; required with dual bridging.",
    "ipmi_transit_address": "Transit address; required with dual bridging.",
}

REDFISH = {
    "redfish_address": (
        "URL of the Redfish service (https:// is assumed without a scheme). Required."
    ),
    "redfish_system_id": "Path of the node's ComputerSystem resource (a string). Optional.",
    "redfish_username": "User name on the Redfish service. Optional.",
    "redfish_password": "Password of redfish_username; shown as ****** in answers. Optional.",
    "redfish_verify_ca": (
        "Whether to verify the service's TLS certificate: a Boolean, or a CA file or "
        "directory on the server. Optional."
    ),
    "redfish_auth_type": (
        f"How to authenticate: {_one_of(bmc.REDFISH_AUTH_TYPES)}; default auto. Optional."
    ),
}

IMAGE_DOWNLOAD = {
    "image_download_source": (
        f"Where the deploy ramdisk fetches the image from: {_one_of(deploy.DOWNLOAD_SOURCES)}"
        "; instance_info's wins. Optional."
    ),
    "image_http_proxy": "http or https URL of the proxy for http image downloads. Optional.",
    "image_https_proxy": "http or https URL of the proxy for https image downloads. Optional.",
    "image_no_proxy": (
        "Comma-separated host names, IP addresses or domains (.example.org) to download "
        "from without the proxy. Optional."
    ),
}

#: (kind, implementation) -> the driver_info keys it reads
_READ_BY: Mapping[tuple[str, str], Mapping[str, str]] = {
    ("power", "ipmitool"): IPMITOOL,
    ("management", "ipmitool"): IPMITOOL,
    ("power", "redfish"): REDFISH,
    ("management", "redfish"): REDFISH,
    ("deploy", deploy.IMAGE_WRITING_DEPLOY): IMAGE_DOWNLOAD,
    ("deploy", deploy.AUTODETECT_DEPLOY): IMAGE_DOWNLOAD,
}

LOGICAL_DISK = {
    "raid_level": f"RAID level of the disk: {_one_of(raid.RAID_LEVELS)}. Required.",
    "size_gb": f"Size in GiB (an integer from 0), or {raid.SIZE_MAX} for what is left. Required.",
    "volume_name": "Name of the volume (a string). Optional.",
    "is_root_volume": "true for the root volume; at most one disk may be. Optional.",
    "share_physical_disks": "true if the disk may share physical disks with others. Optional.",
    "disk_type": f"Type of the physical disks to use: {_one_of(raid.DISK_TYPES)}. Optional.",
    "interface_type": (
        f"Interface of the physical disks to use: {_one_of(raid.INTERFACE_TYPES)}. Optional."
    ),
    "number_of_physical_disks": "How many physical disks to use (from 1). Optional.",
    "controller": "Name of the controller the disk is on (a string). Optional.",
    "physical_disks": (
        "The physical disks to use, named or described (at least two objects); needs "
        "controller. Optional."
    ),
}


def driver_properties(options: DefaultOptions, driver: str) -> dict[str, str]:
    """The ``driver_info`` keys the default interfaces of hardware type ``driver`` read."""
    out: dict[str, str] = {}
    for kind in hardware_types.KINDS:
        implementation = hardware_types.default_interface(options, driver, kind)
        out.update(_READ_BY.get((kind, implementation), {}))
    return dict(sorted(out.items()))


def logical_disk_properties(options: DefaultOptions, driver: str) -> dict[str, str]:
    """What a logical disk of a target RAID configuration takes on a node of hardware type
    ``driver`` with its default RAID interface; RaidNotSupported (404) if that is
    ``no-raid``."""
    if hardware_types.default_interface(options, driver, "raid") == "no-raid":
        raise RaidNotSupported(driver)
    return dict(LOGICAL_DISK)
