"""The rules a port or portgroup must keep, checked on the row as it would be after a change.

Each check takes the *proposed* row (the stored one with the change applied, or the new one),
the stored row it replaces (None on create) and the inventory of every node the change
touches, read under those nodes' locks. Checking the proposed row catches what a check of the
request alone misses: a port moved to another node keeps the portgroup it had unless the same
request says otherwise, so its portgroup is checked against the node it moves to.

The schema holds the node rules as well (composite foreign keys, see ``db/models.py``); these
checks come first so that the client gets a message naming what is wrong.

The last rules depend on the provision state of the node a port or portgroup is on after the
change only: what may change on a deployed node's port (its MAC, its connectivity) and to
which nodes a portgroup may move.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from metalwire.db.models import Node, Port, Portgroup, VifAttachment
from metalwire.errors import (
    Conflict,
    Invalid,
    InvalidParameterValue,
    InvalidState,
    InvalidStateRequested,
    PortgroupPhysnetInconsistent,
)
from metalwire.identifiers import is_switch_address
from metalwire.networking.base import NetworkInterface
from metalwire.networking.task import Task

# The provision state of a deployed node: its ports do not move off it, nor change their MAC,
# unless it is in maintenance.
_ACTIVE = "active"


@dataclass(frozen=True)
class Inventory:
    """The nodes a change touches with their portgroups, ports and VIFs, read under lock."""

    nodes: dict[int, Node]
    portgroups: dict[int, Portgroup]
    ports: list[Port]
    attachments: list[VifAttachment]

    @classmethod
    def of(cls, tasks: Iterable[Task]) -> Inventory:
        tasks = list(tasks)
        return cls(
            nodes={t.node.id: t.node for t in tasks},
            portgroups={pg.id: pg for t in tasks for pg in t.portgroups},
            ports=[p for t in tasks for p in t.ports],
            attachments=[a for t in tasks for a in t.attachments],
        )

    def vif_on(self, target: Port | Portgroup) -> str | None:
        column = "port_id" if isinstance(target, Port) else "portgroup_id"
        return next((a.vif_id for a in self.attachments if getattr(a, column) == target.id), None)

    def members(self, portgroup: Portgroup) -> list[Port]:
        return [p for p in self.ports if p.portgroup_id == portgroup.id]

    def label(self, node_id: int) -> str:
        """A locked node's UUID and name (never its database id)."""
        return self.nodes[node_id].label

    def attached_dynamic(self, portgroup_id: int | None) -> tuple[Portgroup, str] | None:
        """The dynamic portgroup ``portgroup_id`` and its VIF, if it is one and has one."""
        group = self.portgroups.get(portgroup_id) if portgroup_id is not None else None
        if group is None or not group.dynamic_portgroup:
            return None
        vif = self.vif_on(group)
        return None if vif is None else (group, vif)


# What may change on a dynamic portgroup while its VIF is attached: labels only. Its members,
# physical network, mode and node are what the VIF was bound with (trait-based networking).
DYNAMIC_PORTGROUP_LABELS = frozenset({"name", "extra"})


def _dynamic_held(group: Portgroup, vif: str, subject: str = "") -> str:
    """Why a dynamic portgroup holding a VIF cannot change; ``subject``: how the sentence
    names the portgroup (``it`` when it is the object of the refused change)."""
    return (
        f"{subject or f'portgroup {group.uuid}'} is a dynamic portgroup built for VIF {vif}; "
        "detach the VIF first (the detach deletes the portgroup and frees its ports)"
    )


def refuse_dynamic_member_change(
    proposed: Port | None, current: Port | None, inv: Inventory
) -> None:
    """A port leaves, joins, moves with or is deleted from an attached dynamic portgroup only
    with its VIF: Conflict (Ironic 39 lets the member set change under the bound VIF)."""
    before = current.portgroup_id if current is not None else None
    after = proposed.portgroup_id if proposed is not None else None
    moving = proposed is not None and current is not None and proposed.node_id != current.node_id
    port = proposed or current
    assert port is not None
    for group_id in {before, after}:
        held = inv.attached_dynamic(group_id)
        if held is not None and (before != after or moving or proposed is None):
            action = "be deleted" if proposed is None else "change portgroup or node"
            raise Conflict(f"Port {port.uuid} cannot {action}: {_dynamic_held(*held)}.")


