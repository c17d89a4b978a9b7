"""``/v1/chassis``: groups of nodes, and the nodes in each (served at every version).

A chassis shares the list, show and patch flows of nodes, ports and portgroups
(:mod:`metalwire.api.routes.resource`). Its policy rules are system-wide, as Ironic's: a
chassis belongs to no project.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from metalwire.api import openapi_bodies as bodies
from metalwire.api import validation
from metalwire.api.fields import CHASSIS_FIELDS, CHASSIS_LIST_FIELDS, LINK_FIELDS
from metalwire.api.route_docs import FIELDS, item_docs, listing, lists
from metalwire.api.routes import authz
from metalwire.api.routes import nodes as node_routes
from metalwire.api.routes.before_body import patch_allowed
from metalwire.api.routes.common import Call, JsonBody, call, list_filters
from metalwire.api.routes.resource import Resource
from metalwire.api.views import as_json, links
from metalwire.db import chassis as chassis_db
from metalwire.db.models import Chassis
from metalwire.errors import InvalidParameterValue
from metalwire.identifiers import is_uuid_like

router = APIRouter(prefix="/v1/chassis")


def chassis_uuid(ident: str) -> str:
    """A chassis is named by its UUID alone, in any spelling Ironic takes; anything else in
    its place is a 400, as Ironic answers."""
    if not is_uuid_like(ident):
        raise InvalidParameterValue(f"Expected UUID for chassis_uuid: {ident}")
    return validation.uuid_value(ident, "chassis_uuid")


def _read(session: Session, ident: str) -> Chassis:
    return chassis_db.get(session, chassis_uuid(ident))


def _authorize(c: Call, rule: str) -> None:
    authz.policy(c).authorize(rule, authz.identity(c))


def _list_scope(c: Call, _kind: str) -> str | None:
    """Chassis are listed whole to whoever ``baremetal:chassis:get`` allows."""
    _authorize(c, "baremetal:chassis:get")
    return None


def normalize(values: dict[str, Any]) -> dict[str, Any]:
    out = dict(values)
    if out.get("uuid") is not None:
        out["uuid"] = validation.uuid_value(out["uuid"], "uuid")
    if "extra" in out and out["extra"] is None:
        out["extra"] = {}
    validation.check_lengths(out, Chassis.__table__)
    return out


def _view(c: Call, row: Chassis, fields: list[str]) -> dict[str, Any]:
    body: dict[str, Any] = {
        name: as_json(getattr(row, name)) for name in fields if name not in LINK_FIELDS
    }
    body["links"] = links(c.base, "chassis", row.uuid)
    if "nodes" in fields:
        # As Ironic 39 shows it: the links to the chassis's nodes inside a list.
        body["nodes"] = [links(c.base, "chassis", f"{row.uuid}/nodes")]
    return body


def _views(
    c: Call, _session: Session, rows: Sequence[Chassis], fields: list[str], _sublinks: bool
) -> list[dict[str, Any]]:
    return [_view(c, row, fields) for row in rows]


def _current(_c: Call, _session: Session, row: Chassis) -> dict[str, Any]:
    names = (f.name for f in CHASSIS_FIELDS if f.name not in LINK_FIELDS)
    return {name: as_json(getattr(row, name)) for name in names}


CHASSIS = Resource[Chassis](
    kind="chassis",
    collection="chassis",
    fields=CHASSIS_FIELDS,
    list_fields=CHASSIS_LIST_FIELDS,
    mandatory=(),
    read=_read,
    list_rows=lambda session, _filters, page: chassis_db.list_chassis(session, page),
    views=_views,
    filters=lambda c, _parent: list_filters(c, ()),
    # decided before the row is read (authorize_before_read): they depend on no row
    authorize_get=lambda _c, _session, _row, _ident: None,
    authorize_patch=lambda _c, _session, _row, _ident, _patch: None,
    authorize_before_read=lambda c, action: _authorize(c, f"baremetal:chassis:{action}"),
    current=_current,
    update=lambda c, uuid, changes, expected: c.services.rpcapi.update_chassis(
        c.context, uuid, changes, expected
    ),
    prepare=lambda _c, _row, changes: normalize(changes),
    list_scope=_list_scope,
)


_LIST, _LIST_DETAIL = lists(
    "listChassis", "chassis", "chassis", "ChassisList", listing((), set(chassis_db.SORTABLE))
)
_DOCS = item_docs(
    "Chassis",
    "chassis",
    "chassis",
    FIELDS,
    delete_caveat=" (refused while nodes are in it)",
    create_headers=bodies.LOCATION,
    links=bodies.CHASSIS_LINKS,
)


@router.get("", openapi_extra=_LIST)
@router.get("/", openapi_extra=_LIST)
def list_chassis(request: Request) -> dict[str, Any]:
    return CHASSIS.list_view(call(request), detail_path=False)


@router.get("/detail", openapi_extra=_LIST_DETAIL)
def list_chassis_detail(request: Request) -> dict[str, Any]:
    return CHASSIS.list_view(call(request), detail_path=True)


@router.get("/{ident}", openapi_extra=_DOCS.show)
def get_chassis(request: Request, ident: str) -> dict[str, Any]:
    return CHASSIS.get(call(request), ident)


@router.post("", status_code=201, openapi_extra=_DOCS.create)
def create_chassis(request: Request, response: Response, body: JsonBody = None) -> dict[str, Any]:
    c = call(request)
    _authorize(c, "baremetal:chassis:create")
    values = normalize(validation.check_create_body(body, CHASSIS_FIELDS, c.version, ()))
    created = c.services.rpcapi.create_chassis(c.context, values)
    response.headers["Location"] = f"{c.base}/v1/chassis/{created.uuid}"
    return CHASSIS.show(c, created)


@router.patch("/{ident}", openapi_extra=_DOCS.patch)
def patch_chassis(
    request: Request,
    ident: str,
    _allowed: Annotated[None, patch_allowed(CHASSIS, "ident")],
    body: JsonBody = None,
) -> dict[str, Any]:
    c = call(request)
    updated, _changes = CHASSIS.patch(c, ident, body)
    return CHASSIS.show(c, updated)


@router.delete("/{ident}", status_code=204, openapi_extra=_DOCS.delete)
def delete_chassis(request: Request, ident: str) -> Response:
    c = call(request)
    _authorize(c, "baremetal:chassis:delete")
    c.services.rpcapi.delete_chassis(c.context, chassis_uuid(ident))
    return Response(status_code=204)


def _nodes(request: Request, ident: str, detail_path: bool) -> dict[str, Any]:
    """The nodes in the chassis: the node list narrowed to it (404 for no such chassis)."""
    uuid = chassis_uuid(ident)
    return node_routes.NODES.list_view(
        call(request), detail_path, lambda _session: {"chassis_uuid": uuid}, parent="chassis"
    )


_NODES, _NODES_DETAIL = lists(
    "listChassisNodes", "the nodes in the chassis", "chassis", "NodeList", node_routes.LISTING
)


@router.get("/{ident}/nodes", openapi_extra=_NODES)
def chassis_nodes(request: Request, ident: str) -> dict[str, Any]:
    return _nodes(request, ident, detail_path=False)


@router.get("/{ident}/nodes/detail", openapi_extra=_NODES_DETAIL)
def chassis_nodes_detail(request: Request, ident: str) -> dict[str, Any]:
    return _nodes(request, ident, detail_path=True)
