"""JSON Patch (RFC 6902) as Ironic accepts it: add, replace and remove on resource fields."""

from __future__ import annotations

import copy
from typing import Any

from metalwire.api.fields import Access, Field, by_name
from metalwire.api.microversion import Version
from metalwire.errors import NotAcceptable, PatchError

_OPS = {"add", "replace", "remove"}


def _pointer(path: Any) -> list[str]:
    if not isinstance(path, str) or not path.startswith("/") or path == "/":
        raise PatchError(
            f"Invalid patch path {path!r}: it must look like '/field' or '/field/key'."
        )
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def apply_patch(
    document: dict[str, Any],
    patch: Any,
    fields: tuple[Field, ...],
    version: Version,
    mandatory: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Apply ``patch`` to a copy of ``document``; return the changed top-level fields.

    Raises PatchError (400) for a malformed patch, a read-only or unknown field, or a path that
    does not exist; NotAcceptable (406) for a field above the request's version.
    """
    if not isinstance(patch, list) or not patch:
        raise PatchError("The patch must be a non-empty JSON array of operations.")
    known = by_name(fields)
    doc = copy.deepcopy(document)
    for op in patch:
        if not isinstance(op, dict) or op.get("op") not in _OPS:
            raise PatchError(
                f"Invalid patch operation {op!r}: 'op' must be one of add, replace, remove."
            )
        parts = _pointer(op.get("path"))
        top = parts[0]
        field = known.get(top)
        if field is None:
            raise PatchError(f"Cannot patch /{top}: no such attribute.")
        if field.since > version.minor:
            raise NotAcceptable(
                f"Field {top} requires API version 1.{field.since} or later; the request "
                f"used {version}."
            )
        if field.access not in (Access.WRITABLE, Access.PATCH_ONLY):
            raise PatchError(f"'/{top}' is an internal attribute and can not be updated.")
        if op["op"] != "remove" and "value" not in op:
            raise PatchError(f"Patch operation {op['op']} on {op['path']} needs a 'value'.")
        _apply_one(doc, parts, op, mandatory)
    return {k: v for k, v in doc.items() if _differs(document.get(k), v)}


def _differs(before: Any, after: Any) -> bool:
    # 1 == True in Python, but a JSON number is not a boolean: keep it so it can be refused.
    return before != after or type(before) is not type(after)


def _apply_one(
    doc: dict[str, Any], parts: list[str], op: dict[str, Any], mandatory: tuple[str, ...]
) -> None:
    kind, path = op["op"], op["path"]
    if len(parts) == 1:
        if kind == "remove":
            if parts[0] in mandatory:
                raise PatchError(f"'{parts[0]}' is a mandatory attribute and can not be removed.")
            doc[parts[0]] = {} if isinstance(doc.get(parts[0]), dict) else None
        else:
            doc[parts[0]] = op["value"]
        return
    parent: Any = doc
    for part in parts[:-1]:
        if isinstance(parent, dict) and part in parent and parent[part] is not None:
            parent = parent[part]
        elif isinstance(parent, dict) and kind == "add" and part == parts[0]:
            parent[part] = {}
            parent = parent[part]
        else:
            raise PatchError(f"Cannot apply {kind} to {path}: {part!r} does not exist.")
    last = parts[-1]
    if isinstance(parent, list):
        _apply_to_list(parent, last, op)
        return
    if not isinstance(parent, dict):
        raise PatchError(f"Cannot apply {kind} to {path}: the parent is not an object.")
    if kind == "remove":
        if last not in parent:
            raise PatchError(f"Cannot remove {path}: it does not exist.")
        del parent[last]
    elif kind == "replace" and last not in parent:
        raise PatchError(f"Cannot replace {path}: it does not exist.")
    else:
        parent[last] = op["value"]


def _apply_to_list(target: list[Any], index: str, op: dict[str, Any]) -> None:
    kind, path = op["op"], op["path"]
    if index == "-" and kind == "add":
        target.append(op["value"])
        return
    if (
        not index.isdigit()
        or int(index) > len(target)
        or (kind != "add" and int(index) >= len(target))
    ):
        raise PatchError(f"Cannot apply {kind} to {path}: index out of range.")
    position = int(index)
    if kind == "add":
        target.insert(position, op["value"])
    elif kind == "replace":
        target[position] = op["value"]
    else:
        del target[position]
