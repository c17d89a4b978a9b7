"""The trait-based networking planner: each action, trait order, the default trait, no match."""

from __future__ import annotations

from textwrap import dedent

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metalwire.errors import NoTraitMatches
from metalwire.networking.tbn.planner import (
    DYNAMIC_PORTGROUP_PREFIX,
    DynamicPortgroup,
    PlanningOptions,
    TbnPlan,
    dynamic_portgroup_name,
    node_traits,
    plan_vif_attach,
)
from metalwire.networking.tbn.rules import RuleSet, parse_rules
from metalwire.networking.tbn.views import NetworkView, PortView

NET = NetworkView("net-1", name="tenant", tags=frozenset({"bonded"}))


def port(n: int, **fields: object) -> PortView:
    return PortView(n, f"port-{n}", False, address=f"52:54:00:00:00:{n:02x}", **fields)  # type: ignore[arg-type]


def group(n: int, **fields: object) -> PortView:
    return PortView(n, f"pg-{n}", True, name=f"bond{n}", **fields)  # type: ignore[arg-type]


def rules(text: str) -> RuleSet:
    return parse_rules(dedent(text), "tbn.yaml")


def plan(
    ruleset: RuleSet,
    traits: list[str],
    ports: list[PortView],
    portgroups: list[PortView] | None = None,
    network: NetworkView = NET,
    **options: bool,
) -> TbnPlan:
    return plan_vif_attach(
        ruleset, "node-1", traits, network, ports, portgroups or [], PlanningOptions(**options)
    )


def chosen(result: TbnPlan) -> list[list[str]]:
    return [[t.uuid for t in action.targets] for action in result.actions]


def test_attach_port_takes_the_newest_matching_free_port() -> None:
    ruleset = rules(
        """\
        CUSTOM_A:
          actions:
            - action: attach_port
              filter: port.category == 'network'
        """
    )
    ports = [
        port(1, category="network"),
        port(2, category="storage"),
        port(3, category="network", vif="other-vif"),
        port(4, category="network"),
    ]
    result = plan(ruleset, ["CUSTOM_A"], ports)
    assert result.trait == "CUSTOM_A"
    assert chosen(result) == [["port-4"]]
    refused = {r.target.uuid: r.reason for r in result.actions[0].refused}
    assert refused == {
        "port-2": "does not match: port.category is 'storage', the filter wants == 'network'",
        "port-1": "matches but was not needed (enough before it)",
    }  # port-3 carries a VIF: never a candidate


def test_attach_port_with_min_count_takes_every_match_up_to_max_count() -> None:
    ruleset = rules(
        """\
        CUSTOM_A:
          actions:
            - action: attach_port
              filter: port.is_port
              min_count: 2
              max_count: 3
        """
    )
    result = plan(ruleset, ["CUSTOM_A"], [port(n) for n in range(1, 6)])
    assert chosen(result) == [["port-5", "port-4", "port-3"]]


def test_attach_port_below_min_count_does_not_apply() -> None:
    ruleset = rules(
        """\
        CUSTOM_A:
          actions:
            - action: attach_port
              filter: port.vendor == 'mlx'
              min_count: 2
        """
    )
    with pytest.raises(NoTraitMatches) as caught:
        plan(ruleset, ["CUSTOM_A"], [port(1, vendor="mlx"), port(2, vendor="intel")])
    assert "1 free port(s) matched, 2 needed" in caught.value.message


def test_attach_portgroup_works_and_reads_the_portgroups_fields() -> None:
    ruleset = rules(
        """\
        CUSTOM_A:
          actions:
            - action: attach_portgroup
              filter: port.is_portgroup && port.physical_network == 'physnet1'
        """
    )
    portgroups = [group(7, physical_network="physnet1"), group(8, physical_network="physnet2")]
    result = plan(ruleset, ["CUSTOM_A"], [port(1, physical_network="physnet1")], portgroups)
    assert chosen(result) == [["pg-7"]]
    (refusal,) = result.actions[0].refused
    assert refusal.describe() == (
        "portgroup pg-8 (bond8) does not match: port.physical_network is 'physnet2', "
        "the filter wants == 'physnet1'"
    )


