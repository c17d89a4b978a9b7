"""``/v1/drivers``: the enabled hardware types, what each may use and what it reads.

As Ironic 39: every hardware type an alive conductor enables is a ``dynamic`` driver (there
are no ``classic`` ones), its ``hosts`` those conductors (``conductor/registry.py``; the
server answering always counts itself); from 1.30 a detailed driver shows, for
each interface kind, the implementations its nodes may use (enabled and supported) and the
one they get by default, each kind from the version its node field appeared in. Vendor
passthru (``/v1/drivers/{name}/vendor_passthru``) is not served: 404, as any unknown path.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from metalwire import hardware_types
from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api.openapi_operations import query
from metalwire.api.route_docs import doc
from metalwire.api.routes import authz
from metalwire.api.routes.common import Call, call, flag, refuse_unknown_parameters
from metalwire.api.routes.conductors import serving
from metalwire.conductor import driver_properties
from metalwire.errors import DriverNotFound, Invalid, InvalidParameterValue, NotAcceptable

router = APIRouter(prefix="/v1/drivers")

DYNAMIC = "dynamic"
CLASSIC = "classic"
#: The version from which a detailed driver shows each interface kind: the kinds of 1.30, then
#: those whose node field came later.
_KIND_SINCE = {
    **dict.fromkeys(hardware_types.ALL_KINDS, mv.DYNAMIC_DRIVERS),
    "storage": 33,
    "rescue": 38,
    "bios": 40,
    "firmware": 86,
}
_NEWER_THAN = "Request not acceptable. The minimal required API version should be 1.{}"

_TYPE = query("type", {"type": "string", "enum": [CLASSIC, DYNAMIC]}, "Driver type (1.30).")
_DETAIL = query("detail", {"type": "boolean"}, "Show each kind's interfaces (1.30).")
_FIELDS = query("fields", {"type": "string"}, "Comma-separated fields to show (1.77).")


def _gate(c: Call, minor: int, given: object) -> None:
    if given is not None and not c.version.at_least(minor):
        raise NotAcceptable(_NEWER_THAN.format(minor))


def _fields(c: Call) -> list[str] | None:
    raw = c.request.query_params.get("fields")
    if raw is None:
        return None
    if not c.version.at_least(mv.DRIVER_FIELDS):
        raise mv.too_old("The fields query parameter of drivers", mv.DRIVER_FIELDS, c.version)
    return [name.strip() for name in raw.split(",") if name.strip()]


def _links(c: Call, path: str) -> list[dict[str, str]]:
    return [
        {"href": f"{c.base}/v1/drivers/{path}", "rel": "self"},
        {"href": f"{c.base}/drivers/{path}", "rel": "bookmark"},
    ]


def _interfaces(c: Call, name: str) -> dict[str, Any]:
    options = c.services.config.default
    out: dict[str, Any] = {}
    for kind in hardware_types.ALL_KINDS:
        if c.version.at_least(_KIND_SINCE[kind]):
            try:
                default: str | None = hardware_types.default_interface(options, name, kind)
            except InvalidParameterValue:  # a type only other conductors enable, with
                default = None  # interfaces this server's options leave none of
            out[f"default_{kind}_interface"] = default
            out[f"enabled_{kind}_interfaces"] = list(
                hardware_types.usable_interfaces(options, name, kind)
            )
    return out


def driver_view(
    c: Call, name: str, hosts: list[str], detail: bool, fields: list[str] | None
) -> dict[str, Any]:
    """One driver as the request's version shows it; only ``fields`` (and links) if given."""
    view: dict[str, Any] = {"name": name, "hosts": hosts, "links": _links(c, name)}
    if c.version.at_least(mv.NODE_STATES_LINKS):
        view["properties"] = _links(c, f"{name}/properties")
    if c.version.at_least(mv.DYNAMIC_DRIVERS):
        view["type"] = DYNAMIC
        if detail:
            view.update(_interfaces(c, name))
    if fields is None:
        return view
    invalid = sorted(set(fields) - set(view))
    if invalid:
        raise InvalidParameterValue(f'Field(s) "{", ".join(invalid)}" are not valid')
    return {key: value for key, value in view.items() if key in fields or key == "links"}


