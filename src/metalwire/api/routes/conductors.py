"""``/v1/conductors`` (from API version 1.49): the registered metalwire servers.

Each ``metalwire serve`` registers its ``[DEFAULT] host`` (``conductor/registry.py``); these
routes read the registry as Ironic 39 shows its conductors: a list of ``hostname``,
``conductor_group`` and ``alive`` (every field with ``?detail=true``, some with
``?fields=``), paged by host name, sorted by any column but ``alive`` and ``drivers``; a
conductor shown by its host name, alive or not (404 with Ironic's words for an unknown one).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy.orm import Session

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api.fields import CONDUCTOR_FIELDS, CONDUCTOR_LIST_FIELDS
from metalwire.api.openapi_operations import paging
from metalwire.api.route_docs import DETAIL, FIELDS, doc
from metalwire.api.routes import authz
from metalwire.api.routes.common import (
    Call,
    call,
    collection,
    detail_requested,
    fields_param,
    list_filters,
    page,
    refuse_unknown_parameters,
)
from metalwire.api.validation import host_port
from metalwire.api.views import as_json, links, selected_fields
from metalwire.conductor.registry import Serving
from metalwire.db import conductors as conductor_db
from metalwire.db.models import Conductor

router = APIRouter(prefix="/v1/conductors")


def serving(c: Call, session: Session | None = None) -> Serving:
    """Which alive conductor serves which hardware type, as this server sees it; read in
    ``session`` when the request has one open."""
    if session is None:
        with c.services.db.read() as own:
            return serving(c, own)
    return c.services.registry.serving(conductor_db.all_conductors(session))


def _authorize(c: Call) -> None:
    c.require(mv.CONDUCTORS, by_handler=True)
    authz.policy(c).authorize("baremetal:conductor:get", authz.identity(c))


def _view(c: Call, row: Conductor, fields: list[str]) -> dict[str, Any]:
    values = {
        "hostname": row.hostname,
        "conductor_group": row.conductor_group,
        "alive": c.services.registry.is_alive(row),
        "drivers": list(row.drivers),
        "created_at": as_json(row.created_at),
        "updated_at": as_json(row.updated_at),
    }
    body = {name: values[name] for name in fields if name in values}
    body["links"] = links(c.base, "conductors", row.hostname)
    return body


_LIST = doc(
    "listConductors",
    "List the registered conductors (metalwire servers), alive or not.",
    "conductor",
    ok="The conductors.",
    returns=bodies.CONDUCTORS,
    errors=(400, 403, 404, 406),
    query=(*paging(set(conductor_db.SORTABLE), marker="Host name"), FIELDS, DETAIL),
    since=mv.CONDUCTORS,
)


@router.get("", openapi_extra=_LIST)
def list_conductors(request: Request) -> dict[str, Any]:
    c = call(request)
    _authorize(c)
    list_filters(c, ())  # refuses a parameter the list does not take
    detail = detail_requested(c, detail_path=False)
    wanted = fields_param(c)
    default = None if detail else CONDUCTOR_LIST_FIELDS
    fields = selected_fields(CONDUCTOR_FIELDS, c.version, wanted, default)
    p = page(c, uuid_marker=False)
    if p.marker is not None:
        host_port(p.marker, "marker")
    with c.services.db.read() as session:
        rows = conductor_db.list_conductors(session, p)
    views = [_view(c, row, fields) for row in rows]
    return collection(
        c, "conductors", rows, views, p.limit, marker_of=lambda row: str(row.hostname)
    )


@router.get(
    "/{hostname}",
    openapi_extra=doc(
        "getConductor",
        "Show a conductor by its host name, alive or not.",
        "conductor",
        ok="The conductor.",
        returns=bodies.CONDUCTOR,
        errors=(400, 403, 404, 406),
        query=(FIELDS,),
        since=mv.CONDUCTORS,
    ),
)
def get_conductor(request: Request, hostname: str) -> dict[str, Any]:
    c = call(request)
    host_port(hostname, "hostname")  # before the policy, as Ironic 39 validates its arguments
    _authorize(c)
    refuse_unknown_parameters(c, frozenset({"fields"}))
    fields = selected_fields(CONDUCTOR_FIELDS, c.version, fields_param(c), None)
    with c.services.db.read() as session:
        row = conductor_db.get(session, hostname)
    return _view(c, row, fields)
