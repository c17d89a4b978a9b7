"""SQL for VIF attachments: the record of which VIF sits on which port or portgroup."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from metalwire.db.models import Node, Port, Portgroup, VifAttachment, node_label, utcnow
from metalwire.db.nodes import ident_column
from metalwire.db.portgroups import remove_if_dynamic
from metalwire.db.statements import Read, Repository, Sql, detached
from metalwire.errors import Conflict, NodeNotFound


def of_node(node_id: int) -> Read[VifAttachment]:
    """The node's attachments (see :func:`ports_first` for their order)."""
    return Read(VifAttachment, "node_id = ?", (node_id,))


def of_node_or_vif(node_id: int, vif_id: str) -> Read[VifAttachment]:
    """The node's attachments and the VIF's on whichever node has it."""
    return Read(VifAttachment, "node_id = ? OR vif_id = ?", (node_id, vif_id))


def ports_first(attachments: Iterable[VifAttachment]) -> list[VifAttachment]:
    return sorted(attachments, key=lambda a: (a.port_id is None, a.port_id or a.portgroup_id or 0))


def _touch(sql: Sql, model: type[Port | Portgroup], target_id: int | None) -> None:
    """Set the target's ``updated_at``: the VIF it shows (internal_info) changed."""
    sql.defer(
        f"UPDATE {model.__tablename__} SET updated_at = ? WHERE id = ?",
        (sql.bind(model, "updated_at", utcnow()), target_id),
    )


def _target_of(attachment: VifAttachment) -> tuple[type[Port | Portgroup], int | None]:
    if attachment.port_id is not None:
        return Port, attachment.port_id
    return Portgroup, attachment.portgroup_id


@dataclass(frozen=True)
class VifHolder:
    """The node a VIF is attached to, with what decides who may see it."""

    node_id: int
    node_uuid: str
    node_name: str | None
    owner: str | None
    lessee: str | None

    @property
    def label(self) -> str:
        return node_label(self.node_uuid, self.node_name)


_HOLDER = (
    "SELECT nodes.id, nodes.uuid, nodes.name, nodes.owner, nodes.lessee FROM vif_attachments"
    " JOIN nodes ON nodes.id = vif_attachments.node_id WHERE vif_attachments.vif_id = ?"
)


