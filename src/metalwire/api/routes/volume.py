"""``/v1/volume``: a node's volume connectors and targets (API version 1.32 and later).

Connectors and targets are twins: one set of handlers serves both, given the
:class:`VolumeResource` that names the collection, its fields and its repository.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from metalwire import redact
from metalwire.api import openapi_bodies as bodies
from metalwire.api import validation
from metalwire.api.fields import (
    VOLUME,
    VOLUME_CONNECTOR_FIELDS,
    VOLUME_CONNECTOR_LIST_FIELDS,
    VOLUME_FILTERS,
    VOLUME_TARGET_FIELDS,
    VOLUME_TARGET_LIST_FIELDS,
    Field,
)
from metalwire.api.jsonpatch import apply_patch
from metalwire.api.openapi_operations import paging
from metalwire.api.route_docs import doc, item_docs, ref
from metalwire.api.routes import authz
from metalwire.api.routes.common import (
    Call,
    JsonBody,
    call,
    collection,
    fields_param,
    flag,
    list_filters,
    page,
)
from metalwire.api.views import as_json, links, selected_fields
from metalwire.conductor.volumes import Resource
from metalwire.db import lookups
from metalwire.db import nodes as node_db
from metalwire.db import volumes as volume_db
from metalwire.db.models import Node, VolumeConnector, VolumeTarget
from metalwire.errors import InvalidParameterValue, NodeNotFound
from metalwire.identifiers import is_uuid_like

router = APIRouter()

Row = VolumeConnector | VolumeTarget


@dataclass(frozen=True)
class VolumeResource:
    name: str  # "connectors" or "targets": the path and the list's key
    resource: Resource
    kind: volume_db.VolumeKind[Any]
    fields: tuple[Field, ...]
    list_fields: tuple[str, ...]
    required: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"volume/{self.name}"

    @property
    def schema(self) -> str:
        """The name of its OpenAPI schema: VolumeConnector or VolumeTarget."""
        return f"Volume{self.name.removesuffix('s').capitalize()}"

    @property
    def noun(self) -> str:
        return f"volume {self.name.removesuffix('s')}"

    def check_ident(self, ident: str) -> None:
        """A connector or target is named by its UUID alone: anything else in its path
        (``/v1/volume/connectors/detail`` too) is a 400, as Ironic answers."""
        if not is_uuid_like(ident):
            raise InvalidParameterValue(
                f"Expected UUID for {self.name.removesuffix('s')}_uuid: {ident}"
            )


CONNECTORS = VolumeResource(
    "connectors",
    "volume_connectors",
    volume_db.CONNECTORS,
    VOLUME_CONNECTOR_FIELDS,
    VOLUME_CONNECTOR_LIST_FIELDS,
    ("node_uuid", "type", "connector_id"),
)
TARGETS = VolumeResource(
    "targets",
    "volume_targets",
    volume_db.TARGETS,
    VOLUME_TARGET_FIELDS,
    VOLUME_TARGET_LIST_FIELDS,
    ("node_uuid", "volume_type", "boot_index", "volume_id"),
)
RESOURCES = (CONNECTORS, TARGETS)


def _views(
    session: Session, r: VolumeResource, rows: list[Row], fields: list[str], base: str
) -> list[dict[str, Any]]:
    node_uuids = lookups.uuids_by_id(session, Node, (row.node_id for row in rows))
    out = []
    for row in rows:
        body: dict[str, Any] = {}
        for name in fields:
            value = node_uuids[row.node_id] if name == "node_uuid" else getattr(row, name)
            body[name] = as_json(value)
        body["links"] = links(base, r.path, row.uuid)
        out.append(body)
    return out


# What a volume target's properties read for whoever baremetal:volume:view_target_properties
# refuses: Ironic's value, which clients may recognise.
PROPERTIES_REDACTED = {
    "redacted_contents": "** Value redacted: Requires permission "
    "baremetal:volume:view_target_properties access. Permission denied. **"
}


def _answer_views(
    c: Call, session: Session, r: VolumeResource, rows: list[Row], fields: list[str]
) -> list[dict[str, Any]]:
    """The documents an answer shows: a target's properties (storage connection details,
    such as CHAP credentials) redacted for whoever may not see them, their secrets masked
    for everyone, as Ironic shows them."""
    views = _views(session, r, rows, fields, c.base)
    if r is not TARGETS or "properties" not in fields:
        return views
    allowed = authz.policy(c).allows("baremetal:volume:view_target_properties", authz.identity(c))
    for view in views:
        properties = view["properties"]
        view["properties"] = redact.masked(properties) if allowed else dict(PROPERTIES_REDACTED)
    return views


def _normalize(r: VolumeResource, values: dict[str, Any]) -> dict[str, Any]:
    out = dict(values)
    for key in ("uuid", "node_uuid"):
        if out.get(key) is not None:
            out[key] = validation.uuid_value(out[key], key)
    if "boot_index" in out:
        index = out["boot_index"]
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise InvalidParameterValue(
                f"Invalid value for field boot_index: expected a non-negative integer, got "
                f"{index!r}."
            )
    for key in ("extra", "properties"):
        if key in out and out[key] is None:
            out[key] = {}
    validation.check_lengths(out, r.kind.model.__table__)
    return out


def _authorize(c: Call, session: Session, rule: str, row: Row) -> None:
    if authz.policy(c).enabled:
        authz.node_by_ident(c, rule, node_db.get_by_id(session, row.node_id).uuid)


def _list(
    c: Call, r: VolumeResource, node_ident: str | None, *, parent: bool = False
) -> dict[str, Any]:
    """The collection, of one node's rows when ``node_ident`` is given; as Ironic, a node in
    the path (``parent``) must be visible (else 404), a ``?node=`` filter only narrows. A
    query parameter Ironic does not take is a 400, not a list of everything."""
    asked = list_filters(c, VOLUME_FILTERS)
    if not parent:
        node_ident = asked.get("node")
    # The volume resources took ``detail`` from their first version (1.32), not from 1.43.
    detail = bool(flag(c.request.query_params.get("detail"), "detail"))
    if detail and c.request.query_params.get("fields"):
        raise InvalidParameterValue("Cannot use both the fields and detail query parameters.")
    fields = selected_fields(
        r.fields, c.version, fields_param(c), None if detail else r.list_fields
    )
    p = page(c)
    filters: dict[str, Any] = {}
    with c.services.db.read() as session:
        if node_ident:
            node = node_db.get(session, node_ident)
            if parent:
                authz.node(c, (), node, node_ident)
            filters["node_id"] = node.id
        project = authz.list_project(c, "volume")
        if project is not None:
            filters["node_project"] = project
        rows = volume_db.VolumeRepository.reading(session, r.kind).list(filters, p)
        views = _answer_views(c, session, r, rows, fields)
    return collection(c, r.name, rows, views, p.limit)


def _show(c: Call, r: VolumeResource, row: Row) -> dict[str, Any]:
    fields = selected_fields(r.fields, c.version, fields_param(c), None)
    with c.services.db.read() as session:
        return dict(_answer_views(c, session, r, [row], fields)[0])


def _root(c: Call, collection: str, prefix: str) -> dict[str, Any]:
    """The links of a volume root: ``/v1/volume/`` or a node's ``/v1/nodes/{node}/volume/``."""
    body: dict[str, Any] = {"links": links(c.base, collection, prefix)}
    for r in RESOURCES:
        body[r.name] = links(c.base, collection, prefix + r.name)
    return body


