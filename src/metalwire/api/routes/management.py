"""``/v1/nodes/{node}/management/boot_device``: the node's boot device, set, read and the
devices it can boot from; ``/management/indicators``: its indicators (every version, as in
Ironic 39, which gates neither).

The body is checked before the node is looked up, as Ironic checks its arguments; what the
node's management interface makes of the device is the conductor's
(``conductor/boot_device.py``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from metalwire.api import openapi_bodies as bodies
from metalwire.api.openapi_operations import WRITE
from metalwire.api.route_docs import doc, ref
from metalwire.api.routes import authz
from metalwire.api.routes.common import JsonBody, call, request_fields
from metalwire.api.validation import boolean
from metalwire.api.views import links
from metalwire.errors import InvalidParameterValue

router = APIRouter(prefix="/v1/nodes/{ident}/management")


def boot_device_request(body: Any) -> tuple[str, bool]:
    """``boot_device`` and ``persistent`` (default false) of a set request."""
    body = request_fields(body, "a boot device request", ("boot_device",), ("persistent",))
    device = body["boot_device"]
    if not isinstance(device, str):
        raise InvalidParameterValue(f"Invalid boot_device {device!r}: expected a string.")
    persistent = body.get("persistent")
    return device, False if persistent is None else boolean(persistent, "persistent")


@router.put(
    "/boot_device",
    status_code=204,
    openapi_extra=doc(
        "setBootDevice",
        "Set the device a node boots from next, or always; each management interface offers "
        "its own devices (fake-hardware: pxe).",
        "nodes",
        ok="Set.",
        errors=WRITE,
        body=bodies.BOOT_DEVICE_SET,
    ),
)
def set_boot_device(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = call(request)
    device, persistent = boot_device_request(body)
    authz.node_by_ident(c, "baremetal:node:set_boot_device", ident)
    c.services.rpcapi.set_boot_device(c.context, ident, device, persistent)
    return Response(status_code=204)


@router.get(
    "/boot_device",
    openapi_extra=doc(
        "getBootDevice",
        "The device a node boots from and whether it persists; null for both when not "
        "known (a BMC-driven node whose device was never set).",
        "nodes",
        ok="The boot device.",
        returns=ref("BootDevice"),
        errors=(400, 404, 406, 409),
    ),
)
def get_boot_device(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:get_boot_device", ident)
    return c.services.rpcapi.get_boot_device(c.context, ident)


@router.get(
    "/boot_device/supported",
    openapi_extra=doc(
        "getSupportedBootDevices",
        "The devices a node's management interface can boot it from.",
        "nodes",
        ok="The devices.",
        returns=ref("SupportedBootDevices"),
    ),
)
def get_supported_boot_devices(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:get_boot_device", ident)
    return {
        "supported_boot_devices": c.services.rpcapi.get_supported_boot_devices(c.context, ident)
    }


def indicator_name(unique_name: str) -> tuple[str, str]:
    """``(component, indicator)`` of an indicator's name as the list shows it,
    ``<indicator>@<component>``; 400 for a name without ``@``."""
    indicator, at, component = unique_name.partition("@")
    if not at:
        raise InvalidParameterValue(
            f"Malformed indicator name {unique_name!r}: expected <indicator>@<component>, "
            "as the indicator list names it."
        )
    return component, indicator


@router.get(
    "/indicators",
    openapi_extra=doc(
        "listIndicators",
        "A node's indicators (LEDs), each named <indicator>@<component>; fake-hardware's "
        "are Ironic's fake ones, other management interfaces have none to show (400).",
        "nodes",
        ok="The indicators.",
        returns=ref("IndicatorList"),
    ),
)
def list_indicators(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:get_indicator_state", ident)
    found = c.services.rpcapi.get_supported_indicators(c.context, ident)
    return {
        "indicators": [
            {
                "name": f"{name}@{component}",
                "component": component,
                "readonly": properties.get("readonly", True),
                "states": properties.get("states", []),
                "links": links(
                    c.base, "nodes", f"{ident}/management/indicators/{name}@{component}"
                ),
            }
            for component, named in found.items()
            for name, properties in named.items()
        ]
    }


@router.get(
    "/indicators/{indicator}",
    openapi_extra=doc(
        "getIndicatorState",
        "The state of one of a node's indicators.",
        "nodes",
        ok="Its state.",
        returns=bodies.INDICATOR_STATE,
        errors=(400, 404, 406, 409),
    ),
)
def get_indicator_state(request: Request, ident: str, indicator: str) -> dict[str, Any]:
    c = call(request)
    authz.node_found(c, "baremetal:node:get_indicator_state", ident)
    component, name = indicator_name(indicator)
    return {"state": c.services.rpcapi.get_indicator_state(c.context, ident, component, name)}


@router.put(
    "/indicators/{indicator}",
    status_code=204,
    openapi_extra=doc(
        "setIndicatorState",
        "Set one of a node's indicators; refused by every management interface metalwire "
        "offers (400), as by Ironic's fake, ipmitool and noop.",
        "nodes",
        ok="Set.",
        errors=WRITE,
        body=bodies.INDICATOR_STATE,
    ),
)
def set_indicator_state(
    request: Request, ident: str, indicator: str, body: JsonBody = None
) -> Response:
    c = call(request)
    body = request_fields(body, "an indicator change", ("state",))
    state = body["state"]
    if not isinstance(state, str):
        raise InvalidParameterValue(f"Invalid state {state!r}: expected a string.")
    authz.node_found(c, "baremetal:node:set_indicator_state", ident)
    component, name = indicator_name(indicator)
    c.services.rpcapi.set_indicator_state(c.context, ident, component, name, state)
    return Response(status_code=204)
