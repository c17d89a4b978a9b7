"""``/v1/portgroups``: bonds of a node's ports (from API version 1.23)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api import validation
from metalwire.api.fields import PORTGROUP_FIELDS, PORTGROUP_FILTERS, PORTGROUP_LIST_FIELDS
from metalwire.api.route_docs import listing, lists, object_docs
from metalwire.api.routes import authz
from metalwire.api.routes import ports as port_routes
from metalwire.api.routes.before_body import patch_allowed
from metalwire.api.routes.common import Call, JsonBody, call, list_filters
from metalwire.api.routes.ports import check_legacy_vif_id, warn_if_legacy_vif
from metalwire.api.routes.resource import Resource
from metalwire.api.views import portgroup_views
from metalwire.db import nodes as node_db
from metalwire.db import portgroups as portgroup_db
from metalwire.db.models import Portgroup
from metalwire.errors import InvalidParameterValue

router = APIRouter(prefix="/v1/portgroups")


def portgroup_call(request: Request) -> Call:
    c = call(request)
    # below 1.23 Ironic's portgroup handlers are there and refuse the version (fault body)
    c.require(mv.PORTGROUPS, by_handler=True)
    return c


def normalize(c: Call, values: dict[str, Any]) -> dict[str, Any]:
    out = dict(values)
    if out.get("uuid") is not None:
        out["uuid"] = validation.uuid_value(out["uuid"], "uuid")
    if out.get("address") is not None:
        out["address"] = validation.mac_address(out["address"])
    if out.get("name") is not None:
        out["name"] = validation.logical_name(out["name"], "portgroup name", c.version)
    if "node_uuid" in out:
        out["node_uuid"] = validation.uuid_value(out["node_uuid"], "node_uuid")
    for key, default in (("extra", {}), ("properties", {}), ("standalone_ports_supported", True)):
        if key in out and out[key] is None:
            out[key] = default
    if "mode" in out and not out["mode"]:
        out["mode"] = c.services.config.default.default_portgroup_mode  # a bond always has one
    validation.check_lengths(out, Portgroup.__table__)
    return out


def _filters(c: Call, parent: str | None) -> dict[str, Any]:
    """The list's filters; below a node (the only parent of a portgroup list) the node is
    the parent's, whatever ``?node=`` says, as Ironic's."""
    given = list_filters(c, PORTGROUP_FILTERS)
    node = given.get("node")
    if node:
        try:
            validation.uuid_or_name(node, "node")
        except InvalidParameterValue:  # in Ironic's words, its query schema's
            raise InvalidParameterValue(
                f"Schema error: {node!r} is not valid under any of the given schemas. Possible "
                f"root cause: {node!r} is not a 'uuid'"
            ) from None
    if parent is not None:
        given.pop("node", None)
    narrowing = (
        bool(given.get("node")) or parent is not None,
        bool(given.get("address")),
        "shard" in given,
        "conductor_groups" in given,
    )
    if sum(narrowing) > 1:
        raise InvalidParameterValue(
            "Filtering by node, address, or shard simultaneously is not supported."
        )
    filters: dict[str, Any] = {}
    for name in ("shard", "conductor_groups"):
        if name in given:
            filters[name] = given[name]
    if given.get("node"):
        with c.services.db.read() as session:
            filters["node_id"] = node_db.get(session, given["node"]).id
    if given.get("address"):
        filters["address"] = validation.mac_address(given["address"])
    return filters


def _views(
    c: Call, session: Session, portgroups: Sequence[Portgroup], fields: list[str], sublinks: bool
) -> list[dict[str, Any]]:
    return portgroup_views(session, portgroups, fields, c.base, sublinks=sublinks)


PORTGROUPS = Resource[Portgroup](
    json_suffix=True,
    kind="portgroup",
    collection="portgroups",
    fields=PORTGROUP_FIELDS,
    list_fields=PORTGROUP_LIST_FIELDS,
    mandatory=("node_uuid", "mode"),
    read=portgroup_db.get,
    list_rows=portgroup_db.list_portgroups,
    views=_views,
    filters=_filters,
    authorize_get=lambda c, session, portgroup, ident: authz.portgroup(
        c, "baremetal:portgroup:get", session, portgroup, ident
    ),
    authorize_patch=lambda c, session, portgroup, ident, _patch: authz.portgroup(
        c, "baremetal:portgroup:update", session, portgroup, ident
    ),
    current=port_routes.member_document(_views, PORTGROUP_FIELDS),
    update=lambda c, uuid, changes, expected: c.services.rpcapi.update_portgroup(
        c.context, uuid, changes, expected
    ),
    prepare=lambda c, _portgroup, changes: normalize(c, changes),
    check_changes=port_routes.check_member_patch,
    owner_fields=port_routes.OWNER_FIELDS,
)


LISTING = listing(PORTGROUP_FILTERS, portgroup_db.SORTABLE)
_DOCS = object_docs("Portgroup", "portgroup", LISTING, bodies.PORTGROUP_LINKS)


@router.get("", openapi_extra=_DOCS.list)
@router.get("/", openapi_extra=_DOCS.list)
def list_portgroups(request: Request) -> dict[str, Any]:
    return PORTGROUPS.list_view(portgroup_call(request), detail_path=False)


@router.get("/detail", openapi_extra=_DOCS.list_detail)
def list_portgroups_detail(request: Request) -> dict[str, Any]:
    return PORTGROUPS.list_view(portgroup_call(request), detail_path=True)


@router.get("/{ident}", openapi_extra=_DOCS.show)
def get_portgroup(request: Request, ident: str) -> dict[str, Any]:
    return PORTGROUPS.get(portgroup_call(request), ident)


def _unset_before_mode(c: Call, body: Any) -> Any:
    """Below 1.26, as Ironic: a mode or properties that say nothing (null, empty) are not
    given; only ones that say something are refused (406)."""
    if c.version.at_least(mv.PORTGROUP_MODE) or not isinstance(body, dict):
        return body
    empty = {"mode": (None, ""), "properties": (None, {})}
    return {k: v for k, v in body.items() if k not in empty or v not in empty[k]}


@router.post("", status_code=201, openapi_extra=_DOCS.create)
def create_portgroup(request: Request, response: Response, body: JsonBody = None) -> dict[str, Any]:
    c = portgroup_call(request)
    values = validation.check_create_body(
        _unset_before_mode(c, body), PORTGROUP_FIELDS, c.version, required=("node_uuid",)
    )
    authz.create_on_node(c, "baremetal:portgroup:create", values.get("node_uuid"))
    values = {"mode": None, **values}
    check_legacy_vif_id(values.get("extra"))
    portgroup = c.services.rpcapi.create_portgroup(c.context, normalize(c, values))
    response.headers["Location"] = f"{c.base}/v1/portgroups/{portgroup.uuid}"
    warn_if_legacy_vif(response, portgroup.extra, "Portgroup", portgroup.uuid)
    return PORTGROUPS.show(c, portgroup)


@router.patch("/{ident}", openapi_extra=_DOCS.patch)
def patch_portgroup(
    request: Request,
    response: Response,
    ident: str,
    _allowed: Annotated[None, patch_allowed(PORTGROUPS, "ident")],
    body: JsonBody = None,
) -> dict[str, Any]:
    c = portgroup_call(request)
    updated, changes = PORTGROUPS.patch(c, ident, body)
    if "extra" in changes:
        warn_if_legacy_vif(response, changes["extra"], "Portgroup", updated.uuid)
    return PORTGROUPS.show(c, updated)


@router.delete("/{ident}", status_code=204, openapi_extra=_DOCS.delete)
def delete_portgroup(request: Request, ident: str) -> Response:
    c = portgroup_call(request)
    if authz.policy(c).enabled:
        with c.services.db.read() as session:
            found = portgroup_db.get(session, ident)
            authz.portgroup(c, "baremetal:portgroup:delete", session, found, ident)
    c.services.rpcapi.delete_portgroup(c.context, ident)
    return Response(status_code=204)


def _members(request: Request, ident: str, detail_path: bool) -> dict[str, Any]:
    # Ironic's router finds no portgroup's ports below 1.24, 1.22 included (routing body)
    call(request).require(mv.PORTGROUP_SUBCONTROLLERS)

    def members(session: Session) -> dict[str, Any]:
        found = portgroup_db.get(session, ident)
        authz.portgroup(call(request), "baremetal:node:get", session, found, ident)
        return {"portgroup_id": found.id}

    return port_routes.PORTS.list_view(call(request), detail_path, members, parent="portgroup")


_PORTS, _PORTS_DETAIL = lists(
    "listPortgroupPorts",
    "the portgroup's ports (1.24)",
    "portgroups",
    "PortList",
    port_routes.LISTING,
)


@router.get("/{ident}/ports", openapi_extra=_PORTS)
def portgroup_ports(request: Request, ident: str) -> dict[str, Any]:
    return _members(request, ident, detail_path=False)


@router.get("/{ident}/ports/detail", openapi_extra=_PORTS_DETAIL)
def portgroup_ports_detail(request: Request, ident: str) -> dict[str, Any]:
    return _members(request, ident, detail_path=True)