def _root_doc(op_id: str, summary: str, errors: tuple[int, ...] = (406, 404)) -> dict[str, Any]:
    return doc(
        op_id,
        summary,
        "volume",
        ok="Links.",
        returns=bodies.VOLUME_ROOT,
        errors=errors,
        since=VOLUME,
    )


_ROOT = _root_doc("getVolume", "The volume resources.")


@router.get("/v1/volume", openapi_extra=_ROOT)
@router.get("/v1/volume/", openapi_extra=_ROOT)
def volume_root(request: Request) -> dict[str, Any]:
    c = call(request)
    # Ironic refuses a volume root below 1.32 in its handler (fault body), the connectors and
    # targets in its router
    c.require(VOLUME, by_handler=True)
    return _root(c, "volume", "")


_NODE_ROOT = _root_doc(
    "getNodeVolume",
    "A node's volume resources: its connectors and targets.",
    (400, 406, 404),  # 400: the node named by neither a UUID nor a name
)


@router.get("/v1/nodes/{ident}/volume", openapi_extra=_NODE_ROOT)
@router.get("/v1/nodes/{ident}/volume/", openapi_extra=_NODE_ROOT)
def node_volume_root(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    c.require(VOLUME, by_handler=True)  # as the volume root's
    with c.services.db.read() as session:
        authz.node(c, "baremetal:volume:get", node_db.get(session, ident), ident)
    # linked by the name or UUID asked for, as Ironic's node volume root links
    return _root(c, "nodes", f"{ident}/volume/")


def _add_routes(r: VolumeResource) -> None:
    """List, create, show, patch and delete of one of the two collections."""
    base = f"/v1/{r.path}"

    def list_all(request: Request) -> dict[str, Any]:
        c = call(request)
        c.require(VOLUME)
        return _list(c, r, None)

    def list_of_node(request: Request, ident: str) -> dict[str, Any]:
        c = call(request)
        c.require(VOLUME)
        return _list(c, r, ident, parent=True)

    def show(request: Request, uuid: str) -> dict[str, Any]:
        c = call(request)
        c.require(VOLUME)
        r.check_ident(uuid)
        with c.services.db.read() as session:
            row = volume_db.VolumeRepository.reading(session, r.kind).get(uuid)
            _authorize(c, session, "baremetal:volume:get", row)
        return _show(c, r, row)

    def create(request: Request, response: Response, body: JsonBody = None) -> dict[str, Any]:
        c = call(request)
        c.require(VOLUME)
        values = _normalize(r, validation.check_create_body(body, r.fields, c.version, r.required))
        authz.create_on_node(c, "baremetal:volume:create", values["node_uuid"])
        try:
            row = c.services.rpcapi.create_volume(c.context, r.resource, values)
        except NodeNotFound:
            # As Ironic: the body names a node that is not there, a bad value (400).
            raise InvalidParameterValue(
                f"Invalid input for field/attribute node_uuid. Value: {values['node_uuid']}. "
                "The node does not exist."
            ) from None
        response.headers["Location"] = f"{c.base}{base}/{row.uuid}"
        return _show(c, r, row)

    def patch(request: Request, uuid: str, body: JsonBody = None) -> dict[str, Any]:
        c = call(request)
        c.require(VOLUME)
        r.check_ident(uuid)
        with c.services.db.read() as session:
            row = volume_db.VolumeRepository.reading(session, r.kind).get(uuid)
            _authorize(c, session, "baremetal:volume:update", row)
            current = _views(session, r, [row], [f.name for f in r.fields], c.base)[0]
        changes = apply_patch(current, body, r.fields, c.version, mandatory=r.required)
        if "properties" in changes:
            # a client sending back the masked properties it was shown keeps the secrets
            changes["properties"] = redact.keep_masked(changes["properties"], current["properties"])
        changes = _normalize(r, validation.checked_patch(changes, r.fields))
        if changes.get("node_uuid", current["node_uuid"]) != current["node_uuid"]:
            with c.services.db.read() as session:
                authz.moved_to_node(c, session, row, changes["node_uuid"])
        return _show(c, r, c.services.rpcapi.update_volume(c.context, r.resource, uuid, changes))

    def delete(request: Request, uuid: str) -> Response:
        c = call(request)
        c.require(VOLUME)
        r.check_ident(uuid)
        with c.services.db.read() as session:
            row = volume_db.VolumeRepository.reading(session, r.kind).get(uuid)
            _authorize(c, session, "baremetal:volume:delete", row)
        c.services.rpcapi.delete_volume(c.context, r.resource, uuid)
        return Response(status_code=204)

    kind, noun, tag = r.schema, r.noun, "volume"
    listing = ref(f"{kind}List")
    params = (*paging(set(r.kind.sortable)), bodies.VOLUME_FIELDS, bodies.VOLUME_DETAIL)
    all_listed = doc(
        f"list{kind}s",
        f"List {noun}s.",
        tag,
        ok=f"{noun}s",
        returns=listing,
        query=(bodies.volume_node_query(noun), *params),
        since=VOLUME,
    )
    node_listed = doc(
        f"listNode{kind}s",
        f"List a node's {noun}s.",
        tag,
        ok=f"{noun}s",
        returns=listing,
        query=params,
        since=VOLUME,
    )
    one = item_docs(
        kind,
        noun,
        tag,
        bodies.VOLUME_FIELDS,
        caveat=" (its node powered off)",
        delete_caveat=" (its node powered off, or enroll, manageable or adopt failed)",
    )
    route = router.add_api_route
    route(base, list_all, methods=["GET"], openapi_extra=all_listed)
    route(f"/v1/nodes/{{ident}}/{r.path}", list_of_node, methods=["GET"], openapi_extra=node_listed)
    route(base, create, methods=["POST"], status_code=201, openapi_extra=one.create)
    route(f"{base}/{{uuid}}", show, methods=["GET"], openapi_extra=one.show)
    route(f"{base}/{{uuid}}", patch, methods=["PATCH"], openapi_extra=one.patch)
    route(f"{base}/{{uuid}}", delete, methods=["DELETE"], status_code=204, openapi_extra=one.delete)


for _resource in RESOURCES:
    _add_routes(_resource)
