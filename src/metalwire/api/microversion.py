"""Microversion negotiation, as Ironic clients expect it.

A request picks a version with ``X-OpenStack-Ironic-API-Version: 1.N|latest`` or
``OpenStack-API-Version: baremetal 1.N``; no header means the minimum, 1.1. A version out of
range or malformed is refused with 406, which clients use to negotiate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import total_ordering

from metalwire.errors import NotAcceptable

IRONIC_HEADER = "X-OpenStack-Ironic-API-Version"
GENERIC_HEADER = "OpenStack-API-Version"
MIN_HEADER = "X-OpenStack-Ironic-API-Minimum-Version"
MAX_HEADER = "X-OpenStack-Ironic-API-Maximum-Version"
SERVICE_TYPE = "baremetal"

_VERSION = re.compile(r"^1\.(\d{1,4})$")


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
# 1.78 adds node history, the last behaviour metalwire implements in full.
MAX_VERSION = Version(78)

# Versions that gate behaviour in metalwire, named as in Ironic's version log.
VIFS = 28
NODE_NAME = 5
FIELDS_PARAM = 8
ENROLL_DEFAULT = 11
NODE_STATES_LINKS = 14
PORT_INTERNAL_INFO = 18
PORT_ADVANCED_NET_FIELDS = 19
NETWORK_INTERFACE = 20
PORTGROUPS = 23
PORTGROUP_SUBCONTROLLERS = 24
PORTGROUP_MODE_PROPERTIES = 26
PORT_PHYSICAL_NETWORK = 34
DETAIL_QUERY = 43
PORT_SMARTNIC = 53
VIF_ATTACH_PORT = 67
NODE_HISTORY = 78


def _parse(value: str, header: str) -> Version:
    text = value.strip()
    if text.lower() == "latest":
        return MAX_VERSION
    match = _VERSION.match(text)
    if match is None:
        raise NotAcceptable(
            f'Invalid value for {header} header: {value!r}. Expected "1.N" or "latest".'
        )
    version = Version(int(match.group(1)))
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise NotAcceptable(
            f"Version {version} was requested but the minor version is not supported by this "
            f"service. The supported version range is: [{MIN_VERSION}, {MAX_VERSION}]."
        )
    return version


def from_headers(ironic: str | None, generic: str | None) -> Version:
    """The version a request asks for; raises NotAcceptable (406) when it is not served."""
    if ironic is not None:
        return _parse(ironic, IRONIC_HEADER)
    if generic is not None:
        service, _, value = generic.strip().partition(" ")
        if service.lower() == SERVICE_TYPE:
            return _parse(value, GENERIC_HEADER)
    return MIN_VERSION


def response_headers(version: Version | None) -> dict[str, str]:
    headers = {MIN_HEADER: str(MIN_VERSION), MAX_HEADER: str(MAX_VERSION)}
    if version is not None:
        headers[IRONIC_HEADER] = str(version)
        headers[GENERIC_HEADER] = f"{SERVICE_TYPE} {version}"
        headers["Vary"] = f"{IRONIC_HEADER}, {GENERIC_HEADER}"
    return headers
