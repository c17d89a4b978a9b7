"""Each route's documentation, declared where the route is registered, and the OpenAPI paths
built from those declarations.

A route carries its documentation in FastAPI's own ``openapi_extra`` argument, as
:func:`doc` (or :func:`lists`) returns it::

    @router.get("/{ident}", openapi_extra=doc("getNode", "Show a node.", "nodes",
        ok="The node.", returns=ref("Node"), query=(FIELDS,)))

:func:`paths` walks the application's routes: the path parameters come from the path, the
success status from the route's ``status_code``, the rest from the declaration. A route
without one is refused (:class:`UndocumentedRoute`), so no route is served undocumented and
the document describes no route that is not served. The VIF endpoints, answered in front of
the router, declare theirs as :class:`Door` values beside their ASGI component.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fastapi.routing import APIRoute
from starlette.routing import BaseRoute

from metalwire.api import openapi_bodies as bodies
from metalwire.api import openapi_schemas as s
from metalwire.api.fields import Filter
from metalwire.api.openapi_operations import (
    LIST,
    READ,
    WRITE,
    Schema,
    operation,
    paging,
    path_param,
    query,
    responses,
)

KEY = "x-metalwire-route"  # the key of the declaration in a route's openapi_extra

FIELDS = query("fields", {"type": "string"}, "Comma-separated fields to show (1.8).")
DETAIL = query("detail", {"type": "boolean"}, "Show every field (1.43).")

# A path parameter's description, by the collection segment before it.
_PATH_PARAMETERS = {
    ("nodes", "ident"): "The node's UUID or name.",
    ("portgroups", "ident"): "The portgroup's UUID or name.",
    ("ports", "uuid"): "The port's UUID.",
    ("chassis", "ident"): "The chassis's UUID.",
    ("deploy_templates", "ident"): "The deploy template's UUID or name.",
    ("runbooks", "ident"): "The runbook's UUID or name.",
    ("allocations", "ident"): "The allocation's UUID or name.",
    ("history", "uuid"): "The entry's UUID.",
    ("connectors", "uuid"): "The object's UUID.",
    ("targets", "uuid"): "The object's UUID.",
    (
        "traits",
        "trait",
    ): "A trait: a standard one (os-traits) or CUSTOM_ and upper-case letters, digits, '_'.",
    ("vifs", "vif"): "The VIF's id.",
    ("drivers", "driver_name"): "The hardware type's name.",
    ("conductors", "hostname"): "The conductor's host name ([DEFAULT] host).",
    ("bios", "setting"): "The BIOS setting's name.",
    ("indicators", "indicator"): "<indicator>@<component>, as the node's indicator list names it.",
}
_PARAMETER = re.compile(r"\{([^}]+)\}")
_FILTER_SCHEMAS: dict[str, Schema] = {
    "str": {"type": "string"},
    "bool": {"type": "boolean"},
    "list": {"type": "string"},
}


class UndocumentedRoute(Exception):
    """A route was registered without a declaration, or twice for one method and path."""


@dataclass(frozen=True)
class RouteDoc:
    """What the document says of one operation, beside what the route itself says."""

    op_id: str  # operationId; a trailing-slash twin gets "Slash" appended
    summary: str
    tag: str
    ok: str  # the description of the success answer
    returns: Schema | None  # the success body; None for none
    errors: tuple[int, ...]  # the error statuses it can answer
    query: tuple[Schema, ...]  # after the path parameters, which come from the path
    body: Schema | None  # the request body
    body_required: bool
    headers: Schema | None  # of the success answer, beside the version headers
    links: Schema | None
    since: int | None  # the first microversion serving it, shown in the summary
    other_responses: Schema | None  # a second success answer (the VIF attach's dry run)

    def summary_text(self) -> str:
        """The summary, with the first microversion before its first clause ends."""
        if self.since is None:
            return self.summary
        head, sep, tail = self.summary.partition(";")
        if not sep:
            head, tail = self.summary.removesuffix("."), ""
            sep = "."
        return f"{head} (1.{self.since}){sep}{tail}"


def doc(
    op_id: str,
    summary: str,
    tag: str,
    *,
    ok: str,
    returns: Schema | None = None,
    errors: Iterable[int] = READ,
    query: Iterable[Schema] = (),
    body: Schema | None = None,
    body_required: bool = True,
    headers: Schema | None = None,
    links: Schema | None = None,
    since: int | None = None,
    other_responses: Schema | None = None,
) -> dict[str, Any]:
    """A route's documentation, as its ``openapi_extra``."""
    declared = RouteDoc(
        op_id,
        summary,
        tag,
        ok,
        returns,
        tuple(errors),
        tuple(query),
        body,
        body_required,
        headers,
        links,
        since,
        other_responses,
    )
    return {KEY: declared}


