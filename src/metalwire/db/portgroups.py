"""SQL for portgroups."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire.db import integrity
from metalwire.db import nodes as node_db
from metalwire.db.models import Node, Port, Portgroup, utcnow
from metalwire.db.pagination import Page, paginate
from metalwire.db.statements import Read, Repository, Sql
from metalwire.errors import Conflict, PortgroupNotFound
from metalwire.identifiers import is_uuid

# As Ironic: any column but the JSON ones. node_id is the node's row id: sorting by it
# groups the list by node in the order the nodes were made.
SORTABLE = {
    "id",
    "node_id",
    "uuid",
    "name",
    "address",
    "created_at",
    "updated_at",
    "mode",
    "standalone_ports_supported",
    "physical_network",
    "category",
    "dynamic_portgroup",
}


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
    column = Portgroup.uuid if is_uuid(ident) else Portgroup.name
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
        elif key in node_db.BY_NODE_COLUMN:  # those of nodes in these shards or groups
            query = query.where(Portgroup.node_id.in_(node_db.ids_where_any(key, value)))
        else:
            query = query.where(getattr(Portgroup, key) == value)
    return paginate(session, query, Portgroup, page, SORTABLE, PortgroupNotFound)


def update(session: Session, portgroup: Portgroup, changes: Mapping[str, Any]) -> Portgroup:
    return integrity.change(session, portgroup, changes, _conflict)


def delete(session: Session, portgroup: Portgroup) -> None:
    integrity.remove(session, portgroup, f"Portgroup {portgroup.uuid}")


def remove_if_dynamic(sql: Sql, portgroup_id: int | None) -> bool:
    """Delete a dynamic portgroup whose VIF went, freeing its ports; False if not dynamic.

    A dynamic portgroup lives exactly as long as its VIF's record: every way the record goes
    (detach, an undone or interrupted attach, undeploy) takes the group with it, in the
    same transaction.
    """
    dynamic = sql.scalar("SELECT dynamic_portgroup FROM portgroups WHERE id = ?", (portgroup_id,))
    if not dynamic:
        return False
    sql.execute(
        "UPDATE ports SET portgroup_id = NULL, updated_at = ? WHERE portgroup_id = ?",
        (sql.bind(Port, "updated_at", utcnow()), portgroup_id),
    )
    sql.execute("DELETE FROM portgroups WHERE id = ?", (portgroup_id,))
    return True


def of_node(node_id: int) -> Read[Portgroup]:
    """The node's portgroups, oldest first."""
    return Read(Portgroup, "node_id = ? ORDER BY id", (node_id,))


class Portgroups(Repository):
    def for_node(self, node_id: int) -> list[Portgroup]:
        return self._sql.load(*of_node(node_id))

    def get(self, ident: str) -> Portgroup:
        """A portgroup by UUID or name; raises PortgroupNotFound."""
        with self._session() as session:
            return get(session, ident)

    def create(self, values: Mapping[str, Any]) -> Portgroup:
        with self._session() as session:
            return create(session, values)

    def update(self, portgroup_id: int, changes: Mapping[str, Any]) -> Portgroup:
        with self._session() as session:
            return update(session, get_by_id(session, portgroup_id), changes)

    def delete(self, portgroup_id: int) -> None:
        with self._session() as session:
            delete(session, get_by_id(session, portgroup_id))

    def create_dynamic(
        self, values: Mapping[str, Any], members: Sequence[Port], node_id: int
    ) -> Portgroup:
        """A dynamic portgroup (``values``) holding the ports ``members`` of node ``node_id``.

        Each port joins only if it is still free for it (on the node, in no portgroup,
        ``available_for_dynamic_portgroup``): the condition is in the statement, so of two
        transactions racing for one port the second fails with Conflict and rolls back.
        """
        group = self.create({**values, "node_id": node_id, "dynamic_portgroup": True})
        sql = self._sql
        now = sql.bind(Port, "updated_at", utcnow())
        flag = sql.bind(Port, "available_for_dynamic_portgroup", True)
        for port in members:
            joined = sql.execute(
                "UPDATE ports SET portgroup_id = ?, updated_at = ? WHERE id = ? AND node_id = ?"
                " AND portgroup_id IS NULL AND available_for_dynamic_portgroup = ?",
                (group.id, now, port.id, node_id, flag),
            )
            if joined != 1:
                raise Conflict(
                    f"Unable to build dynamic portgroup {group.name}: port {port.uuid} is "
                    "no longer free for it (another request put it in a portgroup, or made "
                    "it unavailable for dynamic portgroups, at the same moment)."
                )
        return group

    def remove_dynamic(self, portgroup_id: int) -> bool:
        """Delete a dynamic portgroup, freeing its ports; False if it is not dynamic."""
        return remove_if_dynamic(self._sql, portgroup_id)