@pytest.mark.parametrize("action", ["group_and_attach_ports", "bond_ports"])
def test_grouping_bonds_free_available_ports_on_the_first_picks_physnet(action: str) -> None:
    ruleset = rules(
        f"""\
        CUSTOM_BOND:
          actions:
            - action: {action}
              filter: port.category == 'network' && network.tags == 'bonded'
              min_count: 2
        """
    )
    ports = [
        port(1, category="network", available_for_dynamic_portgroup=True, physical_network="a"),
        port(2, category="network", available_for_dynamic_portgroup=True, physical_network="b"),
        port(3, category="network", available_for_dynamic_portgroup=False, physical_network="b"),
        port(4, category="network", available_for_dynamic_portgroup=True, physical_network="b",
             portgroup_uuid="pg-9"),
        port(5, category="storage", available_for_dynamic_portgroup=True, physical_network="b"),
        port(6, category="network", available_for_dynamic_portgroup=True, physical_network="b"),
    ]  # fmt: skip
    result = plan(ruleset, ["CUSTOM_BOND"], ports)
    (planned,) = result.actions
    assert planned.new_portgroup == DynamicPortgroup(("port-6", "port-2"), "b")
    assert [t.uuid for t in planned.targets] == ["port-6", "port-2"]
    assert {r.target.uuid: r.reason for r in planned.refused} == {
        "port-5": "does not match: port.category is 'storage', the filter wants == 'network'",
        "port-4": "already belongs to portgroup pg-9",
        "port-3": "is not available_for_dynamic_portgroup",
        "port-1": "is on physical network a, the first pick port-6 on b",
    }
    shown = result.as_dict()["tried"][0]["actions"][0]
    assert shown["dynamic_portgroup"] == {"ports": ["port-6", "port-2"], "physical_network": "b"}


def test_grouping_needs_the_network_to_match_the_first_pick() -> None:
    ruleset = rules(
        """\
        CUSTOM_BOND:
          actions:
            - action: group_and_attach_ports
              filter: port.is_port && network.name == 'storage'
              min_count: 2
        """
    )
    ports = [port(n, available_for_dynamic_portgroup=True) for n in (1, 2)]
    with pytest.raises(NoTraitMatches) as caught:
        plan(ruleset, ["CUSTOM_BOND"], ports)
    assert (
        "the ports can be grouped but network net-1 does not match: network.name is "
        "'tenant', the filter wants == 'storage'"
    ) in caught.value.message


def test_grouping_stops_at_max_count() -> None:
    ruleset = rules(
        """\
        CUSTOM_BOND:
          actions:
            - action: bond_ports
              filter: port.is_port
              min_count: 2
              max_count: 2
        """
    )
    ports = [port(n, available_for_dynamic_portgroup=True) for n in (1, 2, 3)]
    (planned,) = plan(ruleset, ["CUSTOM_BOND"], ports).actions
    assert planned.new_portgroup == DynamicPortgroup(("port-3", "port-2"), None)
    assert planned.refused[0].reason == "matches but was not needed (max_count 2 reached)"


def test_later_actions_see_only_what_earlier_ones_left() -> None:
    ruleset = rules(
        """\
        CUSTOM_A:
          actions:
            - action: bond_ports
              filter: port.is_port
              min_count: 2
            - action: attach_port
              filter: port.is_port
        """
    )
    ports = [port(n, available_for_dynamic_portgroup=n < 3) for n in (1, 2, 3)]
    assert chosen(plan(ruleset, ["CUSTOM_A"], ports)) == [["port-2", "port-1"], ["port-3"]]


def test_a_trait_applies_when_one_of_its_actions_does() -> None:
    ruleset = rules(
        """\
        CUSTOM_A:
          actions:
            - action: attach_portgroup
              filter: port.is_portgroup
            - action: attach_port
              filter: port.is_port
        """
    )
    result = plan(ruleset, ["CUSTOM_A"], [port(1)])
    assert chosen(result) == [["port-1"]]
    assert result.attempts[0].actions[0].problem == "the node has no free portgroup"


def test_traits_are_tried_by_order_and_the_first_that_applies_wins() -> None:
    ruleset = rules(
        """\
        CUSTOM_LATE:
          order: 5
          actions:
            - action: attach_port
              filter: port.is_port
        CUSTOM_EARLY_NO_MATCH:
          order: 1
          actions:
            - action: attach_port
              filter: port.vendor == 'none-such'
        CUSTOM_MIDDLE:
          order: 3
          actions:
            - action: attach_port
              filter: port.vendor == 'mlx'
        CUSTOM_NOT_ON_THE_NODE:
          order: 0
          actions:
            - action: attach_port
              filter: port.is_port
        """
    )
    traits = ["CUSTOM_LATE", "CUSTOM_MIDDLE", "CUSTOM_EARLY_NO_MATCH", "HW_CPU_X86_AVX"]
    result = plan(ruleset, traits, [port(1, vendor="mlx"), port(2)])
    assert result.trait == "CUSTOM_MIDDLE"
    assert [a.trait.name for a in result.attempts] == ["CUSTOM_EARLY_NO_MATCH", "CUSTOM_MIDDLE"]
    assert chosen(result) == [["port-1"]]


