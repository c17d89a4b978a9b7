"""``PUT /v1/nodes/{node}/states/power``: power on, off, reboot, soft reboot, soft power off."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from metalwire.api import openapi_bodies as bodies
from metalwire.api.openapi_operations import WRITE
from metalwire.api.route_docs import doc
from metalwire.api.routes import authz
from metalwire.api.routes.common import JsonBody, accepted, body_target, call
from metalwire.conductor import hardware
from metalwire.errors import Invalid, InvalidParameterValue, NotAcceptable

router = APIRouter(prefix="/v1/nodes/{ident}")

SOFT_POWER = 27  # soft reboot, soft power off and the timeout


def _timeout(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameterValue(f"Invalid timeout {value!r}: expected an integer of seconds.")
    if value < 1:
        raise Invalid("timeout has to be positive integer")
    return value


@router.put(
    "/states/power",
    status_code=202,
    openapi_extra=doc(
        "setPowerState",
        "Power a node on or off, reboot it, soft reboot it or soft power it off.",
        "nodes",
        ok="Accepted.",
        errors=WRITE,
        body=bodies.POWER_TARGET,
        headers=bodies.STATES_LOCATION,
    ),
)
def set_power_state(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:set_power_state", ident)
    target = body_target(body, "power state")
    assert isinstance(body, dict)
    soft = target in (hardware.SOFT_REBOOT, hardware.SOFT_POWER_OFF)
    if (soft or body.get("timeout") is not None) and not c.version.at_least(SOFT_POWER):
        raise NotAcceptable(f"Soft power actions and a timeout require API version 1.{SOFT_POWER}.")
    timeout = _timeout(body.get("timeout"))
    c.services.rpcapi.set_power_state(c.context, ident, target, timeout)
    return accepted(c, ident)
