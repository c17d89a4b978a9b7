"""SQL for VIF attachments: the record of which VIF sits on which port or portgroup."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import delete as sql_delete
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire.db.models import Node, Port, Portgroup, VifAttachment
from metalwire.db.nodes import is_uuid_like
from metalwire.errors import Conflict, NodeNotFound, VifAlreadyAttached


def for_node(session: Session, node_id: int) -> list[VifAttachment]:
    """Attachments of a node: those on ports first, then those on portgroups."""
    rows = session.scalars(select(VifAttachment).where(VifAttachment.node_id == node_id))
    return _ports_first(rows)


def _ports_first(attachments: Iterable[VifAttachment]) -> list[VifAttachment]:
    return sorted(attachments, key=lambda a: (a.port_id is None, a.port_id or a.portgroup_id or 0))


def node_with_attachments(session: Session, ident: str) -> tuple[Node, list[VifAttachment]]:
    """A node by UUID or name and its attachments (ports first), in one query."""
    column = Node.uuid if is_uuid_like(ident) else Node.name
    rows = session.execute(
        select(Node, VifAttachment)
        .outerjoin(VifAttachment, VifAttachment.node_id == Node.id)
        .where(column == ident)
    ).all()
    if not rows:
        raise NodeNotFound(ident)
    return rows[0][0], _ports_first(a for _, a in rows if a is not None)


def find(session: Session, vif_id: str) -> VifAttachment | None:
    return session.get(VifAttachment, vif_id)


def holder_node(session: Session, vif_id: str) -> Node | None:
    """The node a VIF is attached to anywhere in the inventory, if any."""
    attachment = find(session, vif_id)
    return None if attachment is None else session.get(Node, attachment.node_id)


def record(
    session: Session,
    node_id: int,
    vif_id: str,
    target: Port | Portgroup,
    info: Mapping[str, Any],
    source: str = "api",
    pending: bool = False,
) -> VifAttachment:
    """Record the attachment; the keys refuse a second VIF on the target or the VIF twice.

    Callers check :func:`holder_node` first for a message naming the other node; the keys
    still hold when two processes race, and then the transaction fails with Conflict.
    """
    attachment = VifAttachment(
        vif_id=vif_id,
        node_id=node_id,
        port_id=target.id if isinstance(target, Port) else None,
        portgroup_id=target.id if isinstance(target, Portgroup) else None,
        source=source,
        info=dict(info),
        pending=pending,
    )
    session.add(attachment)
    try:
        session.flush()
    except IntegrityError:
        kind = "port" if isinstance(target, Port) else "portgroup"
        raise Conflict(
            f"Unable to attach VIF {vif_id} to {kind} {target.uuid}: the VIF or the {kind} "
            "was taken by another request at the same moment."
        ) from None
    return attachment


def confirm(session: Session, vif_id: str) -> None:
    """Mark a pending attachment as done."""
    attachment = find(session, vif_id)
    if attachment is not None:
        attachment.pending = False


def check_free(session: Session, vif_id: str) -> None:
    """Raise VifAlreadyAttached, naming the node, if the VIF is attached anywhere."""
    other = holder_node(session, vif_id)
    if other is not None:
        name = f" ({other.name})" if other.name else ""
        raise VifAlreadyAttached(
            f"Unable to attach VIF {vif_id}: it is already attached to node {other.uuid}{name}."
        )


def remove(session: Session, vif_id: str) -> None:
    """Forget an attachment; one made through extra/vif_port_id leaves that key too."""
    attachment = find(session, vif_id)
    if attachment is None:
        return
    if attachment.source == "legacy":
        target: Port | Portgroup | None = (
            session.get(Port, attachment.port_id)
            if attachment.port_id is not None
            else session.get(Portgroup, attachment.portgroup_id)
        )
        if target is not None and "vif_port_id" in target.extra:
            target.extra = {k: v for k, v in target.extra.items() if k != "vif_port_id"}
    session.execute(sql_delete(VifAttachment).where(VifAttachment.vif_id == vif_id))


def on_port(session: Session, port_id: int) -> VifAttachment | None:
    return session.scalars(
        select(VifAttachment).where(VifAttachment.port_id == port_id)
    ).one_or_none()


def on_portgroup(session: Session, portgroup_id: int) -> VifAttachment | None:
    return session.scalars(
        select(VifAttachment).where(VifAttachment.portgroup_id == portgroup_id)
    ).one_or_none()


def by_port_ids(session: Session, port_ids: list[int]) -> dict[int, VifAttachment]:
    """Attachment per port id, for showing many ports with one query."""
    if not port_ids:
        return {}
    rows = session.scalars(select(VifAttachment).where(VifAttachment.port_id.in_(port_ids)))
    return {row.port_id: row for row in rows if row.port_id is not None}


def by_portgroup_ids(session: Session, portgroup_ids: list[int]) -> dict[int, VifAttachment]:
    if not portgroup_ids:
        return {}
    rows = session.scalars(
        select(VifAttachment).where(VifAttachment.portgroup_id.in_(portgroup_ids))
    )
    return {row.portgroup_id: row for row in rows if row.portgroup_id is not None}
