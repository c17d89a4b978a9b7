"""``ironic-networking``: standalone switch networking, Ironic 39's fourth network interface.

The interface configures the top-of-rack switch port of each node port itself, without
Neutron: a port's ``local_link_connection`` names the switch (``switch_id``: its name in the
switch file of ``[ironic_networking] switch_config_file`` or its MAC) and the switch interface
(``port_id``); its ``extra["switchport"]`` is the tenant configuration
(:mod:`metalwire.networking.switchport`). The switches are driven by networking-generic-switch's
device classes, which come with metalwire's ``[switch]`` extra; without it the server starts,
logs which extra the interface needs, and refuses the interface's nodes with that remedy.

The switch file is loaded (and refused, naming the line) at start; a port's switchport
configuration is checked when the node is validated and when a port's ``extra`` or
``local_link_connection`` changes (400 with Ironic's messages); VIFs are recorded as ``flat``
records them. Each state hook puts every port with a switch link on its network, as Ironic
39 does: the provisioning, cleaning, rescuing or inspection network
(``[ironic_networking] <state>_network``, or the
same key of the node's ``driver_info``), the port's own ``extra["switchport"]`` when the node
goes active (and again when it changes on an active node), and the idle network afterwards
(no VLAN configuration when none is set). A port whose link moves to another switch port, or
goes, has its old switch port reset to the idle network and the new one set to what the port
is on in the node's state; the switch port of a port deleted or moved to another node is
reset too (a bond member's taken out of its bond). With no state network named, each port
goes on its own ``extra["switchport"]`` instead (one without stays as it is), as in Ironic.
What each port was set to is kept in its ``internal_info["switchport_applied"]``; the changes
of one hook are all or nothing (:mod:`metalwire.networking.switch_ports`). The members of a
portgroup with ``extra["lag"]`` are set as one bond (:mod:`metalwire.networking.bonds`).
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any, cast

from metalwire.config import Config
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Port, Portgroup, VifAttachment
from metalwire.errors import (
    Conflict,
    Invalid,
    InvalidParameterValue,
    NetworkError,
    NetworkInterfaceInvalid,
)
from metalwire.networking.base import NetworkInterface, StoredVifMixin, VifInfo
from metalwire.networking.bonds import (
    Bond,
    check_bond_members,
    is_lag,
    parse_lag,
    split_bonds,
)
from metalwire.networking.drift import Finding, NotChecked
from metalwire.networking.port_ids import port_id_problem
from metalwire.networking.switch_audit import AuditedPort, audit_ports
from metalwire.networking.switch_file import (
    SWITCH_DRIVERS,
    SwitchDefinition,
    find_switch,
    load_switch_file,
    parse_vlan_ranges,
)
from metalwire.networking.switch_ports import (
    DeviceFactory,
    SwitchChange,
    apply_changes,
)
from metalwire.networking.switch_preview import SwitchPreview, preview
from metalwire.networking.switch_vifs import (
    APPLIED_KEY,
    SwitchVifMixin,
    applied,
    applied_bond,
    applied_record,
)
from metalwire.networking.switchport import (
    SwitchportConfig,
    check_pxe_mode,
    check_vlans_allowed,
    parse_network_value,
    parse_switchport,
)
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)

#: The Python package the ``generic-switch`` driver needs, and the extra that installs it.
GENERIC_SWITCH_PACKAGE = "networking_generic_switch"
SWITCH_EXTRA = "switch"
#: Fields of a port whose change reconfigures (and so revalidates) its switch port.
SWITCH_FIELDS = frozenset({"extra", "local_link_connection"})
#: The node history's event type of a switch port change (one entry per port or bond set).
SWITCH_EVENT = "network"
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


def switch_driver_problem(python: str) -> str | None:
    """Why switch operations cannot run (None: they can): the interpreter
    ``[ironic_networking] generic_switch_python`` names is no executable file, or, without
    one, networking-generic-switch is not installed beside metalwire."""
    if not python:
        return None if generic_switch_installed() else missing_extra_message()
    if not os.path.isfile(python) or not os.access(python, os.X_OK):
        what = "is not an executable file" if os.path.exists(python) else "does not exist"
        return (
            f"The ironic-networking network interface runs networking-generic-switch with "
            f"[ironic_networking] generic_switch_python {python}, which {what}."
        )
    return None


class IronicNetworking(SwitchVifMixin, StoredVifMixin, NetworkInterface):
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
        self.python = options.generic_switch_python
        self.driver_problem = switch_driver_problem(self.python)
        if self.driver_problem is not None:
            LOG.warning("%s", self.driver_problem)
        self.lock_dir = Path(config.default.data_dir) / "switch-locks"
        self.device_factory: DeviceFactory = functools.partial(
            _generic_switch_device, python=self.python, login_timeout=options.switch_login_timeout
        )

    def calls_external_service(self) -> bool:
        return True

    def names_switches(self) -> bool:
        """A port names its switch by the switch file's section name too."""
        return True

    def rewires_deployed_ports(self) -> bool:
        """A port's new link or switchport is programmed on its switch in any provision
        state, an active node's too (a link moved to another switch port included)."""
        return True

    # -- the state hooks -------------------------------------------------------------------

    def add_provisioning_network(self, task: Task) -> None:
        self._put_on_state_network(task, "provisioning")

    def remove_provisioning_network(self, task: Task) -> None:
        self._put_on_idle(task)

    def configure_tenant_networks(self, task: Task) -> None:
        """A VIF's network, else the port's switchport; a port with neither stays."""
        wanted = [
            (port, self._vif_network_of(task, port) or self._tenant_config(port))
            for port in self._linked(task)
        ]
        self._apply(task, [(port, config) for port, config in wanted if config is not None])

    def unconfigure_tenant_networks(self, task: Task) -> None:
        self._put_on_idle(task)

    def add_cleaning_network(self, task: Task) -> None:
        self._put_on_state_network(task, "cleaning")

    def remove_cleaning_network(self, task: Task) -> None:
        self._put_on_idle(task)

    def add_rescuing_network(self, task: Task) -> None:
        """``rescuing_network`` of the driver_info, else of the options, else the port's
        switchport."""
        self._put_on_state_network(task, "rescuing")

    def remove_rescuing_network(self, task: Task) -> None:
        self._put_on_idle(task)

    def validate_inspection(self, task: Task) -> None:
        """As Ironic's: the inspection network's value must be one it can apply (400
        naming it if not); nothing else is required, since an inspection may be what finds
        the ports' links."""
        self.state_network(task, "inspection")

    def add_inspection_network(self, task: Task) -> None:
        """``inspection_network`` of the driver_info, else of the options, else the port's
        switchport."""
        self._put_on_state_network(task, "inspection")

    def remove_inspection_network(self, task: Task) -> None:
        self._put_on_idle(task)

    # -- VIFs that name their network (metalwire's extension) ------------------------------

    def record_vif(self, task: Task, vif_info: VifInfo) -> VifAttachment | None:
        return StoredVifMixin.vif_attach(self, task, vif_info)

    def forget_vif(self, task: Task, vif_id: str) -> None:
        StoredVifMixin.vif_detach(self, task, vif_id)

    def check_attach_request(self, vif_info: VifInfo) -> None:
        self.requested_network(vif_info)  # a network it cannot name: 400

    def attach_preview(
        self, task: Task, vif_info: VifInfo, target: Port | Portgroup
    ) -> list[SwitchPreview]:
        """The dry run's switch changes and commands of an attach (nothing is sent)."""
        planned = self.attach_switch_changes(task, vif_info, target)
        return preview(planned, self.device_factory)

    def vif_network(self, vif_id: str, value: Any) -> SwitchportConfig:
        """The access VLAN an attach's ``network`` names; 400 for anything else."""
        names: dict[str, str] = {}
        for item in self.config.ironic_networking.vif_networks:
            name, _, vlan = item.partition(":")
            names[name.strip()] = vlan.strip()
        raw = names.get(value, value) if isinstance(value, str) else value
        vlan_id: int = 0
        if not isinstance(raw, bool):
            try:
                vlan_id = int(raw)
            except (TypeError, ValueError):
                vlan_id = 0
        if not 1 <= vlan_id <= 4094:
            known = ", ".join(sorted(names)) or "none"
            raise InvalidParameterValue(
                f"VIF {vif_id}: network {value!r} is neither a VLAN ID (1-4094) nor a name "
                f"of [ironic_networking] vif_networks (names: {known})."
            )
        return SwitchportConfig("access", vlan_id)

    def _target_ports(self, task: Task, target: Port | Portgroup) -> list[Port]:
        return task.members(target) if isinstance(target, Portgroup) else [target]

    def _vif_network_of(self, task: Task, port: Port) -> SwitchportConfig | None:
        for attachment in task.attachments:
            target = task.target_of(attachment)
            network = attachment.info.get("network")
            if network is None or target is None:
                continue
            if port.uuid in {p.uuid for p in self._target_ports(task, target)}:
                return self.vif_network(attachment.vif_id, network)
        return None

    def state_network(self, task: Task, network_type: str) -> SwitchportConfig | None:
        """``<network_type>_network`` of the node's driver_info, else of the options."""
        key = f"{network_type}_network"
        value = task.node.driver_info.get(key) or getattr(self.config.ironic_networking, key)
        return parse_network_value(str(value), network_type) if value else None

    def _put_on_state_network(self, task: Task, network_type: str) -> None:
        """Every linked port on the state's network; with none named, each on its own
        ``extra["switchport"]`` (a port without one stays as it is), as Ironic's."""
        config = self.state_network(task, network_type)
        wanted = [(port, config or self._tenant_config(port)) for port in self._linked(task)]
        self._apply(task, [(port, each) for port, each in wanted if each is not None])

    def _put_on_idle(self, task: Task) -> None:
        idle = self.state_network(task, "idle")
        self._apply(task, [(port, idle) for port in self._linked(task)])

    def _tenant_config(self, port: Port) -> SwitchportConfig | None:
        value = (port.extra or {}).get("switchport")
        return parse_switchport(port.uuid, value) if value else None

    def _linked(self, task: Task) -> list[Port]:
        """The node's ports whose switch is in the switch file."""
        return [port for port in task.ports if self._switch_of(port) is not None]

    def _switch_of(self, port: Port) -> SwitchDefinition | None:
        link = port.local_link_connection or {}
        if not link.get("switch_id") or not link.get("port_id"):
            return None
        return find_switch(self.switches, str(link["switch_id"]))

    def _apply(
        self,
        task: Task,
        wanted: Iterable[tuple[Port, SwitchportConfig | None]],
        also: Callable[[], None] | None = None,
    ) -> None:
        """Set each port's switch port (all or nothing), then record what was set and run
        ``also`` in one transaction; if that fails, the switch ports are put back."""
        planned = self.switch_changes(task, wanted)
        infos = [
            # the bond is kept while it is on the switch
            (port, _recorded(port, applied_record(change.config, change.bond)))
            for ports, change in planned
            for port in ports
        ]
        self._commit(task, [change for _, change in planned], infos, also)

    def _commit(
        self,
        task: Task,
        changes: Sequence[SwitchChange],
        infos: Iterable[tuple[Port, dict[str, Any]]],
        also: Callable[[], None] | None = None,
        others: Sequence[Task] = (),
    ) -> None:
        """Make ``changes`` on the switches (all or nothing), then store each port's new
        ``internal_info``, one history entry per change on ``task``'s node (the switch, the
        port or bond, the VLANs set and those replaced) and run ``also`` in one transaction
        (of ``task`` and ``others``); if that fails, the switch ports are put back."""
        if changes and self.driver_problem is not None:
            raise NetworkInterfaceInvalid(self.driver_problem)
        apply_changes(changes, self.device_factory, self.lock_dir)
        try:
            with task.atomic(*others):
                for port, info in infos:
                    task.inventory.update_port(port.uuid, {"internal_info": info})
                for change in changes:
                    task.history.add(HistoryEntry(SWITCH_EVENT, change.describe()))
                if also is not None:
                    also()
        except BaseException:
            # last first: a change may build on the one before it (a bond taken apart, then
            # made again of fewer members)
            back = [undo for change in reversed(changes) for undo in change.reverse()]
            try:
                apply_changes(back, self.device_factory, self.lock_dir)
            except NetworkError as exc:
                LOG.error("Switch ports not put back after a failed commit: %s", exc)
            raise
        finally:
            for each in (task, *others):
                each.reload()

    def switch_changes(
        self, task: Task, wanted: Iterable[tuple[Port, SwitchportConfig | None]]
    ) -> list[tuple[list[Port], SwitchChange]]:
        """The switch changes that put each port on its configuration, each with the ports
        that record it (a bond's members share one change): ports without a switch or
        already set are left out; a VLAN the switch does not allow is a 400."""
        planned: list[tuple[list[Port], SwitchChange]] = []
        plain, bonds = split_bonds(task.portgroups, list(wanted))
        for portgroup, config in bonds:
            lone = self._lone_member(task, portgroup)
            if lone is not None:
                plain.append((lone, config))
                continue
            change, members = self._bond_change(task, portgroup, config)
            if change is not None:
                planned.append((members, change))
        for port, config in plain:
            switch = self._switch_of(port)
            previous, was_bonded = applied(port), applied_bond(port)
            there = _set(config) == previous and APPLIED_KEY in port.internal_info
            if switch is None or (there and was_bonded is None):
                continue
            if config is not None:
                check_vlans_allowed(
                    config.vlans,
                    switch.name,
                    f"port {port.uuid}",
                    switch.allowed_vlans,
                    self.global_allowed_vlans,
                )
            port_id = _port_id(port)
            change = SwitchChange(switch, port_id, config, previous, previous_bond=was_bonded)
            planned.append(([port], change))
        return planned

    def attach_switch_changes(
        self, task: Task, vif_info: VifInfo, target: Port | Portgroup
    ) -> list[tuple[Port, SwitchChange]]:
        """What attaching ``vif_info`` to ``target`` would change on the switches now (the
        dry run's answer; a bond is shown on its first member): nothing without ``network``
        or before the node is active, as :meth:`vif_attach` moves ports."""
        network = self.requested_network(vif_info)
        if network is None or task.node.provision_state != "active":
            return []
        wanted = [(port, network) for port in self._target_ports(task, target)]
        return [(ports[0], change) for ports, change in self.switch_changes(task, wanted)]

    def requested_network(self, vif_info: VifInfo) -> SwitchportConfig | None:
        """The access VLAN the attach body's ``network`` names (None without one); 400 for
        a network it cannot name, as the attach answers before choosing a target."""
        raw = cast(dict[str, Any], vif_info).get("network")
        return None if raw is None else self.vif_network(vif_info["id"], raw)

    # -- the drift audit: what metalwire set, read back from the switches ------------------

    def audit_unavailable(self) -> str | None:
        if self.driver_problem is not None:
            return self.driver_problem
        if not self.switches:
            return "no switch is defined ([ironic_networking] switch_config_file)."
        return None

    def audit_nodes(self, tasks: Sequence[Task]) -> list[Finding]:
        return self.audit_nodes_checked(tasks)[0]

    def audit_nodes_checked(self, tasks: Sequence[Task]) -> tuple[list[Finding], list[NotChecked]]:
        """Each switch port metalwire set, compared with its switch (:mod:`.switch_audit`).

        A bond is read by the name its members recorded, once for them: a portgroup renamed
        or stripped of ``extra.lag`` keeps its old bond on the switch until the members' next
        change. Members of a LAG portgroup that recorded no bond are read by its bond's name.
        """
        audited: list[AuditedPort] = []
        for task in tasks:
            bonds_read: set[tuple[str, str]] = set()
            for port in self._linked(task):
                switch = self._switch_of(port)
                if switch is None or APPLIED_KEY not in (port.internal_info or {}):
                    continue
                read_as = self._audited_name(task, port)
                if read_as is None:
                    continue  # in a bond metalwire could not have made
                if read_as != _port_id(port):
                    if (switch.name, read_as) in bonds_read:
                        continue
                    bonds_read.add((switch.name, read_as))
                audited.append(AuditedPort(task, port, switch, read_as, applied(port)))
        return audit_ports(audited, self.device_factory, self.lock_dir)

    def _audited_name(self, task: Task, port: Port) -> str | None:
        """The switch port that holds what ``port`` recorded: the bond it recorded, else its
        LAG portgroup's bond (None if the members cannot form one), else its own."""
        recorded = applied_bond(port)
        if recorded is not None:
            return recorded.name
        group = task.portgroup_by_id(port.portgroup_id)
        if group is None or not is_lag(group):
            return _port_id(port)
        try:
            if self._lone_member(task, group) is not None:
                return _port_id(port)
            return check_bond_members(group, task.members(group), self.switches)[1].name
        except InvalidParameterValue:
            return None

    def _lone_member(self, task: Task, portgroup: Portgroup) -> Port | None:
        """The one member of a LAG portgroup on a switch where metalwire makes the bonds
        (Open vSwitch, which cannot bond a single interface): it is set as a port of its own
        on the portgroup's networks, as the member a bond keeps when the other leaves it.
        None for a portgroup of several members, or one whose port-channel is the
        operator's; 400 for members that cannot form the bond."""
        members = task.members(portgroup)
        switch, bond = check_bond_members(portgroup, members, self.switches)
        if len(bond.members) != 1 or not _takes_bonds_apart(switch.device_type):
            return None
        return members[0]

    def _bond_change(
        self, task: Task, portgroup: Portgroup, config: SwitchportConfig | None
    ) -> tuple[SwitchChange | None, list[Port]]:
        """The change that puts a LAG portgroup's bond on ``config`` (None when it is there),
        and the member ports that record it; 400 for members that cannot form the bond."""
        members = task.members(portgroup)
        switch, bond = check_bond_members(portgroup, members, self.switches)
        previous = applied(members[0])
        # another bond the members were made part of (the portgroup renamed, other members)
        was_bonded = next((b for m in members if (b := applied_bond(m)) not in (None, bond)), None)
        there = all(applied(m) == _set(config) and APPLIED_KEY in m.internal_info for m in members)
        if there and was_bonded is None:
            return None, members
        if config is not None:
            where = f"portgroup {portgroup.uuid}"
            check_vlans_allowed(
                config.vlans, switch.name, where, switch.allowed_vlans, self.global_allowed_vlans
            )
        # no member was in this bond: the change makes it, its undo takes it apart
        made = was_bonded is None and all(applied_bond(m) != bond for m in members)
        return SwitchChange(switch, bond.name, config, previous, bond, was_bonded, made), members

    def validate(self, task: Task) -> None:
        if self.driver_problem is not None:
            raise NetworkInterfaceInvalid(self.driver_problem)
        for port in task.ports:
            self.check_port(task, port)
        for portgroup in task.portgroups:
            if is_lag(portgroup):
                check_bond_members(portgroup, task.members(portgroup), self.switches)

    def portgroup_changed(self, task: Task, portgroup: Portgroup, changed: Collection[str]) -> None:
        if "extra" in changed and is_lag(portgroup):
            parse_lag(portgroup)  # Ironic validates extra.lag; members are checked at use

    def port_created(self, task: Task, port: Port) -> None:
        self.check_port_id(port)

    def node_adopted(self, task: Task) -> None:
        for port in task.ports:
            self.check_port_id(port)

    def port_changed(self, task: Task, port: Port, changed: Collection[str]) -> None:
        super().port_changed(task, port, changed)
        if "node_id" in changed:  # moved here: set at this node's next state change
            self._check_moved_here(task, port, changed)
            return
        if not SWITCH_FIELDS & set(changed):
            return
        self.check_port(task, port)  # its port_id too
        stored = next((p for p in task.ports if p.uuid == port.uuid), None)
        if stored is not None and self._link_of(stored) != self._link_of(port):
            self._refuse_switch_port_set_for_another(task, port)
        if stored is not None and self._link_moved(stored, port):
            self._move_link(task, stored, port)
        elif task.node.provision_state == "active":
            self._apply(task, [(port, self._active_config(task, port))])

    def _check_moved_here(self, task: Task, port: Port, changed: Collection[str]) -> None:
        """Refuse a port moved here from another node that this node could not set; its old
        node resets its switch port with the move (:meth:`move_port`)."""
        if not SWITCH_FIELDS & set(changed):
            self.check_port_id(port)
            return
        self.check_port(task, port)
        if "local_link_connection" in changed:
            self._refuse_switch_port_set_for_another(task, port)

    def _active_config(self, task: Task, port: Port) -> SwitchportConfig | None:
        """As at deploy: a VIF that named its network keeps the port there, else its
        switchport."""
        return self._vif_network_of(task, port) or self._tenant_config(port)

    def _link_of(self, port: Port) -> tuple[str, str] | None:
        """The switch (by its name in the switch file) and switch port a port is cabled to,
        None without one metalwire can drive."""
        switch = self._switch_of(port)
        if switch is None:
            return None
        return switch.name, _port_id(port)

    def _link_moved(self, stored: Port, port: Port) -> bool:
        """Whether ``port`` names another switch port than the one metalwire configured for
        ``stored`` (or none any more)."""
        return APPLIED_KEY in (stored.internal_info or {}) and self._link_of(
            stored
        ) != self._link_of(port)

    def _move_link(self, task: Task, stored: Port, port: Port) -> None:
        """A configured port cabled elsewhere, or no longer: its old switch port is reset
        (the idle network, else no VLAN configuration), and the new one, whatever it is set
        to now, is put on the network the port is on in this state (on an active node: as
        at deploy), all or nothing."""
        _refuse_bond_member(stored, "change its local_link_connection")
        changes = []
        reset = self._reset_change(task, stored)
        if reset is not None:
            changes.append(reset)
        now = applied(stored)
        wanted = (
            self._active_config(task, port) if task.node.provision_state == "active" else None
        ) or now
        new_switch = self._switch_of(port)
        info = {k: v for k, v in (stored.internal_info or {}).items() if k != APPLIED_KEY}
        if new_switch is not None and wanted is not None:
            check_vlans_allowed(
                wanted.vlans,
                new_switch.name,
                f"port {port.uuid}",
                new_switch.allowed_vlans,
                self.global_allowed_vlans,
            )
            port_id = _port_id(port)
            # what the new switch port is set to is not known: no "already there"
            changes.append(SwitchChange(new_switch, port_id, wanted, None))
            info = _recorded(stored, applied_record(wanted, None))
        self._commit(task, changes, [(stored, info)])

    def _refuse_switch_port_set_for_another(self, task: Task, port: Port) -> None:
        """409 when ``port``'s new link names a switch port metalwire set for another port
        still cabled there: setting it for ``port`` would leave that port's VLANs on it (a
        trunk's are only added to), and that port's node would set it back at its next
        state change. A switch port no port records is the operator's and is taken as it is.
        """
        switch = self._switch_of(port)
        if switch is None:
            return
        port_id = _port_id(port)
        for other in task.inventory.ports_mentioning_switch_port(port_id):
            if other.uuid == port.uuid or APPLIED_KEY not in (other.internal_info or {}):
                continue
            if self._link_of(other) == (switch.name, port_id):
                raise Conflict(
                    f"Port {port.uuid} cannot be cabled to switch {switch.name} port "
                    f"{port_id}: metalwire set that switch port for port {other.uuid}, whose "
                    "local_link_connection names it too. Change or remove that port's link "
                    "first."
                )

    def _reset_change(self, task: Task, stored: Port) -> SwitchChange | None:
        """The change that puts the switch port metalwire configured for ``stored`` back on
        the idle network (no VLAN configuration without one); None when there is nothing to
        reset, or it is there already. A bond member's switch port is left to its bond."""
        switch = self._switch_of(stored)
        if switch is None or APPLIED_KEY not in (stored.internal_info or {}):
            return None
        if applied_bond(stored) is not None:
            return None
        idle, now = self.state_network(task, "idle"), applied(stored)
        if _set(idle) == now:
            return None
        port_id = _port_id(stored)
        problem = port_id_problem(port_id)
        if problem is not None:  # stored before names were checked: metalwire cannot send it
            LOG.warning(
                "Port %s of node %s: its switch %s port is not reset: %s; reset it on the "
                "switch by hand",
                stored.uuid,
                task.node.uuid,
                switch.name,
                problem,
            )
            return None
        return SwitchChange(switch, port_id, idle, now)

    def remove_port(self, task: Task, port: Port) -> None:
        """The port's switch port is reset (:meth:`_reset_change`; a bond member's taken out
        of its bond, :meth:`_leave_bond`) with its deletion, all or nothing; on a node in
        maintenance a switch port that cannot be reset, whatever the reason (the switch, the
        driver, the node's idle network), is logged and the port deleted all the same."""
        try:
            changes, infos = self._leaving_changes(task, port)
            if changes:
                delete = functools.partial(task.inventory.delete_port, port.uuid)
                self._commit(task, changes, infos, also=delete)
                return
        except (NetworkError, Invalid) as exc:
            if not task.node.maintenance:
                raise
            switch, port_id = self._link_of(port) or ("?", "?")
            LOG.warning(
                "Deleting port %s of node %s in maintenance: switch %s port %s not reset: %s",
                port.uuid,
                task.node.uuid,
                switch,
                port_id,
                exc,
            )
        super().remove_port(task, port)

    def move_port(self, task: Task, port: Port, to: Task, store: Callable[[], Port]) -> Port:
        """A port moving to another node leaves no switch port on this node's network: the
        switch port metalwire configured for it is reset (:meth:`_reset_change`; a bond
        member's taken out of its bond, :meth:`_leave_bond`) with the move, all or nothing,
        and the port records it so."""
        if APPLIED_KEY not in (port.internal_info or {}):
            return store()  # metalwire set nothing for it
        changes, infos = self._leaving_changes(task, port)
        reset = changes[0] if changes else None
        stored: list[Port] = []

        def store_and_record() -> None:
            stored.append(self._record_left(task, port, store(), reset))

        self._commit(task, changes, infos, store_and_record, (to,))
        return stored[0]

    def _record_left(self, task: Task, port: Port, moved: Port, reset: SwitchChange | None) -> Port:
        """``moved`` (``port`` as moved) once it records what its switch port is on: what
        ``reset`` put it on; nothing if it is cabled to another switch port now, which
        metalwire has not set."""
        info = dict(moved.internal_info or {})
        if self._link_of(moved) != self._link_of(port):
            info.pop(APPLIED_KEY, None)
        elif reset is not None:
            info[APPLIED_KEY] = applied_record(reset.config, None)
        else:
            return moved
        return task.inventory.update_port(moved.uuid, {"internal_info": info})

    def _leaving_changes(
        self, task: Task, port: Port
    ) -> tuple[list[SwitchChange], list[tuple[Port, dict[str, Any]]]]:
        """What a port leaving the node (deleted, moved to another) changes on its switch,
        its own switch port's reset first, and what the ports staying record then."""
        if applied_bond(port) is not None:
            return self._leave_bond(task, port)
        reset = self._reset_change(task, port)
        return ([] if reset is None else [reset]), []

    def _leave_bond(
        self, task: Task, port: Port
    ) -> tuple[list[SwitchChange], list[tuple[Port, dict[str, Any]]]]:
        """The changes that take ``port`` out of the bond metalwire made it a member of: its
        switch interface reset to the idle network, the bond made again of the members left
        (on the VLANs it had), or taken apart when one is left (a port of its own on them);
        and what those members record then. Nothing on a device type whose port-channels
        metalwire does not make (logged: the operator takes the interface out)."""
        bond, switch = applied_bond(port), self._switch_of(port)
        assert bond is not None
        if switch is None:
            return [], []
        if not _takes_bonds_apart(switch.device_type):
            LOG.warning(
                "Port %s of node %s leaves bond %s of switch %s: take interface %s out of "
                "that port-channel on the switch by hand",
                port.uuid,
                task.node.uuid,
                bond.name,
                switch.name,
                _port_id(port),
            )
            return [], []
        config, idle = applied(port), self.state_network(task, "idle")
        others = [p for p in task.ports if p.uuid != port.uuid and applied_bond(p) == bond]
        changes = [SwitchChange(switch, _port_id(port), idle, config, previous_bond=bond)]
        if len(others) < 2:  # a bond needs two members: the one left is a port of its own
            changes += [SwitchChange(switch, _port_id(p), config, None) for p in others]
            return changes, [(p, _recorded(p, applied_record(config, None))) for p in others]
        staying = {_port_id(p) for p in others}
        # in the bond's order: a static bond's first member is its primary
        members = tuple(member for member in bond.members if member in staying)
        left = Bond(bond.name, members, bond.aggregation_mode)
        changes.append(SwitchChange(switch, bond.name, config, config, left, bond))
        return changes, [(p, _recorded(p, applied_record(config, left))) for p in others]

    def check_port_id(self, port: Port) -> None:
        """Refuse a port whose link names a switch of the switch file by a ``port_id`` that
        is no switch interface name (:mod:`metalwire.networking.port_ids`): it would go into
        the switch's commands."""
        if self._switch_of(port) is None:
            return
        problem = port_id_problem(_port_id(port))
        if problem is not None:
            raise InvalidParameterValue(f"Port {port.uuid} local_link_connection {problem}.")

    def check_port(self, task: Task, port: Port) -> None:
        """Refuse a port whose switch interface name or switchport configuration cannot be
        applied to its switch."""
        self.check_port_id(port)
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


