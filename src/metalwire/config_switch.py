"""The ``[ironic_networking]`` options, with Ironic's names (read by ``metalwire.config``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from metalwire.config_option import option as _opt

#: Seconds a switch change tries to log in by default (networking-generic-switch's
#: ngs_ssh_connect_timeout).
SWITCH_LOGIN_TIMEOUT = 60


def _state_network_opt(state: str) -> Any:
    return _opt(
        "",
        f"Switch port configuration of the node's ports while {state}, as "
        "access/native_vlan=N or trunk/native_vlan=N (Ironic's format); a node's "
        f"driver_info may override it under the same name. Empty: each port's own "
        "extra.switchport (a port without one stays as it is).",
    )


@dataclass
class IronicNetworkingOptions:
    """The ``ironic-networking`` network interface: standalone switch configuration."""

    switch_config_file: str = _opt(
        "",
        "INI file of the switches the interface configures, one [switch:<name>] section "
        "each (Ironic's generic-switch format; see docs/operators.md).",
    )
    enabled_switch_drivers: list[str] = _opt(
        [],
        "Switch drivers to load; 'generic-switch' (networking-generic-switch, the [switch] "
        "extra) is the one metalwire has.",
    )
    allowed_vlans: list[str] = _opt(
        [],
        "VLAN IDs and ranges (100,102-104) a port may be put on, unless a switch's own "
        "allowed_vlans says otherwise; empty allows every VLAN.",
    )
    provisioning_network: str = _state_network_opt("deploying")
    cleaning_network: str = _state_network_opt("cleaning")
    rescuing_network: str = _state_network_opt("rescuing")
    servicing_network: str = _state_network_opt("servicing")
    inspection_network: str = _state_network_opt("inspecting")
    idle_network: str = _opt(
        "",
        "Switch port configuration (access/native_vlan=N) the ports return to when no other "
        "network applies; a node's driver_info may override it as idle_network.",
    )
    generic_switch_python: str = _opt(
        "",
        "Python interpreter that runs networking-generic-switch's device operations, e.g. "
        "that of a venv holding it apart from metalwire's; empty: metalwire's own (the "
        "[switch] extra).",
    )
    switch_login_timeout: int = _opt(
        SWITCH_LOGIN_TIMEOUT,
        "Seconds a switch change keeps trying to log in to its switch (unreachable, or "
        "refusing the login) before it fails, holding the switch's lock meanwhile: "
        "networking-generic-switch's ngs_ssh_connect_timeout, retried every 10 s, or every "
        "fifth of this when that is shorter. An operation may take 60 s more for its "
        "commands. The drift audit's reads try for 10 s, or this when shorter.",
        minimum=1,
    )
    vif_networks: list[str] = _opt(
        [],
        "Names a VIF attach may give as its 'network' (metalwire's extension), each "
        "name:VLAN (tenant-a:200); a VLAN ID is accepted as it is.",
    )
