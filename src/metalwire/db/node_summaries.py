"""SQL for the node summaries of the topology page: one page of nodes with how many ports,
portgroups and VIFs each has, and a search by name, UUID, MAC address or VIF id.

A page costs a fixed number of statements whatever its size (the page, then one grouped count
per kind), so a list of thousands of nodes is read a page at a time without a query per node.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import ColumnElement, case, false, func, or_, select, true
from sqlalchemy.orm import Session

from metalwire.db.models import Node, Port, Portgroup, VifAttachment
from metalwire.db.nodes import SORTABLE
from metalwire.db.pagination import Page, paginate
from metalwire.errors import NodeNotFound
from metalwire.identifiers import is_uuid

_MAC_SEPARATORS = re.compile(r"[:.\-]")
_HEX12 = re.compile(r"^[0-9a-f]{12}$")
# What of a node can match a search (``Match.field``).
MATCHED_FIELDS = (
    *("name", "uuid", "port_uuid", "port_address"),
    *("portgroup_uuid", "portgroup_name", "portgroup_address", "vif"),
)


@dataclass(frozen=True)
class Match:
    """What of a node matched a search: ``field`` is one of :data:`MATCHED_FIELDS`; ``uuid``
    names the port or portgroup that matched, when one did."""

    field: str
    value: str
    uuid: str | None = None


@dataclass
class NodeSummary:
    node: Node
    ports: int = 0
    portgroups: int = 0
    dynamic_portgroups: int = 0  # of ``portgroups``: built by trait-based networking
    vifs: int = 0
    physical_networks: list[str] = field(default_factory=list)
    matched: list[Match] = field(default_factory=list)


def as_mac(text: str) -> str | None:
    """``text`` as a stored MAC address (lower case, colons) when it spells one in any usual
    way (colons, dashes, dots of Cisco's notation, or none), else None."""
    digits = _MAC_SEPARATORS.sub("", text.strip().lower())
    if not _HEX12.match(digits) or len(text.strip()) not in (12, 14, 17):
        return None
    return ":".join(digits[i : i + 2] for i in range(0, 12, 2))


def _vif_ids(q: str) -> list[str]:
    """The VIF ids ``q`` names: itself, and a UUID (a Neutron port's id) in lower case too."""
    lowered = q.lower()
    return [q, lowered] if is_uuid(lowered) and lowered != q else [q]


def _searched(q: str) -> ColumnElement[bool]:
    """Nodes whose name contains ``q`` (any case), or that ``q`` names exactly by UUID, by a
    port's or portgroup's UUID or MAC, by a portgroup's name, or by an attached VIF's id."""
    lowered = q.lower()
    terms: list[ColumnElement[bool]] = [
        func.lower(Node.name).contains(lowered, autoescape=True),
        Node.id.in_(
            select(VifAttachment.node_id).where(
                VifAttachment.vif_id.in_(_vif_ids(q)), VifAttachment.pending == false()
            )
        ),
        Node.id.in_(select(Portgroup.node_id).where(Portgroup.name == q)),
    ]
    if is_uuid(lowered):
        terms += [
            Node.uuid == lowered,
            Node.id.in_(select(Port.node_id).where(Port.uuid == lowered)),
            Node.id.in_(select(Portgroup.node_id).where(Portgroup.uuid == lowered)),
        ]
    mac = as_mac(q)
    if mac is not None:
        terms += [
            Node.id.in_(select(Port.node_id).where(Port.address == mac)),
            Node.id.in_(select(Portgroup.node_id).where(Portgroup.address == mac)),
        ]
    return or_(*terms)


def list_summaries(
    session: Session, project: str | None, q: str | None, page: Page
) -> list[NodeSummary]:
    """One page of nodes (those ``project`` owns or leases, or every node for None), matching
    ``q`` if given, each with its counts and what matched; raises NodeNotFound for a marker
    that names no node and InvalidParameterValue for a bad sort."""
    query = select(Node)
    if project is not None:
        query = query.where(or_(Node.owner == project, Node.lessee == project))
    if q:
        query = query.where(_searched(q))
    nodes: list[Node] = paginate(session, query, Node, page, SORTABLE, NodeNotFound)
    summaries = {node.id: NodeSummary(node) for node in nodes}
    if summaries:
        _count(session, summaries)
        if q:
            _explain(session, summaries, q)
    return list(summaries.values())


def _count(session: Session, summaries: dict[int, NodeSummary]) -> None:
    ids = list(summaries)
    ports = select(Port.node_id, func.count()).where(Port.node_id.in_(ids))
    for node_id, number in session.execute(ports.group_by(Port.node_id)):
        summaries[node_id].ports = number
    dynamic = func.sum(case((Portgroup.dynamic_portgroup == true(), 1), else_=0))
    groups = select(Portgroup.node_id, func.count(), dynamic).where(Portgroup.node_id.in_(ids))
    for node_id, number, built in session.execute(groups.group_by(Portgroup.node_id)):
        summaries[node_id].portgroups = number
        summaries[node_id].dynamic_portgroups = int(built or 0)
    attached = (
        select(VifAttachment.node_id, func.count())
        .where(VifAttachment.node_id.in_(ids), VifAttachment.pending == false())
        .group_by(VifAttachment.node_id)
    )
    for node_id, number in session.execute(attached):
        summaries[node_id].vifs = number
    physnets = (
        select(Port.node_id, Port.physical_network)
        .where(Port.node_id.in_(ids), Port.physical_network.is_not(None))
        .distinct()
    )
    found: dict[int, set[str]] = defaultdict(set)
    for node_id, physnet in session.execute(physnets):
        if physnet is not None:
            found[node_id].add(physnet)
    for node_id, names in found.items():
        summaries[node_id].physical_networks = sorted(names)


def _explain(session: Session, summaries: dict[int, NodeSummary], q: str) -> None:
    """Fill in what matched ``q`` on each node of the page (the page's rows only)."""
    ids = list(summaries)
    lowered = q.lower()
    for summary in summaries.values():
        name = summary.node.name
        if name is not None and lowered in name.lower():
            summary.matched.append(Match("name", name))
        if summary.node.uuid == lowered:
            summary.matched.append(Match("uuid", summary.node.uuid))
    mac = as_mac(q)
    names_uuid = is_uuid(lowered)
    port_terms: list[ColumnElement[bool]] = []
    group_terms: list[ColumnElement[bool]] = [Portgroup.name == q]
    if mac is not None:
        port_terms.append(Port.address == mac)
        group_terms.append(Portgroup.address == mac)
    if names_uuid:
        port_terms.append(Port.uuid == lowered)
        group_terms.append(Portgroup.uuid == lowered)
    if port_terms:
        ports = select(Port.node_id, Port.uuid, Port.address)
        for node_id, uuid, address in session.execute(
            ports.where(Port.node_id.in_(ids), or_(*port_terms))
        ):
            if address == mac:
                summaries[node_id].matched.append(Match("port_address", address, uuid))
            else:
                summaries[node_id].matched.append(Match("port_uuid", uuid, uuid))
    groups = select(Portgroup.node_id, Portgroup.uuid, Portgroup.name, Portgroup.address).where(
        Portgroup.node_id.in_(ids), or_(*group_terms)
    )
    for node_id, group_uuid, name, group_mac in session.execute(groups):
        if group_mac is not None and group_mac == mac:
            summaries[node_id].matched.append(Match("portgroup_address", group_mac, group_uuid))
        elif name is not None and name == q:
            summaries[node_id].matched.append(Match("portgroup_name", name, group_uuid))
        else:
            summaries[node_id].matched.append(Match("portgroup_uuid", group_uuid, group_uuid))
    vifs = select(VifAttachment.node_id, VifAttachment.vif_id).where(
        VifAttachment.node_id.in_(ids),
        VifAttachment.vif_id.in_(_vif_ids(q)),
        VifAttachment.pending == false(),
    )
    for node_id, vif_id in session.execute(vifs):
        summaries[node_id].matched.append(Match("vif", vif_id))