def _generic_switch_device(switch: SwitchDefinition, python: str, login_timeout: int) -> Any:
    from metalwire.networking.generic_switch import GenericSwitchDevice

    return GenericSwitchDevice(switch, python, login_timeout=login_timeout)


def _takes_bonds_apart(device_type: str) -> bool:
    from metalwire.networking.generic_switch import takes_bonds_apart

    return takes_bonds_apart(device_type)


def _port_id(port: Port) -> str:
    """The switch port a port with a switch link is cabled to (``_switch_of`` found one)."""
    return str((port.local_link_connection or {})["port_id"])


def _refuse_bond_member(port: Port, what: str) -> None:
    """409 for a port metalwire made a member of a bond on its switch: it cannot ``what``
    while it is."""
    bond = applied_bond(port)
    if bond is not None:
        raise Conflict(
            f"Port {port.uuid} is a member of bond {bond.name} on its switch: it cannot "
            f"{what} while it is."
        )


def _recorded(port: Port, record: dict[str, Any] | None) -> dict[str, Any]:
    """``port``'s ``internal_info`` once its switch port is recorded set to ``record``."""
    return {**(port.internal_info or {}), APPLIED_KEY: record}


def _set(config: SwitchportConfig | None) -> SwitchportConfig | None:
    """What a port records once ``config`` is on its switch port (``applied``): the VLANs."""
    return None if config is None else config.on_switch