def alias(declared: dict[str, Any], op_id: str, summary: str) -> dict[str, Any]:
    """The documentation of another name of a route: the same but its id and summary."""
    return {KEY: dataclasses.replace(declared[KEY], op_id=op_id, summary=summary)}


def lists(
    op_id: str,
    noun: str,
    tag: str,
    listing: str,
    params: Iterable[Schema],
    since: int | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A list's documentation (``?detail=`` allowed) and that of its ``/detail`` twin, which
    takes no ``?fields=`` (a 400, as Ironic 39)."""
    params = tuple(params)
    body = ref(listing)
    plain = doc(
        op_id,
        f"List {noun}.",
        tag,
        ok=noun,
        returns=body,
        errors=LIST,
        query=(*params, DETAIL),
        since=since,
    )
    detail = doc(
        f"{op_id}Detail",
        f"List {noun} with every field.",
        tag,
        ok=noun,
        returns=body,
        errors=LIST,
        query=tuple(param for param in params if param is not FIELDS),
        since=since,
    )
    return plain, detail


def listing(declared: Iterable[Filter], sortable: set[str]) -> tuple[Schema, ...]:
    """A list's query parameters: its filters, paging and ``?fields=``."""
    return (*filters(declared), *paging(sortable), FIELDS)


@dataclass(frozen=True)
class ItemDocs:
    """The documentation of one kind of object's create, show, patch and delete."""

    create: dict[str, Any]
    show: dict[str, Any]
    patch: dict[str, Any]
    delete: dict[str, Any]


def item_docs(
    kind: str,
    noun: str,
    tag: str,
    fields: Schema,
    *,
    caveat: str = "",
    delete_caveat: str | None = None,
    create_headers: Schema | None = None,
    patch_headers: Schema | None = None,
    links: Schema | None = None,
    since: int | None = None,
    write_errors: tuple[int, ...] = (),
    patch_since: int | None = None,
) -> ItemDocs:
    """Ports, portgroups and the volume resources are documented alike: ``kind`` names the
    schemas ("Port"), ``fields`` is the show's ``?fields=``, ``caveat`` ends the summaries
    of a change and, unless ``delete_caveat`` says otherwise, of a delete; ``write_errors``
    are the statuses a create, patch and delete answer besides the usual ones; ``since`` is
    the first version of them all, ``patch_since`` of the change if later."""
    obj = ref(kind)
    delete_note = caveat if delete_caveat is None else delete_caveat
    return ItemDocs(
        create=doc(
            f"create{kind}",
            f"Create a {noun}.",
            tag,
            ok=f"The new {noun}.",
            returns=obj,
            errors=(400, 404, 406, 409, 503, *write_errors),
            body=ref(f"{kind}Create"),
            headers=create_headers,
            links=links,
            since=since,
        ),
        show=doc(
            f"get{kind}",
            f"Show a {noun}.",
            tag,
            ok=f"The {noun}.",
            returns=obj,
            query=(fields,),
            since=since,
        ),
        patch=doc(
            f"patch{kind}",
            f"Change a {noun} with a JSON Patch{caveat}.",
            tag,
            ok=f"The changed {noun}.",
            returns=obj,
            errors=(*WRITE, *write_errors),
            body=ref("JsonPatch"),
            headers=patch_headers,
            since=patch_since or since,
        ),
        delete=doc(
            f"delete{kind}",
            f"Delete a {noun}{delete_note}.",
            tag,
            ok="Deleted.",
            errors=(*WRITE, *write_errors),
            since=since,
        ),
    )


@dataclass(frozen=True)
class ObjectDocs(ItemDocs):
    """The documentation of a port's or portgroup's lists, create, show, patch and delete."""

    list: dict[str, Any]
    list_detail: dict[str, Any]


def object_docs(kind: str, noun: str, params: Iterable[Schema], links: Schema) -> ObjectDocs:
    """Ports and portgroups are documented alike: ``kind`` names the schemas ("Port")."""
    tag = f"{noun}s"
    plain, detail = lists(f"list{kind}s", f"{noun}s", tag, f"{kind}List", params)
    item = item_docs(
        kind,
        noun,
        tag,
        FIELDS,
        create_headers={**bodies.LOCATION, **bodies.WARNING},
        patch_headers=bodies.WARNING,
        links=links,
    )
    return ObjectDocs(**vars(item), list=plain, list_detail=detail)


def ref(schema: str) -> Schema:
    """A reference to one of the document's component schemas."""
    return s.ref("schemas", schema)


def filters(declared: Iterable[Filter]) -> list[Schema]:
    """The list filters, from their declarations in ``api/fields.py``."""
    return [
        query(
            f.name,
            _FILTER_SCHEMAS[f.kind],
            f"{f.doc} (1.{f.since}{'' if f.gated else '; read at every version'}).",
        )
        for f in declared
    ]


@dataclass(frozen=True)
class Door:
    """An operation answered in front of the router (the VIF endpoints), and its declaration."""

    method: str
    path: str
    status: int
    openapi_extra: dict[str, Any]


def _path_parameters(path: str) -> list[Schema]:
    out = []
    segments = path.split("/")
    for i, segment in enumerate(segments):
        match = _PARAMETER.fullmatch(segment)
        if match is None:
            continue
        key = (segments[i - 1], match[1])
        if key not in _PATH_PARAMETERS:
            raise UndocumentedRoute(f"{path}: path parameter {match[1]!r} has no description")
        out.append(path_param(match[1], _PATH_PARAMETERS[key]))
    return out


def _declaration(method: str, path: str, extra: dict[str, Any] | None) -> RouteDoc:
    declared = (extra or {}).get(KEY)
    if not isinstance(declared, RouteDoc):
        raise UndocumentedRoute(
            f"{method} {path} has no documentation: give its route "
            "openapi_extra=route_docs.doc(...)"
        )
    return declared


def render(declared: RouteDoc, path: str, status: int) -> Schema:
    """One operation of the document."""
    twin = path.endswith("/") and path != "/"
    answers = responses(
        status, declared.ok, declared.returns, declared.errors, declared.headers, declared.links
    )
    return operation(
        f"{declared.op_id}Slash" if twin else declared.op_id,
        declared.summary_text(),
        declared.tag,
        {**(declared.other_responses or {}), **answers},
        [*_path_parameters(path), *declared.query],
        declared.body,
        declared.body_required,
    )


def paths(routes: Iterable[BaseRoute], doors: Iterable[Door] = ()) -> dict[str, Schema]:
    """The document's paths: one operation per method of each API route and door. Routes that
    are not API routes (the topology page's HTML) are left out."""
    operations: list[tuple[str, str, int, dict[str, Any] | None]] = [
        (d.method, d.path, d.status, d.openapi_extra) for d in doors
    ]
    for route in routes:
        if isinstance(route, APIRoute):
            status = route.status_code or 200
            for method in sorted(route.methods or ()):
                operations.append((method, route.path, status, route.openapi_extra))
    out: dict[str, Schema] = {}
    for method, path, status, extra in operations:
        item = out.setdefault(path, {})
        if method.lower() in item:
            raise UndocumentedRoute(f"{method} {path} is registered twice")
        item[method.lower()] = render(_declaration(method, path, extra), path, status)
    return out
