"""Node locks that make concurrent operations on one node wait their turn.

Two levels, both needed:

* inside one process, a lock per node queues the threads that want the node, so they never
  poll the database against each other;
* across processes, the node row holds a lease (``reservation`` + ``lock_expires_at``) taken
  by a conditional UPDATE; a holder renews its leases in the background, so a lease outlives
  its holder by at most ``node_lock_lease`` seconds if the process dies.

An operation gives up with 409 NodeLocked only after waiting ``node_lock_wait`` seconds.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import uuid
from collections.abc import Iterator

from metalwire.db import node_locks
from metalwire.db.engine import Database
from metalwire.errors import NodeLocked

LOG = logging.getLogger(__name__)


def make_holder_name(host: str) -> str:
    """A lock holder name unique to this process: host, pid and a random suffix."""
    return f"{host}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class NodeLocks:
    def __init__(self, db: Database, holder: str, lease: float, wait: float) -> None:
        self.db = db
        self.holder = holder
        self.lease = lease
        self.wait = wait
        self._guard = threading.Lock()
        self._local: dict[int, tuple[threading.Lock, int]] = {}
        self._held: set[int] = set()
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    @contextlib.contextmanager
    def exclusive(self, node_id: int, label: str) -> Iterator[None]:
        """Hold the node's lock for the block; raises NodeLocked after the wait budget."""
        started = time.monotonic()
        deadline = started + self.wait
        local = self._local_lock(node_id)
        try:
            if not local.acquire(timeout=max(0.0, deadline - time.monotonic())):
                raise NodeLocked(label, self.holder, time.monotonic() - started)
            try:
                self._acquire_lease(node_id, label, started, deadline)
                try:
                    yield
                finally:
                    self._release_lease(node_id)
            finally:
                local.release()
        finally:
            self._forget_local(node_id)

    def _local_lock(self, node_id: int) -> threading.Lock:
        with self._guard:
            lock, users = self._local.get(node_id, (threading.Lock(), 0))
            self._local[node_id] = (lock, users + 1)
            return lock

    def _forget_local(self, node_id: int) -> None:
        with self._guard:
            lock, users = self._local[node_id]
            if users <= 1:
                del self._local[node_id]
            else:
                self._local[node_id] = (lock, users - 1)

    def _acquire_lease(self, node_id: int, label: str, started: float, deadline: float) -> None:
        pause = 0.002
        while True:
            with self.db.write() as session:
                if node_locks.try_acquire(session, node_id, self.holder, time.time(), self.lease):
                    break
                holder = node_locks.holder_of(session, node_id) or "unknown"
            if time.monotonic() + pause > deadline:
                raise NodeLocked(label, holder, time.monotonic() - started)
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
        with self._guard:
            self._held.add(node_id)
            self._start_renewer()

    def _release_lease(self, node_id: int) -> None:
        with self._guard:
            self._held.discard(node_id)
        with self.db.write() as session:
            node_locks.release(session, node_id, self.holder)

    def _start_renewer(self) -> None:
        if self._renewer is None or not self._renewer.is_alive():
            self._renewer = threading.Thread(
                target=self._renew_forever, name="node-lock-renewer", daemon=True
            )
            self._renewer.start()

    def _renew_forever(self) -> None:
        while not self._stop.wait(self.lease / 3):
            with self._guard:
                held = sorted(self._held)
            if not held:
                continue
            try:
                with self.db.write() as session:
                    node_locks.renew(session, held, self.holder, time.time(), self.lease)
            except Exception:
                LOG.exception("Could not renew node locks %s", held)

    def release_all(self) -> None:
        """Stop renewing and free every lease this process holds (at shutdown)."""
        self._stop.set()
        with self._guard:
            held = sorted(self._held)
            self._held.clear()
        for node_id in held:
            with self.db.write() as session:
                node_locks.release(session, node_id, self.holder)
