"""SQL for portgroups."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire.db import integrity
from metalwire.db.models import Node, Port, Portgroup
from metalwire.db.nodes import is_uuid_like
from metalwire.db.pagination import Page, paginate
from metalwire.db.statements import Sql
from metalwire.errors import PortgroupNotFound

SORTABLE = {"id", "uuid", "name", "address", "created_at", "updated_at"}


def _conflict(exc: IntegrityError, values: Mapping[str, Any]) -> Exception:
    return integrity.explain(
        exc,
        {
            "address": f"A portgroup with MAC address {values.get('address')} already exists.",
            "name": f"A portgroup with name {values.get('name')} already exists.",
            "uuid": f"A portgroup with UUID {values.get('uuid')} already exists.",
        },
    )


def create(session: Session, values: Mapping[str, Any]) -> Portgroup:
    return integrity.insert(session, Portgroup(**values), values, _conflict)


def get(session: Session, ident: str) -> Portgroup:
    """A portgroup by UUID or name; raises PortgroupNotFound."""
    column = Portgroup.uuid if is_uuid_like(ident) else Portgroup.name
    portgroup = session.scalars(select(Portgroup).where(column == ident)).one_or_none()
    if portgroup is None:
        raise PortgroupNotFound(ident)
    return portgroup


def get_by_id(session: Session, portgroup_id: int) -> Portgroup:
    portgroup = session.get(Portgroup, portgroup_id)
    if portgroup is None:
        raise PortgroupNotFound(portgroup_id)
    return portgroup


def list_portgroups(session: Session, filters: Mapping[str, Any], page: Page) -> list[Portgroup]:
    query = select(Portgroup)
    for key, value in filters.items():
        if key == "node_project":  # the policy's filter: the project owns or leases the node
            query = query.join(Node, Node.id == Portgroup.node_id).where(
                or_(Node.owner == value, Node.lessee == value)
            )
        else:
            query = query.where(getattr(Portgroup, key) == value)
    return paginate(session, query, Portgroup, page, SORTABLE, PortgroupNotFound)


def for_node(sql: Sql, node_id: int) -> list[Portgroup]:
    return sql.load(Portgroup, "node_id = ? ORDER BY id", (node_id,))


def member_count(session: Session, portgroup_id: int) -> int:
    return (
        session.scalar(
            select(func.count()).select_from(Port).where(Port.portgroup_id == portgroup_id)
        )
        or 0
    )


def update(session: Session, portgroup: Portgroup, changes: Mapping[str, Any]) -> Portgroup:
    return integrity.change(session, portgroup, changes, _conflict)


def delete(session: Session, portgroup: Portgroup) -> None:
    session.delete(portgroup)
    session.flush()
