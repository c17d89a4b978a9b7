"""Choosing the port or portgroup a VIF goes on, by Ironic's rule.

Which targets can take the VIF:

1. A port the node's network interface finds unusable (``port_unusable_reason``: e.g. a
   ``neutron`` port without ``local_link_connection``) is never used.
2. A port or portgroup already carrying a VIF is not used. A port carrying a VIF also makes
   its portgroup unusable; a portgroup carrying a VIF is skipped together with its members.
3. A port whose physical network is set and is not one the VIF can use is not used; nor is
   a portgroup whose own physical network (1.102) is set and is not one of them.
4. A member port is reached through its portgroup. It is a candidate of its own only when
   its portgroup is unusable because another member carries a VIF.
5. A portgroup is a candidate only with at least one member that could take the VIF by
   rules 1 to 3; an empty portgroup never is.

A portgroup's physical network is its own, else the one its member ports share (they are
kept equal: ``conductor/inventory_rules.check_member_physnet``). Among the candidates: those
on one of the VIF's physical networks first, then portgroups
before ports, then PXE-enabled ports; on equal terms, standalone ports before member ports,
and the oldest first. ``standalone_ports_supported`` plays no part here: it is a rule on what
may be written to a member port, checked when the port or portgroup is written.

A requested ``port_uuid`` must be a standalone port that is a candidate; a requested
``portgroup_uuid`` must be a candidate portgroup. If nothing is left, the error names every
port and portgroup and why it was refused, so an operator can see at once what to fix.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from metalwire.db.models import Port, Portgroup
from metalwire.errors import Invalid, MetalwireError, NoFreePhysicalPort
from metalwire.networking.task import Task

#: Why a port cannot take a VIF on its node, or None if it can (the network interface's rule).
PortRefusal = Callable[[Port], str | None]

# The keys Ironic allows in a Smart NIC's local_link_connection; port_id and hostname needed.
_SMART_NIC_LINK_KEYS = frozenset(
    {
        "port_id",
        "switch_id",
        "hostname",
        "switch_info",
        "network_type",
        "vtep-logical-switch",
        "vtep-physical-switch",
    }
)


@dataclass(frozen=True)
class Candidate:
    target: Port | Portgroup
    physnet_match: bool

    @property
    def sort_key(self) -> tuple[bool, bool, bool]:
        # Portgroups count as PXE-enabled, as in Ironic; only ports are compared on it.
        target = self.target
        is_port = isinstance(target, Port)
        pxe = target.pxe_enabled if isinstance(target, Port) else True
        return (not self.physnet_match, is_port, not pxe)


def describe(target: Port | Portgroup) -> str:
    kind = "port" if isinstance(target, Port) else "portgroup"
    label = target.address or getattr(target, "name", None)
    return f"{kind} {target.uuid}" + (f" ({label})" if label else "")


def portgroup_physnet(task: Task, portgroup: Portgroup) -> str | None:
    """A portgroup's physical network: its own (1.102), else the one its member ports share.

    metalwire keeps the two equal (a member joins only on the portgroup's, a portgroup
    without one adopts its first member's, a change of the portgroup's is set on each
    member); the members' one serves portgroups stored before 1.102.
    """
    if portgroup.physical_network is not None:
        return portgroup.physical_network
    physnets = {p.physical_network for p in task.members(portgroup) if p.physical_network}
    return physnets.pop() if len(physnets) == 1 else None


def has_smart_nic_link(link: Mapping[str, Any] | None) -> bool:
    """Whether a local_link_connection describes a Smart NIC (port_id and hostname)."""
    if not link or not {"port_id", "hostname"} <= set(link) or set(link) - _SMART_NIC_LINK_KEYS:
        return False
    if link.get("network_type", "managed") not in ("managed", "unmanaged"):
        return False
    return all(isinstance(value, str) for value in link.values())


def smart_nic_refusal(port: Port) -> str | None:
    """Why a port's ``is_smartnic`` contradicts its local_link_connection, or None."""
    smart_link = has_smart_nic_link(port.local_link_connection)
    if port.is_smartnic and not smart_link:
        return (
            "is a Smart NIC (is_smartnic true) but its local_link_connection lacks port_id "
            "and hostname"
        )
    if not port.is_smartnic and smart_link:
        return (
            "is not a Smart NIC (is_smartnic false) but its local_link_connection has the "
            "port_id and hostname of one"
        )
    return None


def _physnet_refusal(physnet: str | None, physnets: Collection[str]) -> Refusal | None:
    if not physnets or physnet is None or physnet in physnets:
        return None
    needed = ", ".join(sorted(physnets))
    return Refusal(PHYSICAL_NETWORK, f"is on physical network {physnet}, the VIF needs {needed}")


