"""The OpenAPI 3.1 description of the API, served at ``/openapi.json``.

Its paths are built from the declarations each route carries (:mod:`metalwire.api.route_docs`)
rather than by FastAPI: request bodies are read through ``JsonBody`` and the VIF endpoints
bypass the router, so the framework would see neither. Its schemas come from the field tables
(:mod:`metalwire.api.openapi_schemas`). ``tests/api/test_openapi.py`` checks that the served
document equals ``docs/api-ref/openapi.json``; regenerate that file with
``python -m metalwire.api.openapi docs/api-ref/openapi.json``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.routing import BaseRoute

from metalwire import __version__
from metalwire.api import openapi_bodies as bodies
from metalwire.api import openapi_schemas as s
from metalwire.api import route_docs
from metalwire.api.routes import vifs
from metalwire.api.routes.volume import RESOURCES

router = APIRouter()


def _volume_and_lifecycle_schemas() -> dict[str, s.Schema]:
    """The component schemas the field tables of nodes, ports and portgroups leave out."""
    out: dict[str, s.Schema] = {
        "NodeValidation": bodies.VALIDATION,
        "NodeConsole": bodies.CONSOLE,
        "FirmwareComponent": bodies.FIRMWARE_COMPONENT,
        "FirmwareComponentList": s.collection("firmware", "FirmwareComponent"),
        "VirtualMedia": bodies.VIRTUAL_MEDIA,
        "VirtualMediaList": {"type": "array", "items": s.ref("schemas", "VirtualMedia")},
        "BiosSetting": bodies.BIOS_SETTING,
        "BiosSettingList": s.collection("bios", "BiosSetting"),
        "BiosSettingByName": {
            "type": "object",
            "additionalProperties": s.ref("schemas", "BiosSetting"),
        },
        "BootDevice": bodies.BOOT_DEVICE,
        "Indicator": bodies.INDICATOR,
        "IndicatorList": s.collection("indicators", "Indicator"),
        "SupportedBootDevices": bodies.SUPPORTED_BOOT_DEVICES,
    }
    for r in RESOURCES:
        out[r.schema] = s.resource(r.fields, ())
        out[f"{r.schema}Create"] = s.create_body(r.fields, r.kind.model.__table__, list(r.required))
        out[f"{r.schema}List"] = s.collection(r.name, r.schema)
    return out


def document(routes: Iterable[BaseRoute]) -> dict[str, Any]:
    """The whole OpenAPI document of an application with these routes."""
    components = s.components()
    components["schemas"].update(_volume_and_lifecycle_schemas())
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "metalwire",
            "version": __version__,
            "summary": "The OpenStack Bare Metal (Ironic) v1 API subset for nodes, ports, "
            "portgroups, VIFs, volume connectors and targets, and the node lifecycle Nova drives.",
            "description": "Microversions are chosen per request with the "
            "X-OpenStack-Ironic-API-Version or OpenStack-API-Version header; each response "
            "names the version served and the range. Fields and operations newer than the "
            "request's version do not exist for it.",
        },
        "servers": [{"url": "/"}],
        "paths": route_docs.paths(routes, vifs.DOORS),
        "components": components,
    }


def document_bytes(routes: Iterable[BaseRoute]) -> bytes:
    """The document as served and committed: sorted keys, two-space indent, final newline."""
    return (json.dumps(document(routes), indent=2, sort_keys=True) + "\n").encode()


@router.get(
    "/openapi.json",
    openapi_extra=route_docs.doc(
        "getOpenApi",
        "This document.",
        "root",
        ok="This document.",
        returns={"type": "object"},
        errors=(406,),
    ),
)
def openapijson_content(request: Request) -> Response:
    state = request.app.state
    if getattr(state, "openapi", None) is None:  # built once per application
        state.openapi = document_bytes(request.app.routes)
    return Response(state.openapi, media_type="application/json")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m metalwire.api.openapi [PATH]``: write the document to PATH or stdout."""
    from metalwire.api.route_table import api_routes  # which imports this module's router

    args = list(sys.argv[1:] if argv is None else argv)
    text = document_bytes(api_routes())
    if args:
        Path(args[0]).write_bytes(text)
    else:
        sys.stdout.buffer.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
