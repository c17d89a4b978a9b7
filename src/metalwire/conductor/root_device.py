"""Root device hints (``instance_info/root_device``, else ``properties/root_device``) checked
as Ironic's agent deploy checks them before it deploys.

The hints are an object of known names, each an expression: a value, or an operator and its
values, in oslo.utils' spec matcher language (``>= 100``, ``<or> sda <or> sdb``,
``<in> SSD``, ``<range-in> [ 10 20 ]``). ``size`` is a positive integer (GiB), each of its
values when it has an operator (a ``<range-in>`` is not checked); ``rotational`` a Boolean
(``true``/``false``, ``yes``/``no``, ``on``/``off``, ``1``/``0``, ``t``/``f``, ``y``/``n``);
every other hint a string. An expression is read case-insensitively, and an empty one is
refused. metalwire writes no disk, so a valid hint is only stored.

Where Ironic's matcher cannot read an expression at all (an operator without a value, such
as ``>=``), Ironic 39 fails with an internal error; metalwire refuses it (400) naming it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from metalwire.db.models import Node
from metalwire.errors import InvalidParameterValue

STRING_HINTS = frozenset(
    {
        "model",
        "wwn",
        "serial",
        "vendor",
        "wwn_with_extension",
        "wwn_vendor_extension",
        "name",
        "hctl",
        "by_path",
    }
)
INTEGER_HINTS = frozenset({"size"})
BOOLEAN_HINTS = frozenset({"rotational"})
VALID_HINTS = tuple(sorted(STRING_HINTS | INTEGER_HINTS | BOOLEAN_HINTS))
BOOLEAN_WORDS = ("1", "t", "true", "on", "y", "yes", "0", "f", "false", "off", "n", "no")

# The spec matcher's operators: those followed by one value, in the order it tries them
# (a longer one sharing a prefix with a shorter one comes where the matcher puts it).
_UNARY_OPERATORS = (
    "==",
    "=",
    "!=",
    "<in>",
    ">=",
    "<=",
    ">",
    "<",
    "s==",
    "s!=",
    "s<=",
    "s<",
    "s>=",
    "s>",
)
_OR, _ALL_IN, _RANGE_IN = "<or>", "<all-in>", "<range-in>"
_KEYWORDS = (*_UNARY_OPERATORS, _ALL_IN, _OR, _RANGE_IN)
_RANGE_VALUES = 4  # "<range-in> [ 10 20 ]": bracket, low, high, bracket


class _Unreadable(Exception):
    """The matcher's grammar reads nothing from the expression."""


def check_root_device_hints(node: Node) -> None:
    """InvalidParameterValue naming the first root device hint Ironic would refuse."""
    source, hints = _requested_hints(node)
    if not hints:
        return
    if not isinstance(hints, Mapping):
        raise InvalidParameterValue(
            f"Node {node.uuid}: {source}/root_device must be an object of root device "
            f"hints, not {hints!r}."
        )
    problem = hints_problem(hints)
    if problem:
        raise InvalidParameterValue(
            f"Node {node.uuid}: invalid root device hints in {source}/root_device: {problem}."
        )


def _requested_hints(node: Node) -> tuple[str, Any]:
    """The hints a deploy would use, and where they come from: the instance's, if set."""
    if node.instance_info.get("root_device"):
        return "instance_info", node.instance_info["root_device"]
    return "properties", node.properties.get("root_device")


def hints_problem(hints: Mapping[str, Any]) -> str | None:
    """What is wrong with ``hints``, or None: unknown names first, then each hint in turn."""
    unknown = sorted(set(hints) - set(VALID_HINTS))
    if unknown:
        return (
            f"unknown hint {', '.join(repr(name) for name in unknown)}; "
            f"valid hints are {', '.join(VALID_HINTS)}"
        )
    for name, expression in hints.items():
        problem = _hint_problem(name, expression)
        if problem:
            return problem
    return None


def _hint_problem(name: str, expression: Any) -> str | None:
    text = str(expression).strip().lower()
    if not text:
        return f"{name!r} is empty"
    try:
        operator = _operator(text)
    except _Unreadable:
        return f"{name!r} is not an expression the hint matcher can read: {expression!r}"
    if name in STRING_HINTS:
        return (
            None
            if isinstance(expression, str)
            else f"{name!r} must be a string, not {expression!r}"
        )
    if name in BOOLEAN_HINTS:
        return (
            None if _is_boolean(expression) else f"{name!r} must be a Boolean, not {expression!r}"
        )
    if operator == _RANGE_IN:
        return None  # Ironic leaves a size range to the matcher
    if all(_is_positive_integer(value) for value in _values(text, operator)):
        return None
    return f"{name!r} must be a positive integer, not {expression!r}"


def _is_boolean(expression: Any) -> bool:
    return isinstance(expression, bool) or str(expression).strip().lower() in BOOLEAN_WORDS


def _is_positive_integer(value: str) -> bool:
    try:
        return int(value) > 0
    except ValueError:
        return False


def _values(text: str, operator: str) -> list[str]:
    """The expression's values, split on its operator as Ironic splits them."""
    if not operator:
        return [text]
    return [part.strip() for part in re.split(re.escape(operator), text) if part]


def _operator(text: str) -> str:
    """The operator the spec matcher reads at the start of ``text`` ("" for a bare value);
    _Unreadable when its grammar matches nothing there."""
    if text.startswith(_OR) and _atom_after(text, len(_OR)):
        return _OR
    if text.startswith(_ALL_IN) and _atom_after(text, len(_ALL_IN)):
        return _ALL_IN
    if text.startswith(_RANGE_IN) and _atoms_after(text, len(_RANGE_IN), _RANGE_VALUES):
        return _RANGE_IN
    unary = next((op for op in _UNARY_OPERATORS if text.startswith(op)), None)
    if unary is not None:
        if _atom_after(text, len(unary)):
            return unary
        raise _Unreadable(text)
    if text.startswith(_KEYWORDS):
        raise _Unreadable(text)
    return ""


def _atom_after(text: str, position: int) -> bool:
    return _atoms_after(text, position, 1)


def _atoms_after(text: str, position: int, count: int) -> bool:
    """Whether ``count`` values (runs of non-blanks not starting with an operator) follow."""
    words = text[position:].split()
    return len(words) >= count and not any(word.startswith(_KEYWORDS) for word in words[:count])
