"""Bonds of the ``ironic-networking`` interface: a portgroup with ``extra["lag"]`` is one
port-channel on its switch.

Ironic 39 only validates a portgroup's LAG configuration (its generic-switch driver refuses
LAGs); metalwire configures it. A LAG portgroup's member ports are set as one switch port, the
bond, named after the portgroup (:func:`bond_name`): every member must have a
``local_link_connection`` with ``switch_id`` and ``port_id``, all on one switch of the switch
file, or the portgroup is refused with a 400 naming it and the port.

networking-generic-switch has no operation that makes a bond: its ``plug_bond_to_network``
sets the VLAN of a port-channel that already exists on the switch (on ``netmiko_ovs_linux``
it falls back to ``plug_port_to_network`` on the bond's name). For Open vSwitch metalwire
sends, through the same SSH device, one ``ovs-vsctl`` transaction (:func:`ovs_bond_command`)
that turns the member ports into a bond before the VLAN is set: it removes the members as
ports of their own and adds the bond of them (``--may-exist``: nothing changes when the bond
is there already). On other device types the port-channel must exist on the switch under the
bond's name. Open vSwitch cannot bond one interface: a LAG portgroup of one member is set as
that member's own port there (``ironic_networking``), until a second member joins.

Each member records the bond it was made part of (:func:`bond_record`, in its
``switchport_applied``). When a member is next set as a port of its own (the portgroup lost
``extra.lag`` or was deleted, the port left it) or as part of a bond of another name (the
portgroup was renamed), the old bond is taken apart first on Open vSwitch
(:func:`ovs_unbond_command`): its members become ports of their own again, so the switch
takes commands for them. A member deleted or moved to another node leaves the bond at once
(``ironic_networking``: the bond taken apart and made again of the members left).

``extra["lag"]`` follows Ironic's LAG schema: ``mode`` (access, trunk, hybrid) and
``aggregation_mode`` (``lacp`` or ``static``) required, optional ``native_vlan``,
``allowed_vlans`` (not in access mode), ``mtu``; nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from metalwire.db.models import Port, Portgroup
from metalwire.errors import InvalidParameterValue
from metalwire.networking.port_ids import PORT_ID, PORT_ID_CHARACTERS
from metalwire.networking.switch_file import SwitchDefinition, find_switch
from metalwire.networking.switchport import (
    MODES,
    allowed_vlans_problem,
    mtu_problem,
    vlan_problem,
)

__all__ = [
    "LAG_KEY",
    "Bond",
    "bond_name",
    "bond_record",
    "check_bond_members",
    "is_lag",
    "ovs_bond_command",
    "ovs_unbond_command",
    "parse_lag",
    "recorded_bond",
    "split_bonds",
]

LAG_KEY = "lag"
AGGREGATION_MODES = ("lacp", "static")
_LAG_KEYS = frozenset({"mode", "native_vlan", "allowed_vlans", "aggregation_mode", "mtu"})
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_MAX_BOND_NAME = 64


@dataclass(frozen=True)
class Bond:
    """The port-channel of one LAG portgroup: its name and member ports on its switch."""

    name: str
    members: tuple[str, ...]
    aggregation_mode: str = "static"


def is_lag(portgroup: Portgroup | None) -> bool:
    return portgroup is not None and bool((portgroup.extra or {}).get(LAG_KEY))


def _lag_problem(value: Any) -> str | None:
    if not isinstance(value, Mapping):
        return f"{value!r} is not an object"
    unknown = sorted(set(value) - _LAG_KEYS)
    if unknown:
        known = ", ".join(sorted(_LAG_KEYS))
        return f"unknown key(s) {', '.join(map(repr, unknown))} (known: {known})"
    for key in ("mode", "aggregation_mode"):
        if key not in value:
            return f"{key!r} is required"
    if value["mode"] not in MODES:
        return f"mode {value['mode']!r} is not one of {', '.join(MODES)}"
    if value["aggregation_mode"] not in AGGREGATION_MODES:
        return (
            f"aggregation_mode {value['aggregation_mode']!r} is not one of "
            f"{', '.join(AGGREGATION_MODES)}"
        )
    if "native_vlan" in value:
        problem = vlan_problem(value["native_vlan"])
        if problem:
            return f"native_vlan {problem}"
    allowed = value.get("allowed_vlans")
    if allowed is not None:
        if value["mode"] == "access":
            return "allowed_vlans is not allowed in 'access' mode"
        if not isinstance(allowed, list):
            return "allowed_vlans must be a list of VLAN IDs"
        problem = allowed_vlans_problem(allowed)
        if problem:
            return problem
    return mtu_problem(value.get("mtu"))


def parse_lag(portgroup: Portgroup) -> Mapping[str, Any]:
    """The portgroup's ``extra["lag"]``, checked; raises InvalidParameterValue."""
    value = (portgroup.extra or {}).get(LAG_KEY)
    problem = _lag_problem(value)
    if problem:
        raise InvalidParameterValue(
            f"Invalid LAG configuration for portgroup {portgroup.uuid}: {problem}"
        )
    assert isinstance(value, Mapping)
    return value


def bond_name(portgroup: Portgroup) -> str:
    """The bond's name on the switch: the portgroup's name (characters other than letters,
    digits, ``_.-`` become ``-``), else ``bond-`` and the start of its UUID."""
    name = _NAME_UNSAFE.sub("-", portgroup.name or "")[:_MAX_BOND_NAME].strip("-")
    return name or f"bond-{portgroup.uuid[:8]}"


