"""The steps a provision verb takes (``clean_steps``, ``deploy_steps``, ``service_steps``),
refused where Ironic 39's API refuses them, before anything runs.

``clean`` needs its clean steps and ``service`` its service steps; ``active`` and ``rebuild``
may take deploy steps (from 1.69); no other verb takes any. A step is an object with an
``interface`` that has steps and a ``step`` name, and the keys its kind allows: ``args``,
``order``, ``execute_on_child_nodes`` and ``limit_child_node_execution`` for a clean or
service step, ``args`` and ``priority`` (both required) for a deploy step. Whether the
node's interfaces offer the steps named is the conductor's check (``conductor/steps.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from metalwire.conductor.steps import STEP_INTERFACES
from metalwire.errors import InvalidParameterValue, NotAcceptable

#: The first API version that takes deploy steps.
DEPLOY_STEPS_SINCE = 69


@dataclass(frozen=True)
class StepKind:
    """One kind of steps: its body key, the verbs that take it, the keys of its steps."""

    key: str
    verbs: tuple[str, ...]
    required: bool  # whether its verbs need steps
    step_keys: tuple[str, ...]  # besides interface and step, required
    optional_keys: tuple[str, ...]

    def only_valid(self) -> InvalidParameterValue:
        return InvalidParameterValue(
            f'"{self.key}" is only valid when setting target provision state to '
            f"{' or '.join(self.verbs)}"
        )


CLEAN = StepKind(
    "clean_steps",
    ("clean",),
    True,
    (),
    ("args", "order", "execute_on_child_nodes", "limit_child_node_execution"),
)
SERVICE = StepKind("service_steps", ("service",), True, (), CLEAN.optional_keys)
DEPLOY = StepKind("deploy_steps", ("active", "rebuild"), False, ("args", "priority"), ())
#: In the order Ironic 39 checks that steps came with their verb.
KINDS = (CLEAN, DEPLOY, SERVICE)
#: The steps a runbook holds (a deploy template holds deploy steps): clean or service steps
#: placed by ``order``, which no verb takes as such.
RUNBOOK = StepKind("steps", (), True, ("order",), ("args",))


def check_steps(body: dict[str, Any], verb: str, deploy_steps_served: bool) -> None:
    """Steps given with another verb first (each kind), then the verb's own steps."""
    for kind in KINDS:
        if not body.get(kind.key):
            continue
        if kind is DEPLOY and not deploy_steps_served:
            raise NotAcceptable(
                "Request not acceptable. The minimal required API version should be "
                f"1.{DEPLOY_STEPS_SINCE}"
            )
        if verb not in kind.verbs:
            raise kind.only_valid()
    for kind in KINDS:
        if verb in kind.verbs:
            _check_own_steps(kind, body.get(kind.key), verb)


def own_steps(body: dict[str, Any], verb: str) -> list[dict[str, Any]]:
    """The steps the verb takes (checked by :func:`check_steps`), or none."""
    for kind in KINDS:
        if verb in kind.verbs:
            return list(body.get(kind.key) or [])
    return []


def checked_step_set(kind: StepKind, steps: Any, holder: str, step: str) -> list[dict[str, Any]]:
    """The steps of a deploy template or a runbook (``holder``, holding ``step``s, as
    messages name them): at least one, each well
    formed for ``kind``, no interface and step twice; positions (``priority``, ``order``) as
    integers and ``args`` an object, as stored."""
    if not isinstance(steps, list) or not steps:
        raise InvalidParameterValue(
            f"Invalid steps: a {holder} needs a list of at least one {step}."
        )
    problem = steps_problem(kind, steps)
    if problem is not None:
        raise InvalidParameterValue(f"Invalid steps: {problem}.")
    counts = Counter((step["interface"], step["step"]) for step in steps)
    twice = sorted(f"interface: {i}, step: {s}" for (i, s), n in counts.items() if n > 1)
    if twice:
        # Ironic 39 words this for runbooks as for deploy templates.
        raise InvalidParameterValue(
            "Deploy template invalid: Duplicate deploy steps. A template cannot have multiple "
            f"deploy steps with the same interface and step. Duplicates: {'; '.join(twice)}."
        )
    position = kind.step_keys[-1]
    return [
        {**step, "args": step.get("args") or {}, position: int(step[position])} for step in steps
    ]


def _check_own_steps(kind: StepKind, steps: Any, verb: str) -> None:
    if not steps:
        if kind.required:
            raise InvalidParameterValue(
                f'"{kind.key}" is required when setting target provision state to {verb}'
            )
        return
    problem = steps_problem(kind, steps)
    if problem is not None:
        raise InvalidParameterValue(f"Invalid {kind.key}: {problem}.")


def steps_problem(kind: StepKind, steps: Any) -> str | None:
    """What is wrong with a list of steps of ``kind``, or None."""
    if not isinstance(steps, list):
        return f"expected a list of steps, got {_kind(steps)}"
    for number, step in enumerate(steps, start=1):
        problem = _step_problem(kind, step)
        if problem is not None:
            return f"step {number}: {problem}"
    return None


def _step_problem(kind: StepKind, step: Any) -> str | None:
    if not isinstance(step, dict):
        return f"expected an object, got {_kind(step)}"
    known = {"interface", "step", *kind.step_keys, *kind.optional_keys}
    unknown = sorted(set(step) - known)
    if unknown:
        return f"unknown key {', '.join(map(repr, unknown))}"
    missing = [key for key in ("interface", "step", *kind.step_keys) if key not in step]
    if missing:
        return f"{', '.join(map(repr, missing))} {'is' if len(missing) == 1 else 'are'} missing"
    for key, value in step.items():
        problem = _VALUE_CHECKS[key](value)
        if problem is not None:
            return problem
    return None


def _interface(value: Any) -> str | None:
    if value in STEP_INTERFACES:
        return None
    return f"interface {value!r} is not one of {', '.join(STEP_INTERFACES)}"


def _name(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return None
    return f"'step' must be a non-empty string, not {value!r}"


def _args(value: Any) -> str | None:
    return None if isinstance(value, dict) else f"'args' must be an object, not {_kind(value)}"


def _position(key: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if _is_non_negative_integer(value):
            return None
        return f"{key!r} must be a non-negative integer, not {value!r}"

    return check


def _child_nodes(value: Any) -> str | None:
    return None if isinstance(value, bool) else "'execute_on_child_nodes' must be a boolean"


def _child_node_list(value: Any) -> str | None:
    return None if isinstance(value, list) else "'limit_child_node_execution' must be a list"


_VALUE_CHECKS: dict[str, Callable[[Any], str | None]] = {
    "interface": _interface,
    "step": _name,
    "args": _args,
    "order": _position("order"),
    "priority": _position("priority"),
    "execute_on_child_nodes": _child_nodes,
    "limit_child_node_execution": _child_node_list,
}


def _is_non_negative_integer(value: Any) -> bool:
    """An integer of at least 0, or its digits as a string (as Ironic's step schemas)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 0
    return isinstance(value, str) and value.isascii() and value.isdigit()


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number" if isinstance(value, int | float) else "a value")
