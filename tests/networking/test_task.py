"""The task a network interface receives (networking/task.py): its node's inventory, the
writes that keep it in step, and how they group into transactions."""

from __future__ import annotations

import pytest

from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node, Port, Portgroup
from metalwire.errors import Conflict, Invalid, VifAlreadyAttached
from tests.conductor.conftest import NewNode

CONTEXT = RequestContext(user="bob", project="p-2")


@pytest.fixture
def node(new_node: NewNode) -> Node:
    return new_node("tasked", interface="neutron")  # a lease: each write commits on its own


def _port(conductor: Conductor, node: Node, n: int, portgroup: Portgroup | None = None) -> Port:
    with conductor.db.writing() as work:
        return work.ports.create(
            {
                "uuid": f"22222222-0000-4000-8000-{n:012d}",
                "node_id": node.id,
                "address": f"52:54:00:00:01:{n:02x}",
                "portgroup_id": portgroup.id if portgroup else None,
            }
        )


def _portgroup(conductor: Conductor, node: Node) -> Portgroup:
    with conductor.db.writing() as work:
        return work.portgroups.create(
            {"uuid": "33333333-0000-4000-8000-000000000001", "node_id": node.id, "name": "bond0"}
        )


def _uuid(target: Port | Portgroup | None) -> str | None:
    return None if target is None else target.uuid


def _stored_vifs(conductor: Conductor, node: Node) -> list[str]:
    with conductor.db.reading() as work:
        return [a.vif_id for a in work.attachments.for_node(node.id)]


def test_attachment_writes_keep_the_loaded_list_in_step_and_commit_at_once(
    conductor: Conductor, node: Node
) -> None:
    port = _port(conductor, node, 1)
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        assert list(task.attachments) == []
        task.attachments.record("vif-a", port, {"k": "v"}, pending=True)
        assert _stored_vifs(conductor, node) == ["vif-a"]  # committed: the task is leased
        assert task.vif_on(port) == "vif-a" and _uuid(task.find_target("vif-a")) == port.uuid
        task.attachments.confirm("vif-a")
        task.attachments.update_info("vif-a", {"k": "w"})
        [attachment] = task.attachments
        assert (attachment.pending, attachment.info, attachment.source) == (
            False,
            {"k": "w"},
            "api",
        )
        assert _uuid(task.target_of(attachment)) == port.uuid
        assert task.attachments.anywhere("vif-a") is not None
        task.attachments.reopen("vif-a", {"k": "x"})  # a detach under way
        stored = task.attachments.anywhere("vif-a")
        assert stored is not None and (stored.pending, stored.info) == (True, {"k": "x"})
        assert (attachment.pending, attachment.info) == (True, {"k": "x"})
        task.attachments.remove("vif-a")
        assert len(task.attachments) == 0 and task.find_target("vif-a") is None
    assert _stored_vifs(conductor, node) == []


def test_atomic_makes_the_block_one_transaction(conductor: Conductor, node: Node) -> None:
    first, second = _port(conductor, node, 2), _port(conductor, node, 3)
    with (
        conductor.exclusive_task(node.uuid, CONTEXT) as task,
        pytest.raises(Conflict),
        task.atomic(),
    ):
        task.attachments.record("vif-b", first, {})
        task.attachments.record("vif-b", second, {})  # the key refuses the VIF twice
    assert _stored_vifs(conductor, node) == []


def test_check_free_names_the_node_that_has_the_vif(
    conductor: Conductor, node: Node, new_node: NewNode
) -> None:
    other = new_node("holder")
    with conductor.db.writing() as work:
        port = work.ports.create(
            {
                "uuid": "22222222-0000-4000-8000-0000000000ff",
                "node_id": other.id,
                "address": "52:54:00:00:01:ff",
            }
        )
        work.attachments.record(other.id, "vif-c", port, {})
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        with pytest.raises(VifAlreadyAttached, match=f"{other.uuid} \\(holder\\)"):
            task.attachments.check_free("vif-c")
        task.attachments.check_free("vif-free")


def test_the_inventory_is_loaded_on_use_and_again_after_reload(
    conductor: Conductor, node: Node
) -> None:
    portgroup = _portgroup(conductor, node)
    member = _port(conductor, node, 4, portgroup)
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        assert [p.uuid for p in task.members(portgroup)] == [member.uuid]
        task.inventory.update_port(member.uuid, {"portgroup_id": None})
        assert [p.uuid for p in task.members(portgroup)] == [member.uuid]  # as loaded
        task.reload()
        assert task.members(portgroup) == []
        assert [p.uuid for p in task.ports] == [member.uuid]


def test_history_is_written_with_the_conductor_user_and_project(
    conductor: Conductor, node: Node
) -> None:
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        entry = task.history.add(HistoryEntry("vif", "something happened", vif_id="vif-d"))
    assert (entry.user, entry.project, entry.conductor) == ("bob", "p-2", conductor.host)
    assert (entry.node_id, entry.severity, entry.result) == (node.id, "INFO", "success")


def test_a_savepoint_undoes_its_block_and_keeps_the_local_transaction(
    conductor: Conductor, new_node: NewNode
) -> None:
    local = new_node("local")
    port = _port(conductor, local, 5)
    with conductor.exclusive_task(local.uuid, CONTEXT) as task:
        with pytest.raises(Invalid), task.savepoint():
            task.attachments.record("vif-e", port, {})
            raise Invalid("undo the block")
        task.attachments.record("vif-f", port, {})
    assert _stored_vifs(conductor, local) == ["vif-f"]


def test_get_current_vif_answers_the_recorded_vif_by_default(
    conductor: Conductor, node: Node
) -> None:
    port = _port(conductor, node, 6)
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        iface = conductor.network_interface(task.node)
        assert iface.get_current_vif(task, port) is None
        task.attachments.record("vif-g", port, {})
        assert iface.get_current_vif(task, port) == "vif-g"
