"""``ironic-networking``: standalone switch networking, Ironic 39's fourth network interface.

The interface configures the top-of-rack switch port of each node port itself, without
Neutron: a port's ``local_link_connection`` names the switch (``switch_id``: its name in the
switch file of ``[ironic_networking] switch_config_file`` or its MAC) and the switch interface
(``port_id``); its ``extra["switchport"]`` is the tenant configuration
(:mod:`metalwire.networking.switchport`). The switches are driven by networking-generic-switch's
device classes, which come with metalwire's ``[switch]`` extra; without it the server starts,
logs which extra the interface needs, and refuses the interface's nodes with that remedy.

What works so far: the switch file is loaded (and refused, naming the line) at start; a
port's switchport configuration is checked when the node is validated and when a port's
``extra`` or ``local_link_connection`` changes (400 with Ironic's messages); VIFs are recorded
as ``flat`` records them. The switch itself is not yet configured: the per-state hooks
(provisioning, tenant, cleaning, idle networks) are still the base class's no-ops.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Collection

from metalwire.config import Config
from metalwire.db.models import Port
from metalwire.errors import InvalidParameterValue, NetworkInterfaceInvalid
from metalwire.networking.base import NetworkInterface, StoredVifMixin
from metalwire.networking.switch_file import (
    SWITCH_DRIVERS,
    SwitchDefinition,
    find_switch,
    load_switch_file,
    parse_vlan_ranges,
)
from metalwire.networking.switchport import (
    check_pxe_mode,
    check_vlans_allowed,
    parse_switchport,
)
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)

#: The Python package the ``generic-switch`` driver needs, and the extra that installs it.
GENERIC_SWITCH_PACKAGE = "networking_generic_switch"
SWITCH_EXTRA = "switch"
#: Fields of a port whose change reconfigures (and so revalidates) its switch port.
SWITCH_FIELDS = frozenset({"extra", "local_link_connection"})
# Ironic lets a port without local_link_connection through while LLDP may still fill it in
_INSPECTION_STATES = frozenset({"inspecting", "inspect wait"})


def generic_switch_installed() -> bool:
    return importlib.util.find_spec(GENERIC_SWITCH_PACKAGE) is not None


def missing_extra_message() -> str:
    return (
        f"The ironic-networking network interface needs networking-generic-switch, which "
        f"is not installed: install metalwire's [{SWITCH_EXTRA}] extra "
        f"(pip install 'metalwire[{SWITCH_EXTRA}]')."
    )


class IronicNetworking(StoredVifMixin, NetworkInterface):
    name = "ironic-networking"

    def __init__(self, config: Config) -> None:
        super().__init__(config)
        options = config.ironic_networking
        unknown = sorted(set(options.enabled_switch_drivers) - SWITCH_DRIVERS)
        if unknown:
            raise InvalidParameterValue(
                f"[ironic_networking] enabled_switch_drivers names {', '.join(unknown)}; "
                f"metalwire has {', '.join(sorted(SWITCH_DRIVERS))}"
            )
        self.global_allowed_vlans = (
            parse_vlan_ranges(options.allowed_vlans) if options.allowed_vlans else None
        )
        self.switches: dict[str, SwitchDefinition] = (
            load_switch_file(options.switch_config_file) if options.switch_config_file else {}
        )
        self.driver_installed = generic_switch_installed()
        if not self.driver_installed:
            LOG.warning("%s", missing_extra_message())

    def validate(self, task: Task) -> None:
        if not self.driver_installed:
            raise NetworkInterfaceInvalid(missing_extra_message())
        for port in task.ports:
            self.check_port(task, port)

    def port_changed(self, task: Task, port: Port, changed: Collection[str]) -> None:
        super().port_changed(task, port, changed)
        if SWITCH_FIELDS & set(changed):
            self.check_port(task, port)

    def check_port(self, task: Task, port: Port) -> None:
        """Refuse a port whose switchport configuration cannot be applied to its switch."""
        value = (port.extra or {}).get("switchport")
        if not value:
            return
        config = parse_switchport(port.uuid, value)
        check_pxe_mode(port.uuid, port.pxe_enabled, config)
        link = port.local_link_connection or {}
        if not link:
            if task.node.provision_state in _INSPECTION_STATES:
                return
            raise InvalidParameterValue(
                f"Port {port.uuid} has a switchport configuration but no "
                f"local_link_connection (node {task.node.uuid} is {task.node.provision_state})."
            )
        missing = [f"'{key}'" for key in ("switch_id", "port_id") if not link.get(key)]
        if missing:
            raise InvalidParameterValue(
                f"Port {port.uuid} local_link_connection lacks {', '.join(missing)}, needed "
                "to configure its switch port."
            )
        switch_id = str(link["switch_id"])
        switch = find_switch(self.switches, switch_id)
        if switch is None:
            known = ", ".join(sorted(self.switches)) or "none"
            raise InvalidParameterValue(
                f"Port {port.uuid} names switch {switch_id!r}, which is not in the switch "
                f"file by name or mac_address (switches: {known})."
            )
        check_vlans_allowed(
            config.vlans,
            switch_id,
            f"port {port.uuid} switchport",
            switch.allowed_vlans,
            self.global_allowed_vlans,
        )
