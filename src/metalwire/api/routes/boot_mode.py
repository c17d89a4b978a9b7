"""``PUT /v1/nodes/{node}/states/boot_mode`` and ``/states/secure_boot`` (1.76).

As Ironic 39's handlers: the node and the rule first (404, 403), then the version (below
1.76 the handler answers 404), then the target (400). The conductor refuses a node in a
transient state (409) and records what the management interface refuses
(``conductor/boot_mode.py``); the answer is 202 with the node's states as ``Location``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from metalwire.api import openapi_bodies as bodies
from metalwire.api.openapi_operations import WRITE
from metalwire.api.route_docs import doc
from metalwire.api.routes import authz
from metalwire.api.routes.common import Call, JsonBody, accepted, call
from metalwire.api.validation import boolean
from metalwire.conductor.boot_mode import BOOT_MODES
from metalwire.errors import InvalidParameterValue

router = APIRouter(prefix="/v1/nodes/{ident}/states")

CHANGE_BOOT_MODE = 76


def _node_first(c: Call, rule: str, ident: str) -> None:
    """As Ironic's handlers: the node is looked up (404) and the rule checked (403) before
    the version and the target."""
    authz.node_found(c, rule, ident)
    c.require(CHANGE_BOOT_MODE, by_handler=True)


def _target(body: Any) -> Any:
    if not isinstance(body, dict) or body.get("target") is None:
        raise InvalidParameterValue("The request body must be a JSON object with a 'target'.")
    return body["target"]


def boot_mode_target(body: Any) -> str:
    target = _target(body)
    if target not in BOOT_MODES:
        raise InvalidParameterValue(
            f"Invalid boot mode {target!r} requested; the boot modes are {', '.join(BOOT_MODES)}."
        )
    return str(target)


@router.put(
    "/boot_mode",
    status_code=202,
    openapi_extra=doc(
        "setBootMode",
        "Change a node's boot mode; a management interface that cannot (fake-hardware's, "
        "ipmitool) records its refusal in the node's last_error and history, as Ironic 39 "
        "does after answering.",
        "nodes",
        ok="Accepted.",
        errors=WRITE,
        body=bodies.BOOT_MODE_TARGET,
        headers=bodies.STATES_LOCATION,
        since=CHANGE_BOOT_MODE,
    ),
)
def set_boot_mode(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = call(request)
    _node_first(c, "baremetal:node:set_boot_mode", ident)
    mode = boot_mode_target(body)
    c.services.rpcapi.change_boot_mode(c.context, ident, mode)
    return accepted(c, ident)


@router.put(
    "/secure_boot",
    status_code=202,
    openapi_extra=doc(
        "setSecureBoot",
        "Turn a node's secure boot on or off; refusals as for the boot mode.",
        "nodes",
        ok="Accepted.",
        errors=WRITE,
        body=bodies.SECURE_BOOT_TARGET,
        headers=bodies.STATES_LOCATION,
        since=CHANGE_BOOT_MODE,
    ),
)
def set_secure_boot(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = call(request)
    _node_first(c, "baremetal:node:set_secure_boot", ident)
    enabled = boolean(_target(body), "target")
    c.services.rpcapi.change_secure_boot(c.context, ident, enabled)
    return accepted(c, ident)
