"""Opening a task: find the node, take its lock, hand the node to the operation."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field

from metalwire.conductor.locks import Deadline, NodeLocks
from metalwire.config import Config
from metalwire.context import RequestContext
from metalwire.db.engine import Database, WouldWait
from metalwire.db.models import Node
from metalwire.db.work import Work
from metalwire.errors import NodeNotFound
from metalwire.networking.base import NetworkInterface
from metalwire.networking.loader import NetworkInterfaces
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)


def node_label(node: Node) -> str:
    return node.uuid + (f" ({node.name})" if node.name else "")


@dataclass(frozen=True)
class NodeRef:
    """What identifies a node and decides how to lock it."""

    id: int
    uuid: str
    name: str | None
    network_interface: str

    @property
    def label(self) -> str:
        return self.uuid + (f" ({self.name})" if self.name else "")

    def matches(self, node: Node) -> bool:
        return (node.uuid, node.name, node.network_interface) == (
            self.uuid,
            self.name,
            self.network_interface,
        )


class NodeDirectory:
    """Remembers which node an identifier (UUID, name or id) names, to skip a query.

    Entries are only hints: an operation checks them once it holds the node's lock and looks
    the node up again if it was renamed, deleted or given another network interface.
    """

    LIMIT = 100_000

    def __init__(self) -> None:
        self._refs: dict[str | int, NodeRef] = {}

    def lookup(self, ident: str | int, fresh: bool, find: Callable[[str | int], Node]) -> NodeRef:
        ref = None if fresh else self._refs.get(ident)
        if ref is None:
            node = find(ident)
            ref = NodeRef(node.id, node.uuid, node.name, node.network_interface)
            if len(self._refs) >= self.LIMIT:
                self._refs.clear()
            self._refs[ident] = ref
        return ref

    def peek(self, ident: str | int) -> NodeRef | None:
        """What is remembered about the identifier, without a query."""
        return self._refs.get(ident)

    def forget(self, ident: str | int) -> None:
        self._refs.pop(ident, None)


@dataclass
class Conductor:
    """What every conductor operation needs: storage, settings, drivers and locks."""

    db: Database
    config: Config
    interfaces: NetworkInterfaces
    locks: NodeLocks
    directory: NodeDirectory = field(default_factory=NodeDirectory)

    @property
    def host(self) -> str:
        return self.config.default.host

    def network_interface(self, node: Node) -> NetworkInterface:
        return self.interfaces.get(node.network_interface)

    def _find(self, ident: str | int) -> Node:
        with self.db.reading() as work:
            node = work.nodes.find(ident)
        if node is None:
            raise NodeNotFound(str(ident))
        return node

    def shared_task(self, ident: str, context: RequestContext) -> Task:
        """A read-only view of the node and its VIF attachments, read at once; no lock."""
        with self.db.reading() as work:
            node, attachments = work.nodes.with_attachments(ident)
        task = self._task(node, context, work=None, shared=True)
        task.note_loaded(attachments)
        return task

    def _task(self, node: Node, context: RequestContext, work: Work | None, shared: bool) -> Task:
        return Task(
            db=self.db,
            config=self.config,
            context=context,
            node=node,
            conductor=self.locks.holder,
            shared=shared,
            work=work,
        )

    def runs_locally(self, node: Node) -> bool:
        """Whether operations on the node stay inside metalwire (no external service)."""
        return not self.network_interface(node).calls_external_service()

    def remembered_external(self, ident: str) -> bool | None:
        """Whether the node calls an external service, as remembered; None if not known.

        No query: a hint for choosing where an operation runs, checked again once it runs.
        """
        ref = self.directory.peek(ident)
        if ref is None:
            return None
        return self.interfaces.get(ref.network_interface).calls_external_service()

    @contextlib.contextmanager
    def exclusive_task(
        self, ident: str | int, context: RequestContext, wait: bool = True
    ) -> Iterator[Task]:
        """The node with its lock held for the block.

        If the node's network interface calls no external service, the whole block is one
        transaction that also takes and gives back the lock; otherwise the lock is a lease
        held across the block's own short transactions. Which node an identifier names is
        remembered between calls and checked again once the lock is held.

        With ``wait=False`` the task opens only if it can at once and its node's interface
        calls no external service; otherwise WouldWait is raised before anything is done.
        """
        deadline = Deadline(self.config.conductor.node_lock_wait)
        for fresh in (False, True):
            ref = self.directory.lookup(ident, fresh, self._find)
            with contextlib.ExitStack() as stack:
                task = self._open(stack, ref, context, deadline, wait)
                if task is None:  # the remembered node changed meanwhile: look it up anew
                    self.directory.forget(ident)
                    continue
                yield task
                return
        raise NodeNotFound(str(ident))

    @contextlib.contextmanager
    def exclusive_tasks(
        self, node_ids: Collection[int], context: RequestContext
    ) -> Iterator[dict[int, Task]]:
        """Several nodes, each with its lock held for the block, by node id.

        The locks are taken in the order of the node ids, so two operations on the same
        nodes (a port moving from a to b while another moves from b to a) queue instead of
        each holding one lock and waiting for the other. Each lock is a committed lease and
        each of the tasks' blocks a short transaction of its own; a write that spans the
        nodes goes through one task's transaction.
        """
        deadline = Deadline(self.config.conductor.node_lock_wait)
        with contextlib.ExitStack() as stack:
            tasks: dict[int, Task] = {}
            for node_id in sorted(set(node_ids)):
                label = node_label(self._find(node_id))
                stack.enter_context(self.locks.in_process(node_id, label, deadline))
                stack.enter_context(self.locks.lease(node_id, label, deadline))
                task = self._task(self._find(node_id), context, work=None, shared=False)
                if self.network_interface(task.node).calls_external_service():
                    self._clear_interrupted_attaches(task)
                tasks[node_id] = task
            yield tasks

    def _open(
        self,
        stack: contextlib.ExitStack,
        ref: NodeRef,
        context: RequestContext,
        deadline: Deadline,
        wait: bool,
    ) -> Task | None:
        label = ref.label
        external = self.interfaces.get(ref.network_interface).calls_external_service()
        if external and not wait:
            raise WouldWait(f"node {label} calls an external network service")
        stack.enter_context(self.locks.in_process(ref.id, label, deadline, wait))
        # The node as it is now that the lock is held.
        node: Node | None
        if external:
            stack.enter_context(self.locks.lease(ref.id, label, deadline))
            work = None
            try:
                node = self._find(ref.id)
            except NodeNotFound:
                node = None
        else:
            work, node = stack.enter_context(
                self.locks.locked_transaction(ref.id, label, deadline, wait)
            )
        if node is None:
            return None
        task = self._task(node, context, work, shared=False)
        if not ref.matches(node) or self.network_interface(node).calls_external_service() != (
            external
        ):
            return None
        if external:
            self._clear_interrupted_attaches(task)
        return task

    def _clear_interrupted_attaches(self, task: Task) -> None:
        """Remove pending attachments left by an operation whose process died.

        Only an operation holding the node lock leaves a pending record, and this task holds
        it now: any pending record of the node belongs to an operation that was cut short.
        """
        for attachment in [a for a in task.attachments if a.pending]:
            self.network_interface(task.node).recover_interrupted_attach(task, attachment)
            task.attachments.remove(attachment.vif_id)
            self.record_history(
                task,
                "vif",
                f"Attach of VIF {attachment.vif_id} was interrupted (its process "
                "stopped); its record was removed",
                error=True,
                vif_id=attachment.vif_id,
            )

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
        task.history.add(
            event_type,
            event,
            severity="ERROR" if error else "INFO",
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
            with self.db.writing() as work:
                work.history.add(
                    node_id,
                    event_type,
                    event,
                    severity="ERROR",
                    conductor=self.host,
                    user=context.user,
                    project=context.project,
                    vif_id=vif_id,
                    result="failure",
                )
        except Exception:
            LOG.exception("Could not record the failure in node %s history", node_uuid)
