"""Opening a task: find the node, take its lock, hand the node to the operation."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import itertools
import logging
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from metalwire.conductor import stuck_states
from metalwire.conductor.locks import Deadline, NodeLocks, WouldWait
from metalwire.config import Config
from metalwire.context import RequestContext
from metalwire.db.engine import Database
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node, node_label
from metalwire.db.node_inventory import LoadedInventory, Wanted
from metalwire.db.node_locks import live_holder
from metalwire.db.work import Work
from metalwire.errors import DatabaseFailure, NodeLocked, NodeNotFound, StaleUpdate
from metalwire.networking.base import NetworkInterface
from metalwire.networking.loader import NetworkInterfaces
from metalwire.networking.task import Task
from metalwire.networking.tbn.settings import RulesInForce

LOG = logging.getLogger(__name__)

# Inside Conductor.without_waiting: the writes handed back for a worker thread to make.
_DEFERRED: contextvars.ContextVar[list[Callable[[], None]] | None] = contextvars.ContextVar(
    "metalwire_deferred_writes", default=None
)


@dataclass(frozen=True)
class Reopen:
    """Open the task again: its single transaction undid what an interrupted operation left
    on the node, ``state`` saying what (see :meth:`Conductor._open`)."""

    state: str


@dataclass(frozen=True)
class NodeRef:
    """What identifies a node and decides how to lock it."""

    id: int
    uuid: str
    name: str | None
    network_interface: str

    @property
    def label(self) -> str:
        return node_label(self.uuid, self.name)

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
    #: Told how many seconds each operation waited for its node's lock (the metrics).
    lock_waited: Callable[[float], None] | None = None
    #: The trait-based networking rules each task's network interface plans with.
    tbn: RulesInForce = field(default_factory=RulesInForce)

    @property
    def host(self) -> str:
        return self.config.default.host

    def network_interface(self, node: Node) -> NetworkInterface:
        return self.interfaces.get(node.network_interface)

    def enabled_interface(self, node: Node) -> NetworkInterface | None:
        """The node's network interface, None if it is no longer enabled."""
        return self.interfaces.enabled(node.network_interface)

    def _calls_external_service(self, interface: str) -> bool:
        """Whether a node on ``interface`` is held by a lease (its interface calls an external
        service). A node whose interface is no longer enabled is held by a lease too: its
        lock then assumes nothing of it, so that it can still be moved to an enabled
        interface, put in maintenance or deleted; what needs the interface itself refuses
        (400, "not enabled")."""
        found = self.interfaces.enabled(interface)
        return True if found is None else found.calls_external_service()

    def _find(self, ident: str | int) -> Node:
        with self.db.reading() as work:
            node = work.nodes.find(ident)
        if node is None:
            raise NodeNotFound(ident)
        return node

    @contextlib.contextmanager
    def without_waiting(self) -> Iterator[list[Callable[[], None]]]:
        """Run the block's operation only if nothing makes it wait (for the event loop).

        Opening a task in the block raises WouldWait, before anything is done, if the node
        or the database is taken or the node's interface calls an external service. Writes
        that would have to wait for the database after the operation failed (its failure
        record) are not made; they are handed back, for a worker thread to make.
        """
        deferred: list[Callable[[], None]] = []
        token = _DEFERRED.set(deferred)
        try:
            yield deferred
        finally:
            _DEFERRED.reset(token)

    def shared_task(self, ident: str, context: RequestContext) -> Task:
        """A read-only view of the node and its VIF attachments, read at once; no lock."""
        with self.db.reading() as work:
            node, attachments = work.attachments.with_node(ident)
        if _DEFERRED.get() is not None and not self.runs_locally(node):
            raise WouldWait(f"node {node.label} calls an external network service")
        task = self._task(node, context, work=None, shared=True)
        task.note_loaded(attachments)
        return task

    def _task(self, node: Node, context: RequestContext, work: Work | None, shared: bool) -> Task:
        # A task holding its node by a lease checks, in each of its write transactions, that
        # the lease is still its own.
        leased = work is None and not shared
        return Task(
            db=self.db,
            config=self.config,
            context=context,
            node=node,
            conductor=self.locks.holder,
            shared=shared,
            work=work,
            tbn_rules=self.tbn.rules,
            keep_lease=self.locks.keeper(node.id, node.label) if leased else None,
        )

    def runs_locally(self, node: Node) -> bool:
        """Whether operations on the node stay inside metalwire (no external service)."""
        return not self._calls_external_service(node.network_interface)

    def remembered_external(self, ident: str) -> bool | None:
        """Whether the node calls an external service, as remembered; None if not known.

        No query: a hint for choosing where an operation runs, checked again once it runs.
        """
        ref = self.directory.peek(ident)
        if ref is None:
            return None
        return self._calls_external_service(ref.network_interface)

    @contextlib.contextmanager
    def exclusive_task(
        self, ident: str | int, context: RequestContext, wanted: Wanted | None = None
    ) -> Iterator[Task]:
        """The node with its lock held for the block.

        If the node's network interface calls no external service, the whole block is one
        transaction that also takes and gives back the lock; otherwise the lock is a lease
        held across the block's own short transactions. Which node an identifier names is
        remembered between calls and checked again once the lock is held.

        Inside :meth:`without_waiting` the task opens only if it can at once and its node's
        interface calls no external service; otherwise WouldWait is raised before anything
        is done. ``wanted``: the operation reads the node's inventory, which the task then
        holds from the start, read with the lock.
        """
        wait = _DEFERRED.get() is None
        deadline = Deadline(self.config.conductor.node_lock_wait)
        fresh = False
        recovered: str | None = None
        for _attempt in range(3):
            ref = self.directory.lookup(ident, fresh, self._find)
            with contextlib.ExitStack() as stack:
                task = self._open(stack, ref, context, deadline, wait, wanted)
                if task is None:  # the remembered node changed meanwhile: look it up anew
                    self.directory.forget(ident)
                    fresh = True
                    continue
                if isinstance(task, Reopen):  # leaving the block commits the recovery first
                    recovered = task.state
                    continue
                task.recovered = task.recovered or recovered
                yield task
                return
        raise NodeNotFound(ident)

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
                label = self._find(node_id).label
                stack.enter_context(self.locks.in_process(node_id, label, deadline))
                stack.enter_context(self.locks.lease(node_id, label, deadline))
                task = self._task(self._find(node_id), context, work=None, shared=False)
                external = self._calls_external_service(task.node.network_interface)
                self._recover_interrupted(task, external)
                tasks[node_id] = task
            yield tasks

    def _open(
        self,
        stack: contextlib.ExitStack,
        ref: NodeRef,
        context: RequestContext,
        deadline: Deadline,
        wait: bool,
        wanted: Wanted | None,
    ) -> Task | Reopen | None:
        """The task, None if the node is gone or not the one remembered, or Reopen when the
        single transaction just undid what an interrupted operation left (a stuck provision
        state, a power change): that is committed on its own, so that the operation's own
        failure cannot undo it."""
        label = ref.label
        external = self._calls_external_service(ref.network_interface)
        if external and not wait:
            raise WouldWait(f"node {label} calls an external network service")
        asked = time.perf_counter()
        stack.enter_context(self.locks.in_process(ref.id, label, deadline, wait))
        # The node as it is now that the lock is held.
        node: Node | None
        inventory: LoadedInventory | None = None
        if external:
            stack.enter_context(self.locks.lease(ref.id, label, deadline))
            self._note_lock_wait(asked)
            work = None
            with self.db.reading() as reading:
                node = reading.nodes.find(ref.id)
                if node is not None and wanted is not None:
                    inventory = reading.node_inventories.load(node.id, wanted)
        else:
            work, node, inventory = stack.enter_context(
                self.locks.locked_transaction(ref.id, label, deadline, wait, wanted)
            )
            self._note_lock_wait(asked)
        if node is None:
            return None
        task = self._task(node, context, work, shared=False)
        if not ref.matches(node) or self._calls_external_service(node.network_interface) != (
            external
        ):
            return None
        if inventory is not None:
            task.note_inventory(inventory)
        self._recover_interrupted(task, external)
        if task.recovered is not None and work is not None:
            return Reopen(task.recovered)
        return task

    def _note_lock_wait(self, asked: float) -> None:
        if self.lock_waited is not None:
            self.lock_waited(time.perf_counter() - asked)

    def _recover_interrupted(self, task: Task, external: bool) -> None:
        """Undo what operations cut short by their process's death left on the task's node,
        now that its lock is held: pending VIF records (only an interface that calls an
        external service leaves them), a lease run out, a transient provision state and a
        power change."""
        if external:
            self._clear_interrupted_attaches(task)
        for event_type, error in stuck_states.recover(task, self.locks.holder):
            self.record_history(task, HistoryEntry.failed(event_type, error))

    def _clear_interrupted_attaches(self, task: Task) -> None:
        """Remove pending attachments left by an operation whose process died.

        Only an operation holding the node lock leaves a pending record, and this task holds
        it now: any pending record of the node belongs to an operation that was cut short.
        """
        pending = [a for a in task.attachments if a.pending]
        if not pending:  # the interface is not needed (nor need it be enabled)
            return
        iface = self.network_interface(task.node)
        for attachment in pending:
            operation = iface.interrupted_operation(attachment).capitalize()
            iface.recover_interrupted_attach(task, attachment)
            task.attachments.remove(attachment.vif_id)
            event = (
                f"{operation} of VIF {attachment.vif_id} was interrupted (its process "
                "stopped, or lost the node's lock); its record was removed"
            )
            self.record_history(task, HistoryEntry.failed("vif", event, attachment.vif_id))

    def clear_interrupted_attach_elsewhere(
        self, vif_id: str, context: RequestContext, node_id: int | None
    ) -> bool:
        """Remove the VIF's pending record on another node whose lock holder is gone.

        A pending record left by a dead process would otherwise refuse the VIF everywhere
        until the next operation on its own node. Call this holding no node lock: it opens
        a task on that node (which clears the node's interrupted attaches) once the dead
        holder's lease has expired. True if a record was cleared; ``node_id`` is the node
        asking (its own pending records are cleared when its task opens). Inside
        :meth:`without_waiting` opening that task raises WouldWait.
        """
        with self.db.reading() as work:
            attachment = work.attachments.find(vif_id)
            if attachment is None or not attachment.pending or attachment.node_id == node_id:
                return False
            node = work.nodes.find(attachment.node_id)
        if node is None or live_holder(node, time.time()) is not None:
            return False
        try:
            with self.exclusive_task(node.id, context):
                pass  # opening the task cleared the node's interrupted attaches
        except (NodeLocked, NodeNotFound):
            return False
        with self.db.reading() as work:
            return work.attachments.find(vif_id) is None

    def record_history(self, task: Task, entry: HistoryEntry) -> None:
        """Add a node history entry (in the task's transaction) and log it."""
        log = LOG.warning if entry.severity == "ERROR" else LOG.info
        log("node %s: %s", task.node.uuid, entry.event)
        task.history.add(entry)

    def record_failure(
        self, node: tuple[int, str] | None, context: RequestContext, entry: HistoryEntry
    ) -> None:
        """Record a failed operation after its transaction was rolled back.

        ``node`` is (id, uuid), taken while the task was open: the rollback expired the row.
        Inside :meth:`without_waiting` the record is handed back instead of written.
        """
        if node is None:
            return
        node_id, node_uuid = node
        LOG.warning("node %s: %s", node_uuid, entry.event)
        bound = entry.by(node_id, self.host, context.user, context.project)
        write = functools.partial(self.write_history_apart, {node_uuid: [bound]})
        deferred = _DEFERRED.get()
        if deferred is None:
            write()
        else:
            deferred.append(write)

    def write_history_apart(self, entries: Mapping[str, list[HistoryEntry]]) -> None:
        """Write history entries bound to their nodes (:meth:`HistoryEntry.by`), listed by
        node UUID, in one transaction of their own that takes no node lock. A failure (the
        database, a node deleted meanwhile) is logged, never raised: nothing else depends on
        these entries."""
        nodes = ", ".join(entries)
        try:
            with self.db.writing() as work:
                for bound in itertools.chain.from_iterable(entries.values()):
                    node = None if bound.node_id is None else work.nodes.find(bound.node_id)
                    work.history.add(bound.at_state(node))
        except DatabaseFailure as exc:  # logged where it was detected
            LOG.warning("Could not write to the history of node %s: %s", nodes, exc)
        except Exception:
            LOG.exception("Could not write to the history of node %s", nodes)


#: Attempts of a change whose row keeps moving between nodes while the change chases it.
STALE_RETRIES = 10
_T = TypeVar("_T")


def until_still_there(attempt: Callable[[], _T]) -> _T:
    """``attempt()``, run again (STALE_RETRIES in all) while it raises StaleUpdate: its row
    moved to another node between the read that found the node and the node's lock."""
    for _ in range(STALE_RETRIES - 1):
        try:
            return attempt()
        except StaleUpdate:
            continue
    return attempt()
