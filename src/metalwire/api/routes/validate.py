"""``GET /v1/nodes/{node}/validate`` and ``PUT /v1/nodes/{node}/management/inject_nmi``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from metalwire.api import openapi_bodies as bodies
from metalwire.api.openapi_operations import WRITE
from metalwire.api.route_docs import doc, ref
from metalwire.api.routes import authz
from metalwire.api.routes.common import call

router = APIRouter(prefix="/v1/nodes/{ident}")

INJECT_NMI = 29


@router.get(
    "/validate",
    openapi_extra=doc(
        "validateNode",
        "Validate each of a node's interfaces.",
        "nodes",
        ok="One result per interface.",
        returns=ref("NodeValidation"),
    ),
)
def validate(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:validate", ident)
    return c.services.rpcapi.validate_interfaces(c.context, ident)


@router.put(
    "/management/inject_nmi",
    status_code=204,
    openapi_extra=doc(
        "injectNmi",
        "Inject a non-maskable interrupt; refused by fake-hardware, as in Ironic.",
        "nodes",
        ok="Injected.",
        errors=WRITE,
        body=bodies.ANYTHING,
        body_required=False,
        since=INJECT_NMI,
    ),
)
def inject_nmi(request: Request, ident: str) -> Response:
    c = call(request)
    c.require(INJECT_NMI, by_handler=True)
    authz.node_by_ident(c, "baremetal:node:inject_nmi", ident)
    c.services.rpcapi.inject_nmi(c.context, ident)
    return Response(status_code=204)