# Why a target was refused, as a code a program can test; each Refusal's text says it for people.
UNUSABLE = "unusable"  # the network interface's rule, e.g. no local_link_connection
PHYSICAL_NETWORK = "physical_network"
BUSY = "busy"
PORTGROUP_BUSY = "portgroup_busy"  # a member port whose portgroup carries a VIF
MEMBER_BUSY = "member_busy"  # a portgroup one of whose members carries a VIF
NO_MEMBERS = "no_members"
NO_USABLE_MEMBER = "no_usable_member"
PORTGROUP_MEMBER = "portgroup_member"  # reached only through its portgroup
RANKED_LOWER = "ranked_lower"  # could take the VIF, but another target comes first
NOT_REQUESTED = "not_requested"  # could take the VIF, but another target was requested


@dataclass(frozen=True)
class Refusal:
    """Why a port or portgroup does not get the VIF.

    ``text`` completes "port <uuid> ..." (the words of the no-free-port message); ``vif`` is
    the VIF that makes the target (or its portgroup, or a member) busy, if that is the reason.
    """

    code: str
    text: str
    vif: str | None = None


@dataclass(frozen=True)
class Placement:
    """Where a VIF would go on a node: the chosen target, and why every other one was not.

    ``refused`` lists every other port and portgroup of the node, in the order of the node's
    inventory (standalone ports, then each portgroup followed by its members). When nothing
    can take the VIF, ``chosen`` is None and ``error`` is what the attach raises.
    """

    chosen: Port | Portgroup | None
    refused: list[tuple[Port | Portgroup, Refusal]]
    error: MetalwireError | None = None


class _Assessment:
    """Why each of the node's ports and portgroups can or cannot take the VIF."""

    def __init__(self, task: Task, physnets: Collection[str], port_refusal: PortRefusal) -> None:
        self.task = task
        self.physnets = physnets
        self.port_refusal = port_refusal

    def own_refusal(self, port: Port) -> Refusal | None:
        """Rules 1 to 3 for one port, leaving its portgroup aside."""
        unusable = self.port_refusal(port)
        if unusable is not None:
            return Refusal(UNUSABLE, unusable)
        reason = _physnet_refusal(port.physical_network, self.physnets)
        if reason is not None:
            return reason
        vif = self.task.vif_on(port)
        return None if vif is None else Refusal(BUSY, f"is busy with VIF {vif}", vif)

    def busy_member(self, portgroup: Portgroup) -> tuple[Port, str] | None:
        for member in self.task.members(portgroup):
            vif = self.task.vif_on(member)
            if vif is not None:
                return member, vif
        return None

    def portgroup_refusal(self, portgroup: Portgroup) -> Refusal | None:
        vif = self.task.vif_on(portgroup)
        if vif is not None:
            return Refusal(BUSY, f"is busy with VIF {vif}", vif)
        reason = _physnet_refusal(portgroup.physical_network, self.physnets)
        if reason is not None:
            return reason
        members = self.task.members(portgroup)
        if not members:
            return Refusal(NO_MEMBERS, "has no member ports")
        taken = self.busy_member(portgroup)
        if taken is not None:
            return Refusal(
                MEMBER_BUSY,
                f"cannot be used while its member port {taken[0].uuid} carries VIF {taken[1]} "
                "(its free members are used on their own)",
                taken[1],
            )
        if all(self.own_refusal(member) is not None for member in members):
            return Refusal(NO_USABLE_MEMBER, "has no free member port that can take the VIF")
        return None

    def member_refusal(self, port: Port, portgroup: Portgroup) -> Refusal | None:
        vif = self.task.vif_on(portgroup)
        if vif is not None:
            return Refusal(
                PORTGROUP_BUSY,
                f"belongs to portgroup {portgroup.uuid}, which is busy with VIF {vif}",
                vif,
            )
        reason = self.own_refusal(port)
        if reason is not None:
            return reason
        if self.busy_member(portgroup) is None:
            return Refusal(
                PORTGROUP_MEMBER,
                f"belongs to portgroup {portgroup.uuid} and is used only through it",
            )
        return None

    def requested_refusal(self, target: Port | Portgroup) -> Refusal | None:
        """Why an explicitly requested target cannot take the VIF, or None."""
        if isinstance(target, Portgroup):
            return self.portgroup_refusal(target)
        if target.portgroup_id is not None:
            group = next(pg for pg in self.task.portgroups if pg.id == target.portgroup_id)
            return Refusal(
                PORTGROUP_MEMBER,
                f"is a member of portgroup {group.uuid}; a VIF goes on the portgroup "
                "(portgroup_uuid), not on one of its member ports",
            )
        return self.own_refusal(target)

    def physnet_match(self, target: Port | Portgroup) -> bool:
        if isinstance(target, Port):
            physnet = target.physical_network
        else:
            physnet = portgroup_physnet(self.task, target)
        return physnet is not None and physnet in self.physnets

    def in_order(self) -> list[tuple[Port | Portgroup, Refusal | None]]:
        """Every target with its refusal: standalone ports, then each portgroup and members."""
        task = self.task
        ports = sorted(task.ports, key=lambda p: p.id)
        out: list[tuple[Port | Portgroup, Refusal | None]] = [
            (p, self.own_refusal(p)) for p in ports if p.portgroup_id is None
        ]
        for portgroup in sorted(task.portgroups, key=lambda pg: pg.id):
            out.append((portgroup, self.portgroup_refusal(portgroup)))
            for member in ports:
                if member.portgroup_id == portgroup.id:
                    out.append((member, self.member_refusal(member, portgroup)))
        return out


