"""What is compared of an answer: its status and the shape of its body.

A body's shape keeps every key (recursively), the length of every list, the JSON type of
every value, and the value itself of every number and boolean (but a conductor's ``alive``)
and of a node's provision states; a string that is the UUID of an object the scenario made
becomes that object's label (``<node:a>``), so lists and filters are compared by which
objects they return, while other UUIDs, timestamps, links and free text only have to be
strings on both sides. An error body's ``error_message`` holds a JSON text; its parsed shape
is compared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

Shape = Any
# Fields whose values are compared, not only their type: a node's provision states, which
# are what a verb is for.
COMPARED_VALUES = frozenset({"provision_state", "target_provision_state"})
# Fields compared by type only although their values are booleans or numbers: a conductor's
# ``alive`` depends on when its last heartbeat was, which a loaded machine delays.
TYPE_ONLY = frozenset({"alive"})


def shape_of(value: Any, labels: dict[str, str]) -> Shape:
    if isinstance(value, dict):
        return {key: _field_shape(key, item, labels) for key, item in value.items()}
    if isinstance(value, list):
        return [shape_of(item, labels) for item in value]
    if isinstance(value, str):
        return f"<{labels[value]}>" if value in labels else "str"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"bool={value}"
    return f"number={value}"


def _field_shape(key: str, value: Any, labels: dict[str, str]) -> Shape:
    if key in COMPARED_VALUES and isinstance(value, str):
        return f"{key}={value}"
    if key in TYPE_ONLY and value is not None:
        return "bool" if isinstance(value, bool) else "number"
    if key == "error_message" and isinstance(value, str):
        try:
            return {"<json>": shape_of(json.loads(value), labels)}
        except ValueError:
            return "str"
    return shape_of(value, labels)


@dataclass(frozen=True)
class Difference:
    """One way the two answers to a step differ; ``where`` is ``<step>: <path>``."""

    where: str
    detail: str

    def __str__(self) -> str:
        return f"{self.where}: {self.detail}"


def differences(step: str, ironic: Answer, metalwire: Answer) -> list[Difference]:
    if ironic.status != metalwire.status:
        return [
            Difference(
                f"{step}: status",
                f"ironic {ironic.status} {ironic.text[:300]!r}, "
                f"metalwire {metalwire.status} {metalwire.text[:300]!r}",
            )
        ]
    return [
        Difference(f"{step}: {path}", detail)
        for path, detail in _walk("body", ironic.shape, metalwire.shape)
    ]


def _walk(path: str, ironic: Shape, metalwire: Shape) -> list[tuple[str, str]]:
    if isinstance(ironic, dict) and isinstance(metalwire, dict):
        found: list[tuple[str, str]] = []
        for key in sorted(set(ironic) | set(metalwire)):
            where = f"{path}.{key}"
            if key not in metalwire:
                found.append((where, "only in ironic"))
            elif key not in ironic:
                found.append((where, "only in metalwire"))
            else:
                found += _walk(where, ironic[key], metalwire[key])
        return found
    if isinstance(ironic, list) and isinstance(metalwire, list):
        found = []
        if len(ironic) != len(metalwire):
            found.append((path, f"ironic has {len(ironic)} items, metalwire {len(metalwire)}"))
        for index, (left, right) in enumerate(zip(ironic, metalwire, strict=False)):
            found += _walk(f"{path}.{index}", left, right)
        return found
    if ironic != metalwire:
        return [(path, f"ironic {_brief(ironic)}, metalwire {_brief(metalwire)}")]
    return []


def _brief(shape: Shape) -> str:
    if isinstance(shape, dict):
        return "object"
    if isinstance(shape, list):
        return "list"
    return str(shape)


@dataclass(frozen=True)
class Answer:
    status: int
    text: str
    shape: Shape
