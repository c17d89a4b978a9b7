"""The steps a provision verb takes (``clean_steps``, ``service_steps``), refused with a 400
where Ironic 39's API refuses them, before anything runs.

A verb's steps are required with it and only with it, and each step is an object with an
``interface`` that has steps and a ``step`` name; ``args``, ``order``,
``execute_on_child_nodes`` and ``limit_child_node_execution`` may come with them, nothing
else. metalwire runs fake steps: it does not check that the node's interfaces have the
steps named.
"""

from __future__ import annotations

from typing import Any

from metalwire.errors import InvalidParameterValue

#: Provision verb -> the body key of its steps.
STEPS_OF_VERB = {"clean": "clean_steps", "service": "service_steps"}
#: The interfaces a clean or service step may name (Ironic 39's cleaning interfaces).
STEP_INTERFACES = ("bios", "deploy", "firmware", "management", "power", "raid", "vendor")
_OPTIONAL_KEYS = ("args", "order", "execute_on_child_nodes", "limit_child_node_execution")


def check_steps(body: dict[str, Any]) -> None:
    """Steps given with another verb first (both kinds), then the verb's own steps."""
    target = body["target"]
    for verb, key in STEPS_OF_VERB.items():
        if body.get(key) and target != verb:
            raise InvalidParameterValue(
                f'"{key}" is only valid when setting target provision state to {verb}'
            )
    own = STEPS_OF_VERB.get(target)
    if own is None:
        return
    steps = body.get(own)
    if not steps:
        raise InvalidParameterValue(
            f'"{own}" is required when setting target provision state to {target}'
        )
    problem = steps_problem(steps)
    if problem is not None:
        raise InvalidParameterValue(f"Invalid {own}: {problem}.")


def steps_problem(steps: Any) -> str | None:
    """What is wrong with a list of steps, or None."""
    if not isinstance(steps, list):
        return f"expected a list of steps, got {_kind(steps)}"
    for number, step in enumerate(steps, start=1):
        problem = _step_problem(step)
        if problem is not None:
            return f"step {number}: {problem}"
    return None


def _step_problem(step: Any) -> str | None:
    if not isinstance(step, dict):
        return f"expected an object, got {_kind(step)}"
    unknown = sorted(set(step) - {"interface", "step", *_OPTIONAL_KEYS})
    if unknown:
        return f"unknown key {', '.join(map(repr, unknown))}"
    for problem in (
        _interface_problem(step),
        _name_problem(step),
        _optional_problem(step),
    ):
        if problem is not None:
            return problem
    return None


def _interface_problem(step: dict[str, Any]) -> str | None:
    if "interface" not in step:
        return "'interface' is missing"
    if step["interface"] not in STEP_INTERFACES:
        return f"interface {step['interface']!r} is not one of {', '.join(STEP_INTERFACES)}"
    return None


def _name_problem(step: dict[str, Any]) -> str | None:
    if "step" not in step:
        return "'step' is missing"
    if not isinstance(step["step"], str) or not step["step"]:
        return f"'step' must be a non-empty string, not {step['step']!r}"
    return None


def _optional_problem(step: dict[str, Any]) -> str | None:
    if "args" in step and not isinstance(step["args"], dict):
        return f"'args' must be an object, not {_kind(step['args'])}"
    if "order" in step and not _is_order(step["order"]):
        return f"'order' must be a non-negative integer, not {step['order']!r}"
    if "execute_on_child_nodes" in step and not isinstance(step["execute_on_child_nodes"], bool):
        return "'execute_on_child_nodes' must be a boolean"
    if "limit_child_node_execution" in step and not isinstance(
        step["limit_child_node_execution"], list
    ):
        return "'limit_child_node_execution' must be a list"
    return None


def _is_order(value: Any) -> bool:
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
