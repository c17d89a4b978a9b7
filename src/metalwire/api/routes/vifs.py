"""``/v1/nodes/{node}/vifs``: attach, list and detach VIFs (from API version 1.28)."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request, Response

from metalwire.api import microversion as mv
from metalwire.api.routes.common import Call, JsonBody, call
from metalwire.api.validation import is_uuid
from metalwire.errors import InvalidParameterValue

router = APIRouter(prefix="/v1/nodes/{ident}/vifs")

_VIF_NAME = re.compile(r"^[A-Za-z0-9\-._~]{1,255}$")


def check_vif_id(value: Any) -> str:
    """A VIF id is a UUID or a name of RFC 3986 unreserved characters, at most 255 long."""
    if isinstance(value, str) and (is_uuid(value) or _VIF_NAME.match(value)):
        return value
    raise InvalidParameterValue(
        f"Invalid VIF id {value!r}: expected a UUID or a name of at most 255 letters, digits, "
        "'-', '.', '_' or '~'."
    )


def vif_call(request: Request) -> Call:
    c = call(request)
    c.require(mv.VIFS)
    return c


@router.get("")
async def list_vifs(request: Request, ident: str) -> dict[str, Any]:
    c = vif_call(request)
    return {"vifs": await c.services.rpcapi.vif_list(c.context, ident)}


@router.post("", status_code=204)
async def attach_vif(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = vif_call(request)
    if not isinstance(body, dict):
        raise InvalidParameterValue(
            "The request body must be a JSON object with the VIF's 'id', e.g. {\"id\": ...}."
        )
    if "id" not in body:
        raise InvalidParameterValue("The VIF's 'id' is missing from the request body.")
    check_vif_id(body["id"])
    if (
        c.version.at_least(mv.VIF_ATTACH_PORT)
        and "port_uuid" in body
        and ("portgroup_uuid" in body)
    ):
        raise InvalidParameterValue("Cannot specify both port_uuid and portgroup_uuid.")
    for key in ("port_uuid", "portgroup_uuid"):
        if key in body and not (isinstance(body[key], str) and is_uuid(body[key])):
            raise InvalidParameterValue(f"Expected a UUID for {key} but received {body[key]!r}.")
    await c.services.rpcapi.vif_attach(c.context, ident, dict(body))
    return Response(status_code=204)


@router.delete("/{vif_id}", status_code=204)
async def detach_vif(request: Request, ident: str, vif_id: str) -> Response:
    c = vif_call(request)
    await c.services.rpcapi.vif_detach(c.context, ident, check_vif_id(vif_id))
    return Response(status_code=204)
