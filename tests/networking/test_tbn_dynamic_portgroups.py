"""Dynamic portgroups in the database, on each test database: a port joins only while free,
and the group goes with its VIF's record, however the record goes (a detach, a rolled-back
or interrupted attach)."""

from __future__ import annotations

import pytest

from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.models import Node, Port
from metalwire.errors import Conflict
from tests.conductor.conftest import NewNode

CONTEXT = RequestContext()


@pytest.fixture
def node_ports(new_node: NewNode, conductor: Conductor) -> tuple[Node, list[Port]]:
    node = new_node("dyn-db")
    with conductor.db.writing() as work:
        ports = [
            work.ports.create(
                {
                    "uuid": f"44444444-0000-4000-8000-{n:012d}",
                    "node_id": node.id,
                    "address": f"52:54:00:00:44:{n:02x}",
                    "available_for_dynamic_portgroup": n != 3,
                }
            )
            for n in (1, 2, 3)
        ]
    return node, ports


def _group(name: str) -> dict[str, object]:
    return {"uuid": f"55555555-0000-4000-8000-{len(name):012d}", "name": name}


def test_a_port_already_grouped_refuses_a_second_group_and_nothing_is_kept(
    conductor: Conductor, node_ports: tuple[Node, list[Port]]
) -> None:
    node, ports = node_ports
    with conductor.db.writing() as work:
        work.portgroups.create_dynamic(_group("dyn-a"), ports[:2], node.id)
    taken = "port 44444444-0000-4000-8000-000000000002 is no longer free"
    with pytest.raises(Conflict, match=taken), conductor.db.writing() as work:
        work.portgroups.create_dynamic(_group("dyn-bb"), ports[1:2], node.id)
    # Port 3 is not available_for_dynamic_portgroup.
    unavailable = "000000000003 is no longer free"
    with pytest.raises(Conflict, match=unavailable), conductor.db.writing() as work:
        work.portgroups.create_dynamic(_group("dyn-ccc"), ports[2:], node.id)
    with conductor.db.reading() as work:
        assert [g.name for g in work.portgroups.for_node(node.id)] == ["dyn-a"]


@pytest.mark.parametrize("pending", [False, True])
def test_removing_the_record_deletes_the_group_and_frees_its_ports(
    conductor: Conductor, node_ports: tuple[Node, list[Port]], pending: bool
) -> None:
    node, ports = node_ports
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        group = task.inventory.create_dynamic_portgroup(_group("dyn-r"), ports[:2])
        task.attachments.record("vif-dyn", group, {}, pending=pending)
        assert [p.portgroup_id for p in task.ports] == [group.id, group.id, None]

        task.attachments.remove("vif-dyn")

        assert task.portgroups == []
        assert [p.portgroup_id for p in task.ports] == [None, None, None]
    with conductor.db.reading() as work:
        assert work.portgroups.for_node(node.id) == []
        assert work.attachments.for_node(node.id) == []
