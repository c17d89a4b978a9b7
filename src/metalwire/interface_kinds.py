"""The kinds of hardware interface a node names (``<kind>_interface``), shared by the
server's rules (``hardware_types``) and the command line's options."""

from __future__ import annotations

KINDS = (
    "bios",
    "boot",
    "console",
    "deploy",
    "firmware",
    "inspect",
    "management",
    "power",
    "raid",
    "rescue",
    "storage",
    "vendor",
)
FIELDS = tuple(f"{kind}_interface" for kind in KINDS)
NETWORK = "network"
