"""``/v1/nodes/{node}/vmedia``: attach (1.89), detach (1.89) and list (1.93) virtual media.

The request is checked as Ironic 39 checks it, before the node is looked up; what the
node's management interface makes of it is the conductor's (``conductor/vmedia.py``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request, Response

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api.openapi_operations import WRITE, query
from metalwire.api.route_docs import doc, ref
from metalwire.api.routes import authz
from metalwire.api.routes.common import JsonBody, call, request_fields
from metalwire.conductor.vmedia import DEVICES
from metalwire.errors import InvalidParameterValue

router = APIRouter(prefix="/v1/nodes/{ident}/vmedia")

#: How Ironic would serve the image to the BMC: from where it is, or from its own server.
DOWNLOAD_SOURCES = ("http", "local", "swift")
#: The image URL schemes Ironic takes for virtual media.
URL_SCHEMES = ("http", "https", "nfs", "cifs", "smb")
_ATTACH_KEYS = ("device_type", "image_url", "image_download_source")


def _choice(body: dict[str, Any], key: str, allowed: tuple[str, ...]) -> str:
    value = body[key]
    if not isinstance(value, str) or value not in allowed:
        raise InvalidParameterValue(
            f"Invalid {key} {value!r}: expected one of {', '.join(allowed)}."
        )
    return value


def _image_url(body: dict[str, Any]) -> str:
    value = body["image_url"]
    if not isinstance(value, str):
        raise InvalidParameterValue(f"Invalid image_url {value!r}: expected a URL.")
    scheme = urlsplit(value).scheme
    if scheme not in URL_SCHEMES:
        raise InvalidParameterValue(
            f"Unsupported or missing URL scheme {scheme!r} in image_url: expected one of "
            f"{', '.join(URL_SCHEMES)}."
        )
    return value


def attach_request(body: Any) -> tuple[str, str, str]:
    """``device_type``, ``image_url`` and ``image_download_source`` of an attach body."""
    body = request_fields(body, "a virtual media attachment", _ATTACH_KEYS[:2], _ATTACH_KEYS[2:])
    device_type = _choice(body, "device_type", DEVICES)
    image_url = _image_url(body)
    source = _choice(
        {"image_download_source": "local", **body}, "image_download_source", DOWNLOAD_SOURCES
    )
    return device_type, image_url, source


def detach_request(request: Request) -> list[str] | None:
    """The ``device_types`` a detach names (comma-separated), or None for all."""
    params = request.query_params
    unknown = sorted(set(params) - {"device_types"})
    if unknown:
        raise InvalidParameterValue(
            f"Unknown query parameter(s) {', '.join(unknown)}; a detach takes device_types."
        )
    raw = params.get("device_types")
    if raw is None:
        return None
    named = [item.strip() for item in raw.split(",") if item.strip()]
    invalid = [item for item in named if item not in DEVICES]
    if invalid:
        raise InvalidParameterValue(
            f"Invalid device type(s) {', '.join(invalid)} (valid are {', '.join(DEVICES)})."
        )
    return named or None


@router.post(
    "",
    status_code=204,
    openapi_extra=doc(
        "attachVirtualMedia",
        "Attach an image as a node's virtual CD, disk or floppy; a management interface "
        "without virtual media (fake-hardware's) records its refusal in the node's history "
        "and last_error, as Ironic 39 does.",
        "nodes",
        ok="Done, or its refusal recorded.",
        errors=WRITE,
        body=bodies.VMEDIA_ATTACH,
        since=mv.VMEDIA,
    ),
)
def attach(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = call(request)
    c.require(mv.VMEDIA)
    device_type, image_url, source = attach_request(body)
    authz.node_by_ident(c, "baremetal:node:vmedia:attach", ident)
    c.services.rpcapi.attach_virtual_media(c.context, ident, device_type, image_url, source)
    return Response(status_code=204)


@router.delete(
    "",
    status_code=204,
    openapi_extra=doc(
        "detachVirtualMedia",
        "Detach a node's virtual media, all or those named; refusals as for the attach.",
        "nodes",
        ok="Done, or its refusal recorded.",
        errors=WRITE,
        query=(
            query(
                "device_types",
                {"type": "string"},
                f"Comma-separated, of {', '.join(DEVICES)}; all when not given.",
            ),
        ),
        since=mv.VMEDIA,
    ),
)
def detach(request: Request, ident: str) -> Response:
    c = call(request)
    c.require(mv.VMEDIA)
    device_types = detach_request(request)
    authz.node_by_ident(c, "baremetal:node:vmedia:detach", ident)
    c.services.rpcapi.detach_virtual_media(c.context, ident, device_types)
    return Response(status_code=204)


@router.get(
    "",
    openapi_extra=doc(
        "getVirtualMedia",
        "A node's virtual media devices; 400 for a management interface without virtual "
        "media (fake-hardware's), as in Ironic 39.",
        "nodes",
        ok="The devices.",
        returns=ref("VirtualMediaList"),
        since=mv.VMEDIA_GET,
    ),
)
def get_virtual_media(request: Request, ident: str) -> list[dict[str, Any]]:
    c = call(request)
    c.require(mv.VMEDIA)
    c.require(mv.VMEDIA_GET, by_handler=True)  # from 1.89 the path is there, as in Ironic
    authz.node_by_ident(c, "baremetal:node:vmedia:get", ident)
    return c.services.rpcapi.get_virtual_media(c.context, ident)
