"""SQL for ports."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from sqlalchemy import String, cast, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire.db import integrity
from metalwire.db import nodes as node_db
from metalwire.db.models import Node, Port
from metalwire.db.pagination import Page, paginate
from metalwire.db.statements import Read, Repository
from metalwire.errors import PortNotFound
from metalwire.identifiers import is_uuid

# As Ironic: any column but the JSON ones. node_id and portgroup_id are the owners' row
# ids: sorting by one groups the list by node (or portgroup) in the order they were made.
SORTABLE = {
    "id",
    "node_id",
    "portgroup_id",
    "uuid",
    "address",
    "created_at",
    "updated_at",
    "physical_network",
    "pxe_enabled",
    "is_smartnic",
    "name",
    "description",
    "vendor",
    "category",
    "available_for_dynamic_portgroup",
}


def _conflict(exc: IntegrityError, values: Mapping[str, Any]) -> Exception:
    address, uuid = values.get("address"), values.get("uuid")
    return integrity.explain(
        exc,
        {
            "address": f"A port with MAC address {address} already exists.",
            "uuid": f"A port with UUID {uuid} already exists.",
            "name": f"A port with name {values.get('name')} already exists.",
        },
    )


def create(session: Session, values: Mapping[str, Any]) -> Port:
    return integrity.insert(session, Port(**values), values, _conflict)


def get(session: Session, ident: str) -> Port:
    """The port with this UUID or, as from API 1.88, this name."""
    column = Port.uuid if is_uuid(ident) else Port.name
    port = session.scalars(select(Port).where(column == ident)).one_or_none()
    if port is None:
        raise PortNotFound(ident)
    return port


def find_by_address(session: Session, address: str) -> Port | None:
    return session.scalars(select(Port).where(Port.address == address)).one_or_none()


def node_ids_with_addresses(session: Session, addresses: Collection[str]) -> set[int]:
    """The nodes that have a port with one of these MAC addresses, in one statement."""
    if not addresses:
        return set()
    query = select(Port.node_id).where(Port.address.in_(sorted(set(addresses)))).distinct()
    return set(session.scalars(query))


def mentioning_switch_port(session: Session, port_id: str) -> list[Port]:
    """The ports whose ``local_link_connection`` holds ``port_id`` somewhere (a text match
    that needs no JSON operator; the caller checks the link itself)."""
    text = cast(Port.local_link_connection, String)
    return list(session.scalars(select(Port).where(text.contains(port_id, autoescape=True))))


def list_ports(session: Session, filters: Mapping[str, Any], page: Page) -> list[Port]:
    query = select(Port)
    for key, value in filters.items():
        if key == "node_project":  # the policy's filter: the project owns or leases the node
            query = query.join(Node, Node.id == Port.node_id).where(
                or_(Node.owner == value, Node.lessee == value)
            )
        elif key == "description_contains":
            query = query.where(Port.description.contains(value, autoescape=True))
        elif key in node_db.BY_NODE_COLUMN:  # those of nodes in these shards or groups
            query = query.where(Port.node_id.in_(node_db.ids_where_any(key, value)))
        else:
            query = query.where(getattr(Port, key) == value)
    return paginate(session, query, Port, page, SORTABLE, PortNotFound)


def update(session: Session, port: Port, changes: Mapping[str, Any]) -> Port:
    return integrity.change(session, port, changes, _conflict)


def delete(session: Session, port: Port) -> None:
    integrity.remove(session, port, f"Port {port.uuid}")


def of_node(node_id: int) -> Read[Port]:
    """The node's ports, oldest first."""
    return Read(Port, "node_id = ? ORDER BY id", (node_id,))


class Ports(Repository):
    def for_node(self, node_id: int) -> list[Port]:
        return self._sql.load(*of_node(node_id))

    def get(self, uuid: str) -> Port:
        with self._session() as session:
            return get(session, uuid)

    def find_by_address(self, address: str) -> Port | None:
        with self._session() as session:
            return find_by_address(session, address)

    def node_ids_with_addresses(self, addresses: Collection[str]) -> set[int]:
        with self._session() as session:
            return node_ids_with_addresses(session, addresses)

    def mentioning_switch_port(self, port_id: str) -> list[Port]:
        with self._session() as session:
            return mentioning_switch_port(session, port_id)

    def create(self, values: Mapping[str, Any]) -> Port:
        with self._session() as session:
            return create(session, values)

    def update(self, uuid: str, changes: Mapping[str, Any]) -> Port:
        with self._session() as session:
            return update(session, get(session, uuid), changes)

    def delete(self, uuid: str) -> None:
        with self._session() as session:
            delete(session, get(session, uuid))
