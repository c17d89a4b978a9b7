"""Filter expressions of trait-based networking: the tree, its evaluation and its printing.

A filter reads one port or portgroup and the VIF's network. Evaluation says why a candidate
was refused, not only that it was: ``evaluate`` returns a :class:`Verdict`.

Rules (Ironic 39's language; where it crashes, metalwire answers false instead):

- ``variable comparator 'literal'``: strings compare as strings (``>`` is lexical order);
  ``=~`` is "starts with".
- An empty field (unset or the empty string) makes every comparison on it false.
- ``network.tags`` is a set: ``==`` means "has the tag", ``!=`` "does not have it", ``=~``
  "has a tag starting with"; the ordering comparators are refused when the filter is parsed.
- ``port.is_port`` and ``port.is_portgroup`` stand alone.
- ``&&`` binds tighter than ``||``; both read left to right and stop as soon as they know.
- ``network`` None stands for "any network": every ``network.*`` clause is then true (how
  ports are chosen for a dynamic portgroup before the network is considered).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from metalwire.networking.tbn.views import NetworkView, PortView


class Comparator(enum.Enum):
    EQUAL = "=="
    NOT_EQUAL = "!="
    AT_LEAST = ">="
    GREATER = ">"
    AT_MOST = "<="
    LESS = "<"
    STARTS_WITH = "=~"

    def holds(self, value: str, literal: str) -> bool:
        match self:
            case Comparator.EQUAL:
                return value == literal
            case Comparator.NOT_EQUAL:
                return value != literal
            case Comparator.AT_LEAST:
                return value >= literal
            case Comparator.GREATER:
                return value > literal
            case Comparator.AT_MOST:
                return value <= literal
            case Comparator.LESS:
                return value < literal
            case Comparator.STARTS_WITH:
                return value.startswith(literal)

    def holds_for_set(self, values: frozenset[str], literal: str) -> bool:
        match self:
            case Comparator.EQUAL:
                return literal in values
            case Comparator.NOT_EQUAL:
                return literal not in values
            case Comparator.STARTS_WITH:
                return any(value.startswith(literal) for value in values)
            case _:
                raise ValueError(f"{self.value} does not apply to a set")


#: Comparators that mean something on a set variable (network.tags).
SET_COMPARATORS = frozenset({Comparator.EQUAL, Comparator.NOT_EQUAL, Comparator.STARTS_WITH})

#: The variables a comparison may read, by name; ``network.tags`` is the one set.
VARIABLES = (
    "port.address",
    "port.category",
    "port.physical_network",
    "port.vendor",
    "network.name",
    "network.tags",
)
SET_VARIABLES = frozenset({"network.tags"})
FUNCTIONS = ("port.is_port", "port.is_portgroup")


@dataclass(frozen=True)
class Verdict:
    """Whether a filter holds, and in words why (or why not)."""

    holds: bool
    reason: str


@dataclass(frozen=True)
class Comparison:
    variable: str
    comparator: Comparator
    literal: str

    def evaluate(self, port: PortView, network: NetworkView | None) -> Verdict:
        owner, attribute = self.variable.split(".")
        wanted = f"{self.comparator.value} '{self.literal}'"
        if owner == "network" and network is None:
            return Verdict(True, f"{self.variable} is not considered here")
        subject: object = port if owner == "port" else network
        value = getattr(subject, attribute)
        if isinstance(value, frozenset):
            holds = self.comparator.holds_for_set(value, self.literal)
            shown = ", ".join(sorted(value)) or "none"
            return Verdict(holds, f"{self.variable} are [{shown}], the filter wants {wanted}")
        if not value:
            return Verdict(False, f"{self.variable} is empty, the filter wants {wanted}")
        holds = self.comparator.holds(value, self.literal)
        return Verdict(holds, f"{self.variable} is '{value}', the filter wants {wanted}")

    def render(self) -> str:
        return f"{self.variable} {self.comparator.value} '{self.literal}'"


@dataclass(frozen=True)
class Predicate:
    function: str

    def evaluate(self, port: PortView, network: NetworkView | None) -> Verdict:
        wanted = self.function == "port.is_portgroup"
        holds = port.is_portgroup == wanted
        return Verdict(holds, f"it is a {port.kind}, the filter wants {self.function}")

    def render(self) -> str:
        return self.function


class Junction(enum.Enum):
    AND = "&&"
    OR = "||"


@dataclass(frozen=True)
class Compound:
    left: Expression
    junction: Junction
    right: Expression

    def evaluate(self, port: PortView, network: NetworkView | None) -> Verdict:
        left = self.left.evaluate(port, network)
        decided = left.holds if self.junction is Junction.OR else not left.holds
        if decided:
            return left
        right = self.right.evaluate(port, network)
        if self.junction is Junction.AND or right.holds:
            return right
        return Verdict(False, f"{left.reason}; and {right.reason}")

    def render(self) -> str:
        return f"{_operand(self.left, self, False)} {self.junction.value} " + _operand(
            self.right, self, True
        )


Expression = Comparison | Predicate | Compound


def _operand(child: Expression, parent: Compound, on_the_right: bool) -> str:
    """A child in parentheses where reading it back without them would change the tree."""
    text = child.render()
    if not isinstance(child, Compound):
        return text
    looser = child.junction is Junction.OR and parent.junction is Junction.AND
    regrouped = on_the_right and child.junction is parent.junction
    return f"({text})" if looser or regrouped else text
