"""Opening a task: find the node, take its lock, hand the node to the operation."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy.orm import Session

from metalwire.conductor.locks import Deadline, NodeLocks
from metalwire.config import Config
from metalwire.context import RequestContext
from metalwire.db import history as history_db
from metalwire.db import nodes as node_db
from metalwire.db.engine import Database
from metalwire.db.models import Node
from metalwire.networking.base import NetworkInterface
from metalwire.networking.loader import NetworkInterfaces
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)


def node_label(node: Node) -> str:
    return node.uuid + (f" ({node.name})" if node.name else "")


@dataclass
class Conductor:
    """What every conductor operation needs: storage, settings, drivers and locks."""

    db: Database
    config: Config
    interfaces: NetworkInterfaces
    locks: NodeLocks

    @property
    def host(self) -> str:
        return self.config.default.host

    def network_interface(self, node: Node) -> NetworkInterface:
        return self.interfaces.get(node.network_interface)

    def _find(self, ident: str | int) -> Node:
        with self.db.read() as session:
            if isinstance(ident, int):
                return node_db.get_by_id(session, ident)
            return node_db.get(session, ident)

    def shared_task(self, ident: str, context: RequestContext) -> Task:
        """A read-only view of the node; takes no lock."""
        node = self._find(ident)
        return Task(
            db=self.db,
            config=self.config,
            context=context,
            node=node,
            conductor=self.locks.holder,
            shared=True,
        )

    @contextlib.contextmanager
    def exclusive_task(self, ident: str | int, context: RequestContext) -> Iterator[Task]:
        """The node with its lock held for the block.

        If the node's network interface calls no external service, the whole block is one
        transaction that also takes and gives back the lock; otherwise the lock is a lease
        held across the block's own short transactions.
        """
        node = self._find(ident)
        label = node_label(node)
        deadline = Deadline(self.config.conductor.node_lock_wait)
        with self.locks.in_process(node.id, label, deadline):
            if self.network_interface(node).calls_external_service():
                with self.locks.lease(node.id, label, deadline):
                    yield self._task(node.id, context, None)
            else:
                with self.locks.locked_transaction(node.id, label, deadline) as session:
                    yield self._task(node.id, context, session)

    def _task(self, node_id: int, context: RequestContext, session: Session | None) -> Task:
        task = Task(
            db=self.db,
            config=self.config,
            context=context,
            node=Node(id=node_id),
            conductor=self.locks.holder,
            session=session,
        )
        task.reload()  # the node as it is now that the lock is held
        return task

    def record_history(
        self,
        task: Task,
        event_type: str,
        event: str,
        *,
        error: bool = False,
        vif_id: str | None = None,
        target_uuid: str | None = None,
    ) -> None:
        """Add a node history entry (in the task's transaction) and log it."""
        (LOG.warning if error else LOG.info)("node %s: %s", task.node.uuid, event)
        with task.transaction() as session:
            history_db.record(
                session,
                task.node.id,
                event_type,
                event,
                severity="ERROR" if error else "INFO",
                conductor=self.host,
                user=task.context.user,
                vif_id=vif_id,
                target_uuid=target_uuid,
                result="failure" if error else "success",
            )

    def record_failure(
        self,
        node: tuple[int, str] | None,
        context: RequestContext,
        event_type: str,
        event: str,
        vif_id: str | None = None,
    ) -> None:
        """Record a failed operation after its transaction was rolled back.

        ``node`` is (id, uuid), taken while the task was open: the rollback expired the row.
        """
        if node is None:
            return
        node_id, node_uuid = node
        LOG.warning("node %s: %s", node_uuid, event)
        try:
            with self.db.write() as session:
                history_db.record(
                    session,
                    node_id,
                    event_type,
                    event,
                    severity="ERROR",
                    conductor=self.host,
                    user=context.user,
                    vif_id=vif_id,
                    result="failure",
                )
        except Exception:
            LOG.exception("Could not record the failure in node %s history", node_uuid)
