"""``GET /v1/nodes/{node}/firmware``: a node's firmware components (from API version 1.86).

Ironic lists the components its firmware interface read from the node's BMC and recorded;
only the ``redfish`` firmware interface reads any, ``fake`` and ``no-firmware`` none.
metalwire drives no BMC, so the list is empty for every node, as Ironic 39's is for a
``fake-hardware`` node. The query is checked as Ironic checks it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from metalwire.api import microversion as mv
from metalwire.api.openapi_operations import query
from metalwire.api.route_docs import doc, ref
from metalwire.api.routes import authz
from metalwire.api.routes.common import Call, call, flag
from metalwire.db import nodes as node_db
from metalwire.errors import InvalidParameterValue

router = APIRouter(prefix="/v1/nodes/{ident}/firmware")

COMPONENT_FIELDS = (
    "created_at",
    "updated_at",
    "component",
    "initial_version",
    "current_version",
    "last_version_flashed",
)
#: a component's identity, shown from 1.114
IDENTITY_FIELDS = ("vendor", "model", "serial_number")
QUERY = (
    query(
        "fields",
        {"type": "string"},
        "Comma-separated fields to show: "
        + ", ".join((*COMPONENT_FIELDS, *IDENTITY_FIELDS))
        + f" (the last three from 1.{mv.FIRMWARE_IDENTITY}).",
    ),
    query("detail", {"type": "boolean"}, "Show every field."),
)


def _check_fields(c: Call, raw: str) -> None:
    wanted = [name.strip() for name in raw.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in (*COMPONENT_FIELDS, *IDENTITY_FIELDS)]
    if unknown:
        raise InvalidParameterValue(
            f"Unknown firmware component field(s) {', '.join(unknown)}; the fields are "
            f"{', '.join((*COMPONENT_FIELDS, *IDENTITY_FIELDS))}."
        )
    too_new = [name for name in wanted if name in IDENTITY_FIELDS]
    if too_new and not c.version.at_least(mv.FIRMWARE_IDENTITY):
        raise InvalidParameterValue(
            f"Field(s) {', '.join(too_new)} of a firmware component require API version "
            f"1.{mv.FIRMWARE_IDENTITY}."
        )


def check_query(c: Call) -> None:
    """Ironic's checks of the list's query: only ``fields`` and ``detail``, not both."""
    params = c.request.query_params
    unknown = sorted(set(params) - {"fields", "detail"})
    if unknown:
        raise InvalidParameterValue(
            f"Unknown query parameter(s) {', '.join(unknown)}; this list takes detail, fields."
        )
    detail = flag(params.get("detail"), "detail")
    fields = params.get("fields")
    if fields is not None:
        _check_fields(c, fields)
        if detail:
            raise InvalidParameterValue("Cannot use both the fields and detail query parameters.")


@router.get(
    "",
    openapi_extra=doc(
        "listNodeFirmware",
        "A node's firmware components; always none, as for Ironic's fake-hardware.",
        "nodes",
        ok="The components.",
        returns=ref("FirmwareComponentList"),
        query=QUERY,
        since=mv.FIRMWARE_COMPONENTS,
    ),
)
def list_firmware(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    c.require(mv.FIRMWARE_COMPONENTS)
    check_query(c)
    with c.services.db.read() as session:
        node = node_db.get(session, ident)
        authz.node(c, "baremetal:node:firmware:get", node, ident)
    return {"firmware": []}
