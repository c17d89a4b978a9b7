"""JSON Patch (RFC 6902) as Ironic accepts it: add, replace and remove on resource fields."""

from __future__ import annotations

import copy
import re
from typing import Any

from metalwire.api.fields import Access, Field, by_name
from metalwire.api.microversion import Version, too_old
from metalwire.errors import PatchError

# Every operation RFC 6902 defines; Ironic's API takes the first three.
RFC_OPS = ("add", "remove", "replace", "move", "copy", "test")
_OPS = {"add", "replace", "remove"}
_MEMBERS = {"op", "path", "value"}
# Ironic 39's patch schema, checked at every version before a patch is applied: "/"-separated
# parts of word characters (any script) and "-". 1.98 announces "~0"/"~1" escapes in patched
# keys, but this schema refuses them first. Searched, as jsonschema matches a pattern, so "$"
# also takes a path ending in one newline, as Ironic does.
_PATH = re.compile(r"^(/[\w-]+)+$")
_PART = re.compile(r"[\w-]+\n?")
# An array index (RFC 6901): "0" or digits without a leading zero, ASCII only.
_INDEX = re.compile(r"0|[1-9][0-9]*")


def operations_at(patch: Any, path: str) -> list[dict[str, Any]]:
    """The operations of a client's patch at exactly ``path``, whatever their op, looked at
    before the patch's own checks: a body that is not a list of objects has none."""
    if not isinstance(patch, list):
        return []
    return [op for op in patch if isinstance(op, dict) and op.get("path") == path]


def _show(value: Any) -> str:
    """A client's value in a message, cut short so a huge one cannot flood it."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _pointer(path: Any) -> list[str]:
    """The parts of a path the schema takes; none can hold an escape, so none is decoded."""
    if not isinstance(path, str) or not _PATH.search(path):
        raise PatchError(f"Invalid patch path {_show(path)}: {_path_problem(path)}")
    return path[1:].split("/")


def _path_problem(path: Any) -> str:
    if not isinstance(path, str):
        return "it must be a string like '/field' or '/field/key'."
    if not path.startswith("/"):
        return "it must start with '/', like '/field' or '/field/key'."
    parts = path[1:].split("/")
    if "" in parts:
        return "it has an empty part; each part between '/' names a field or key."
    wrong = next(p for p in parts if not _PART.fullmatch(p))
    return (
        f"the part {_show(wrong)} holds a character other than a letter, a digit, '_' or "
        "'-' (a key with '~', '/' or '.' cannot be patched, escaped or not)."
    )


def _check_operation(op: Any, position: int) -> tuple[dict[str, Any], list[str]]:
    """The operation and its path's parts, once it is seen to be one Ironic takes."""
    if not isinstance(op, dict):
        raise PatchError(
            f"Invalid patch operation {position}: expected a JSON object with 'op' and "
            f"'path', got {_show(op)}."
        )
    kind = op.get("op")
    if not isinstance(kind, str) or kind not in RFC_OPS:
        raise PatchError(
            f"Invalid patch operation {position}: 'op' must be one of {', '.join(RFC_OPS)}; "
            f"got {_show(kind)}."
        )
    if kind not in _OPS:
        raise PatchError(f"Patch operation {kind!r} is not supported: use add, replace or remove.")
    unknown = sorted(set(op) - _MEMBERS)
    if unknown:
        raise PatchError(
            f"Invalid patch operation {position}: {_show(unknown[0])} is not taken; an "
            "operation has only 'op', 'path' and 'value'."
        )
    return op, _pointer(op.get("path"))


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
    # an empty array changes nothing and is answered with the object, as Ironic 39 does
    if not isinstance(patch, list):
        raise PatchError("The patch must be a JSON array of operations.")
    known = by_name(fields)
    doc = copy.deepcopy(document)
    # the whole patch is checked before any operation is applied, as Ironic's schema is
    operations = [_check_operation(raw, position) for position, raw in enumerate(patch)]
    for op, parts in operations:
        top = parts[0]
        field = known.get(top)
        if field is None:
            raise PatchError(f"Cannot patch /{top}: no such attribute.")
        # an internal attribute before the version, as Ironic refuses it (400) at any version
        if field.access not in (Access.WRITABLE, Access.PATCH_ONLY):
            raise PatchError(f"'/{top}' is an internal attribute and can not be updated.")
        if not field.patchable_at(version.minor):
            raise too_old(f"Field {top}", field.since, version)
        if op["op"] != "remove" and "value" not in op:
            raise PatchError(f"Patch operation {op['op']} on {op['path']} needs a 'value'.")
        _apply_one(doc, parts, op, mandatory, creatable=field.kind == "dict")
    return {k: v for k, v in doc.items() if _differs(document.get(k), v)}


