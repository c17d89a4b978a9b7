"""Node locks that make concurrent operations on one node wait their turn.

Two levels:

* inside one process, a lock per node queues the threads that want the node, so they never
  poll the database against each other;
* across processes, the node row holds a lease (``reservation`` + ``lock_expires_at``) taken
  by a conditional UPDATE, atomic on every supported database (SQLite included) without
  ``SELECT ... FOR UPDATE``; a transaction that does its work inside itself on PostgreSQL
  locks the node's row instead.

The lock is taken in one of two ways. :meth:`NodeLocks.locked_transaction` takes it inside
the transaction that does the work and gives it back in the same commit (on PostgreSQL by
``SELECT ... FOR UPDATE`` of the node's row, elsewhere by writing and clearing the lease):
nothing is ever left locked, even if the process dies. :meth:`NodeLocks.lease` commits the
lease and renews it in the background while an operation calls external services; if the
holder dies, the lease runs out after ``node_lock_lease`` seconds.

An operation gives up with 409 NodeLocked only after waiting ``node_lock_wait`` seconds.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from metalwire.db import node_inventory, node_locks
from metalwire.db.busy import WriterBusy
from metalwire.db.engine import Database
from metalwire.db.models import Node
from metalwire.db.node_inventory import LoadedInventory, Wanted
from metalwire.db.work import Work
from metalwire.errors import DatabaseFailure, NodeLocked, NodeLockLost

LOG = logging.getLogger(__name__)


class WouldWait(Exception):
    """An operation asked not to wait found its node or the database busy; nothing was done.

    The local RPC API then hands the operation to a worker thread, which waits its turn.
    """


def make_holder_name(host: str) -> str:
    """A lock holder name unique to this process: host, pid and a random suffix."""
    return f"{host}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Deadline:
    def __init__(self, budget: float) -> None:
        self.started = time.monotonic()
        self.until = self.started + budget

    def remaining(self) -> float:
        return max(0.0, self.until - time.monotonic())

    def waited(self) -> float:
        return time.monotonic() - self.started


class NodeLocks:
    def __init__(self, db: Database, holder: str, lease: float, wait: float) -> None:
        self.db = db
        self.holder = holder
        self.lease_seconds = lease
        self.wait = wait
        self._guard = threading.Lock()
        self._local: dict[int, tuple[threading.Lock, int]] = {}
        self._held: set[int] = set()
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    @contextlib.contextmanager
    def in_process(
        self, node_id: int, label: str, deadline: Deadline, wait: bool = True
    ) -> Iterator[None]:
        """Queue behind the other threads of this process that hold the node.

        With ``wait=False`` it raises WouldWait if another thread holds it.
        """
        with self._guard:
            lock, users = self._local.get(node_id, (threading.Lock(), 0))
            self._local[node_id] = (lock, users + 1)
        try:
            if not wait:
                if not lock.acquire(blocking=False):
                    raise WouldWait(f"node {label} is busy in this process")
            elif not lock.acquire(timeout=deadline.remaining()):
                raise NodeLocked(label, self.holder, deadline.waited())
            try:
                yield
            finally:
                lock.release()
        finally:
            with self._guard:
                lock, users = self._local[node_id]
                if users <= 1:
                    del self._local[node_id]
                else:
                    self._local[node_id] = (lock, users - 1)

    @staticmethod
    def _pause(label: str, holder: str, deadline: Deadline, pause: float) -> float:
        """Sleep before the next attempt; raise NodeLocked when the wait budget is spent."""
        if deadline.remaining() < pause:
            raise NodeLocked(label, holder, deadline.waited())
        time.sleep(pause)
        return min(pause * 2, 0.05)

    @contextlib.contextmanager
    def locked_transaction(
        self,
        node_id: int,
        label: str,
        deadline: Deadline,
        wait: bool = True,
        wanted: Wanted | None = None,
    ) -> Iterator[tuple[Work, Node | None, LoadedInventory | None]]:
        """A write transaction that owns the node until it commits or rolls back.

        Yields the unit of work, the node's row as read once the lock is held (None if the
        node was deleted meanwhile) and, if ``wanted``, its inventory read then too (with the
        lock's own statement on PostgreSQL). With ``wait=False`` it raises WouldWait instead
        of waiting, before doing anything.
        """
        pause = 0.002
        while True:
            stack = contextlib.ExitStack()
            try:
                work = stack.enter_context(self.db.writing(wait))
            except WriterBusy as exc:
                raise WouldWait(f"node {label}: {exc}") from None
            try:
                holder, node, inventory = self._take_in_transaction(work, node_id, wanted, wait)
            except WriterBusy as exc:  # another transaction holds the node's row
                stack.__exit__(*sys.exc_info())
                raise WouldWait(f"node {label}: {exc}") from None
            except BaseException:
                stack.__exit__(*sys.exc_info())
                raise
            if holder is None:
                break
            stack.close()
            if not wait:
                raise WouldWait(f"node {label} is locked by {holder}")
            pause = self._pause(label, holder, deadline, pause)
        with stack:
            yield work, node, inventory
            if self.db.kind == "mysql":
                work.node_locks.release(node_id, self.holder)

    def _take_in_transaction(
        self, work: Work, node_id: int, wanted: Wanted | None, wait: bool
    ) -> tuple[str | None, Node | None, LoadedInventory | None]:
        """Take the node inside the transaction: (the other holder if it is taken, the row,
        the inventory if wanted and the node is ours)."""
        now = time.time()
        results: list[list[Any]] | None = None  # the inventory's reads, if made with the lock
        if self.db.kind == "postgresql":
            # The row lock queues the transactions for this node (each sees the rows the one
            # before it committed) and ends with the commit: no lease written or cleared.
            # The inventory's reads go with it, run once the lock is held.
            reads = () if wanted is None else node_inventory.reads(node_id, wanted)
            node, results = work.node_locks.lock_row(node_id, reads, wait)
            holder = None if node is None else node_locks.live_holder(node, now)
        elif self.db.kind == "sqlite":
            # SQLite has one writer at a time, and this transaction is it: the node is ours
            # unless another process holds a lease on it.
            node = work.nodes.find(node_id)
            holder = None if node is None else node_locks.live_holder(node, now)
        else:
            # MariaDB and MySQL: the lease, written and cleared in this transaction. On
            # Galera a row lock binds only the server that took it; a written row is
            # certified by all. Elsewhere the UPDATE also locks the row, so other
            # transactions for this node wait for this one to end and then see the lease
            # already cleared. The node's row and the inventory's reads go with it, run
            # once the UPDATE has its row.
            reads = () if wanted is None else node_inventory.reads(node_id, wanted)
            taken, node, results = work.node_locks.take_lease(
                node_id, self.holder, now, self.lease_seconds, reads
            )
            if node is None:  # deleted meanwhile: nothing to wait for; the caller looks again
                return None, None, None
            holder = None if taken else node.reservation or "unknown"
        if wanted is None or node is None or holder is not None:
            return holder, node, None
        if results is None:
            return None, node, work.node_inventories.load(node_id, wanted)
        return None, node, node_inventory.loaded(node_id, wanted, results)

    @contextlib.contextmanager
    def lease(self, node_id: int, label: str, deadline: Deadline) -> Iterator[None]:
        """Hold a committed, renewed lease on the node for the block."""
        pause = 0.002
        while True:
            with self.db.writing() as work:
                now = time.time()
                if work.node_locks.try_acquire(node_id, self.holder, now, self.lease_seconds):
                    break
                node = work.nodes.find(node_id)
                if node is None:  # deleted meanwhile: nothing to hold; the caller looks again
                    break
                holder = node.reservation or "unknown"
            pause = self._pause(label, holder, deadline, pause)
        with self._guard:
            self._held.add(node_id)
            self._start_renewer()
        try:
            yield
        finally:
            with self._guard:
                self._held.discard(node_id)
            with self.db.writing() as work:
                work.node_locks.release(node_id, self.holder)

    def keeper(self, node_id: int, label: str) -> Callable[[Work], None]:
        """What a write transaction of an operation holding the node's lease runs first: it
        renews the lease, or raises NodeLockLost if the lease is no longer this process's
        (it ran out while it could not be renewed, and another process took the node)."""

        def keep(work: Work) -> None:
            if not work.node_locks.extend(node_id, self.holder, time.time(), self.lease_seconds):
                node = work.nodes.find(node_id)
                raise NodeLockLost(label, node.reservation if node is not None else None)

        return keep

    def _start_renewer(self) -> None:
        if self._renewer is None or not self._renewer.is_alive():
            self._renewer = threading.Thread(
                target=self._renew_forever, name="node-lock-renewer", daemon=True
            )
            self._renewer.start()

    def _stop_renewer(self) -> None:
        """Stop the renewer, waiting (at most one renewal interval, a third of the lease) for
        a renewal under way: one that wrote after the caller closed the database would open
        a connection there that nothing closes any more."""
        self._stop.set()
        renewer = self._renewer
        if renewer is not None and renewer is not threading.current_thread():
            renewer.join(self.lease_seconds / 3)

    def _renew_forever(self) -> None:
        while not self._stop.wait(self.lease_seconds / 3):
            with self._guard:
                held = sorted(self._held)
            if not held:
                continue
            try:
                with self.db.writing() as work:
                    work.node_locks.renew(held, self.holder, time.time(), self.lease_seconds)
            except DatabaseFailure as exc:  # logged where it was detected; tried again
                LOG.warning("Could not renew node locks %s: %s", held, exc)
            except Exception:
                LOG.exception("Could not renew node locks %s", held)

    def stop_renewing(self) -> None:
        """Stop renewing the leases this process holds and leave them to run out, so that
        no other process takes their nodes while an operation cut short by a shutdown may
        still write (until the process ends)."""
        self._stop_renewer()

    def release_all(self) -> None:
        """Stop renewing and free every lease this process holds (at shutdown)."""
        self._stop_renewer()
        with self._guard:
            held = sorted(self._held)
            self._held.clear()
        for node_id in held:
            with self.db.writing() as work:
                work.node_locks.release(node_id, self.holder)
