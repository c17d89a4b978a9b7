"""SQL for nodes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, and_, false, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire import hardware_types
from metalwire.db import chassis as chassis_db
from metalwire.db import integrity
from metalwire.db.models import Node
from metalwire.db.pagination import Page, SortExpression, paginate
from metalwire.db.statements import Repository, Sql
from metalwire.errors import NodeNotFound
from metalwire.identifiers import is_uuid

SORTABLE = {
    "id",
    "uuid",
    "name",
    "driver",
    "provision_state",
    "created_at",
    "updated_at",
    "owner",
    "lessee",
    "instance_uuid",
    "maintenance",
    "resource_class",
    "conductor_group",
    "provision_updated_at",
    "power_state",
    "target_provision_state",
    "maintenance_reason",
    "network_interface",
    "instance_name",
    "shard",
    "parent_node",
    "last_error",
    "reservation",
}
# Fields kept in ``attrs`` that Ironic sorts by too (it refuses only its JSON documents).
_ATTR_TEXT_SORT_KEYS = (
    "target_power_state",
    "inspection_started_at",
    "inspection_finished_at",
    "fault",
    "description",
    "protected_reason",
    "retired_reason",
    "boot_mode",
    "health",
    *hardware_types.FIELDS,
)
_ATTR_FLAG_SORT_KEYS = ("automated_clean", "secure_boot")  # true, false or null
_ATTR_FALSE_BY_DEFAULT_SORT_KEYS = ("console_enabled", "protected", "retired", "disable_power_off")


def _attr_sort_keys() -> dict[str, SortExpression]:
    """Sort keys read from ``attrs``: a missing text or flag sorts as NULL; a flag that is
    false unless set, as false."""
    keys: dict[str, SortExpression] = {
        key: (Node.attrs[key].as_string(), True) for key in _ATTR_TEXT_SORT_KEYS
    }
    keys.update((key, (Node.attrs[key].as_boolean(), True)) for key in _ATTR_FLAG_SORT_KEYS)
    keys.update(
        (key, (func.coalesce(Node.attrs[key].as_boolean(), false()), False))
        for key in _ATTR_FALSE_BY_DEFAULT_SORT_KEYS
    )
    return keys


ATTR_SORT_KEYS = _attr_sort_keys()


def _conflict(exc: IntegrityError, values: Mapping[str, Any]) -> Exception:
    return integrity.explain(
        exc,
        {
            "instance_uuid": f"Instance {values.get('instance_uuid')} is already associated "
            "with a node.",
            "name": f"A node with name {values.get('name')} already exists.",
            "uuid": f"A node with UUID {values.get('uuid')} already exists.",
        },
    )


def create(session: Session, values: Mapping[str, Any]) -> Node:
    return integrity.insert(session, Node(**values), values, _conflict)


def ident_column(ident: str | int) -> str:
    """The column an identifier names a node by: id (a number), uuid or name."""
    if isinstance(ident, int):
        return "id"
    return "uuid" if is_uuid(ident) else "name"


def find(sql: Sql, ident: str | int) -> Node | None:
    """A node by id, UUID or name, lease included, read with plain statements."""
    found = sql.load(Node, f"{ident_column(ident)} = ?", (ident,))
    return found[0] if found else None


def get(session: Session, ident: str) -> Node:
    """A node by UUID or name; raises NodeNotFound."""
    column = getattr(Node, ident_column(ident))
    node = session.scalars(select(Node).where(column == ident)).one_or_none()
    if node is None:
        raise NodeNotFound(ident)
    return node


def projects(session: Session, ident: str | int) -> tuple[str | None, str | None]:
    """The owner and lessee of a node by id, UUID or name (what the policy decides by);
    raises NodeNotFound."""
    column = getattr(Node, ident_column(ident))
    row = session.execute(select(Node.owner, Node.lessee).where(column == ident)).one_or_none()
    if row is None:
        raise NodeNotFound(ident)
    return row[0], row[1]


def get_by_id(session: Session, node_id: int) -> Node:
    node = session.get(Node, node_id)
    if node is None:
        raise NodeNotFound(node_id)
    return node


def list_nodes(session: Session, filters: Mapping[str, Any], page: Page) -> list[Node]:
    """The nodes ``filters`` select; as Ironic, child nodes only with ``include_children``
    (every node) or ``parent_node`` (that node's children). A ``chassis_uuid`` naming no
    chassis is ChassisNotFound (404), as Ironic answers."""
    chassis = filters.get("chassis_uuid")
    if chassis is not None:
        chassis_db.get(session, chassis)
    query = select(Node)
    if not filters.get("include_children"):
        query = query.where(
            Node.parent_node == filters.get("parent_node")
            if "parent_node" in filters
            else Node.parent_node.is_(None)
        )
    for key, value in filters.items():
        if key in ("include_children", "parent_node"):
            continue
        if key == "associated":
            query = query.where(
                Node.instance_uuid.is_not(None) if value else Node.instance_uuid.is_(None)
            )
        elif key == "description_contains":
            query = query.where(Node.attrs["description"].as_string().contains(value))
        elif key == "chassis_uuid":
            query = query.where(chassis_db.in_chassis(value))
        elif key == "fault":  # kept in attrs
            query = query.where(Node.attrs[key].as_string() == value)
        elif key == "retired":
            retired = Node.attrs["retired"].as_boolean()
            query = query.where(
                retired.is_(True) if value else or_(retired.is_(None), retired.is_(False))
            )
        elif key == "shard":
            query = query.where(Node.shard.in_(value))
        elif key == "conductor_group":  # case-insensitive, as stored before it was lowered
            query = query.where(func.lower(Node.conductor_group) == value.lower())
        elif key == "sharded":
            query = query.where(Node.shard.is_not(None) if value else Node.shard.is_(None))
        elif key == "project":  # the policy's filter: nodes the project owns or leases
            query = query.where(or_(Node.owner == value, Node.lessee == value))
        elif key == "conductor":  # the hardware types the conductor asked for serves
            query = query.where(Node.driver.in_(value)) if value else query.where(false())
        else:
            query = query.where(getattr(Node, key) == value)
    return paginate(session, query, Node, page, SORTABLE, NodeNotFound, ATTR_SORT_KEYS)


# List filters of ports and portgroups that select them by a column of their node.
BY_NODE_COLUMN = {"shard": Node.shard, "conductor_groups": Node.conductor_group}


def ids_where_any(key: str, values: list[str]) -> Select[int]:
    """The ids of the nodes whose ``BY_NODE_COLUMN[key]`` is one of ``values`` (a conductor
    group whatever its case)."""
    if key == "conductor_groups":
        lowered = [value.lower() for value in values]
        return select(Node.id).where(func.lower(Node.conductor_group).in_(lowered))
    return select(Node.id).where(BY_NODE_COLUMN[key].in_(values))


def children(session: Session, parent_uuid: str, project: str | None) -> list[str]:
    """The UUIDs of a node's children (of those ``project`` owns or leases), oldest first."""
    query = select(Node.uuid).where(Node.parent_node == parent_uuid).order_by(Node.id)
    if project is not None:
        query = query.where(or_(Node.owner == project, Node.lessee == project))
    return list(session.scalars(query))


def shard_counts(session: Session) -> list[tuple[str | None, int]]:
    """Each shard (None: nodes without one) with its number of nodes, the largest first."""
    rows = session.execute(select(Node.shard, func.count(Node.id)).group_by(Node.shard)).all()
    return sorted(((shard, count) for shard, count in rows), key=lambda row: -row[1])


def update(session: Session, node: Node, changes: Mapping[str, Any]) -> Node:
    return integrity.change(session, node, changes, _conflict)


def delete(session: Session, node: Node) -> None:
    integrity.remove(session, node, f"Node {node.label}")


_COLUMNS = {c.name for c in Node.__table__.columns} - {"attrs", "id"}


def to_storage(
    values: Mapping[str, Any], current_attrs: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Split API field values into columns and the ``attrs`` bag of behaviour-free fields."""
    stored: dict[str, Any] = {}
    attrs = dict(current_attrs or {})
    for key, value in values.items():
        if key in _COLUMNS:
            stored[key] = value
        else:
            attrs[key] = value
    if attrs != (current_attrs or {}):
        stored["attrs"] = attrs
    return stored


def field_value(node: Node, name: str, default: Any = None) -> Any:
    if name in _COLUMNS:
        return getattr(node, name)
    value = node.attrs.get(name, default)
    if value is None and name in hardware_types.FIELDS:
        # A node stored before interfaces were filled in shows its hardware type's default.
        return hardware_types.hardware_default(node.driver, name.removesuffix("_interface"))
    return value


def all_uuids(session: Session, project: str | None = None) -> list[str]:
    """The UUID of every node (or of those ``project`` owns or leases), oldest first."""
    query = select(Node.uuid).order_by(Node.id)
    if project is not None:
        query = query.where(or_(Node.owner == project, Node.lessee == project))
    return list(session.scalars(query))


class Nodes(Repository):
    def find(self, ident: str | int) -> Node | None:
        """A node by id, UUID or name; None if there is none."""
        return find(self._sql, ident)

    def get(self, ident: str) -> Node:
        """A node by UUID or name; raises NodeNotFound."""
        with self._session() as session:
            return get(session, ident)

    def projects(self, ident: str) -> tuple[str | None, str | None]:
        """The node's owner and lessee, in one plain statement: the check in front of every
        VIF call. Raises NodeNotFound."""
        found = self._sql.rows(
            f"SELECT owner, lessee FROM nodes WHERE {ident_column(ident)} = ?", (ident,)
        )
        if not found:
            raise NodeNotFound(ident)
        return found[0][0], found[0][1]

    def create(self, values: Mapping[str, Any]) -> Node:
        with self._session() as session:
            return create(session, to_storage(values))

    def update(self, node_id: int, changes: Mapping[str, Any]) -> Node:
        """Set API field values (columns or behaviour-free attributes) on the node."""
        with self._session() as session:
            row = get_by_id(session, node_id)
            return update(session, row, to_storage(changes, row.attrs))

    def delete(self, node_id: int) -> None:
        with self._session() as session:
            delete(session, get_by_id(session, node_id))

    def interrupted_unlocked(self, states: Sequence[str], now: float) -> list[str]:
        """The UUIDs of the nodes an operation may have left half-done whose lock nobody
        holds at ``now``: those in one of the provision ``states`` with no reservation or a
        lease run out, and any node whose lease ran out (its holder died before releasing
        it, and may have left a power change or a VIF record pending)."""
        with self._session() as session:
            expired = and_(Node.reservation.is_not(None), Node.lock_expires_at < now)
            stuck = and_(Node.provision_state.in_(states), Node.reservation.is_(None))
            query = select(Node.uuid).where(or_(stuck, expired))
            return list(session.scalars(query.order_by(Node.id)))

    def in_state(self, state: str) -> list[Node]:
        """The nodes in provision ``state``, oldest first."""
        with self._session() as session:
            query = select(Node).where(Node.provision_state == state)
            return list(session.scalars(query.order_by(Node.id)))

    def in_state_before(self, state: str, updated_before: datetime) -> list[str]:
        """The UUIDs of the nodes in provision ``state`` since before ``updated_before``
        and not in maintenance (a wait's timeout leaves those alone, as Ironic's)."""
        with self._session() as session:
            query = select(Node.uuid).where(
                Node.provision_state == state,
                Node.provision_updated_at < updated_before,
                Node.maintenance.is_(False),
            )
            return list(session.scalars(query.order_by(Node.id)))
