"""Helpers that build JSON Patch (RFC 6902) documents for the update calls.

    client.update_node("n1", [replace("/name", "n2"), add("/properties/cpus", 8)])
    client.update_node("n1", set_fields({"name": "n2", "properties/cpus": 8}))
    client.update_node("n1", unset_fields(["description", "extra/rack"]))

A path is ``/field`` or ``/field/key``; :func:`pointer` builds one from raw parts, escaping
``~`` and ``/`` inside them as RFC 6901 says. The server, as Ironic 39, takes only parts of
letters, digits, ``_`` and ``-``: it refuses a key with ``~``, ``/`` or ``.`` (BadRequest).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, NotRequired, TypedDict


class PatchOp(TypedDict):
    """One JSON Patch operation as the API takes it."""

    op: Literal["add", "replace", "remove"]
    path: str
    value: NotRequired[Any]


def pointer(*parts: str) -> str:
    """A JSON pointer from raw parts: ``pointer("extra", "a/b")`` is ``/extra/a~1b``.

    Raises ValueError when no part is given.
    """
    if not parts:
        raise ValueError("A JSON pointer needs at least one part.")
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def _path(path: str) -> str:
    return path if path.startswith("/") else "/" + path


def add(path: str, value: Any) -> PatchOp:
    """Set ``path`` to ``value``, creating the key if needed (``/`` prefix optional)."""
    return {"op": "add", "path": _path(path), "value": value}


def replace(path: str, value: Any) -> PatchOp:
    """Replace the existing value at ``path``; the server refuses a missing key."""
    return {"op": "replace", "path": _path(path), "value": value}


def remove(path: str) -> PatchOp:
    """Remove the key at ``path``; a top-level field is reset to its default."""
    return {"op": "remove", "path": _path(path)}


def set_fields(values: Mapping[str, Any]) -> list[PatchOp]:
    """``add`` operations for each ``path: value``; a key may be nested (``"extra/rack"``)."""
    return [add(path, value) for path, value in values.items()]


def unset_fields(paths: Iterable[str]) -> list[PatchOp]:
    """``remove`` operations for each path, e.g. ``["description", "properties/cpus"]``."""
    return [remove(path) for path in paths]