def _ranked_lower(loser: Candidate, winner: Candidate) -> Refusal:
    """Why a target that could take the VIF lost to the chosen one: the first rule that split
    them (see the module's docstring)."""
    chosen = describe(winner.target)
    if loser.physnet_match != winner.physnet_match:
        why = "is on one of the VIF's physical networks"
    elif isinstance(loser.target, Port) != isinstance(winner.target, Port):
        why = "is a portgroup, and portgroups come before ports"
    elif loser.sort_key != winner.sort_key:
        why = "is PXE-enabled, and PXE-enabled ports come first"
    else:
        why = "comes first (standalone ports before member ports, then the oldest)"
    return Refusal(RANKED_LOWER, f"could take the VIF, but {chosen} {why}")


def place(
    task: Task,
    vif_id: str,
    physnets: Collection[str] = (),
    *,
    port_refusal: PortRefusal,
    requested: Port | Portgroup | None = None,
    explain: bool = True,
) -> Placement:
    """Where the VIF goes: the best free target (or the ``requested`` one, if it can take
    the VIF), with every other target and why it was not chosen. Reads only.

    ``port_refusal`` is the node's network interface's rule on which ports are usable. The
    attach (:func:`select_free_target`, :func:`check_requested_target`) and its dry run both
    come here, so a dry run explains exactly the choice an attach makes. Without ``explain``
    a successful placement leaves ``refused`` empty (the attach does not show it).
    """
    assessment = _Assessment(task, physnets, port_refusal)
    if requested is not None:
        return _place_requested(vif_id, assessment, requested, explain)
    assessed = assessment.in_order()
    candidates: list[Candidate] = []
    for target, reason in assessed:
        if reason is None:
            candidates.append(Candidate(target, assessment.physnet_match(target)))
    if not candidates:
        refused = [(target, reason) for target, reason in assessed if reason is not None]
        node = task.node.label
        texts = [f"{describe(target)} {reason.text}" for target, reason in refused]
        detail = "; ".join(texts) if texts else "the node has no ports or portgroups"
        error = NoFreePhysicalPort(
            f"No free port or portgroup on node {node} for VIF {vif_id}: {detail}."
        )
        return Placement(None, refused, error)
    # sorted() is stable: on equal keys the order of in_order() decides.
    winner = sorted(candidates, key=lambda c: c.sort_key)[0]
    if not explain:
        return Placement(winner.target, [])
    losers = {id(c.target): c for c in candidates if c is not winner}
    others: list[tuple[Port | Portgroup, Refusal]] = []
    for target, reason in assessed:
        if target is winner.target:
            continue
        if reason is None:
            reason = _ranked_lower(losers[id(target)], winner)
        others.append((target, reason))
    return Placement(winner.target, others)


def _place_requested(
    vif_id: str, assessment: _Assessment, requested: Port | Portgroup, explain: bool
) -> Placement:
    refusal = assessment.requested_refusal(requested)
    if refusal is None and not explain:
        return Placement(requested, [])
    others: list[tuple[Port | Portgroup, Refusal]] = []
    for target, reason in assessment.in_order():
        if _same(target, requested):
            continue
        if reason is None:
            text = f"could take the VIF, but {describe(requested)} was requested"
            reason = Refusal(NOT_REQUESTED, text)
        others.append((target, reason))
    if refusal is None:
        return Placement(requested, others)
    error = Invalid(f"Unable to attach VIF {vif_id} to {describe(requested)}: it {refusal.text}.")
    return Placement(None, [(requested, refusal), *others], error)


def _same(a: Port | Portgroup, b: Port | Portgroup) -> bool:
    return type(a) is type(b) and a.id == b.id


def select_free_target(
    task: Task, vif_id: str, physnets: Collection[str] = (), *, port_refusal: PortRefusal
) -> Port | Portgroup:
    """The best free port or portgroup for the VIF; raises NoFreePhysicalPort naming each.

    ``port_refusal`` is the node's network interface's rule on which ports are usable.
    """
    return _chosen(place(task, vif_id, physnets, port_refusal=port_refusal, explain=False))


def check_requested_target(
    task: Task,
    vif_id: str,
    target: Port | Portgroup,
    physnets: Collection[str] = (),
    *,
    port_refusal: PortRefusal,
) -> None:
    """Refuse (400) an explicitly requested port or portgroup that cannot take the VIF."""
    _chosen(
        place(task, vif_id, physnets, port_refusal=port_refusal, requested=target, explain=False)
    )


def _chosen(placement: Placement) -> Port | Portgroup:
    if placement.chosen is None:
        assert placement.error is not None
        raise placement.error
    return placement.chosen
