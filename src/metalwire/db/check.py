"""``metalwire db check``: the schema and the stored rows against the rules they must keep.

The keys of ``db/models.py`` hold these rules on every write the API makes; the rows can still
break them when the keys were not enforced (an SQLite file written with foreign keys off, a
restored dump loaded with checks disabled, a hand edit). Each finding names the row and the
rule, so an operator can repair it before the server trips over it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlalchemy import Engine, inspect, select
from sqlalchemy.orm import Session, aliased

from metalwire.db.migrations import current_revision, head_revision
from metalwire.db.models import Allocation, Base, Chassis, Node, Port, Portgroup, VifAttachment

_MAC = re.compile(r"^([0-9a-f]{2}:){5}[0-9a-f]{2}$")


def schema_findings(engine: Engine) -> list[str]:
    """The revision and the tables and columns of the models the database lacks or adds."""
    current, head = current_revision(engine), head_revision(engine)
    if current is None:
        return ["the database has no schema: run 'metalwire db upgrade'"]
    if current != head:
        return [f"the schema is at revision {current}, not {head}: run 'metalwire db upgrade'"]
    findings: list[str] = []
    inspector = inspect(engine)
    existing = set(inspector.get_table_names())
    for table in Base.metadata.sorted_tables:
        if table.name not in existing:
            findings.append(f"table {table.name} is missing")
            continue
        stored = {column["name"] for column in inspector.get_columns(table.name)}
        for name in sorted(set(table.columns.keys()) - stored):
            findings.append(f"column {table.name}.{name} is missing")
        for name in sorted(stored - set(table.columns.keys())):
            findings.append(f"column {table.name}.{name} is not in the models")
    return findings


def row_findings(engine: Engine) -> list[str]:
    """Each row that breaks a rule the keys should hold, with the rule (one transaction)."""
    with Session(engine) as session:
        return [
            *_port_findings(session),
            *_portgroup_findings(session),
            *_attachment_findings(session),
            *_chassis_findings(session),
            *_allocation_findings(session),
        ]


def _port_findings(session: Session) -> Iterator[str]:
    group = aliased(Portgroup)
    rows = session.execute(
        select(Port, Node.id, group)
        .outerjoin(Node, Node.id == Port.node_id)
        .outerjoin(group, group.id == Port.portgroup_id)
    )
    for port, node_id, portgroup in rows:
        where = f"port {port.uuid}"
        if node_id is None:
            yield f"{where}: its node (id {port.node_id}) does not exist"
        if port.portgroup_id is not None and portgroup is None:
            yield f"{where}: its portgroup (id {port.portgroup_id}) does not exist"
        elif portgroup is not None and portgroup.node_id != port.node_id:
            yield f"{where}: its portgroup {portgroup.uuid} is on another node"
        if not _MAC.match(port.address or ""):
            yield f"{where}: address {port.address!r} is not a lower-case MAC address"


def _portgroup_findings(session: Session) -> Iterator[str]:
    rows = session.execute(select(Portgroup, Node.id).outerjoin(Node, Node.id == Portgroup.node_id))
    for portgroup, node_id in rows:
        if node_id is None:
            yield f"portgroup {portgroup.uuid}: its node (id {portgroup.node_id}) does not exist"
        if portgroup.address is not None and not _MAC.match(portgroup.address):
            yield (
                f"portgroup {portgroup.uuid}: address {portgroup.address!r} is not a lower-case "
                "MAC address"
            )


def _attachment_findings(session: Session) -> Iterator[str]:
    rows = session.execute(
        select(VifAttachment, Node.id, Port, Portgroup)
        .outerjoin(Node, Node.id == VifAttachment.node_id)
        .outerjoin(Port, Port.id == VifAttachment.port_id)
        .outerjoin(Portgroup, Portgroup.id == VifAttachment.portgroup_id)
    )
    for attachment, node_id, port, portgroup in rows:
        where = f"VIF {attachment.vif_id}"
        if node_id is None:
            yield f"{where}: its node (id {attachment.node_id}) does not exist"
        if (attachment.port_id is None) == (attachment.portgroup_id is None):
            yield f"{where}: attached to both a port and a portgroup, or to neither"
        for kind, target_id, target in (
            ("port", attachment.port_id, port),
            ("portgroup", attachment.portgroup_id, portgroup),
        ):
            if target_id is not None and target is None:
                yield f"{where}: its {kind} (id {target_id}) does not exist"
            elif target is not None and target.node_id != attachment.node_id:
                yield f"{where}: its {kind} {target.uuid} is on another node"


def _chassis_findings(session: Session) -> Iterator[str]:
    known = set(session.scalars(select(Chassis.uuid)))
    for uuid, attrs in session.execute(select(Node.uuid, Node.attrs).order_by(Node.id)):
        chassis = attrs.get("chassis_uuid") if isinstance(attrs, dict) else None
        if chassis and chassis not in known:
            yield f"node {uuid}: its chassis {chassis} does not exist"


def _allocation_findings(session: Session) -> Iterator[str]:
    """A node and its allocation name each other: the node's allocation_uuid is the UUID of
    the allocation whose node it is, and its instance_uuid too."""
    holding = {
        node_id: uuid
        for uuid, node_id in session.execute(select(Allocation.uuid, Allocation.node_id))
        if node_id is not None
    }
    rows = session.execute(select(Node.id, Node.uuid, Node.instance_uuid, Node.attrs))
    named = {}
    for node_id, uuid, instance, attrs in rows:
        allocation = attrs.get("allocation_uuid") if isinstance(attrs, dict) else None
        named[node_id] = allocation
        if allocation and holding.get(node_id) != allocation:
            yield f"node {uuid}: its allocation {allocation} does not hold it"
        elif allocation and instance != allocation:
            yield f"node {uuid}: its instance_uuid is not its allocation's UUID {allocation}"
    for node_id, allocation in holding.items():
        if node_id in named and named[node_id] != allocation:
            yield f"allocation {allocation}: its node (id {node_id}) does not name it"
