"""The allocations repository: every statement on the ``allocations`` table, and the search
for the nodes an allocation may take.

An active allocation names its node by ``node_id`` (unique: one allocation per node); the
node names it back by the ``allocation_uuid`` of its ``attrs`` and carries its UUID as
``instance_uuid`` (unique too). Both sides are written by the conductor in one transaction
while it holds the node's lock.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire.db import integrity, lookups
from metalwire.db.models import Allocation, Node, utcnow
from metalwire.db.pagination import Page, paginate
from metalwire.errors import AllocationNotFound, Conflict, InvalidParameterValue
from metalwire.identifiers import is_uuid_like

# As Ironic 39: every column but the lists and the JSON ones.
SORTABLE = frozenset(
    {"id", "uuid", "name", "state", "owner", "resource_class", "last_error"}
    | {"node_id", "created_at", "updated_at"}
)

SessionScope = Callable[[], contextlib.AbstractContextManager[Session]]


def _conflict(exc: IntegrityError, values: Mapping[str, Any]) -> Exception:
    text = str(exc.orig).lower()
    if "name" in text and values.get("name") is not None:
        return Conflict(f"An allocation with name {values['name']} already exists.")
    return integrity.explain(
        exc, {"uuid": f"An allocation with UUID {values.get('uuid')} already exists."}
    )


def get(session: Session, ident: str, *, locked: bool = False) -> Allocation:
    """The allocation of this UUID or name (``locked``: its row locked until the transaction
    ends); raises AllocationNotFound (404)."""
    return lookups.by_uuid_or_name(session, Allocation, AllocationNotFound, ident, locked=locked)


def of_node(session: Session, node_id: int) -> Allocation | None:
    """The allocation holding the node, if any."""
    return session.scalars(select(Allocation).where(Allocation.node_id == node_id)).one_or_none()


def list_allocations(session: Session, filters: Mapping[str, Any], page: Page) -> list[Allocation]:
    """One page of the allocations ``filters`` select (``node_id``, ``resource_class``,
    ``state``, ``owner``: each equal)."""
    query = select(Allocation)
    for key, value in filters.items():
        query = query.where(getattr(Allocation, key) == value)
    rows: list[Allocation] = paginate(
        session, query, Allocation, page, set(SORTABLE), AllocationNotFound
    )
    return rows


class Allocations:
    """The allocations table, bound to a unit of work's session."""

    def __init__(self, session: SessionScope) -> None:
        self._session = session

    def get(self, ident: str, *, locked: bool = False) -> Allocation:
        with self._session() as session:
            return get(session, ident, locked=locked)

    def create(self, values: Mapping[str, Any]) -> Allocation:
        """A new allocation; Conflict (409) for a UUID or name taken. It is stored once
        processed (``active`` or ``error``), so it shows as updated when created, as
        Ironic's does once its conductor has processed it."""
        now = utcnow()
        stored = {"created_at": now, "updated_at": now, **values}
        with self._session() as session:
            return integrity.insert(session, Allocation(**stored), stored, _conflict)

    def update(self, uuid: str, changes: Mapping[str, Any]) -> Allocation:
        with self._session() as session:
            return integrity.change(session, get(session, uuid), changes, _conflict)

    def delete(self, uuid: str, *, missing_ok: bool = False) -> None:
        """Delete the allocation; AllocationNotFound (404) unless ``missing_ok``."""
        with self._session() as session:
            try:
                row = get(session, uuid)
            except AllocationNotFound:
                if missing_ok:
                    return
                raise
            integrity.remove(session, row, f"Allocation {uuid}")

    def candidates(
        self, resource_class: str | None, owner: str | None, uuids: Sequence[str]
    ) -> list[Node]:
        """The nodes an allocation may take, oldest first: of its resource class,
        ``available``, not in maintenance, with a known power state and no instance; of
        ``owner`` (owned or leased) when it has one, among ``uuids`` when it names some."""
        query = select(Node).where(
            Node.resource_class == resource_class,
            Node.provision_state == "available",
            Node.maintenance.is_(False),
            Node.power_state.is_not(None),
            Node.instance_uuid.is_(None),
        )
        if owner is not None:
            query = query.where(or_(Node.owner == owner, Node.lessee == owner))
        if uuids:
            query = query.where(Node.uuid.in_(list(uuids)))
        with self._session() as session:
            return list(session.scalars(query.order_by(Node.id)))


def node_uuids(session: Session, idents: Sequence[str], project: str | None) -> dict[str, str]:
    """The UUID of the node each of ``idents`` (UUIDs or names) names, among the nodes
    ``project`` owns or leases when given; raises InvalidParameterValue (400) naming those
    that name none, in Ironic's words."""
    wanted = set(idents)
    uuids = {i for i in wanted if is_uuid_like(i)}
    query = select(Node.uuid, Node.name).where(or_(Node.uuid.in_(uuids), Node.name.in_(wanted)))
    if project is not None:
        query = query.where(or_(Node.owner == project, Node.lessee == project))
    found: dict[str, str] = {}
    for uuid, name in session.execute(query):
        if uuid in wanted:
            found[uuid] = uuid
        if name is not None and name in wanted:
            found[name] = uuid
    missing = sorted(wanted - set(found))
    if missing:
        raise InvalidParameterValue(f"Nodes cannot be found: {', '.join(missing)}")
    return found
