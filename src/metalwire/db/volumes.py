"""The volume connector and volume target repositories: every statement on their tables.

The two tables differ in their columns and uniqueness rules only, so one class serves both,
given a :class:`VolumeKind` that names them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire.db import integrity
from metalwire.db.models import Node, VolumeConnector, VolumeTarget
from metalwire.db.pagination import Page, paginate
from metalwire.errors import NotFound, VolumeConnectorNotFound, VolumeTargetNotFound

V = TypeVar("V", VolumeConnector, VolumeTarget)


@dataclass(frozen=True)
class VolumeKind(Generic[V]):
    model: type[V]
    noun: str  # as a message names a row: "Volume connector <uuid>"
    missing: Callable[[str], NotFound]
    sortable: frozenset[str]
    # The Conflict message of each unique key, by a column name the database's error names.
    duplicates: Callable[[Mapping[str, Any]], dict[str, str]]


CONNECTORS: VolumeKind[VolumeConnector] = VolumeKind(
    VolumeConnector,
    "Volume connector",
    VolumeConnectorNotFound,
    frozenset({"id", "uuid", "type", "connector_id", "created_at", "updated_at"}),
    lambda v: {
        "connector_id": f"A volume connector with type {v.get('type')} and connector ID "
        f"{v.get('connector_id')} already exists.",
        "uuid": f"A volume connector with UUID {v.get('uuid')} already exists.",
    },
)
TARGETS: VolumeKind[VolumeTarget] = VolumeKind(
    VolumeTarget,
    "Volume target",
    VolumeTargetNotFound,
    frozenset({"id", "uuid", "volume_type", "volume_id", "boot_index", "created_at"}),
    lambda v: {
        "boot_index": f"A volume target with boot index '{v.get('boot_index')}' for the same "
        "node already exists.",
        "uuid": f"A volume target with UUID {v.get('uuid')} already exists.",
    },
)

SessionScope = Callable[[], contextlib.AbstractContextManager[Session]]


class VolumeRepository(Generic[V]):
    """One volume table, bound to a unit of work's session (or to a read session)."""

    def __init__(self, session: SessionScope, kind: VolumeKind[V]) -> None:
        self._session = session
        self.kind: VolumeKind[V] = kind

    @classmethod
    def reading(cls, session: Session, kind: VolumeKind[V]) -> VolumeRepository[V]:
        """The repository on an open read session (the API's list and show)."""

        @contextlib.contextmanager
        def scope() -> Iterator[Session]:
            yield session

        return cls(scope, kind)

    def _conflict(self, exc: IntegrityError, values: Mapping[str, Any]) -> Exception:
        return integrity.explain(exc, self.kind.duplicates(values))

    def _row(self, session: Session, uuid: str) -> V:
        model = self.kind.model
        row: V | None = session.scalars(select(model).where(model.uuid == uuid)).one_or_none()
        if row is None:
            raise self.kind.missing(uuid)
        return row

    def get(self, uuid: str) -> V:
        with self._session() as session:
            return self._row(session, uuid)

    def list(self, filters: Mapping[str, Any], page: Page) -> list[V]:
        """Rows matching ``node_id`` and ``node_project`` (owner or lessee), one page."""
        model = self.kind.model
        query = select(model)
        if "node_id" in filters:
            query = query.where(model.node_id == filters["node_id"])
        if "node_project" in filters:
            project = filters["node_project"]
            query = query.join(Node, Node.id == model.node_id).where(
                or_(Node.owner == project, Node.lessee == project)
            )
        with self._session() as session:
            rows: list[V] = paginate(
                session, query, model, page, set(self.kind.sortable), self.kind.missing
            )
        return rows

    def on_node(self, node_id: int) -> Sequence[V]:
        """Every row of the node, oldest first."""
        model = self.kind.model
        query = select(model).where(model.node_id == node_id).order_by(model.id)
        with self._session() as session:
            return tuple(session.scalars(query))

    def create(self, values: Mapping[str, Any]) -> V:
        with self._session() as session:
            row: V = integrity.insert(session, self.kind.model(**values), values, self._conflict)
        return row

    def update(self, uuid: str, changes: Mapping[str, Any]) -> V:
        with self._session() as session:
            row = self._row(session, uuid)
            return integrity.change(session, row, changes, self._conflict)

    def delete(self, uuid: str) -> None:
        with self._session() as session:
            integrity.remove(session, self._row(session, uuid), f"{self.kind.noun} {uuid}")
