"""Version discovery: ``GET /`` and ``GET /v1/``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api.fields import VOLUME
from metalwire.api.route_docs import doc
from metalwire.api.routes.common import call

router = APIRouter()

DESCRIPTION = (
    "metalwire wires bare-metal machines to networks: nodes, ports, portgroups and VIFs "
    "through the Bare Metal v1 API."
)

# The v1 API is Ironic's; its web API description is the one this document points to.
DESCRIBED_BY = {
    "href": "https://docs.openstack.org/ironic/latest/contributor/webapi.html",
    "rel": "describedby",
    "type": "text/html",
}


def _version(base: str) -> dict[str, Any]:
    return {
        "id": "v1",
        "links": [{"href": f"{base}/v1/", "rel": "self"}],
        "status": "CURRENT",
        "min_version": str(mv.MIN_VERSION),
        "version": str(mv.MAX_VERSION),
    }


_VERSIONS = "The API versions served."
_V1 = doc(
    "discoverV1",
    "The v1 API's resources.",
    "root",
    ok="The v1 API's resources.",
    returns=bodies.V1,
    errors=(406,),
)


@router.get(
    "/",
    openapi_extra=doc(
        "discoverVersions", _VERSIONS, "root", ok=_VERSIONS, returns=bodies.DISCOVERY, errors=(406,)
    ),
)
def discover(request: Request) -> dict[str, Any]:
    base = call(request).base
    return {
        "name": "metalwire",
        "description": DESCRIPTION,
        "default_version": _version(base),
        "versions": [_version(base)],
    }


@router.get("/v1", openapi_extra=_V1)
@router.get("/v1/", openapi_extra=_V1)
def discover_v1(request: Request) -> dict[str, Any]:
    c = call(request)
    base = c.base

    def resource(name: str) -> list[dict[str, str]]:
        return [
            {"href": f"{base}/v1/{name}/", "rel": "self"},
            {"href": f"{base}/{name}/", "rel": "bookmark"},
        ]

    body: dict[str, Any] = {
        "id": "v1",
        "links": [{"href": f"{base}/v1/", "rel": "self"}, DESCRIBED_BY],
        "media_types": {
            "base": "application/json",
            "type": "application/vnd.openstack.ironic.v1+json",
        },
        "chassis": resource("chassis"),
        "nodes": resource("nodes"),
        "ports": resource("ports"),
        "version": _version(base),
    }
    if c.version.at_least(mv.PORTGROUPS):
        body["portgroups"] = resource("portgroups")
    if c.version.at_least(VOLUME):
        body["volume"] = resource("volume")
    if c.version.at_least(mv.CONDUCTORS):
        body["conductors"] = resource("conductors")
    if c.version.at_least(mv.DEPLOY_TEMPLATES):
        body["deploy_templates"] = resource("deploy_templates")
    if c.version.at_least(mv.ALLOCATIONS):
        body["allocations"] = resource("allocations")
    if c.version.at_least(mv.EVENTS):
        body["events"] = resource("events")
    if c.version.at_least(mv.NODE_SHARD):
        body["shards"] = resource("shards")
    if c.version.at_least(mv.CONTINUE_INSPECTION):
        body["continue_inspection"] = resource("continue_inspection")
    if c.version.at_least(mv.RUNBOOKS):
        body["runbooks"] = resource("runbooks")
    return body
