"""A unit of work: one database transaction, with the repository operations bound to it.

The conductor and the network interfaces never hold a connection, session or cursor. They get
a :class:`Work` from :meth:`metalwire.db.engine.Database.reading` or
:meth:`~metalwire.db.engine.Database.writing`, or, inside an operation on a node, use the
task's repositories, which open one. Inside ``db/`` a Work runs the hot statements on the
DBAPI connection (:mod:`metalwire.db.statements`) and inventory writes through an ORM session
joined to the same transaction, so both kinds of write commit or roll back together.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from metalwire.db import history as history_db
from metalwire.db import node_locks
from metalwire.db import nodes as node_db
from metalwire.db import portgroups as portgroup_db
from metalwire.db import ports as port_db
from metalwire.db import vifs as vif_db
from metalwire.db.models import Node, NodeHistory, Port, Portgroup, VifAttachment
from metalwire.db.statements import Sql

# Opens an ORM session that joins the connection's transaction and flushes at the end.
SessionOn = Callable[[Connection], contextlib.AbstractContextManager[Session]]


class Work:
    """One transaction; its repositories are the only way to read or write through it."""

    def __init__(self, connection: Connection, session_on: SessionOn) -> None:
        self._sql = Sql(connection)
        self._connection = connection
        self._session_on = session_on
        self.nodes = Nodes(self)
        self.ports = Ports(self)
        self.portgroups = Portgroups(self)
        self.attachments = Attachments(self)
        self.history = History(self)
        self.node_locks = NodeLockRows(self)

    @contextlib.contextmanager
    def _session(self) -> Iterator[Session]:
        with self._session_on(self._connection) as session:
            yield session

    def savepoint(self) -> contextlib.AbstractContextManager[Any]:
        """Undo the block's writes if it raises, keeping the transaction usable."""
        return self._connection.begin_nested()


class _Repository:
    def __init__(self, work: Work) -> None:
        self._work = work

    @property
    def _sql(self) -> Sql:
        return self._work._sql


class Nodes(_Repository):
    def find(self, ident: str | int) -> Node | None:
        """A node by id, UUID or name; None if there is none."""
        return node_db.find(self._sql, ident)

    def get(self, ident: str) -> Node:
        """A node by UUID or name; raises NodeNotFound."""
        with self._work._session() as session:
            return node_db.get(session, ident)

    def create(self, values: Mapping[str, Any]) -> Node:
        with self._work._session() as session:
            return node_db.create(session, node_db.to_storage(values))

    def update(self, node_id: int, changes: Mapping[str, Any]) -> Node:
        """Set API field values (columns or behaviour-free attributes) on the node."""
        with self._work._session() as session:
            row = node_db.get_by_id(session, node_id)
            return node_db.update(session, row, node_db.to_storage(changes, row.attrs))

    def delete(self, node_id: int) -> None:
        with self._work._session() as session:
            node_db.delete(session, node_db.get_by_id(session, node_id))

    def with_attachments(self, ident: str) -> tuple[Node, list[VifAttachment]]:
        return vif_db.node_with_attachments(self._sql, ident)


class Ports(_Repository):
    def for_node(self, node_id: int) -> list[Port]:
        return port_db.for_node(self._sql, node_id)

    def get(self, uuid: str) -> Port:
        with self._work._session() as session:
            return port_db.get(session, uuid)

    def find_by_address(self, address: str) -> Port | None:
        with self._work._session() as session:
            return port_db.find_by_address(session, address)

    def create(self, values: Mapping[str, Any]) -> Port:
        with self._work._session() as session:
            return port_db.create(session, values)

    def update(self, uuid: str, changes: Mapping[str, Any]) -> Port:
        with self._work._session() as session:
            return port_db.update(session, port_db.get(session, uuid), changes)

    def delete(self, uuid: str) -> None:
        with self._work._session() as session:
            port_db.delete(session, port_db.get(session, uuid))


class Portgroups(_Repository):
    def for_node(self, node_id: int) -> list[Portgroup]:
        return portgroup_db.for_node(self._sql, node_id)

    def get(self, ident: str) -> Portgroup:
        """A portgroup by UUID or name; raises PortgroupNotFound."""
        with self._work._session() as session:
            return portgroup_db.get(session, ident)

    def create(self, values: Mapping[str, Any]) -> Portgroup:
        with self._work._session() as session:
            return portgroup_db.create(session, values)

    def update(self, portgroup_id: int, changes: Mapping[str, Any]) -> Portgroup:
        with self._work._session() as session:
            row = portgroup_db.get_by_id(session, portgroup_id)
            return portgroup_db.update(session, row, changes)

    def delete(self, portgroup_id: int) -> None:
        with self._work._session() as session:
            portgroup_db.delete(session, portgroup_db.get_by_id(session, portgroup_id))


class Attachments(_Repository):
    def for_node(self, node_id: int) -> list[VifAttachment]:
        return vif_db.for_node(self._sql, node_id)

    def find(self, vif_id: str) -> VifAttachment | None:
        return vif_db.find(self._sql, vif_id)

    def holder(self, vif_id: str) -> vif_db.VifHolder | None:
        """The node the VIF is attached to, or None when it is free."""
        return vif_db.holder(self._sql, vif_id)

    def record(
        self,
        node_id: int,
        vif_id: str,
        target: Port | Portgroup,
        info: Mapping[str, Any],
        *,
        source: str = "api",
        pending: bool = False,
    ) -> VifAttachment:
        return vif_db.record(self._sql, node_id, vif_id, target, info, source, pending)

    def confirm(self, vif_id: str) -> None:
        vif_db.confirm(self._sql, vif_id)

    def update_info(self, vif_id: str, info: Mapping[str, Any]) -> None:
        vif_db.update_info(self._sql, vif_id, info)

    def remove(self, vif_id: str, known: VifAttachment | None = None) -> None:
        vif_db.remove(self._sql, vif_id, known)


class History(_Repository):
    def add(
        self,
        node_id: int,
        event_type: str,
        event: str,
        *,
        severity: str = "INFO",
        conductor: str | None = None,
        user: str | None = None,
        project: str | None = None,
        vif_id: str | None = None,
        target_uuid: str | None = None,
        result: str | None = None,
    ) -> NodeHistory:
        return history_db.record(
            self._sql,
            node_id,
            event_type,
            event,
            severity=severity,
            conductor=conductor,
            user=user,
            project=project,
            vif_id=vif_id,
            target_uuid=target_uuid,
            result=result,
        )


class NodeLockRows(_Repository):
    """The lease in a node's own row (see :mod:`metalwire.db.node_locks`)."""

    def try_acquire(self, node_id: int, holder: str, now: float, lease: float) -> bool:
        return node_locks.try_acquire(self._sql, node_id, holder, now, lease)

    def release(self, node_id: int, holder: str) -> None:
        node_locks.release(self._sql, node_id, holder)

    def renew(self, node_ids: list[int], holder: str, now: float, lease: float) -> None:
        node_locks.renew(self._sql, node_ids, holder, now, lease)