def test_no_match_names_the_node_traits_each_trait_tried_and_each_refusal() -> None:
    ruleset = rules(
        """\
        CUSTOM_A:
          actions:
            - action: attach_port
              filter: port.vendor == 'mlx'
        CUSTOM_B:
          order: 2
          actions:
            - action: attach_portgroup
              filter: port.is_portgroup
        """
    )
    ports = [port(1, vendor="intel"), port(2, vif="vif-0")]
    with pytest.raises(NoTraitMatches) as caught:
        plan(ruleset, ["CUSTOM_A", "CUSTOM_B"], ports)
    assert caught.value.code == 400
    assert caught.value.message == (
        "No trait-based networking rule places VIF net-1 on node node-1; the node's traits "
        "(instance_info['traits']): CUSTOM_A, CUSTOM_B; "
        "trait CUSTOM_A (order 1): action attach_port \"port.vendor == 'mlx'\": 0 free port(s) "
        "matched, 1 needed (port port-1 (52:54:00:00:00:01) does not match: port.vendor is "
        "'intel', the filter wants == 'mlx'); "
        'trait CUSTOM_B (order 2): action attach_portgroup "port.is_portgroup": the node has '
        "no free portgroup; "
        "port port-2 (52:54:00:00:00:02) is busy with VIF vif-0."
    )


def test_no_trait_with_rules_and_no_default_names_the_file_traits() -> None:
    ruleset = rules(
        """\
        CUSTOM_A:
          actions:
            - action: attach_port
              filter: port.is_port
        """
    )
    with pytest.raises(NoTraitMatches) as caught:
        plan(ruleset, ["HW_CPU_X86_AVX"], [port(1)], enable_default_trait=False)
    assert caught.value.message.endswith(
        "the node's traits (instance_info['traits']): HW_CPU_X86_AVX; none of them has rules "
        "in tbn.yaml (traits there: CUSTOM_A)"
    )


def test_without_raising_no_match_is_an_empty_plan_that_says_why() -> None:
    result = plan(RuleSet(()), [], [port(1)], enable_default_trait=False, raise_when_no_match=False)
    assert result.trait is None and result.actions == ()
    assert result.reason is not None and "the node's traits (instance_info['traits']): none" in (
        result.reason
    )


def test_the_built_in_default_takes_the_first_free_portgroup_else_the_first_free_port() -> None:
    empty = RuleSet(())
    with_group = plan(empty, [], [port(1), port(2)], [group(5), group(6, vif="x")])
    assert with_group.trait == "CUSTOM_DEFAULT_TBN_TRAIT"
    assert chosen(with_group) == [["pg-5"]]
    only_ports = plan(empty, [], [port(1), port(2)], [group(6, vif="x")])
    assert chosen(only_ports) == [["port-2"]]


def test_the_files_default_trait_replaces_the_built_in_one() -> None:
    ruleset = rules(
        """\
        CUSTOM_DEFAULT_TBN_TRAIT:
          actions:
            - action: attach_port
              filter: port.vendor == 'mlx'
        """
    )
    result = plan(ruleset, ["CUSTOM_OTHER"], [port(1, vendor="mlx"), port(2)], [group(5)])
    assert result.trait == "CUSTOM_DEFAULT_TBN_TRAIT"
    assert chosen(result) == [["port-1"]]


def test_the_default_is_not_used_when_a_trait_of_the_node_has_rules() -> None:
    ruleset = rules(
        """\
        CUSTOM_A:
          actions:
            - action: attach_port
              filter: port.vendor == 'none-such'
        """
    )
    with pytest.raises(NoTraitMatches, match="trait CUSTOM_A"):
        plan(ruleset, ["CUSTOM_A"], [port(1)])


