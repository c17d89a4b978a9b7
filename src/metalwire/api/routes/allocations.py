"""``/v1/allocations`` and ``/v1/nodes/{node}/allocation`` (from API version 1.52).

An allocation asks for a node of a resource class with some traits, among candidate nodes
if it names them; the conductor reserves one within the request
(:mod:`metalwire.conductor.allocations`), so a create answers ``active`` or ``error``, never
``allocating``. PATCH (1.57) changes the name and extra; ``node`` backfills the allocation
of a deployed node (1.58); ``owner`` (1.60) is the project the allocation belongs to, which
the policy rules (``baremetal:allocation:*``) decide by.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api import validation
from metalwire.api.fields import ALLOCATION_FIELDS, ALLOCATION_FILTERS, ALLOCATION_LIST_FIELDS
from metalwire.api.openapi_operations import WRITE
from metalwire.api.route_docs import FIELDS, doc, item_docs, listing
from metalwire.api.routes import authz
from metalwire.api.routes.before_body import patch_allowed
from metalwire.api.routes.common import Call, JsonBody, call, list_filters, named
from metalwire.api.routes.resource import Resource
from metalwire.api.routes.traits import check_trait
from metalwire.api.views import as_json, links
from metalwire.db import allocations as allocation_db
from metalwire.db import lookups
from metalwire.db import nodes as node_db
from metalwire.db.models import Allocation, Node
from metalwire.db.pagination import Page
from metalwire.errors import (
    AllocationNotFound,
    InvalidParameterValue,
    MethodNotYetAllowed,
    NodeNotFound,
    NotFound,
    PolicyForbidden,
)
from metalwire.identifiers import is_uuid_like

router = APIRouter(prefix="/v1/allocations")
node_router = APIRouter(prefix="/v1/nodes/{ident}/allocation")

_BELOW = "The API version does not allow allocations"


def _require(c: Call, since: int = mv.ALLOCATIONS, *, method: str = "GET") -> None:
    """Below its version a read is 404 and a write 405, as Ironic 39's handlers answer
    (in an object's error body, not the router's)."""
    if c.version.at_least(since):
        return
    if method == "GET":
        raise NotFound(_BELOW)
    if since == mv.ALLOCATION_UPDATE and c.version.at_least(mv.ALLOCATIONS):
        raise MethodNotYetAllowed("The API version does not allow updating allocations")
    raise MethodNotYetAllowed(_BELOW)


def _ident(ident: str) -> str:
    """An allocation is named by its UUID or its name (400 for anything else)."""
    if is_uuid_like(ident) or validation.is_logical_name(ident):
        return ident
    raise InvalidParameterValue(f"Expected a logical name or UUID but received {ident}.")


def _target(owner: str | None) -> dict[str, Any]:
    return {"allocation.owner": owner} if owner else {}


def _authorize(c: Call, rule: str, row: Allocation, ident: str) -> None:
    """Who may not see the allocation gets 404, who may see it but not ``rule`` 403."""
    p = authz.policy(c)
    if not p.enabled:
        return
    who = authz.identity(c)
    if not p.allows("baremetal:allocation:get", who, _target(row.owner)):
        raise AllocationNotFound(ident)
    p.authorize(rule, who, _target(row.owner))


def _read(session: Session, ident: str) -> Allocation:
    return allocation_db.get(session, _ident(ident))


def _list_rows(session: Session, filters: dict[str, Any], page: Page) -> list[Allocation]:
    node = filters.pop("node", None)
    if node is not None:
        try:
            filters["node_id"] = node_db.get(session, node).id
        except NodeNotFound as exc:
            raise InvalidParameterValue(str(exc)) from None
    return allocation_db.list_allocations(session, filters, page)


def _views(
    c: Call, session: Session, rows: Sequence[Allocation], fields: list[str], _sublinks: bool
) -> list[dict[str, Any]]:
    node_uuids = lookups.uuids_by_id(session, Node, (row.node_id for row in rows))
    out = []
    for row in rows:
        body: dict[str, Any] = {}
        for name in fields:
            if name == "node_uuid":
                body[name] = node_uuids.get(row.node_id) if row.node_id else None
            elif name != "links":
                body[name] = as_json(getattr(row, name))
        body["links"] = links(c.base, "allocations", row.uuid)
        out.append(body)
    return out


def _current(_c: Call, _session: Session, row: Allocation) -> dict[str, Any]:
    return {"name": row.name, "extra": row.extra}


def _prepare(c: Call, _row: Allocation, changes: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(changes) - {"name", "extra"})
    if unknown:
        raise InvalidParameterValue(
            f"Cannot update allocation field(s) {', '.join(unknown)}: only name and extra "
            "can be changed."
        )
    out = dict(changes)
    if out.get("name") is not None:
        out["name"] = _name(out["name"], "update")
    if "extra" in out and out["extra"] is None:
        out["extra"] = {}
    return out


def _name(value: Any, action: str) -> str:
    if not isinstance(value, str) or not validation.is_logical_name(value):
        raise InvalidParameterValue(f"Cannot {action} allocation with invalid name '{value}'")
    return value


ALLOCATIONS = Resource[Allocation](
    json_suffix=True,
    kind="allocation",
    collection="allocations",
    fields=ALLOCATION_FIELDS,
    list_fields=ALLOCATION_LIST_FIELDS,
    mandatory=(),
    read=_read,
    list_rows=_list_rows,
    views=_views,
    filters=lambda c, _parent: list_filters(c, ALLOCATION_FILTERS),
    authorize_get=lambda c, _session, row, ident: _authorize(
        c, "baremetal:allocation:get", row, ident
    ),
    authorize_patch=lambda c, _session, row, ident, _patch: _authorize(
        c, "baremetal:allocation:update", row, ident
    ),
    current=_current,
    update=lambda c, uuid, changes, expected: c.services.rpcapi.update_allocation(
        c.context, uuid, changes, expected
    ),
    prepare=_prepare,
    project_filter="owner",
)


_LIST = doc(
    "listAllocations",
    "List allocations.",
    "allocations",
    ok="The allocations.",
    returns={"$ref": "#/components/schemas/AllocationList"},
    query=listing(ALLOCATION_FILTERS, set(allocation_db.SORTABLE)),
    since=mv.ALLOCATIONS,
)
_DOCS = item_docs(
    "Allocation",
    "allocation",
    "allocations",
    FIELDS,
    delete_caveat=" (releasing its node; refused while the node is active)",
    create_headers=bodies.LOCATION,
    since=mv.ALLOCATIONS,
    patch_since=mv.ALLOCATION_UPDATE,
    write_errors=(405,),  # below their version, as Ironic's handlers answer
)


@router.get("", openapi_extra=_LIST)
@router.get("/", openapi_extra=_LIST)
def list_allocations(request: Request) -> dict[str, Any]:
    c = call(request)
    _require(c)
    return ALLOCATIONS.list_view(c, detail_path=False)


@router.get("/{ident}", openapi_extra=_DOCS.show)
def get_allocation(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    _require(c)
    return ALLOCATIONS.get(c, ident)


@router.post("", status_code=201, openapi_extra=_DOCS.create)
def create_allocation(
    request: Request, response: Response, body: JsonBody = None
) -> dict[str, Any]:
    c = call(request)
    _require(c, method="POST")
    if not isinstance(body, dict):
        raise InvalidParameterValue("The request body must be a JSON object.")
    given = dict(body)
    node_ident = given.pop("node", None)
    values = validation.check_create_body(given, ALLOCATION_FIELDS, c.version, ())
    values = {k: v for k, v in values.items() if v is not None}
    values = _with_owner(c, values)
    if values.get("name") is not None:
        values["name"] = _name(values["name"], "create")
    if values.get("uuid") is not None:
        values["uuid"] = validation.uuid_value(values["uuid"], "uuid")
    node = _backfilled_node(c, node_ident) if node_ident is not None else None
    if not values.get("resource_class"):
        if node is None:
            raise InvalidParameterValue(
                "The resource_class field is mandatory when not backfilling"
            )
        values["resource_class"] = node.resource_class
    validation.check_lengths(values, Allocation.__table__)
    values["traits"] = [check_trait(t) for t in values.get("traits", [])]
    values["candidate_nodes"] = _candidates(c, values.get("candidate_nodes", []))
    if node is not None and "uuid" not in values and node.instance_uuid:
        values["uuid"] = node.instance_uuid  # the instance's UUID, as Ironic backfills
    created = c.services.rpcapi.create_allocation(
        c.context, values, None if node is None else node.uuid
    )
    response.headers["Location"] = f"{c.base}/v1/allocations/{created.uuid}"
    return ALLOCATIONS.show(c, created)


def _with_owner(c: Call, values: dict[str, Any]) -> dict[str, Any]:
    """As Ironic's secure RBAC: ``baremetal:allocation:create`` (403); a project-scoped
    requester's allocation is its project's, another owner only with
    ``create_restricted``."""
    p = authz.policy(c)
    if not p.enabled:
        return values
    who = authz.identity(c)
    p.authorize("baremetal:allocation:create", who)
    if who.system_scope == "all":
        return values
    owner = values.get("owner")
    if owner is None:
        return {**values, "owner": who.project_id}
    if owner != who.project_id and not p.allows("baremetal:allocation:create_restricted", who):
        raise PolicyForbidden(
            f"Cannot create allocation with an owner Project ID value {owner} not matching "
            f"the requester Project ID {who.project_id}. Policy "
            "baremetal:allocation:create_restricted is required for this capability."
        )
    return values


def _backfilled_node(c: Call, ident: Any) -> Node:
    if not c.version.at_least(mv.ALLOCATION_BACKFILL):
        raise InvalidParameterValue(
            "Cannot set node when creating an allocation in this API version"
        )
    if not isinstance(ident, str):
        raise InvalidParameterValue(f"Invalid value for field node: {ident!r}.")
    with c.services.db.read() as session:
        try:
            node = node_db.get(session, ident)
        except NodeNotFound as exc:
            raise InvalidParameterValue(str(exc)) from None
    p = authz.policy(c)
    if p.enabled and not p.sees_node(authz.identity(c), node.owner, node.lessee):
        raise InvalidParameterValue(str(NodeNotFound(ident)))
    return node


def _candidates(c: Call, idents: Any) -> list[str]:
    """The candidate nodes' UUIDs in the order given (400 naming those that name none);
    a project-scoped requester without ``create_restricted`` names its project's only."""
    if not isinstance(idents, list) or not all(isinstance(i, str) for i in idents):
        raise InvalidParameterValue("candidate_nodes must be a list of node UUIDs or names.")
    if not idents:
        return []
    p = authz.policy(c)
    who = authz.identity(c)
    project = None
    if p.enabled and not p.allows("baremetal:allocation:create_restricted", who):
        project = who.project_id
    with c.services.db.read() as session:
        found = allocation_db.node_uuids(session, idents, project)
    return [found[ident] for ident in idents]


