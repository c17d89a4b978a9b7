"""Opening a task: find the node, take its lock, load its inventory."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass

from metalwire.conductor.locks import NodeLocks
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

    def _load(self, ident: str | int, context: RequestContext, shared: bool) -> Task:
        with self.db.read() as session:
            node = (
                node_db.get_by_id(session, ident)
                if isinstance(ident, int)
                else node_db.get(session, ident)
            )
        task = Task(
            db=self.db,
            config=self.config,
            context=context,
            node=node,
            conductor=self.locks.holder,
            shared=shared,
        )
        task.reload()
        return task

    def shared_task(self, ident: str, context: RequestContext) -> Task:
        """A read-only view of the node; takes no lock."""
        return self._load(ident, context, shared=True)

    @contextlib.contextmanager
    def exclusive_task(self, ident: str | int, context: RequestContext) -> Iterator[Task]:
        """The node with its lock held for the block, loaded after the lock was taken."""
        with self.db.read() as session:
            node = (
                node_db.get_by_id(session, ident)
                if isinstance(ident, int)
                else node_db.get(session, ident)
            )
        with self.locks.exclusive(node.id, node_label(node)):
            yield self._load(node.id, context, shared=False)

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
        """Add a node history entry and log it; never lets a failure here hide the result."""
        log = LOG.warning if error else LOG.info
        log("node %s: %s", task.node.uuid, event)
        try:
            with self.db.write() as session:
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
        except Exception:
            LOG.exception("Could not record history for node %s", task.node.uuid)
