"""The rules of trait-based networking and the YAML file that declares them.

    CUSTOM_BONDED:            # a trait name, as Nova writes it into instance_info['traits']
      order: 1                # optional integer, ascending; 1 when absent
      actions:
        - action: group_and_attach_ports
          filter: port.category == 'network'
          min_count: 2        # optional; group_and_attach_ports and bond_ports need >= 2
          max_count: 4        # optional; at least min_count

An action has ``action`` and ``filter``, optionally ``min_count`` and ``max_count``, nothing
else. Every mistake in a file is reported, each with its line; the file is refused whole.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from metalwire.errors import TbnRulesInvalid
from metalwire.networking.tbn.expression import Expression
from metalwire.networking.tbn.parser import parse_filter

DEFAULT_TRAIT_NAME = "CUSTOM_DEFAULT_TBN_TRAIT"
DEFAULT_ORDER = 1
#: A dynamic portgroup bonds at least this many ports.
MIN_GROUP_SIZE = 2


class ActionKind(enum.Enum):
    ATTACH_PORT = "attach_port"
    ATTACH_PORTGROUP = "attach_portgroup"
    GROUP_AND_ATTACH_PORTS = "group_and_attach_ports"
    BOND_PORTS = "bond_ports"

    @property
    def builds_portgroup(self) -> bool:
        return self in (ActionKind.GROUP_AND_ATTACH_PORTS, ActionKind.BOND_PORTS)


_ACTION_KEYS = ("action", "filter", "min_count", "max_count")
_TRAIT_KEYS = ("actions", "order")


@dataclass(frozen=True)
class TraitAction:
    kind: ActionKind
    filter: Expression
    min_count: int | None = None
    max_count: int | None = None
    line: int | None = None  # where the file declares it

    def describe(self) -> str:
        counts = "".join(
            f", {name} {value}"
            for name, value in (("min_count", self.min_count), ("max_count", self.max_count))
            if value is not None
        )
        return f'{self.kind.value} "{self.filter.render()}"{counts}'


@dataclass(frozen=True)
class Trait:
    name: str
    actions: tuple[TraitAction, ...]
    order: int = DEFAULT_ORDER


@dataclass(frozen=True)
class RuleSet:
    """The traits of one file, in the file's order; ``source`` names where they came from."""

    traits: tuple[Trait, ...]
    source: str = "built in"

    def get(self, name: str) -> Trait | None:
        return next((trait for trait in self.traits if trait.name == name), None)


