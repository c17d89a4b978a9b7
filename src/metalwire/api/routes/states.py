"""``/v1/nodes/{node}/states`` and ``/maintenance``: provision verbs and maintenance mode."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from metalwire.api.routes import authz
from metalwire.api.routes.common import JsonBody, call
from metalwire.api.views import as_json, links
from metalwire.db import nodes as node_db
from metalwire.errors import InvalidParameterValue, NotAcceptable

router = APIRouter(prefix="/v1/nodes/{ident}")

# Verb -> (conductor verb, first API version that accepts it).
VERBS: dict[str, tuple[str, int]] = {
    "active": ("active", 1),
    "deleted": ("deleted", 1),
    "rebuild": ("rebuild", 1),
    "manage": ("manage", 4),
    "provide": ("provide", 4),
    "clean": ("clean", 15),
    "deploy": ("active", 73),
    "undeploy": ("deleted", 73),
    "unhold": ("unhold", 85),
    "service": ("service", 87),
}


def check_service_steps(body: dict[str, Any]) -> None:
    """``service`` needs its steps, and only it takes them (Ironic's 400s)."""
    steps = body.get("service_steps")
    if body["target"] != "service":
        if steps:
            raise InvalidParameterValue(
                '"service_steps" is only valid when setting target provision state to service'
            )
        return
    if not steps:
        raise InvalidParameterValue(
            '"service_steps" is required when setting target provision state to service'
        )
    if not isinstance(steps, list) or not all(
        isinstance(step, dict)
        and isinstance(step.get("interface"), str)
        and isinstance(step.get("step"), str)
        for step in steps
    ):
        raise InvalidParameterValue(
            "Invalid service_steps: a list of objects, each with an 'interface' and a 'step'."
        )


@router.get("/states")
def get_states(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:get_states", ident)
    with c.services.db.read() as session:
        node = node_db.get(session, ident)
    return {
        "power_state": node.power_state,
        "target_power_state": None,
        "provision_state": node.provision_state,
        "target_provision_state": node.target_provision_state,
        "provision_updated_at": as_json(node.provision_updated_at),
        "last_error": node.last_error,
        "console_enabled": bool(node_db.field_value(node, "console_enabled", False)),
        "raid_config": {},
        "target_raid_config": {},
    }


@router.put("/states/provision", status_code=202)
def set_provision_state(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:set_provision_state", ident)
    if not isinstance(body, dict) or not isinstance(body.get("target"), str):
        raise InvalidParameterValue(
            "The request body must be a JSON object with a 'target' provision verb."
        )
    target = body["target"]
    if target not in VERBS:
        raise InvalidParameterValue(
            f"Invalid provision state target {target!r}; metalwire supports "
            f"{', '.join(sorted(VERBS))}."
        )
    verb, since = VERBS[target]
    if not c.version.at_least(since):
        raise NotAcceptable(f"Provision verb {target!r} requires API version 1.{since}.")
    check_service_steps(body)
    c.services.rpcapi.do_provisioning_action(c.context, ident, verb)
    location = links(c.base, "nodes", f"{ident}/states")[0]["href"]
    return Response(status_code=202, headers={"Location": location})


@router.put("/maintenance", status_code=202)
def set_maintenance(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:set_maintenance", ident)
    reason = body.get("reason") if isinstance(body, dict) else None
    if reason is not None and not isinstance(reason, str):
        raise InvalidParameterValue("Maintenance reason must be a string.")
    c.services.rpcapi.update_node(
        c.context, ident, {"maintenance": True, "maintenance_reason": reason}
    )
    return Response(status_code=202)


@router.delete("/maintenance", status_code=202)
def unset_maintenance(request: Request, ident: str) -> Response:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:clear_maintenance", ident)
    c.services.rpcapi.update_node(c.context, ident, {"maintenance": False})
    return Response(status_code=202)