@router.patch("/{ident}", openapi_extra=_DOCS.patch)
def patch_allocation(
    request: Request,
    ident: str,
    _allowed: Annotated[None, patch_allowed(ALLOCATIONS, "ident")],
    body: JsonBody = None,
) -> dict[str, Any]:
    c = call(request)
    _require(c, mv.ALLOCATION_UPDATE, method="PATCH")
    updated, _changes = ALLOCATIONS.patch(c, ident, body)
    return ALLOCATIONS.show(c, updated)


@router.delete("/{ident}", status_code=204, openapi_extra=_DOCS.delete)
def delete_allocation(request: Request, ident: str) -> Response:
    c = call(request)
    _require(c, method="DELETE")
    ident = named(c, ident, _read)
    with c.services.db.read() as session:
        row = _read(session, ident)
        _authorize(c, "baremetal:allocation:delete", row, ident)
    c.services.rpcapi.delete_allocation(c.context, row.uuid)
    return Response(status_code=204)


# -- a node's allocation ------------------------------------------------------------------


def _of_node(c: Call, node_ident: str) -> Allocation:
    """The node's allocation: the node must be visible (404), and have one (404)."""
    c.require(mv.ALLOCATIONS)  # as Ironic's node router: no such path below 1.52
    found = authz.node_found(c, "baremetal:node:get", node_ident)
    with c.services.db.read() as session:
        row = allocation_db.of_node(session, found.id)
    if row is None:
        raise AllocationNotFound(node_ident, f"Allocation for node {node_ident} was not found")
    return row


_NODE_DOCS = {
    "show": doc(
        "getNodeAllocation",
        "The node's allocation.",
        "allocations",
        ok="The allocation.",
        returns={"$ref": "#/components/schemas/Allocation"},
        query=(FIELDS,),
        since=mv.ALLOCATIONS,
    ),
    "delete": doc(
        "deleteNodeAllocation",
        "Delete the node's allocation, releasing the node.",
        "allocations",
        ok="Deleted.",
        errors=WRITE,
        since=mv.ALLOCATIONS,
    ),
}


@node_router.get("", openapi_extra=_NODE_DOCS["show"])
def get_node_allocation(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    row = _of_node(c, ident)
    _authorize(c, "baremetal:allocation:get", row, row.uuid)
    return ALLOCATIONS.show(c, row)


@node_router.delete("", status_code=204, openapi_extra=_NODE_DOCS["delete"])
def delete_node_allocation(request: Request, ident: str) -> Response:
    c = call(request)
    row = _of_node(c, ident)
    _authorize(c, "baremetal:allocation:delete", row, row.uuid)
    c.services.rpcapi.delete_allocation(c.context, row.uuid)
    return Response(status_code=204)
