"""Microversion negotiation, as Ironic clients expect it.

A request picks a version with ``OpenStack-API-Version: baremetal 1.N|latest`` or
``X-OpenStack-Ironic-API-Version: 1.N|latest``; the first wins when both name one. Either may
be comma-folded (several header lines, or ``compute 2.1, baremetal 1.50``): the last
``baremetal`` entry, or the last value, counts. No header, or an empty one, means the minimum,
1.1. A malformed version, another major version or a minor one out of range is refused with
406 (:class:`VersionNotAcceptable`); the last two name the served range, which clients
negotiate from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import total_ordering

from metalwire.api_versions import MAX_MINOR
from metalwire.errors import NotAcceptable, NotFound, RouteNotFound, VersionNotAcceptable

IRONIC_HEADER = "X-OpenStack-Ironic-API-Version"
GENERIC_HEADER = "OpenStack-API-Version"
MIN_HEADER = "X-OpenStack-Ironic-API-Minimum-Version"
MAX_HEADER = "X-OpenStack-Ironic-API-Maximum-Version"
SERVICE_TYPE = "baremetal"

_VERSION = re.compile(r"(\d{1,9})\.(\d{1,9})")


@total_ordering
@dataclass(frozen=True)
class Version:
    minor: int

    def __str__(self) -> str:
        return f"1.{self.minor}"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.minor < other.minor

    def at_least(self, minor: int) -> bool:
        return self.minor >= minor


MIN_VERSION = Version(1)
# The newest version served: declared in metalwire/api_versions.py, which the client reads too.
MAX_VERSION = Version(MAX_MINOR)

# Versions that gate behaviour in metalwire, named as in Ironic's version log.
VIFS = 28
BIOS = 40  # /v1/nodes/{node}/bios
NODE_NAME = 5  # a node named by its name (nodes have names from 1.5)
FIELDS_PARAM = 8
ENROLL_DEFAULT = 11
RAID_CONFIG = 12
NODE_STATES_LINKS = 14
PORTGROUPS = 23
PORTGROUP_SUBCONTROLLERS = 24
REMOVE_CHASSIS = 25  # a node may leave its chassis (chassis_uuid removed)
PORTGROUP_MODE = 26  # a portgroup's mode and properties
DYNAMIC_DRIVERS = 30
DETAIL_QUERY = 43
RESET_INTERFACES = 45  # PATCH /v1/nodes/{node}?reset_interfaces
CONDUCTORS = 49  # /v1/conductors, a node's conductor field and filter
DEPLOY_TEMPLATES = 55  # /v1/deploy_templates
RUNBOOKS = 92  # /v1/runbooks, and a clean or service by runbook
# a runbook's traits (/v1/runbooks/{runbook}/traits) and description; any logical name
RUNBOOK_TRAITS = 112
ALLOCATIONS = 52  # /v1/allocations, /v1/nodes/{node}/allocation, a node's allocation_uuid
EVENTS = 54  # POST /v1/events: the network service's events about its ports
ALLOCATION_UPDATE = 57  # PATCH of an allocation's name and extra
ALLOCATION_BACKFILL = 58  # an allocation created for a deployed node (``node``)
ALLOCATION_OWNER = 60  # an allocation's owner
LINK_NETWORK_TYPE = 64  # a port's local_link_connection/network_type
VIF_ATTACH_PORT = 67
DRIVER_FIELDS = 77
NODE_HISTORY = 78
NODE_INVENTORY = 81
CONTINUE_INSPECTION = 84  # POST /v1/continue_inspection (also at 1.1, as in Ironic)
NODE_SHARD = 82
PARENT_CHILD_NODES = 83
FIRMWARE_COMPONENTS = 86
PORT_NAME = 88
VMEDIA = 89  # attach and detach
NO_JSON_SUFFIX = 91  # a path's .json suffix is part of its last segment
VMEDIA_GET = 93
PORT_NODE_IDENT = 94
PORTGROUP_PHYSNET = 102
PORTGROUP_SHARD = 106
FIRMWARE_IDENTITY = 114


def _parse(value: str, header: str) -> Version:
    text = value.strip()
    if text.lower() == "latest":
        return MAX_VERSION
    match = _VERSION.fullmatch(text)
    if match is None:
        raise VersionNotAcceptable(
            f'Invalid value for {header} header: {value!r}. Expected "1.N" or "latest".',
            names_range=False,
        )
    major, minor = int(match.group(1)), int(match.group(2))
    served = f"The supported version range is: [{MIN_VERSION}, {MAX_VERSION}]."
    if major != 1:
        raise VersionNotAcceptable(
            f"Version {major}.{minor} was requested but this service serves major version 1 "
            f"only. {served}",
            names_range=True,
        )
    version = Version(minor)
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise VersionNotAcceptable(
            f"Version {version} was requested but the minor version is not supported by this "
            f"service. {served}",
            names_range=True,
        )
    return version


def _baremetal_entry(generic: str) -> str | None:
    """The version of the last ``baremetal <version>`` entry of ``OpenStack-API-Version``."""
    for entry in reversed(generic.split(",")):
        parts = entry.split(None, 1)
        if len(parts) == 2 and parts[0].lower() == SERVICE_TYPE:
            return parts[1].strip()
    return None


def from_headers(ironic: str | None, generic: str | None) -> Version:
    """The version a request asks for; raises VersionNotAcceptable (406) when it is not served.

    ``ironic`` and ``generic`` are the values of the two headers, several lines of one header
    joined with commas.
    """
    if generic is not None:
        value = _baremetal_entry(generic)
        if value is not None:
            return _parse(value, GENERIC_HEADER)
    if ironic is not None:
        value = ironic.rsplit(",", 1)[-1].strip()
        if value:
            return _parse(value, IRONIC_HEADER)
    return MIN_VERSION


def require(version: Version, minor: int, *, by_handler: bool = False) -> None:
    """A resource newer than the request's version does not exist for it (404).

    Ironic 39 refuses some such requests in its router (RouteNotFound: the routing error body,
    without version headers) and others in the resource's handler, which is there at every
    version (``by_handler``; NotFound: the fault body, an object's error). The gate says which.
    """
    if version.minor < minor:
        why = f"The resource could not be found at API version {version}; it exists from 1.{minor}."
        raise NotFound(why) if by_handler else RouteNotFound(why)


def too_old(what: str, minor: int, version: Version) -> NotAcceptable:
    """The 406 of ``what`` asked for below the version that brings it (``minor``): Ironic's
    words, then what needs which version and which the request used."""
    return NotAcceptable(too_old_message(what, minor, version))


def too_old_message(what: str, minor: int, version: Version) -> str:
    return (
        f"Request not acceptable. {what} requires API version 1.{minor} or later; the request "
        f"used {version}."
    )


def response_headers(version: Version | None) -> dict[str, str]:
    headers = {MIN_HEADER: str(MIN_VERSION), MAX_HEADER: str(MAX_VERSION)}
    if version is not None:
        headers[IRONIC_HEADER] = str(version)
        headers[GENERIC_HEADER] = f"{SERVICE_TYPE} {version}"
        headers["Vary"] = f"{IRONIC_HEADER}, {GENERIC_HEADER}"
    return headers
