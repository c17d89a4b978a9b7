"""SQL for the node lock: a lease held in the node's own row.

A conditional UPDATE takes the lock only if it is free or its lease ran out. That is atomic
on every database metalwire supports, SQLite included, without SELECT ... FOR UPDATE.
"""

from __future__ import annotations

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from metalwire.db.models import Node


def try_acquire(session: Session, node_id: int, holder: str, now: float, lease: float) -> bool:
    result = session.execute(
        update(Node)
        .where(Node.id == node_id)
        .where(or_(Node.reservation.is_(None), Node.lock_expires_at < now))
        .values(reservation=holder, lock_expires_at=now + lease)
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def release(session: Session, node_id: int, holder: str) -> None:
    session.execute(
        update(Node)
        .where(Node.id == node_id, Node.reservation == holder)
        .values(reservation=None, lock_expires_at=None)
        .execution_options(synchronize_session=False)
    )


def renew(session: Session, node_ids: list[int], holder: str, now: float, lease: float) -> None:
    session.execute(
        update(Node)
        .where(Node.id.in_(node_ids), Node.reservation == holder)
        .values(lock_expires_at=now + lease)
        .execution_options(synchronize_session=False)
    )


def holder_of(session: Session, node_id: int) -> str | None:
    return session.scalar(select(Node.reservation).where(Node.id == node_id))


def lease_holder(session: Session, node_id: int, now: float) -> str | None:
    """Who holds a live lease on the node, or None; loads the node into the session."""
    node = session.get(Node, node_id)
    if node is None or node.reservation is None:
        return None
    if node.lock_expires_at is not None and node.lock_expires_at < now:
        return None
    return node.reservation