def test_the_plan_as_a_dict_names_trait_actions_targets_and_refusals() -> None:
    ruleset = rules(
        """\
        CUSTOM_A:
          actions:
            - action: attach_port
              filter: port.vendor == 'mlx'
        """
    )
    shown = plan(ruleset, ["CUSTOM_A"], [port(1, vendor="mlx"), port(2)]).as_dict()
    assert shown == {
        "trait": "CUSTOM_A",
        "node_traits": ["CUSTOM_A"],
        "reason": None,
        "tried": [
            {
                "trait": "CUSTOM_A",
                "order": 1,
                "applies": True,
                "actions": [
                    {
                        "action": "attach_port",
                        "filter": "port.vendor == 'mlx'",
                        "min_count": None,
                        "max_count": None,
                        "applies": True,
                        "carried_out": True,
                        "problem": None,
                        "targets": [{"uuid": "port-1", "kind": "port"}],
                        "refused": [
                            {
                                "uuid": "port-2",
                                "kind": "port",
                                "reason": "does not match: port.vendor is empty, the filter "
                                "wants == 'mlx'",
                            }
                        ],
                        "dynamic_portgroup": None,
                    }
                ],
            }
        ],
    }


@pytest.mark.parametrize(
    ("instance_info", "traits"),
    [
        ({"traits": ["CUSTOM_A", "HW_X"]}, ("CUSTOM_A", "HW_X")),
        ({}, ()),
        (None, ()),
        ({"traits": None}, ()),
        ({"traits": "CUSTOM_A"}, ()),
        ({"traits": ["CUSTOM_A", 3]}, ("CUSTOM_A",)),
    ],
)
def test_node_traits_come_from_instance_info(instance_info: object, traits: tuple[str]) -> None:
    assert node_traits(instance_info) == traits  # type: ignore[arg-type]


def test_dynamic_portgroup_names_are_fresh() -> None:
    names = {dynamic_portgroup_name() for _ in range(20)}
    assert len(names) == 20
    assert all(n.startswith(DYNAMIC_PORTGROUP_PREFIX) and len(n) == 26 for n in names)


RANDOM_PORTS = st.lists(
    st.builds(
        port,
        st.integers(1, 40),
        category=st.sampled_from([None, "network", "storage"]),
        physical_network=st.sampled_from([None, "a", "b"]),
        available_for_dynamic_portgroup=st.booleans(),
        vif=st.sampled_from([None, None, "busy"]),
    ),
    max_size=8,
    unique_by=lambda p: p.id,
)
GROUPING = rules(
    """\
    CUSTOM_G:
      actions:
        - action: bond_ports
          filter: port.category == 'network'
          min_count: 2
        - action: attach_port
          filter: port.is_port
    """
)


@settings(max_examples=300, deadline=None)
@given(RANDOM_PORTS)
def test_a_plan_never_takes_a_busy_port_twice_or_bonds_across_physnets(
    ports: list[PortView],
) -> None:
    result = plan(GROUPING, ["CUSTOM_G"], ports, raise_when_no_match=False)
    taken = [t for action in result.actions for t in action.targets]
    assert all(t.vif is None for t in taken)
    assert len({t.uuid for t in taken}) == len(taken)
    for action in result.actions:
        if action.new_portgroup is not None:
            members = action.targets
            assert len(members) >= 2
            assert len({m.physical_network for m in members}) == 1
            assert all(m.available_for_dynamic_portgroup for m in members)
            assert all(m.category == "network" for m in members)
    # every free port is either taken or refused with a reason by each action that ran
    for attempt in result.attempts:
        for action in attempt.actions:
            seen = {t.uuid for t in action.targets} | {r.target.uuid for r in action.refused}
            assert all(r.reason for r in action.refused)
            assert seen <= {p.uuid for p in ports if p.vif is None}


def test_a_port_the_interface_cannot_use_is_refused_by_every_action() -> None:
    ruleset = rules(
        """\
        CUSTOM_A:
          actions:
            - action: attach_port
              filter: port.is_port
        CUSTOM_G:
          actions:
            - action: group_and_attach_ports
              filter: port.is_port
              min_count: 2
        """
    )
    unusable = "cannot be used: it has no local_link_connection"
    ports = [
        port(1, available_for_dynamic_portgroup=True),
        port(2, available_for_dynamic_portgroup=True, unusable=unusable),
    ]

    single = plan(ruleset, ["CUSTOM_A"], ports)
    assert chosen(single) == [["port-1"]]
    assert [(r.target.uuid, r.reason) for r in single.actions[0].refused] == [("port-2", unusable)]
    with pytest.raises(NoTraitMatches, match=f"port-2 .*{unusable}"):
        plan(ruleset, ["CUSTOM_G"], ports)
