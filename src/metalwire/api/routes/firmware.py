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
from metalwire.api.routes.common import Call, call, fields_and_detail
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


def check_query(c: Call) -> None:
    """Ironic's checks of the list's query: only ``fields`` and ``detail``, not both; the
    identity fields from 1.114."""

    def identity_from_its_version(wanted: list[str]) -> None:
        too_new = [name for name in wanted if name in IDENTITY_FIELDS]
        if too_new and not c.version.at_least(mv.FIRMWARE_IDENTITY):
            raise InvalidParameterValue(
                f"Field(s) {', '.join(too_new)} of a firmware component require API version "
                f"1.{mv.FIRMWARE_IDENTITY}."
            )

    known = (*COMPONENT_FIELDS, *IDENTITY_FIELDS)
    fields_and_detail(c, "firmware component", known, identity_from_its_version)


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