def _differs(before: Any, after: Any) -> bool:
    # 1 == True in Python, but a JSON number is not a boolean: keep it so it can be refused.
    return before != after or type(before) is not type(after)


def _apply_one(
    doc: dict[str, Any],
    parts: list[str],
    op: dict[str, Any],
    mandatory: tuple[str, ...],
    creatable: bool,
) -> None:
    """Apply one checked operation; ``creatable``: an unset top-level object may be added to."""
    kind, path = op["op"], op["path"]
    if len(parts) == 1:
        if kind == "remove":
            if parts[0] in mandatory:
                raise PatchError(f"'{parts[0]}' is a mandatory attribute and can not be removed.")
            doc[parts[0]] = {} if isinstance(doc.get(parts[0]), dict) else None
        else:
            doc[parts[0]] = op["value"]
        return
    if doc.get(parts[0]) is None and kind == "add" and creatable:
        doc[parts[0]] = {}  # shown to clients as {} while unset
    parent: Any = doc
    for part in parts[:-1]:
        parent = _child(parent, part, kind, path)
    last = parts[-1]
    if isinstance(parent, list):
        _apply_to_list(parent, last, op)
        return
    if not isinstance(parent, dict):
        raise PatchError(f"Cannot apply {kind} to {_show(path)}: the parent is not an object.")
    if kind == "remove":
        if last not in parent:
            raise PatchError(f"Cannot remove {_show(path)}: it does not exist.")
        del parent[last]
    elif kind == "replace" and last not in parent:
        raise PatchError(f"Cannot replace {_show(path)}: it does not exist.")
    else:
        parent[last] = op["value"]


def _child(parent: Any, part: str, kind: str, path: str) -> Any:
    """The existing member ``part`` of an object or array; RFC 6902 creates no parents."""
    if isinstance(parent, dict) and parent.get(part) is not None:
        return parent[part]
    if isinstance(parent, list) and _INDEX.fullmatch(part) and _position(part) < len(parent):
        return parent[int(part)]
    raise PatchError(f"Cannot apply {kind} to {_show(path)}: {_show(part)} does not exist.")


def _position(index: str) -> int:
    """A well-formed index as a number; one too long to convert is beyond any list anyway."""
    return int(index) if len(index) <= 18 else 10**18


def _apply_to_list(target: list[Any], index: str, op: dict[str, Any]) -> None:
    kind, path = op["op"], op["path"]
    if index == "-" and kind == "add":
        target.append(op["value"])
        return
    if not _INDEX.fullmatch(index):
        raise PatchError(
            f"Cannot apply {kind} to {_show(path)}: {_show(index)} is not an array index "
            "(0, or digits without a leading zero)."
        )
    position = _position(index)
    if position > len(target) or (kind != "add" and position >= len(target)):
        raise PatchError(f"Cannot apply {kind} to {_show(path)}: index out of range.")
    if kind == "add":
        target.insert(position, op["value"])
    elif kind == "replace":
        target[position] = op["value"]
    else:
        del target[position]
