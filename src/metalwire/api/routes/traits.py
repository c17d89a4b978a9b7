"""``/v1/nodes/{node}/traits`` (from API version 1.37; below it answered as Ironic 39 does)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import os_traits  # type: ignore[import-untyped]
from fastapi import APIRouter, Request, Response

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api.openapi_operations import WRITE
from metalwire.api.route_docs import doc
from metalwire.api.routes import authz
from metalwire.api.routes.common import Call, JsonBody, call, until_unchanged
from metalwire.db import nodes as node_db
from metalwire.errors import InvalidParameterValue, MethodNotAllowed, NotFound

router = APIRouter(prefix="/v1/nodes/{ident}/traits")

TRAITS = 37
MAX_TRAITS = 50
# As Ironic's API: a trait is one of os-traits' standard names, or a custom one (CUSTOM_ and
# upper-case letters, digits and '_'), at most 255 long. Placement, to which Nova reports a
# node's traits, knows no other.
_CUSTOM_TRAIT = re.compile(r"^CUSTOM_[A-Z0-9_]+$")
_STANDARD_TRAITS = frozenset(os_traits.get_traits())


def check_trait(value: Any) -> str:
    if (
        not isinstance(value, str)
        or len(value) > 255
        or not (value in _STANDARD_TRAITS or _CUSTOM_TRAIT.match(value))
    ):
        raise InvalidParameterValue(
            f"Invalid trait {value!r}: a trait is a standard one (os-traits, e.g. "
            "HW_CPU_X86_AVX2) or a custom one, CUSTOM_ followed by upper-case letters, digits "
            "and '_', at most 255 long."
        )
    return value


def _traits_call(request: Request) -> Call:
    c = call(request)
    if not c.version.at_least(TRAITS):
        _refuse_below_traits(request.method, c.version)
    return c


def _refuse_below_traits(method: str, version: mv.Version) -> None:
    """Below 1.37 Ironic 39 routes the path as the node's own: a GET is refused (406), a PUT
    is a method the node does not take (405), a DELETE names no resource (404)."""
    if method == "PUT":
        raise MethodNotAllowed(method, ("GET",))
    if method == "DELETE":
        raise NotFound("Resource could not be found.")
    raise mv.too_old("/v1/nodes/{node}/traits", TRAITS, version)


def _current(c: Call, ident: str) -> list[str]:
    with c.services.db.read() as session:
        node = node_db.get(session, ident)
    return list(node_db.field_value(node, "traits") or [])


def _change(c: Call, ident: str, change: Callable[[list[str]], list[str]]) -> Response:
    """Apply ``change`` to the node's current traits, retried if they change meanwhile."""

    def attempt() -> None:
        current = _current(c, ident)
        traits = change(current)
        if len(traits) > MAX_TRAITS:
            raise InvalidParameterValue(f"A node can have at most {MAX_TRAITS} traits.")
        c.services.rpcapi.update_node(
            c.context, ident, {"traits": traits}, expected={"traits": current}
        )

    until_unchanged(attempt)
    return Response(status_code=204)


@router.get(
    "",
    openapi_extra=doc(
        "listTraits",
        "A node's traits.",
        "nodes",
        ok="The traits.",
        returns=bodies.TRAIT_LIST,
        since=TRAITS,
    ),
)
def list_traits(request: Request, ident: str) -> dict[str, Any]:
    c = _traits_call(request)
    authz.node_by_ident(c, "baremetal:node:traits:list", ident)
    return {"traits": _current(c, ident)}


# Below 1.37 Ironic answers a PUT of traits 405 (no such method), as metalwire does.
_BELOW_TRAITS_PUT = (*WRITE, 405)


@router.put(
    "",
    status_code=204,
    openapi_extra=doc(
        "setTraits",
        "Replace a node's traits.",
        "nodes",
        ok="Replaced.",
        errors=_BELOW_TRAITS_PUT,
        body=bodies.TRAITS,
        since=TRAITS,
    ),
)
def set_traits(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = _traits_call(request)
    authz.node_by_ident(c, "baremetal:node:traits:set", ident)
    if not isinstance(body, dict) or not isinstance(body.get("traits"), list):
        raise InvalidParameterValue('The request body must be {"traits": [...]}.')
    traits = sorted({check_trait(t) for t in body["traits"]})
    return _change(c, ident, lambda _current: traits)


@router.put(
    "/{trait}",
    status_code=204,
    openapi_extra=doc(
        "addTrait",
        "Add a trait to a node.",
        "nodes",
        ok="Added.",
        errors=_BELOW_TRAITS_PUT,
        since=TRAITS,
    ),
)
def add_trait(request: Request, ident: str, trait: str) -> Response:
    c = _traits_call(request)
    authz.node_by_ident(c, "baremetal:node:traits:set", ident)
    check_trait(trait)
    return _change(c, ident, lambda current: sorted({*current, trait}))


@router.delete(
    "",
    status_code=204,
    openapi_extra=doc(
        "removeAllTraits",
        "Remove every trait of a node.",
        "nodes",
        ok="Removed.",
        errors=WRITE,
        since=TRAITS,
    ),
)
def remove_all_traits(request: Request, ident: str) -> Response:
    c = _traits_call(request)
    authz.node_by_ident(c, "baremetal:node:traits:delete", ident)
    return _change(c, ident, lambda _current: [])


@router.delete(
    "/{trait}",
    status_code=204,
    openapi_extra=doc(
        "removeTrait",
        "Remove a trait from a node.",
        "nodes",
        ok="Removed.",
        errors=WRITE,
        since=TRAITS,
    ),
)
def remove_trait(request: Request, ident: str, trait: str) -> Response:
    c = _traits_call(request)
    authz.node_by_ident(c, "baremetal:node:traits:delete", ident)

    def without(current: list[str]) -> list[str]:
        if trait not in current:
            raise NotFound(f"Node {ident} has no trait {trait}.")
        return [t for t in current if t != trait]

    return _change(c, ident, without)
