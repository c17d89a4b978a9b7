"""``/v1/nodes/{node}/states/console``: the console's state and connection information."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from metalwire.api import openapi_bodies as bodies
from metalwire.api.openapi_operations import WRITE
from metalwire.api.route_docs import doc, ref
from metalwire.api.routes import authz
from metalwire.api.routes.common import JsonBody, accepted, call, flag
from metalwire.errors import InvalidParameterValue, NodeConsoleNotEnabled

router = APIRouter(prefix="/v1/nodes/{ident}")


@router.get(
    "/states/console",
    openapi_extra=doc(
        "getConsole",
        "Whether the console is enabled, and how to connect to it.",
        "nodes",
        ok="The console.",
        returns=ref("NodeConsole"),
    ),
)
def get_console(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:get_console", ident)
    try:
        info = c.services.rpcapi.get_console(c.context, ident)
    except NodeConsoleNotEnabled:
        return {"console_enabled": False, "console_info": None}
    return {"console_enabled": True, "console_info": info}


@router.put(
    "/states/console",
    status_code=202,
    openapi_extra=doc(
        "setConsoleState",
        "Start or stop a node's console.",
        "nodes",
        ok="Accepted.",
        errors=WRITE,
        body=bodies.CONSOLE_ENABLED,
        headers=bodies.STATES_LOCATION,
    ),
)
def set_console_state(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:set_console_state", ident)
    raw = body.get("enabled") if isinstance(body, dict) else None
    enabled = (
        raw if isinstance(raw, bool) else flag(raw, "enabled") if isinstance(raw, str) else None
    )
    if enabled is None:
        raise InvalidParameterValue(
            "The request body must be a JSON object with a boolean 'enabled'."
        )
    c.services.rpcapi.set_console_mode(c.context, ident, enabled)
    return accepted(c, ident, "states/console")
