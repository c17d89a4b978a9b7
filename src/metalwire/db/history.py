"""SQL for node history: one row per recorded event."""

from __future__ import annotations

import datetime as dt
import uuid as uuidlib
from dataclasses import dataclass, fields, replace

from sqlalchemy import select
from sqlalchemy.orm import Session

from metalwire.db.models import Node, NodeHistory, utcnow
from metalwire.db.pagination import Page, paginate
from metalwire.db.statements import Repository, detached
from metalwire.errors import NotFound


@dataclass(frozen=True)
class HistoryEntry:
    """One event in a node's history.

    ``node_id``, ``conductor``, ``user`` and ``project`` say where and by whom; a task fills
    them in (:meth:`by`) from its node and request. ``state``, ``target_provision_state`` and
    ``duration_seconds`` (since the node's last provision state change) are the node's when
    the entry is written (:meth:`at_state`), as Ironic 39 records them.
    """

    event_type: str
    event: str
    severity: str = "INFO"
    vif_id: str | None = None
    target_uuid: str | None = None
    result: str | None = "success"
    node_id: int | None = None
    conductor: str | None = None
    user: str | None = None
    project: str | None = None
    state: str | None = None
    target_provision_state: str | None = None
    duration_seconds: int | None = None

    @classmethod
    def failed(
        cls, event_type: str, event: str, vif_id: str | None = None, target_uuid: str | None = None
    ) -> HistoryEntry:
        """An ERROR entry of an operation that failed."""
        return cls(event_type, event, "ERROR", vif_id, target_uuid, result="failure")

    def by(
        self, node_id: int, conductor: str, user: str | None, project: str | None
    ) -> HistoryEntry:
        """The entry on a node, by a conductor, for a request's user and project."""
        return replace(self, node_id=node_id, conductor=conductor, user=user, project=project)

    def at_state(self, node: Node | None) -> HistoryEntry:
        """The entry with the node's provision state, target and time in that state."""
        if node is None:
            return self
        return replace(
            self,
            state=node.provision_state,
            target_provision_state=node.target_provision_state,
            duration_seconds=_seconds_since(node.provision_updated_at),
        )


def _seconds_since(moment: dt.datetime | None) -> int | None:
    if moment is None:
        return None
    if moment.tzinfo is None:  # SQLite and MariaDB hand back naive UTC times
        moment = moment.replace(tzinfo=dt.UTC)
    return int((utcnow() - moment).total_seconds())


# The columns an entry fills (dataclasses.asdict would deep-copy each value, on every write).
_ENTRY_FIELDS = tuple(f.name for f in fields(HistoryEntry))


class History(Repository):
    def add(self, entry: HistoryEntry) -> NodeHistory:
        """Write an entry bound to its node (:meth:`HistoryEntry.by`)."""
        if entry.node_id is None:
            raise ValueError(f"history entry {entry.event!r} names no node")
        values = {"uuid": str(uuidlib.uuid4())}
        values.update((name, getattr(entry, name)) for name in _ENTRY_FIELDS)
        return detached(NodeHistory, self._sql.insert(NodeHistory, values))


def for_node(session: Session, node_id: int, page: Page) -> list[NodeHistory]:
    query = select(NodeHistory).where(NodeHistory.node_id == node_id)
    return paginate(session, query, NodeHistory, page, {"id", "created_at"}, _not_found)


def _not_found(uuid: str) -> NotFound:
    return NotFound(f"Node history record {uuid} could not be found.")


def get(session: Session, node_id: int, uuid: str) -> NodeHistory:
    entry = session.scalars(
        select(NodeHistory).where(NodeHistory.node_id == node_id, NodeHistory.uuid == uuid)
    ).one_or_none()
    if entry is None:
        raise _not_found(uuid)
    return entry