class Attachments(Repository):
    """The VIF attachment records, and the node reads that come with them."""

    def for_node(self, node_id: int) -> list[VifAttachment]:
        """Attachments of a node: those on ports first, then those on portgroups."""
        return ports_first(self._sql.load(*of_node(node_id)))

    def for_node_or_vif(self, node_id: int, vif_id: str) -> list[VifAttachment]:
        """The node's attachments (ports first) and the VIF's on whichever node has it, in one
        query: what an attach reads before it chooses."""
        return ports_first(self._sql.load(*of_node_or_vif(node_id, vif_id)))

    def with_node(self, ident: str) -> tuple[Node, list[VifAttachment]]:
        """A node by UUID or name and its attachments (ports first), in one query."""
        sql = self._sql
        column = ident_column(ident)
        text = (
            f"SELECT {sql.columns(Node)}, {sql.columns(VifAttachment)} FROM nodes"
            " LEFT OUTER JOIN vif_attachments ON vif_attachments.node_id = nodes.id"
            f" WHERE nodes.{column} = ?"
        )
        cursor = sql.batch([(text, (ident,))])[0]
        rows = cursor.fetchall()
        if not rows:
            raise NodeNotFound(ident)
        node = sql.instances(Node, text, cursor, rows[:1])[0]
        width = len(Node.__table__.columns)
        attachments = sql.instances(VifAttachment, text, cursor, rows, offset=width)
        return node, ports_first(attachments)

    def find(self, vif_id: str) -> VifAttachment | None:
        found = self._sql.load(VifAttachment, "vif_id = ?", (vif_id,))
        return found[0] if found else None

    def record(
        self,
        node_id: int,
        vif_id: str,
        target: Port | Portgroup,
        info: Mapping[str, Any],
        *,
        source: str = "api",
        pending: bool = False,
    ) -> VifAttachment:
        """Record the attachment; the keys refuse a second VIF on the target or the VIF twice.

        Callers look for the :meth:`holder` first for a message naming the other node; the keys
        still hold when two processes race, and then the statement fails with Conflict.
        """
        values = {
            "vif_id": vif_id,
            "node_id": node_id,
            "port_id": target.id if isinstance(target, Port) else None,
            "portgroup_id": target.id if isinstance(target, Portgroup) else None,
            "source": source,
            "info": dict(info),
            "pending": pending,
        }
        kind = "port" if isinstance(target, Port) else "portgroup"

        def conflict() -> Conflict:
            return Conflict(
                f"Unable to attach VIF {vif_id} to {kind} {target.uuid}: the VIF or the "
                f"{kind} was taken by another request at the same moment."
            )

        # Sent with the next statement or the commit; the keys still decide.
        stored = self._sql.insert(VifAttachment, values, conflict)
        if not pending:
            _touch(self._sql, type(target), target.id)
        return detached(VifAttachment, stored)

    def confirm(self, vif_id: str) -> None:
        """Mark a pending attachment as done."""
        self._sql.execute(
            "UPDATE vif_attachments SET pending = ? WHERE vif_id = ?",
            (self._sql.bind(VifAttachment, "pending", False), vif_id),
        )
        attachment = self.find(vif_id)
        if attachment is not None:
            _touch(self._sql, *_target_of(attachment))

    def update_info(self, vif_id: str, info: Mapping[str, Any]) -> None:
        """Replace what is kept about an attachment (``info``)."""
        self._sql.execute(
            "UPDATE vif_attachments SET info = ? WHERE vif_id = ?",
            (self._sql.bind(VifAttachment, "info", dict(info)), vif_id),
        )

    def reopen(self, vif_id: str, info: Mapping[str, Any]) -> None:
        """Make a done attachment pending again, with ``info``: an operation that must be
        finished or undone if its process dies (see ``confirm``)."""
        self._sql.execute(
            "UPDATE vif_attachments SET pending = ?, info = ? WHERE vif_id = ?",
            (
                self._sql.bind(VifAttachment, "pending", True),
                self._sql.bind(VifAttachment, "info", dict(info)),
                vif_id,
            ),
        )

    def holder(self, vif_id: str) -> VifHolder | None:
        """The node the VIF is attached to, or None when it is free."""
        return self.holders((vif_id,)).get(vif_id)

    def holders(self, vif_ids: Collection[str]) -> dict[str, VifHolder]:
        """The nodes these VIFs are attached to, by VIF id; free ones left out. One statement
        text whatever their number (sent together: one round trip on PostgreSQL)."""
        ids = list(vif_ids)
        if not ids:
            return {}
        cursors = self._sql.batch([(_HOLDER, (vif_id,)) for vif_id in ids])
        found = {}
        for vif_id, cursor in zip(ids, cursors, strict=True):
            rows = cursor.fetchall()
            if rows:
                found[vif_id] = VifHolder(*rows[0])
        return found

    def remove(self, vif_id: str, known: VifAttachment | None = None) -> None:
        """Forget an attachment; one made through extra/vif_port_id leaves that key too.

        ``known`` is the attachment as the caller read it in this transaction, if it did.
        """
        sql = self._sql
        attachment = known if known is not None else self.find(vif_id)
        if attachment is None:
            return
        model, target_id = _target_of(attachment)
        if attachment.source == "legacy":
            targets = sql.load(model, "id = ?", (target_id,))
            # Only if it still names this VIF: a PATCH may have replaced it with another one.
            if targets and str(targets[0].extra.get("vif_port_id")) == vif_id:
                extra = {k: v for k, v in targets[0].extra.items() if k != "vif_port_id"}
                sql.execute(
                    f"UPDATE {model.__tablename__} SET extra = ? WHERE id = ?",
                    (sql.bind(model, "extra", extra), target_id),
                )
        sql.defer("DELETE FROM vif_attachments WHERE vif_id = ?", (vif_id,))
        if model is Portgroup and remove_if_dynamic(sql, target_id):
            return
        if not attachment.pending:
            _touch(sql, model, target_id)


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
