"""``/v1/portgroups``: bonds of a node's ports (from API version 1.23)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from metalwire.api import microversion as mv
from metalwire.api import validation
from metalwire.api.fields import PORTGROUP_FIELDS, PORTGROUP_FILTERS, PORTGROUP_LIST_FIELDS
from metalwire.api.jsonpatch import apply_patch
from metalwire.api.routes import authz
from metalwire.api.routes import ports as port_routes
from metalwire.api.routes.before_body import PortgroupPatchAllowed
from metalwire.api.routes.common import (
    Call,
    JsonBody,
    call,
    collection,
    detail_requested,
    fields_param,
    list_filters,
    page,
    until_unchanged,
)
from metalwire.api.routes.ports import check_legacy_vif_id, warn_if_legacy_vif
from metalwire.api.views import portgroup_views, selected_fields
from metalwire.db import nodes as node_db
from metalwire.db import portgroups as portgroup_db
from metalwire.db.models import Portgroup
from metalwire.errors import InvalidParameterValue

router = APIRouter(prefix="/v1/portgroups")


def portgroup_call(request: Request) -> Call:
    c = call(request)
    c.require(mv.PORTGROUPS)
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


def list_view(
    request: Request, detail_path: bool, scope: port_routes.Scope | None = None
) -> dict[str, Any]:
    """The body of any portgroup list: /v1/portgroups or a node's portgroups."""
    c = portgroup_call(request)
    detail = detail_requested(c, detail_path)
    fields = selected_fields(
        PORTGROUP_FIELDS, c.version, fields_param(c), None if detail else PORTGROUP_LIST_FIELDS
    )
    p = page(c)
    given = list_filters(c, PORTGROUP_FILTERS)
    narrowing = (
        bool(given.get("node")) or scope is not None,
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
    with c.services.db.read() as session:
        if given.get("node"):
            filters["node_id"] = node_db.get(session, given["node"]).id
        if given.get("address"):
            filters["address"] = validation.mac_address(given["address"])
        if scope is not None:
            filters.update(scope(session))
        project = authz.list_project(c, "portgroup")
        if project is not None:
            filters["node_project"] = project
        portgroups = portgroup_db.list_portgroups(session, filters, p)
        sublinks = detail and fields_param(c) is None
        views = portgroup_views(session, portgroups, fields, c.base, sublinks=sublinks)
    return collection(c, "portgroups", portgroups, views, p.limit)


@router.get("")
@router.get("/")
def list_portgroups(request: Request) -> dict[str, Any]:
    return list_view(request, detail_path=False)


@router.get("/detail")
def list_portgroups_detail(request: Request) -> dict[str, Any]:
    return list_view(request, detail_path=True)


def show(c: Call, portgroup: Portgroup) -> dict[str, Any]:
    wanted = fields_param(c)
    fields = selected_fields(PORTGROUP_FIELDS, c.version, wanted, None)
    with c.services.db.read() as session:
        return portgroup_views(session, [portgroup], fields, c.base, sublinks=wanted is None)[0]


@router.get("/{ident}")
def get_portgroup(request: Request, ident: str) -> dict[str, Any]:
    c = portgroup_call(request)
    with c.services.db.read() as session:
        portgroup = portgroup_db.get(session, ident)
        authz.portgroup(c, "baremetal:portgroup:get", session, portgroup, ident)
    return show(c, portgroup)


@router.post("", status_code=201)
def create_portgroup(request: Request, response: Response, body: JsonBody = None) -> dict[str, Any]:
    c = portgroup_call(request)
    values = validation.check_create_body(
        body, PORTGROUP_FIELDS, c.version, required=("node_uuid",)
    )
    authz.create_on_node(c, "baremetal:portgroup:create", values.get("node_uuid"))
    values = {"mode": None, **values}
    check_legacy_vif_id(values.get("extra"))
    portgroup = c.services.rpcapi.create_portgroup(c.context, normalize(c, values))
    response.headers["Location"] = f"{c.base}/v1/portgroups/{portgroup.uuid}"
    warn_if_legacy_vif(response, portgroup.extra, "Portgroup", portgroup.uuid)
    return show(c, portgroup)


@router.patch("/{ident}")
def patch_portgroup(
    request: Request,
    response: Response,
    ident: str,
    _allowed: PortgroupPatchAllowed,
    body: JsonBody = None,
) -> dict[str, Any]:
    c = portgroup_call(request)

    def attempt() -> tuple[Portgroup, dict[str, Any]]:
        with c.services.db.read() as session:
            portgroup = portgroup_db.get(session, ident)
            authz.portgroup(c, "baremetal:portgroup:update", session, portgroup, ident)
            names = [f.name for f in PORTGROUP_FIELDS]
            current = portgroup_views(session, [portgroup], names, c.base)[0]
        current["internal_info"] = portgroup.internal_info
        changes = apply_patch(
            current, body, PORTGROUP_FIELDS, c.version, mandatory=("node_uuid", "mode")
        )
        changes = validation.checked_patch(changes, PORTGROUP_FIELDS)
        if changes.get("node_uuid", current["node_uuid"]) != current["node_uuid"]:
            with c.services.db.read() as session:
                authz.moved_to_node(c, session, portgroup, changes["node_uuid"])
        check_legacy_vif_id(changes.get("extra"), current["extra"])
        expected = {k: current[k] for k in changes if k not in port_routes.OWNER_FIELDS}
        updated = c.services.rpcapi.update_portgroup(
            c.context, portgroup.uuid, normalize(c, changes), expected
        )
        return updated, changes

    updated, changes = until_unchanged(attempt)
    if "extra" in changes:
        warn_if_legacy_vif(response, changes["extra"], "Portgroup", updated.uuid)
    return show(c, updated)


@router.delete("/{ident}", status_code=204)
def delete_portgroup(request: Request, ident: str) -> Response:
    c = portgroup_call(request)
    if authz.policy(c).enabled:
        with c.services.db.read() as session:
            found = portgroup_db.get(session, ident)
            authz.portgroup(c, "baremetal:portgroup:delete", session, found, ident)
    c.services.rpcapi.delete_portgroup(c.context, ident)
    return Response(status_code=204)


def _members(request: Request, ident: str, detail_path: bool) -> dict[str, Any]:
    portgroup_call(request).require(mv.PORTGROUP_SUBCONTROLLERS)

    def members(session: Session) -> dict[str, Any]:
        found = portgroup_db.get(session, ident)
        authz.portgroup(call(request), "baremetal:node:get", session, found, ident)
        return {"portgroup_id": found.id}

    return port_routes.list_view(request, detail_path, members)


@router.get("/{ident}/ports")
def portgroup_ports(request: Request, ident: str) -> dict[str, Any]:
    return _members(request, ident, detail_path=False)


@router.get("/{ident}/ports/detail")
def portgroup_ports_detail(request: Request, ident: str) -> dict[str, Any]:
    return _members(request, ident, detail_path=True)
