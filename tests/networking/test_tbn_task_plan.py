"""The trait-based networking plan read from a real task: the node's traits, its ports and
portgroups with their VIFs, and the options, on each test database."""

from __future__ import annotations

from textwrap import dedent

import pytest

from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.models import Node, Portgroup
from metalwire.errors import NoTraitMatches
from metalwire.networking.tbn.rules import parse_rules
from metalwire.networking.tbn.task_plan import inventory_views, plan_for_task
from tests.conductor.conftest import NewNode

CONTEXT = RequestContext()
RULES = parse_rules(
    dedent(
        """\
        CUSTOM_PHYSNET2:
          actions:
            - action: attach_port
              filter: port.physical_network == 'physnet2' && network.tags == 'storage'
        CUSTOM_BOND:
          actions:
            - action: attach_portgroup
              filter: port.physical_network == 'physnet1'
        """
    ),
    "tbn.yaml",
)


@pytest.fixture
def node(new_node: NewNode, conductor: Conductor) -> Node:
    node = new_node("tbn-node")
    with conductor.db.writing() as work:
        work.nodes.update(
            node.id, {"instance_info": {"traits": ["CUSTOM_PHYSNET2", "CUSTOM_BOND"]}}
        )
        group = work.portgroups.create(
            {"uuid": "33333333-0000-4000-8000-000000000001", "node_id": node.id, "name": "bond0"}
        )
        for n, physnet, member_of in (
            (1, "physnet1", group),
            (2, "physnet1", group),
            (3, "physnet2", None),
            (4, "physnet2", None),
        ):
            work.ports.create(
                {
                    "uuid": f"22222222-0000-4000-8000-{n:012d}",
                    "node_id": node.id,
                    "address": f"52:54:00:00:01:{n:02x}",
                    "physical_network": physnet,
                    "portgroup_id": member_of.id if isinstance(member_of, Portgroup) else None,
                }
            )  # fmt: skip
    return node


def test_views_carry_membership_vifs_and_the_members_physnet(
    conductor: Conductor, node: Node
) -> None:
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        task.attachments.record("vif-0", task.ports[3], {}, pending=False)
        ports, portgroups = inventory_views(task)
    by_uuid = {p.uuid[-1]: p for p in ports}
    assert by_uuid["1"].portgroup_uuid == "33333333-0000-4000-8000-000000000001"
    assert by_uuid["3"].portgroup_uuid is None
    assert by_uuid["4"].vif == "vif-0"
    (bond,) = portgroups
    assert (bond.physical_network, bond.name, bond.vif) == ("physnet1", "bond0", None)


def test_the_first_trait_that_applies_on_the_task_wins(conductor: Conductor, node: Node) -> None:
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        storage = plan_for_task(task, RULES, {"id": "vif-1", "tags": ["storage"]})
        tenant = plan_for_task(task, RULES, {"id": "vif-2", "tags": ["tenant"]})
    assert storage.trait == "CUSTOM_PHYSNET2"
    assert [t.uuid for t in storage.actions[0].targets] == ["22222222-0000-4000-8000-000000000004"]
    assert tenant.trait == "CUSTOM_BOND"
    assert [t.uuid for t in tenant.actions[0].targets] == ["33333333-0000-4000-8000-000000000001"]


def test_no_match_on_the_task_is_a_400_naming_the_nodes_traits(
    conductor: Conductor, node: Node
) -> None:
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        task.attachments.record("vif-0", task.portgroups[0], {}, pending=False)
        with pytest.raises(NoTraitMatches) as caught:
            plan_for_task(task, RULES, {"id": "vif-3", "tags": ["tenant"]})
    assert caught.value.code == 400
    message = caught.value.message
    assert "the node's traits (instance_info['traits']): CUSTOM_PHYSNET2, CUSTOM_BOND" in message
    assert "portgroup 33333333-0000-4000-8000-000000000001 (bond0) is busy with VIF vif-0" in (
        message
    )


def test_without_raising_the_option_gives_an_empty_plan(conductor: Conductor, node: Node) -> None:
    conductor.config.conductor.trait_based_networking_raise_when_no_match = False
    with conductor.exclusive_task(node.uuid, CONTEXT) as task:
        task.attachments.record("vif-0", task.portgroups[0], {}, pending=False)
        result = plan_for_task(task, RULES, {"id": "vif-3"})
    assert result.trait is None and result.actions == ()
