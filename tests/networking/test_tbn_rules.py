"""The rules file: what it reads, and every mistake reported with its line."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from metalwire.errors import TbnRulesInvalid
from metalwire.networking.tbn.expression import Comparator, Comparison, Predicate
from metalwire.networking.tbn.rules import ActionKind, TraitAction, load_rules, parse_rules

GOOD = dedent(
    """\
    CUSTOM_BONDED:
      order: 2
      actions:
        - action: group_and_attach_ports
          filter: port.category == 'network'
          min_count: 2
          max_count: 4
    CUSTOM_STORAGE:
      actions:
        - action: attach_port
          filter: port.is_port
        - action: attach_portgroup
          filter: port.vendor =~ 'mlx'
        - action: bond_ports
          filter: port.physical_network == 'storage'
          min_count: 3
    """
)


def test_a_good_file_gives_its_traits_in_file_order_with_lines() -> None:
    rules = parse_rules(GOOD, "good.yaml")
    assert [(t.name, t.order) for t in rules.traits] == [
        ("CUSTOM_BONDED", 2),
        ("CUSTOM_STORAGE", 1),
    ]
    assert rules.traits[0].actions == (
        TraitAction(
            ActionKind.GROUP_AND_ATTACH_PORTS,
            Comparison("port.category", Comparator.EQUAL, "network"),
            2,
            4,
            line=4,
        ),
    )
    storage = rules.traits[1].actions
    assert [a.kind for a in storage] == [
        ActionKind.ATTACH_PORT,
        ActionKind.ATTACH_PORTGROUP,
        ActionKind.BOND_PORTS,
    ]
    assert storage[0].filter == Predicate("port.is_port")
    assert [a.line for a in storage] == [10, 12, 14]
    assert rules.get("CUSTOM_STORAGE") is rules.traits[1]
    assert rules.source == "good.yaml"


def test_an_empty_file_has_no_traits() -> None:
    assert parse_rules("", "empty.yaml").traits == ()
    assert parse_rules("# nothing yet\n", "empty.yaml").traits == ()


ONE_ACTION = "    - {action: attach_port, filter: port.is_port}\n"


def problems_of(text: str) -> list[str]:
    with pytest.raises(TbnRulesInvalid) as caught:
        parse_rules(dedent(text), "r.yaml")
    assert caught.value.code == 400
    assert caught.value.message.startswith("trait-based networking file r.yaml is invalid: ")
    return list(caught.value.problems)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("- a\n- b\n", "r.yaml: line 1: the file (trait names to their rules) must be a mapping"),
        ("CUSTOM_A: [1]\n", "r.yaml: line 1: trait CUSTOM_A must be a mapping"),
        ("CUSTOM_A:\n  order: 1\n", "r.yaml: line 1: trait CUSTOM_A has no 'actions'"),
        (
            "CUSTOM_A:\n  actions: []\n",
            "r.yaml: line 2: trait CUSTOM_A actions must be a non-empty list",
        ),
        (
            "CUSTOM_A:\n  ordre: 1\n  actions:\n" + ONE_ACTION,
            "r.yaml: line 2: trait CUSTOM_A has an unknown key 'ordre' (known: actions, order)",
        ),
        (
            "CUSTOM_A:\n  order: first\n  actions:\n" + ONE_ACTION,
            "r.yaml: line 2: trait CUSTOM_A order must be an integer",
        ),
        (
            "CUSTOM_A:\n  order: true\n  actions:\n" + ONE_ACTION,
            "r.yaml: line 2: trait CUSTOM_A order must be an integer",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - action: attach_port\n",
            "r.yaml: line 3: trait CUSTOM_A action 1 has no 'filter'",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - filter: port.is_port\n",
            "r.yaml: line 3: trait CUSTOM_A action 1 has no 'action'",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - action: attach\n      filter: port.is_port\n",
            "r.yaml: line 3: trait CUSTOM_A action 1 has an unknown action 'attach' (known: "
            "attach_port, attach_portgroup, group_and_attach_ports, bond_ports)",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - action: attach_port\n      filter: port.is_port\n"
            "      count: 2\n",
            "r.yaml: line 5: trait CUSTOM_A action 1 has an unknown key 'count' (an action has "
            "action, filter, min_count, max_count)",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - action: attach_port\n      filter: port.vendor == 'a\n",
            'r.yaml: line 4: trait CUSTOM_A action 1: filter "port.vendor == \'a", column 18: '
            "the closing quote is missing (a literal has letters, digits, '_', '-' and '.' only)",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - action: attach_port\n      filter: 3\n",
            "r.yaml: line 4: trait CUSTOM_A action 1 filter must be a string",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - action: group_and_attach_ports\n"
            "      filter: port.is_port\n",
            "r.yaml: line 3: trait CUSTOM_A action 1: group_and_attach_ports needs min_count 2 or "
            "more (a portgroup bonds several ports), not none",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - action: bond_ports\n      filter: port.is_port\n"
            "      min_count: 1\n",
            "r.yaml: line 3: trait CUSTOM_A action 1: bond_ports needs min_count 2 or more (a "
            "portgroup bonds several ports), not 1",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - action: attach_port\n      filter: port.is_port\n"
            "      min_count: 3\n      max_count: 2\n",
            "r.yaml: line 6: trait CUSTOM_A action 1: max_count 2 is below min_count 3",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - action: attach_port\n      filter: port.is_port\n"
            "      max_count: 0\n",
            "r.yaml: line 5: trait CUSTOM_A action 1 max_count must be at least 1, not 0",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - action: attach_port\n      filter: port.is_port\n"
            "      min_count: '2'\n",
            "r.yaml: line 5: trait CUSTOM_A action 1 min_count must be an integer",
        ),
        (
            "CUSTOM_A:\n  actions:\n    - {action: attach_port, filter: port.is_port}\n"
            "CUSTOM_A:\n  actions:\n" + ONE_ACTION,
            "r.yaml: line 4: the file (trait names to their rules) repeats 'CUSTOM_A' (first on "
            "line 1)",
        ),
        ("CUSTOM_A: [\n", "r.yaml: line 2: not YAML: expected the node content"),
    ],
)
def test_each_mistake_is_reported_with_its_line(text: str, problem: str) -> None:
    problems = problems_of(text)
    assert len(problems) == 1, problems
    assert problems[0].startswith(problem), problems


def test_every_mistake_of_a_file_is_reported_in_line_order() -> None:
    problems = problems_of(
        """\
        CUSTOM_A:
          order: x
          actions:
            - action: attach_port
              filter: port.vendor = 'a'
        CUSTOM_B:
          actions:
            - action: bond_ports
              filter: port.is_port
              min_count: 1
        """
    )
    assert [p.split(":")[1] for p in problems] == [" line 2", " line 5", " line 8"]


def test_a_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(TbnRulesInvalid, match="cannot be read"):
        load_rules(tmp_path / "absent.yaml")


def test_a_file_is_read_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "tbn.yaml"
    path.write_text(GOOD)
    rules = load_rules(path)
    assert [t.name for t in rules.traits] == ["CUSTOM_BONDED", "CUSTOM_STORAGE"]
    assert rules.source == str(path)