def refuse_dynamic_portgroup_change(current: Portgroup, changed: set[str], inv: Inventory) -> None:
    """An attached dynamic portgroup changes only its labels: Conflict otherwise."""
    held = inv.attached_dynamic(current.id)
    fields = sorted(
        "node_uuid" if f == "node_id" else f for f in changed - DYNAMIC_PORTGROUP_LABELS
    )
    if held is not None and fields:
        group = held[0]
        raise Conflict(
            f"Cannot change {', '.join(fields)} of portgroup {group.uuid}: "
            f"{_dynamic_held(*held, subject='it')}."
        )


def refuse_dynamic_portgroup_delete(current: Portgroup, inv: Inventory) -> None:
    """400, as Ironic 39 answers for any portgroup with members (a dynamic one has them)."""
    held = inv.attached_dynamic(current.id)
    if held is not None:
        group = held[0]
        why = _dynamic_held(*held, subject="it")
        raise Invalid(f"Cannot delete portgroup {group.uuid}: {why}.")


def _refuse_move_of_vif_holder(kind: str, current: Port | Portgroup, inv: Inventory) -> None:
    vif = inv.vif_on(current)
    if vif is not None:
        raise Conflict(
            f"Cannot move {kind} {current.uuid} to another node: VIF {vif} is attached to it. "
            "Detach the VIF first."
        )
    node = inv.nodes[current.node_id]
    if node.provision_state == _ACTIVE and not node.maintenance:
        raise InvalidStateRequested(
            f"Cannot move {kind} {current.uuid} off node {inv.label(node.id)} while it is active."
        )


def check_port(
    proposed: Port,
    current: Port | None,
    inv: Inventory,
    portgroup_elsewhere: Portgroup | None = None,
    legacy_vif: str | None = None,
    refuse_pxe_member: bool = True,
) -> None:
    """Refuse a port that would break a rule; ``proposed.node_id`` must be in ``inv``.

    ``portgroup_elsewhere`` is the proposed portgroup when it is on none of the locked nodes
    (read without a lock, for the message only); ``legacy_vif`` the VIF the request sets in
    ``extra/vif_port_id``; ``refuse_pxe_member`` whether a PXE-enabled member of a portgroup
    without standalone ports is refused (the node's network interface says, for an update).
    """
    moving = current is not None and current.node_id != proposed.node_id
    if moving:
        assert current is not None
        _refuse_move_of_vif_holder("port", current, inv)
    refuse_dynamic_member_change(proposed, current, inv)
    if proposed.portgroup_id is None:
        return
    portgroup = inv.portgroups.get(proposed.portgroup_id) or portgroup_elsewhere
    if portgroup is None or portgroup.node_id != proposed.node_id:
        if portgroup is None:
            where = "gone (deleted meanwhile)"
        elif portgroup.node_id in inv.nodes:
            where = f"on node {inv.label(portgroup.node_id)}"
        else:  # a node this request holds no lock on, and may not see: named by nobody
            where = "on another node"
        name = portgroup.uuid if portgroup is not None else str(proposed.portgroup_id)
        hint = " Remove or replace portgroup_uuid in the same request." if moving else ""
        raise InvalidParameterValue(
            f"Port {proposed.uuid} cannot be a member of portgroup {name} while on node "
            f"{inv.label(proposed.node_id)}: the portgroup is {where}.{hint}"
        )
    if not portgroup.standalone_ports_supported:
        if proposed.pxe_enabled and refuse_pxe_member:
            raise Conflict(
                f"Port {proposed.uuid} cannot be a member of portgroup {portgroup.uuid} with "
                "pxe_enabled true: the portgroup does not support standalone ports."
            )
        vif = (inv.vif_on(proposed) if current is not None else None) or legacy_vif
        if vif is not None:
            raise Conflict(
                f"Port {proposed.uuid} carries VIF {vif}; it cannot be a member of portgroup "
                f"{portgroup.uuid}, which does not support standalone ports."
            )


