"""API microversions as the client sees them, and the rule that picks one."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import total_ordering

from metalwire.api_versions import MAX_MINOR
from metalwire.client.exceptions import VersionNegotiationError

VERSION_HEADER = "X-OpenStack-Ironic-API-Version"
MIN_VERSION_HEADER = "X-OpenStack-Ironic-API-Minimum-Version"
MAX_VERSION_HEADER = "X-OpenStack-Ironic-API-Maximum-Version"

_PATTERN = re.compile(r"^\s*(\d+)\.(\d+)\s*$")


@total_ordering
@dataclass(frozen=True)
class APIVersion:
    """A ``MAJOR.MINOR`` API version; ordered numerically (1.9 < 1.10)."""

    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> APIVersion:
        """Parse ``"1.N"``; raises ValueError for anything else."""
        match = _PATTERN.match(text)
        if match is None:
            raise ValueError(f"Invalid API version {text!r}: expected MAJOR.MINOR, e.g. 1.78.")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, APIVersion):
            return NotImplemented
        return (self.major, self.minor) < (other.major, other.minor)


MIN_VERSION = APIVersion(1, 1)
# The newest microversion whose behaviour this client knows: the one the server code serves.
LATEST_VERSION = APIVersion(1, MAX_MINOR)

# Versions that gate client calls.
VIFS = APIVersion(1, 28)
VIF_ATTACH_TARGET = APIVersion(1, 67)
PORTGROUPS = APIVersion(1, 23)
RAID_CONFIG = APIVersion(1, 12)
MANAGE_PROVIDE = APIVersion(1, 4)
TRAITS = APIVersion(1, 37)
ALLOCATIONS = APIVersion(1, 52)
CONDUCTORS = APIVersion(1, 49)
DEPLOY_TEMPLATES = APIVersion(1, 55)
INVENTORY = APIVersion(1, 81)
SHARDS = APIVersion(1, 82)
PARENT_NODES = APIVersion(1, 83)
RUNBOOKS = APIVersion(1, 92)
RUNBOOK_TRAITS = APIVersion(1, 112)
VOLUME = APIVersion(1, 32)
HISTORY = APIVersion(1, 78)
SOFT_POWER = APIVersion(1, 27)  # soft reboot and power off, and a power change's timeout
INJECT_NMI = APIVersion(1, 29)
BOOT_MODE = APIVersion(1, 76)  # changing the boot mode and secure boot


def choose_version(
    server_min: APIVersion,
    server_max: APIVersion,
    pinned: APIVersion | None = None,
    client_min: APIVersion = MIN_VERSION,
    client_max: APIVersion = LATEST_VERSION,
) -> APIVersion:
    """The microversion to use with a server serving ``[server_min, server_max]``.

    Without a pin, the highest version both sides support. A pinned version is used as is
    (even above ``client_max``: the caller takes responsibility) if the server serves it.

    Raises VersionNegotiationError when the pinned version is outside the server's range or
    the two ranges do not overlap.
    """
    if pinned is not None:
        if not server_min <= pinned <= server_max:
            raise VersionNegotiationError(
                f"API version {pinned} was requested but the server supports only "
                f"{server_min} to {server_max}."
            )
        return pinned
    chosen = min(server_max, client_max)
    if chosen < max(server_min, client_min):
        raise VersionNegotiationError(
            f"No API version in common: the server supports {server_min} to {server_max}, "
            f"this client {client_min} to {client_max}."
        )
    return chosen