def load_rules(path: str | Path) -> RuleSet:
    """The rules of a file; TbnRulesInvalid lists every mistake with its line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TbnRulesInvalid(
            f"trait-based networking file {path}: cannot be read: {exc}"
        ) from None
    return parse_rules(text, str(path))


def parse_rules(text: str, source: str = "<rules>") -> RuleSet:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise _invalid(source, [f"{where}not YAML: {problem}"]) from None
    if root is None:
        return RuleSet((), source)
    reader = _Reader()
    traits = reader.traits(root)
    if reader.problems:
        raise _invalid(source, reader.problems)
    return RuleSet(tuple(traits), source)


def _invalid(source: str, problems: Sequence[str]) -> TbnRulesInvalid:
    listed = [f"{source}: {problem}" for problem in problems]
    return TbnRulesInvalid(
        f"trait-based networking file {source} is invalid: " + "; ".join(problems), listed
    )


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


_INT_TAG = "tag:yaml.org,2002:int"
_STR_TAG = "tag:yaml.org,2002:str"


class _Reader:
    """Walks the composed YAML tree, collecting every problem with its line."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def problem(self, node: yaml.Node, text: str) -> None:
        self.problems.append(f"line {_line(node)}: {text}")
        self.problems.sort(key=lambda problem: int(problem.split(":")[0].split()[1]))

    def mapping(self, node: yaml.Node, what: str) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        if not isinstance(node, yaml.MappingNode):
            self.problem(node, f"{what} must be a mapping")
            return {}
        entries: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode) or key.tag != _STR_TAG or not key.value:
                self.problem(key, f"{what} has a key that is not a name")
                continue
            if key.value in entries:
                self.problem(
                    key,
                    f"{what} repeats {key.value!r} (first on line {_line(entries[key.value][0])})",
                )
                continue
            entries[key.value] = (key, value)
        return entries

    def traits(self, root: yaml.Node) -> list[Trait]:
        found = self.mapping(root, "the file (trait names to their rules)")
        return [
            trait
            for name, (key, value) in found.items()
            if (trait := self.trait(name, key, value)) is not None
        ]

    def trait(self, name: str, key: yaml.Node, node: yaml.Node) -> Trait | None:
        what = f"trait {name}"
        entries = self.mapping(node, what)
        if not isinstance(node, yaml.MappingNode):
            return None
        for unknown in set(entries) - set(_TRAIT_KEYS):
            self.problem(
                entries[unknown][0],
                f"{what} has an unknown key {unknown!r} (known: actions, order)",
            )
        order = DEFAULT_ORDER
        if "order" in entries:
            given = self.integer(entries["order"][1], f"{what} order")
            order = DEFAULT_ORDER if given is None else given  # 0 and below come first
        if "actions" not in entries:
            self.problem(key, f"{what} has no 'actions'")
            return None
        actions_node = entries["actions"][1]
        if not isinstance(actions_node, yaml.SequenceNode) or not actions_node.value:
            self.problem(actions_node, f"{what} actions must be a non-empty list")
            return None
        actions = [
            self.action(item, f"{what} action {i}") for i, item in enumerate(actions_node.value, 1)
        ]
        if any(action is None for action in actions):
            return None
        return Trait(name, tuple(a for a in actions if a is not None), order)

    def integer(self, node: yaml.Node, what: str, minimum: int | None = None) -> int | None:
        if not isinstance(node, yaml.ScalarNode) or node.tag != _INT_TAG:
            self.problem(node, f"{what} must be an integer")
            return None
        value = int(yaml.safe_load(node.value))
        if minimum is not None and value < minimum:
            self.problem(node, f"{what} must be at least {minimum}, not {value}")
            return None
        return value

    def action(self, node: yaml.Node, what: str) -> TraitAction | None:
        entries = self.mapping(node, what)
        if not isinstance(node, yaml.MappingNode):
            return None
        problems_before = len(self.problems)
        for unknown in set(entries) - set(_ACTION_KEYS):
            self.problem(
                entries[unknown][0],
                f"{what} has an unknown key {unknown!r} (an action has {', '.join(_ACTION_KEYS)})",
            )
        for needed in ("action", "filter"):
            if needed not in entries:
                self.problem(node, f"{what} has no {needed!r}")
        kind = self.kind(entries["action"][1], what) if "action" in entries else None
        expression = self.filter(entries["filter"][1], what) if "filter" in entries else None
        counts = {
            name: self.integer(entries[name][1], f"{what} {name}", minimum=1)
            for name in ("min_count", "max_count")
            if name in entries
        }
        min_count, max_count = counts.get("min_count"), counts.get("max_count")
        # A min_count that is not an integer was reported already.
        unusable_count = "min_count" in entries and min_count is None
        too_few = (min_count or 0) < MIN_GROUP_SIZE and not unusable_count
        if kind is not None and kind.builds_portgroup and too_few:
            self.problem(
                node,
                f"{what}: {kind.value} needs min_count {MIN_GROUP_SIZE} or more "
                f"(a portgroup bonds several ports), not {min_count or 'none'}",
            )
        if min_count is not None and max_count is not None and max_count < min_count:
            self.problem(
                entries["max_count"][1],
                f"{what}: max_count {max_count} is below min_count {min_count}",
            )
        if len(self.problems) > problems_before or kind is None or expression is None:
            return None
        return TraitAction(kind, expression, min_count, max_count, _line(node))

    def kind(self, node: yaml.Node, what: str) -> ActionKind | None:
        value = node.value if isinstance(node, yaml.ScalarNode) else None
        try:
            return ActionKind(value)
        except ValueError:
            known = ", ".join(kind.value for kind in ActionKind)
            self.problem(node, f"{what} has an unknown action {value!r} (known: {known})")
            return None

    def filter(self, node: yaml.Node, what: str) -> Expression | None:
        if not isinstance(node, yaml.ScalarNode) or node.tag != _STR_TAG:
            self.problem(node, f"{what} filter must be a string")
            return None
        try:
            return parse_filter(node.value)
        except TbnRulesInvalid as exc:
            self.problem(node, f"{what}: {exc.message}")
            return None