def check_portgroup(
    proposed: Portgroup,
    current: Portgroup | None,
    inv: Inventory,
    refuse_pxe_members: bool = True,
) -> None:
    """Refuse a portgroup that would break a rule; ``proposed.node_id`` must be in ``inv``.

    ``refuse_pxe_members``: whether ``standalone_ports_supported`` may not become false
    under a PXE-enabled member (the node's network interface says)."""
    if current is None:
        return
    members = inv.members(current)
    if current.node_id != proposed.node_id:
        if members:
            raise Invalid(
                f"Portgroup {current.uuid} has member ports "
                f"({', '.join(p.uuid for p in members)}); it cannot move to another node."
            )
        _refuse_move_of_vif_holder("portgroup", current, inv)
    if not proposed.standalone_ports_supported and current.standalone_ports_supported:
        for port in members:
            vif = inv.vif_on(port)
            if (port.pxe_enabled and refuse_pxe_members) or vif is not None:
                why = f"carries VIF {vif}" if vif is not None else "has pxe_enabled true"
                raise Conflict(
                    f"Cannot set standalone_ports_supported false on portgroup "
                    f"{current.uuid}: its member port {port.uuid} {why}."
                )
    if proposed.physical_network != current.physical_network:
        _refuse_physnet_change_under_vif(current, members, inv)


def _refuse_physnet_change_under_vif(
    portgroup: Portgroup, members: list[Port], inv: Inventory
) -> None:
    """A portgroup's physical network is its members' too (Ironic sets it on each): not
    changed while the portgroup or a member carries a VIF bound on the old one."""
    targets: list[Port | Portgroup] = [portgroup, *members]
    for target in targets:
        vif = inv.vif_on(target)
        if vif is not None:
            kind = "it" if target is portgroup else f"its member port {target.uuid}"
            raise Conflict(
                f"Cannot change the physical_network of portgroup {portgroup.uuid} while "
                f"{kind} carries VIF {vif}; detach the VIF first."
            )


def members_to_follow(proposed: Portgroup, inv: Inventory) -> list[Port]:
    """The member ports whose physical network becomes the portgroup's new one (Ironic 39
    sets a portgroup's physical_network on each of its member ports)."""
    return [p for p in inv.members(proposed) if p.physical_network != proposed.physical_network]


def check_member_physnet(proposed: Port, current: Port | None, inv: Inventory) -> str | None:
    """Ironic's rule on a member port's physical network, checked when a port joins a
    portgroup or a member's physical network changes: all members share one (None too).

    Without other members, a portgroup with a physical network of its own (1.102) takes only
    ports on it; one without takes any port and adopts the port's. Returns the physical
    network the portgroup adopts, or None. Raises Conflict for a port on another one, and
    PortgroupPhysnetInconsistent if the other members already disagree.
    """
    if proposed.portgroup_id is None:
        return None
    if (
        current is not None
        and current.portgroup_id == proposed.portgroup_id
        and current.physical_network == proposed.physical_network
    ):
        return None
    portgroup = inv.portgroups[proposed.portgroup_id]
    others = {m.physical_network for m in inv.members(portgroup) if m.id != proposed.id}
    if len(others) > 1:
        raise PortgroupPhysnetInconsistent(
            f"Portgroup {portgroup.uuid} has member ports on different physical networks "
            f"({', '.join(sorted(str(n) for n in others))}); all members of a portgroup "
            "must share one."
        )
    if others:
        needed = others.pop()
        where = "its other member ports are"
    elif portgroup.physical_network is not None:
        needed = portgroup.physical_network
        where = "the portgroup is"
    else:
        return proposed.physical_network
    if proposed.physical_network != needed:
        raise Conflict(
            f"Port {proposed.uuid} on physical network {proposed.physical_network or '(none)'} "
            f"cannot be a member of portgroup {portgroup.uuid}: {where} on physical network "
            f"{needed or '(none)'}."
        )
    return None