def check_bond_members(
    portgroup: Portgroup, members: Sequence[Port], switches: Mapping[str, SwitchDefinition]
) -> tuple[SwitchDefinition, Bond]:
    """The bond's switch and members; 400 naming the portgroup and the port that does not fit
    (no members, a member without a switch link, a switch not in the switch file, members on
    two switches)."""
    lag = parse_lag(portgroup)
    where = f"Portgroup {portgroup.uuid} has a LAG configuration but"
    if not members:
        raise InvalidParameterValue(f"{where} no member ports.")
    switch: SwitchDefinition | None = None
    port_ids: list[str] = []
    for port in members:
        link = port.local_link_connection or {}
        if not link.get("switch_id") or not link.get("port_id"):
            raise InvalidParameterValue(
                f"{where} its member port {port.uuid} has no local_link_connection with "
                "switch_id and port_id."
            )
        found = find_switch(switches, str(link["switch_id"]))
        if found is None:
            known = ", ".join(sorted(switches)) or "none"
            raise InvalidParameterValue(
                f"{where} its member port {port.uuid} names switch {link['switch_id']!r}, "
                f"which is not in the switch file (switches: {known})."
            )
        if switch is not None and found.name != switch.name:
            raise InvalidParameterValue(
                f"{where} its member port {port.uuid} is on switch {found.name} and the "
                f"others on {switch.name}: all members of a bond must be on one switch."
            )
        switch = found
        port_id = str(link["port_id"])
        if not PORT_ID.fullmatch(port_id):
            raise InvalidParameterValue(
                f"{where} its member port {port.uuid} has port_id {port_id!r}: a bond's "
                f"members must be named with {PORT_ID_CHARACTERS}."
            )
        port_ids.append(port_id)
    assert switch is not None
    return switch, Bond(bond_name(portgroup), tuple(port_ids), str(lag["aggregation_mode"]))


def ovs_bond_command(bond: Bond) -> str:
    """One ``ovs-vsctl`` transaction that makes ``bond`` of its members on their bridge.

    Nothing runs unless every member is an interface of the switch. Members that are ports
    of their own are removed first (``--if-exists``: a member already
    in the bond is not a port); ``--may-exist`` leaves a bond with these members as it is.
    Static bonds are active-backup on the first member; LACP bonds fall back to it while no
    partner answers.
    """
    first = bond.members[0]
    # Open vSwitch takes a bond of interfaces it lacks (and reports them after committing):
    # every member must be an interface of the switch first, or nothing runs
    checks = " && ".join(f"ovs-vsctl iface-to-br {member} >/dev/null" for member in bond.members)
    removals = " -- ".join(f"--if-exists del-port {member}" for member in bond.members)
    settings = (
        "lacp=active other_config:lacp-fallback-ab=true bond_mode=active-backup"
        if bond.aggregation_mode == "lacp"
        else f"lacp=off bond_mode=active-backup other_config:bond-primary={first}"
    )
    members = " ".join(bond.members)
    bridge = f'"$(ovs-vsctl iface-to-br {first})"'
    return (
        f"{checks} && ovs-vsctl {removals} -- --may-exist add-bond {bridge} {bond.name} "
        f"{members} -- set port {bond.name} {settings}"
    )


def ovs_unbond_command(bond: Bond) -> str:
    """One ``ovs-vsctl`` transaction that takes ``bond`` apart: the bond's port removed and
    each member added back as a port of its own on the bridge (``--if-exists`` and
    ``--may-exist``: nothing changes for a bond already taken apart)."""
    bridge = f'"$(ovs-vsctl iface-to-br {bond.members[0]})"'
    additions = " -- ".join(f"--may-exist add-port {bridge} {member}" for member in bond.members)
    return f"ovs-vsctl --if-exists del-port {bond.name} -- {additions}"


def bond_record(bond: Bond) -> dict[str, Any]:
    """How a member port records the bond it was made part of."""
    return {
        "name": bond.name,
        "members": list(bond.members),
        "aggregation_mode": bond.aggregation_mode,
    }


def recorded_bond(record: Any) -> Bond | None:
    """The bond :func:`bond_record` recorded; None for none or a record it did not write."""
    if not isinstance(record, Mapping):
        return None
    name, members = record.get("name"), record.get("members")
    if not isinstance(name, str) or not isinstance(members, list) or not members:
        return None
    mode = record.get("aggregation_mode")
    aggregation = mode if mode in AGGREGATION_MODES else "static"
    return Bond(name, tuple(str(member) for member in members), aggregation)


def split_bonds(
    portgroups: Sequence[Portgroup], wanted: Sequence[tuple[Port, Any]]
) -> tuple[list[tuple[Port, Any]], list[tuple[Portgroup, Any]]]:
    """Split ``(port, config)`` pairs into the ports of their own and the LAG portgroups
    (one config each); 400 if the members of one bond are given different configs."""
    lags = {group.id: group for group in portgroups if is_lag(group)}
    plain: list[tuple[Port, Any]] = []
    bonds: dict[int, tuple[Portgroup, Any]] = {}
    for port, config in wanted:
        group = lags.get(port.portgroup_id) if port.portgroup_id is not None else None
        if group is None:
            plain.append((port, config))
        elif group.id not in bonds:
            bonds[group.id] = (group, config)
        elif bonds[group.id][1] != config:
            raise InvalidParameterValue(
                f"Portgroup {group.uuid} is a bond: its member port {port.uuid} cannot be "
                "set to another configuration than the other members (set extra.switchport "
                "alike on every member)."
            )
    return plain, list(bonds.values())