def _enabled_driver(c: Call, name: str) -> str:
    """``name`` if this server enables it (what its properties are read from)."""
    if name not in c.services.config.default.enabled_hardware_types:
        raise DriverNotFound(name)
    return name


def _served_driver(c: Call, name: str) -> tuple[str, list[str]]:
    """``name`` and the alive conductors that enable it; DriverNotFound if none does."""
    hosts = serving(c).hosts(name)
    if not hosts:
        raise DriverNotFound(name)
    return name, hosts


@router.get(
    "",
    openapi_extra=doc(
        "listDrivers",
        "List the enabled hardware types (dynamic drivers).",
        "driver",
        ok="The drivers.",
        returns=bodies.DRIVERS,
        errors=(400, 403, 406),
        query=(_TYPE, _DETAIL, _FIELDS),
    ),
)
def list_drivers(request: Request) -> dict[str, Any]:
    c = call(request)
    params = c.request.query_params
    refuse_unknown_parameters(c, frozenset({"type", "detail", "fields"}))
    detail = flag(params.get("detail"), "detail")
    if params.get("fields") and detail:
        raise InvalidParameterValue("Can not specify ?detail=True and fields in the same request.")
    authz.policy(c).authorize("baremetal:driver:get", authz.identity(c))
    _gate(c, mv.DYNAMIC_DRIVERS, detail)
    driver_type = params.get("type")
    _gate(c, mv.DYNAMIC_DRIVERS, driver_type)
    fields = _fields(c)
    if driver_type not in (None, CLASSIC, DYNAMIC):
        raise Invalid('"type" filter must be one of "classic" or "dynamic", if specified.')
    served = serving(c)
    names = [] if driver_type == CLASSIC else served.drivers
    return {
        "drivers": [
            driver_view(c, name, served.hosts(name), bool(detail), fields) for name in names
        ]
    }


@router.get(
    "/{driver_name}",
    openapi_extra=doc(
        "getDriver",
        "Show a hardware type with each kind's interfaces (from 1.30).",
        "driver",
        ok="The driver.",
        returns=bodies.DRIVER,
        errors=(400, 403, 404, 406),
        query=(_FIELDS,),
    ),
)
def get_driver(request: Request, driver_name: str) -> dict[str, Any]:
    c = call(request)
    refuse_unknown_parameters(c, frozenset({"fields"}))
    authz.policy(c).authorize("baremetal:driver:get", authz.identity(c))
    fields = _fields(c)
    name, hosts = _served_driver(c, driver_name)
    return driver_view(c, name, hosts, True, fields)


@router.get(
    "/{driver_name}/properties",
    openapi_extra=doc(
        "getDriverProperties",
        "The driver_info keys the hardware type's default interfaces read, described.",
        "driver",
        ok="Key -> description.",
        returns=bodies.DESCRIPTIONS,
        errors=(403, 404, 406),
    ),
)
def get_driver_properties(request: Request, driver_name: str) -> dict[str, str]:
    c = call(request)
    authz.policy(c).authorize("baremetal:driver:get_properties", authz.identity(c))
    name = _enabled_driver(c, driver_name)
    return driver_properties.driver_properties(c.services.config.default, name)


@router.get(
    "/{driver_name}/raid/logical_disk_properties",
    openapi_extra=doc(
        "getDriverRaidLogicalDiskProperties",
        "What a logical disk of a target RAID configuration takes with the hardware type's "
        "default RAID interface; 404 when that is no-raid.",
        "driver",
        ok="Property -> description.",
        returns=bodies.DESCRIPTIONS,
        errors=(403, 404, 406),
    ),
)
def get_raid_logical_disk_properties(request: Request, driver_name: str) -> dict[str, str]:
    c = call(request)
    rule = "baremetal:driver:get_raid_logical_disk_properties"
    authz.policy(c).authorize(rule, authz.identity(c))
    if not c.version.at_least(mv.RAID_CONFIG):
        raise mv.too_old(
            "/v1/drivers/{driver}/raid/logical_disk_properties", mv.RAID_CONFIG, c.version
        )
    name = _enabled_driver(c, driver_name)
    return driver_properties.logical_disk_properties(c.services.config.default, name)