# -- what a node's provision state allows its ports and portgroups --------------------------

# The states in which a port's connectivity may change, and a portgroup move to a node,
# without maintenance (Ironic's allowed_update_states of a port or portgroup update), and
# those fields of a port, by the name the API gives them.
PORT_REWIRE_STATES = frozenset({"enroll", "manageable", "inspecting", "inspect wait"})
PORT_CONNECTIVITY_FIELDS = {
    "local_link_connection": "local_link_connection",
    "pxe_enabled": "pxe_enabled",
    "physical_network": "physical_network",
    "portgroup_id": "portgroup_uuid",
}


def _rewirable(node: Node) -> bool:
    """Whether the node's ports may be wired anew: it is in maintenance or not yet deployed."""
    return node.maintenance or node.provision_state in PORT_REWIRE_STATES


def _rewire_states() -> str:
    return ", ".join(sorted(PORT_REWIRE_STATES))


def refuse_address_change_in_use(node: Node, port_uuid: str, changed: Collection[str]) -> None:
    """As Ironic: a port's MAC is fixed while its node is deployed or has an instance, unless
    the node is in maintenance (409); the deployed instance's VIF depends on it."""
    if node.maintenance or "address" not in changed:
        return
    if node.provision_state == _ACTIVE or node.instance_uuid:
        raise InvalidState(
            f"Cannot change the address of port {port_uuid}: node {node.label} is active or "
            "has an instance; put the node in maintenance first."
        )


def refuse_rewiring_deployed_port(
    node: Node, iface: NetworkInterface | None, port_uuid: str, changed: Collection[str]
) -> None:
    """As Ironic: a port's connectivity (link, PXE, physical network, portgroup) changes only
    while its node is not yet deployed nor being deployed, or in maintenance (409), unless
    its network interface sets the network up anew for the change."""
    touched = sorted(PORT_CONNECTIVITY_FIELDS.keys() & set(changed))
    if not touched or _rewirable(node):
        return
    if iface is not None and iface.rewires_deployed_ports():
        return
    fields = ", ".join(PORT_CONNECTIVITY_FIELDS[f] for f in touched)
    raise InvalidState(
        f"Port {port_uuid} cannot change its {fields}: node {node.label} is in provision "
        f"state {node.provision_state!r}; only in {_rewire_states()} or in maintenance."
    )


def refuse_portgroup_move_to_deployed(node: Node, portgroup_uuid: str) -> None:
    """As Ironic: a portgroup moves only to a node in enroll, manageable, inspecting or
    inspect wait, or in maintenance (409)."""
    if _rewirable(node):
        return
    raise InvalidState(
        f"Portgroup {portgroup_uuid} cannot move to node {node.label} in provision state "
        f"{node.provision_state!r}; only to a node in {_rewire_states()} or in maintenance."
    )


def refuse_switch_name(
    iface: NetworkInterface | None, node: Node, port: Port, interface: str | None = None
) -> None:
    """As Ironic: a port's switch_id is a MAC address or an OpenFlow datapath ID (400), unless
    the node's network interface names switches (``ironic-networking``: by the switch file's
    section names). ``interface``: the one the node changes to."""
    switch_id = (port.local_link_connection or {}).get("switch_id")
    if not isinstance(switch_id, str) or is_switch_address(switch_id):
        return
    if iface is not None and iface.names_switches():
        return
    raise InvalidParameterValue(
        f"Expected a MAC address or OpenFlow datapath ID but received {switch_id!r} as "
        f"local_link_connection/switch_id of port {port.uuid}: a switch is named otherwise "
        f"only on a node whose network interface names switches (ironic-networking), and "
        f"node {node.label} would use {interface or node.network_interface!r}."
    )
