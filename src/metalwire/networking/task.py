"""A task: one operation on one node, with the node's lock held.

Network interfaces read the node's inventory from the task and write through
:meth:`Task.transaction` (an ORM session) or :meth:`Task.sql` (plain statements, see
:mod:`metalwire.db.statements`). When the node's interface calls no external service, the
conductor runs the whole operation in one database transaction (lock, reads, writes, history,
unlock: one commit); otherwise the lock is a committed lease and each block is a short
transaction of its own, so that no database transaction stays open across a network call.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from metalwire.config import Config
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db import portgroups as portgroup_db
from metalwire.db import ports as port_db
from metalwire.db import vifs as vif_db
from metalwire.db.engine import Database
from metalwire.db.models import Node, Port, Portgroup, VifAttachment
from metalwire.db.statements import Sql
from metalwire.errors import NodeNotFound


@dataclass
class Task:
    db: Database
    config: Config
    context: RequestContext
    node: Node
    conductor: str
    shared: bool = False
    # The open transaction of a single-transaction task, or None.
    connection: Connection | None = None
    _sql: Sql | None = field(default=None, repr=False)
    _ports: list[Port] | None = field(default=None, repr=False)
    _portgroups: list[Portgroup] | None = field(default=None, repr=False)
    _attachments: list[VifAttachment] | None = field(default=None, repr=False)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Session]:
        """An ORM session to write with: in the task's own transaction, or a new short one."""
        if self.connection is not None:
            with self.db.session_on(self.connection) as session:
                yield session
        else:
            with self.db.write() as session:
                yield session

    @contextlib.contextmanager
    def sql(self) -> Iterator[Sql]:
        """Plain statements: in the task's own transaction, or a new short one."""
        if self.connection is not None:
            if self._sql is None:
                self._sql = Sql(self.connection)
            yield self._sql
        else:
            with self.db.write_connection() as connection:
                yield Sql(connection)

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        """Undo the block's writes if it raises, keeping the task's transaction usable."""
        if self.connection is None:
            yield
            return
        with self.connection.begin_nested():
            yield

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Sql]:
        if self.connection is not None:
            with self.sql() as sql:
                yield sql
        else:
            with self.db.connection() as connection:
                yield Sql(connection)

    @property
    def ports(self) -> list[Port]:
        if self._ports is None:
            with self._reading() as sql:
                self._ports = port_db.for_node(sql, self.node.id)
        return self._ports

    @property
    def portgroups(self) -> list[Portgroup]:
        if self._portgroups is None:
            with self._reading() as sql:
                self._portgroups = portgroup_db.for_node(sql, self.node.id)
        return self._portgroups

    @property
    def attachments(self) -> list[VifAttachment]:
        if self._attachments is None:
            with self._reading() as sql:
                self._attachments = vif_db.for_node(sql, self.node.id)
        return self._attachments

    def reload(self) -> None:
        """Forget the loaded inventory after the task changed it; it loads again on use."""
        with self._reading() as sql:
            node = node_db.find(sql, self.node.id)
        if node is None:
            raise NodeNotFound(str(self.node.id))
        self.node = node
        self._ports = self._portgroups = self._attachments = None

    def note_loaded(self, attachments: list[VifAttachment]) -> None:
        """Use attachments already read with the node instead of reading them again."""
        self._attachments = attachments

    def note_attached(self, attachment: VifAttachment) -> None:
        """Add an attachment this task recorded to the loaded inventory."""
        self._attachments = [*self.attachments, attachment]

    def note_detached(self, vif_id: str) -> None:
        """Drop an attachment this task removed from the loaded inventory."""
        self._attachments = [a for a in self.attachments if a.vif_id != vif_id]

    def attachment_of(self, vif_id: str) -> VifAttachment | None:
        """The node's attachment of a VIF, if it has it."""
        return next((a for a in self.attachments if a.vif_id == vif_id), None)

    def vif_on(self, target: Port | Portgroup) -> str | None:
        """The VIF recorded on a port or portgroup, if any."""
        for attachment in self.attachments:
            if isinstance(target, Port) and attachment.port_id == target.id:
                return attachment.vif_id
            if isinstance(target, Portgroup) and attachment.portgroup_id == target.id:
                return attachment.vif_id
        return None

    def members(self, portgroup: Portgroup) -> list[Port]:
        return [port for port in self.ports if port.portgroup_id == portgroup.id]

    def find_target(self, vif_id: str) -> Port | Portgroup | None:
        """The port or portgroup a VIF of this node sits on."""
        for attachment in self.attachments:
            if attachment.vif_id != vif_id:
                continue
            for port in self.ports:
                if port.id == attachment.port_id:
                    return port
            for portgroup in self.portgroups:
                if portgroup.id == attachment.portgroup_id:
                    return portgroup
        return None
