"""The chassis repository: every statement on the ``chassis`` table.

A node names its chassis by the ``chassis_uuid`` in its ``attrs``. The rule that it names a
chassis that exists is kept by locking the chassis row: a node written into a chassis takes
the row's shared lock (:meth:`ChassisRows.require`), a delete its exclusive lock before it
counts the nodes still in it (:meth:`ChassisRows.delete`), so of a node write and a delete
racing on one chassis, the second sees what the first did. SQLite has one writer at a time,
which gives the same order.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire.db import integrity
from metalwire.db.models import Chassis, Node
from metalwire.db.pagination import Page, paginate
from metalwire.errors import ChassisNotEmpty, ChassisNotFound, UnknownChassis

SORTABLE = frozenset({"id", "uuid", "description", "created_at", "updated_at"})

SessionScope = Callable[[], contextlib.AbstractContextManager[Session]]


def _conflict(exc: IntegrityError, values: Mapping[str, Any]) -> Exception:
    return integrity.explain(
        exc, {"uuid": f"A chassis with UUID {values.get('uuid')} already exists."}
    )


def in_chassis(uuid: str) -> Any:
    """The condition selecting the nodes that record ``uuid`` as their chassis."""
    return Node.attrs["chassis_uuid"].as_string() == uuid


def get(session: Session, uuid: str, *, locked: bool = False) -> Chassis:
    """The chassis of this UUID (``locked``: its row locked until the transaction ends);
    raises ChassisNotFound (404)."""
    query = select(Chassis).where(Chassis.uuid == uuid)
    row = session.scalars(query.with_for_update() if locked else query).one_or_none()
    if row is None:
        raise ChassisNotFound(uuid)
    return row


def list_chassis(session: Session, page: Page) -> list[Chassis]:
    """One page of the chassis."""
    rows: list[Chassis] = paginate(
        session, select(Chassis), Chassis, page, set(SORTABLE), ChassisNotFound
    )
    return rows


class ChassisRows:
    """The chassis table, bound to a unit of work's session (or to a read session)."""

    def __init__(self, session: SessionScope) -> None:
        self._session = session

    @classmethod
    def reading(cls, session: Session) -> ChassisRows:
        """The repository on an open read session (the API's list and show)."""

        @contextlib.contextmanager
        def scope() -> Iterator[Session]:
            yield session

        return cls(scope)

    def get(self, uuid: str, *, locked: bool = False) -> Chassis:
        """The chassis (``locked``: its row locked until the transaction ends)."""
        with self._session() as session:
            return get(session, uuid, locked=locked)

    def require(self, uuid: str) -> None:
        """Hold the shared lock of chassis ``uuid``, which a node is being written into,
        until the transaction ends; UnknownChassis (400, a bad value of the node) if
        there is none."""
        with self._session() as session:
            query = select(Chassis.id).where(Chassis.uuid == uuid).with_for_update(read=True)
            if session.scalar(query) is None:
                raise UnknownChassis(uuid)

    def create(self, values: Mapping[str, Any]) -> Chassis:
        with self._session() as session:
            return integrity.insert(session, Chassis(**values), values, _conflict)

    def update(self, uuid: str, changes: Mapping[str, Any]) -> Chassis:
        with self._session() as session:
            return integrity.change(session, get(session, uuid), changes, _conflict)

    def delete(self, uuid: str) -> None:
        """Delete the chassis; ChassisNotEmpty (400) while a node records it."""
        with self._session() as session:
            row = get(session, uuid, locked=True)
            if session.scalar(select(Node.id).where(in_chassis(uuid)).limit(1)) is not None:
                raise ChassisNotEmpty(uuid)
            integrity.remove(session, row, f"Chassis {uuid}")
