"""Node locks and tasks, driven directly (no HTTP) on every database."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from metalwire.conductor.locks import Deadline, NodeLocks, WouldWait
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node
from metalwire.errors import NodeLocked, NodeNotFound
from tests.conductor.conftest import NewNode, history_of


@contextlib.contextmanager
def _held_by_another_thread(conductor: Conductor, node: Node) -> Iterator[None]:
    """The node's task open in another thread for the block."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with conductor.exclusive_task(node.uuid, RequestContext()):
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(10)
        yield
    finally:
        release.set()
        holder.join()


def test_a_second_thread_waits_its_turn_then_gives_up_naming_the_holder(
    conductor: Conductor, new_node: NewNode
) -> None:
    node = new_node("busy")
    with _held_by_another_thread(conductor, node):
        started = time.monotonic()
        with (
            pytest.raises(NodeLocked) as refused,
            conductor.exclusive_task(node.uuid, RequestContext()),
        ):
            pytest.fail("the lock was given twice")
        assert 0.4 <= time.monotonic() - started < 5
        assert "test-host:1:abcd" in str(refused.value)
    with conductor.exclusive_task(node.uuid, RequestContext()) as task:
        assert task.node.uuid == node.uuid


def test_a_lease_of_a_dead_holder_is_taken_over_once_it_runs_out(
    conductor: Conductor, new_node: NewNode
) -> None:
    node = new_node("orphaned")
    with conductor.db.writing() as work:  # a process that died while holding the node
        assert work.node_locks.try_acquire(node.id, "dead-host:9:0000", time.time(), 0.5)
    started = time.monotonic()
    other = NodeLocks(conductor.db, "other:2:beef", lease=2.0, wait=5.0)
    with other.lease(node.id, "orphaned", Deadline(5.0)):
        taken = time.monotonic() - started
        with conductor.db.reading() as work:
            assert work.nodes.find(node.id).reservation == "other:2:beef"  # type: ignore[union-attr]
    assert taken < 3
    with conductor.db.reading() as work:
        assert work.nodes.find(node.id).reservation is None  # type: ignore[union-attr]


def test_several_nodes_are_locked_in_id_order_and_all_released(
    conductor: Conductor, new_node: NewNode
) -> None:
    a, b = new_node("lock-a"), new_node("lock-b")
    with conductor.exclusive_tasks([b.id, a.id], RequestContext()) as tasks:
        assert list(tasks) == sorted([a.id, b.id])
        with conductor.db.reading() as work:
            holders = {work.nodes.find(i).reservation for i in tasks}  # type: ignore[union-attr]
        assert holders == {"test-host:1:abcd"}
    with conductor.db.reading() as work:
        assert {work.nodes.find(i).reservation for i in (a.id, b.id)} == {None}  # type: ignore[union-attr]


def test_a_deleted_node_is_not_found_instead_of_waited_for(
    conductor: Conductor, new_node: NewNode
) -> None:
    node = new_node("short-lived")
    with conductor.exclusive_task(node.uuid, RequestContext()):
        pass  # remembered now
    with conductor.db.writing() as work:
        work.nodes.delete(node.id)
    started = time.monotonic()
    with pytest.raises(NodeNotFound), conductor.exclusive_task(node.uuid, RequestContext()):
        pytest.fail("a task opened on a deleted node")
    assert time.monotonic() - started < 0.4  # less than the lock wait


def test_without_waiting_a_busy_node_is_refused_before_anything_is_done(
    conductor: Conductor, new_node: NewNode
) -> None:
    node = new_node("inline")
    with _held_by_another_thread(conductor, node):
        started = time.monotonic()
        with (
            pytest.raises(WouldWait),
            conductor.without_waiting(),
            conductor.exclusive_task(node.uuid, RequestContext()),
        ):
            pytest.fail("a task opened on a node another thread holds")
        assert time.monotonic() - started < 0.2  # refused at once, not after the lock wait


def test_without_waiting_a_failure_record_is_handed_back_not_written(
    conductor: Conductor, new_node: NewNode
) -> None:
    node = new_node("failing")
    with conductor.without_waiting() as deferred:
        conductor.record_failure(
            (node.id, node.uuid), RequestContext(), HistoryEntry.failed("vif", "it failed")
        )
    with conductor.db.reading() as work:
        assert work.nodes.find(node.id) is not None
    assert len(deferred) == 1
    assert history_of(conductor, node) == []
    deferred[0]()
    assert history_of(conductor, node) == ["it failed"]


@pytest.mark.parametrize("stop", ["release_all", "stop_renewing"])
def test_a_renewal_under_way_at_shutdown_ends_before_the_database_is_closed(
    conductor: Conductor, new_node: NewNode, monkeypatch: pytest.MonkeyPatch, stop: str
) -> None:
    """A renewal that began just before the shutdown and wrote after the database was
    closed would open a connection there that nothing closes any more (psycopg warns when it
    is collected, in whatever runs then)."""
    node = new_node("renewed")
    db = conductor.db
    locks = NodeLocks(db, "renewing-host:1:abcd", lease=3.0, wait=0.5)
    renewing, go_on = threading.Event(), threading.Event()
    writing = db.writing

    def renewal_held_back(wait: bool = True) -> contextlib.AbstractContextManager[Any]:
        """The renewer's write transaction starts only once the test lets it (or 0.5 s)."""
        if threading.current_thread().name == "node-lock-renewer":
            renewing.set()
            go_on.wait(0.5)
        return writing(wait)

    monkeypatch.setattr(db, "writing", renewal_held_back)
    # Renewers of other tests' locks may still run in this process: wait for this one's only.
    running_before = set(threading.enumerate())
    with locks.lease(node.id, node.label, Deadline(5)):
        assert renewing.wait(10)
    (renewer,) = [
        thread
        for thread in threading.enumerate()
        if thread.name == "node-lock-renewer" and thread not in running_before
    ]
    getattr(locks, stop)()
    db.dispose()
    go_on.set()
    renewer.join(10)
    assert not renewer.is_alive()
    opened_after_dispose = db.engine.pool.checkedin() + db.engine.pool.checkedout()
    assert opened_after_dispose == 0
