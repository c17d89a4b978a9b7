"""Opening tasks (conductor/tasks.py): the node directory, single-transaction tasks, leases,
``without_waiting`` and the history, driven without HTTP on every database."""

from __future__ import annotations

import pytest

from metalwire.conductor.locks import WouldWait
from metalwire.conductor.tasks import Conductor, NodeDirectory
from metalwire.context import RequestContext
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node, NodeHistory
from metalwire.errors import Invalid, NodeNotFound
from tests.conductor.conftest import HOLDER, NewNode

CONTEXT = RequestContext(user="alice", project="p-1")


def _history(conductor: Conductor, node: Node) -> list[NodeHistory]:
    with conductor.db.read() as session:
        return list(session.query(NodeHistory).filter_by(node_id=node.id).order_by(NodeHistory.id))


def _stored(conductor: Conductor, node: Node) -> Node:
    with conductor.db.reading() as work:
        found = work.nodes.find(node.id)
    assert found is not None
    return found


def test_the_directory_remembers_a_node_until_asked_fresh_or_told_to_forget() -> None:
    directory = NodeDirectory()
    found: list[str | int] = []

    def find(ident: str | int) -> Node:
        found.append(ident)
        return Node(id=7, uuid="u-7", name="seven", network_interface="noop")

    first = directory.lookup("seven", False, find)
    assert directory.lookup("seven", False, find) is first
    assert found == ["seven"]
    assert directory.peek("seven") is first and directory.peek("other") is None
    directory.lookup("seven", True, find)
    assert found == ["seven", "seven"]
    directory.forget("seven")
    assert directory.peek("seven") is None
    assert (first.id, first.label) == (7, "u-7 (seven)")


def test_the_directory_starts_over_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(NodeDirectory, "LIMIT", 2)
    directory = NodeDirectory()
    for n in range(3):
        directory.lookup(n, False, lambda i: Node(id=i, uuid=f"u-{i}", network_interface="noop"))
    assert [directory.peek(n) is not None for n in range(3)] == [False, False, True]


def test_a_renamed_node_is_looked_up_again_once_locked(
    conductor: Conductor, new_node: NewNode
) -> None:
    node = new_node("before")
    with conductor.exclusive_task("before", CONTEXT):
        pass  # remembered by name now
    with conductor.db.writing() as work:
        work.nodes.update(node.id, {"name": "after"})
    with pytest.raises(NodeNotFound), conductor.exclusive_task("before", CONTEXT):
        pytest.fail("the old name still opened a task")
    with conductor.exclusive_task("after", CONTEXT) as task:
        assert task.node.id == node.id


def test_a_local_task_is_one_transaction_that_rolls_back_whole(
    conductor: Conductor, new_node: NewNode
) -> None:
    node = new_node("atomic")
    with pytest.raises(Invalid), conductor.exclusive_task(node.uuid, CONTEXT) as task:
        assert task.shared is False
        task.inventory.update_node({"extra": {"half": "done"}})
        conductor.record_history(task, HistoryEntry("test", "written, then rolled back"))
        raise Invalid("the operation failed")
    stored = _stored(conductor, node)
    assert stored.extra == {} and stored.reservation is None
    assert _history(conductor, node) == []


def test_a_local_task_commits_its_writes_and_its_history_with_who_did_it(
    conductor: Conductor, new_node: NewNode
) -> None:
    node = new_node("committed")
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        task.inventory.update_node({"extra": {"done": True}})
        conductor.record_history(task, HistoryEntry("test", "it worked", vif_id="vif-1"))
    assert _stored(conductor, node).extra == {"done": True}
    [entry] = _history(conductor, node)
    assert (entry.event, entry.severity, entry.result) == ("it worked", "INFO", "success")
    assert (entry.user, entry.project, entry.vif_id) == ("alice", "p-1", "vif-1")
    assert entry.conductor == conductor.host


def test_an_external_node_is_held_by_a_committed_lease_for_the_block(
    conductor: Conductor, new_node: NewNode
) -> None:
    node = new_node("leased", interface="neutron")
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        assert _stored(conductor, node).reservation == HOLDER  # seen from outside the task
        task.inventory.update_node({"extra": {"committed": "at once"}})
        assert _stored(conductor, node).extra == {"committed": "at once"}
    assert _stored(conductor, node).reservation is None


def test_without_waiting_an_external_node_is_refused_before_any_lock(
    conductor: Conductor, new_node: NewNode
) -> None:
    node = new_node("remote", interface="neutron")
    with conductor.without_waiting(), pytest.raises(WouldWait):
        conductor.shared_task(node.uuid, CONTEXT)
    with (
        conductor.without_waiting(),
        pytest.raises(WouldWait),
        conductor.exclusive_task(node.uuid, CONTEXT),
    ):
        pytest.fail("a task opened on a node that calls an external service")
    assert _stored(conductor, node).reservation is None


def test_a_shared_task_reads_the_node_and_its_attachments_at_once(
    conductor: Conductor, new_node: NewNode
) -> None:
    node = new_node("shared")
    with conductor.db.writing() as work:
        port = work.ports.create(
            {
                "uuid": "11111111-0000-4000-8000-000000000001",
                "node_id": node.id,
                "address": "52:54:00:00:00:01",
            }
        )
        work.attachments.record(node.id, "vif-s", port, {})
    task = conductor.shared_task("shared", CONTEXT)
    assert task.shared is True
    assert [a.vif_id for a in task.attachments] == ["vif-s"]
    assert task.find_target("vif-s") is not None
    assert conductor.remembered_external("shared") is None  # a shared task remembers nothing
    with conductor.exclusive_task("shared", CONTEXT):
        pass
    assert conductor.remembered_external("shared") is False
