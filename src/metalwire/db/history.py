"""SQL for node history: one row per recorded event."""

from __future__ import annotations

import uuid as uuidlib

from sqlalchemy import select
from sqlalchemy.orm import Session

from metalwire.db.models import NodeHistory
from metalwire.db.pagination import Page, paginate
from metalwire.db.statements import Sql, detached
from metalwire.errors import NotFound


def record(
    sql: Sql,
    node_id: int,
    event_type: str,
    event: str,
    severity: str = "INFO",
    conductor: str | None = None,
    user: str | None = None,
    project: str | None = None,
    vif_id: str | None = None,
    target_uuid: str | None = None,
    result: str | None = None,
) -> NodeHistory:
    values = {
        "uuid": str(uuidlib.uuid4()),
        "node_id": node_id,
        "event_type": event_type,
        "event": event,
        "severity": severity,
        "conductor": conductor,
        "user": user,
        "project": project,
        "vif_id": vif_id,
        "target_uuid": target_uuid,
        "result": result,
    }
    return detached(NodeHistory, sql.insert(NodeHistory, values))


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
