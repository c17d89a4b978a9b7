"""``GET /v1/nodes/{node}/bios`` and ``/bios/{setting}``: a node's BIOS settings (1.40;
``fields`` and ``detail`` from 1.74).

Ironic lists the settings its BIOS interface cached from the node: Redfish reads them from
the BMC, the fake interface stores only what its ``apply_configuration`` clean step is given,
which metalwire does not run. metalwire drives no BMC and caches no settings, so every node
lists none, as Ironic 39 answers for a ``fake-hardware`` node, and a setting is 404. The
query is checked as Ironic checks it, before the node is looked up.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request

from metalwire.api import microversion as mv
from metalwire.api.openapi_operations import query
from metalwire.api.route_docs import doc, ref
from metalwire.api.routes import authz
from metalwire.api.routes.common import Call, call, fields_and_detail
from metalwire.errors import InvalidParameterValue, NotFound

router = APIRouter(prefix="/v1/nodes/{ident}/bios")

BIOS_REGISTRY = 74  # fields and detail, and the registry's fields of a setting

#: The fields a setting shows, and those ``?fields=`` may name (1.74).
SETTING_FIELDS = (
    "allowable_values",
    "attribute_type",
    "created_at",
    "links",
    "lower_bound",
    "max_length",
    "min_length",
    "name",
    "node_uuid",
    "read_only",
    "reset_required",
    "unique",
    "updated_at",
    "upper_bound",
    "value",
)
_SETTING_NAME = re.compile(r"^[A-Za-z0-9._~-]{1,255}$")


def _no_query(c: Call, what: str) -> None:
    unknown = sorted(c.request.query_params)
    if unknown:
        raise InvalidParameterValue(
            f"Unknown query parameter(s) {', '.join(unknown)}; {what} takes none."
        )


def check_list_query(c: Call) -> None:
    """Below 1.74 the list takes no query parameter; from 1.74 ``fields`` and ``detail``."""
    if not c.version.at_least(BIOS_REGISTRY):
        _no_query(
            c, f"the BIOS settings list at API version {c.version} (fields and detail from 1.74)"
        )
        return
    fields_and_detail(c, "BIOS setting", SETTING_FIELDS)


@router.get(
    "",
    openapi_extra=doc(
        "listNodeBiosSettings",
        "A node's BIOS settings; always none, as for Ironic's fake-hardware.",
        "nodes",
        ok="The settings.",
        returns=ref("BiosSettingList"),
        query=(
            query(
                "fields",
                {"type": "string"},
                f"Comma-separated fields to show (1.74): {', '.join(SETTING_FIELDS)}.",
            ),
            query("detail", {"type": "boolean"}, "Show every field (1.74)."),
        ),
        since=mv.BIOS,
    ),
)
def list_bios_settings(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    c.require(mv.BIOS)
    check_list_query(c)
    authz.node_found(c, "baremetal:node:bios:get", ident)
    return {"bios": []}


@router.get(
    "/{setting}",
    openapi_extra=doc(
        "getNodeBiosSetting",
        "One of a node's BIOS settings; metalwire caches none, so 404.",
        "nodes",
        ok="The setting, by its name.",
        returns=ref("BiosSettingByName"),
        since=mv.BIOS,
    ),
)
def get_bios_setting(request: Request, ident: str, setting: str) -> dict[str, Any]:
    c = call(request)
    c.require(mv.BIOS)
    if not _SETTING_NAME.match(setting):
        raise InvalidParameterValue(
            f"Invalid BIOS setting name {setting!r}: letters, digits and . _ ~ - only, at most 255."
        )
    _no_query(c, "a BIOS setting")
    node = authz.node_found(c, "baremetal:node:bios:get", ident)
    raise NotFound(f"Node {node.uuid} has no BIOS setting '{setting}'.")
