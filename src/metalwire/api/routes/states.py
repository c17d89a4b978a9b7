"""``/v1/nodes/{node}/states`` and ``/maintenance``: provision verbs and maintenance mode."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api.fields import NODE_FIELDS
from metalwire.api.openapi_operations import WRITE
from metalwire.api.route_docs import doc, ref
from metalwire.api.routes import authz
from metalwire.api.routes.common import Call, JsonBody, accepted, body_target, call
from metalwire.api.routes.runbooks import with_runbook_steps
from metalwire.api.steps import DEPLOY_STEPS_SINCE, check_steps, own_steps
from metalwire.api.validation import boolean
from metalwire.api.views import as_json, shown_provision_state
from metalwire.conductor.provision_states import DEPLOY_WAIT, INSPECT_WAIT, ProvisionOptions
from metalwire.conductor.steps import STEP_INTERFACES
from metalwire.db import nodes as node_db
from metalwire.errors import InvalidParameterValue, NotAcceptable

router = APIRouter(prefix="/v1/nodes/{ident}")
# fields of GET /states shown, as Ironic, from the version the node shows them at
_VERSIONED_STATES = {
    f.name: f.since
    for f in NODE_FIELDS
    if f.name in ("raid_config", "target_raid_config", "boot_mode", "secure_boot")
}

CONFIGDRIVE_ON_REBUILD = 35
CONFIGDRIVE_AS_JSON = 56
# disable_ramdisk: taken by clean from 1.70 and by service from 1.108, by no other verb
DISABLE_RAMDISK_SINCE = {"clean": 70, "service": 108}

# Verb -> (conductor verb, first API version that accepts it).
VERBS: dict[str, tuple[str, int]] = {
    "active": ("active", 1),
    "deleted": ("deleted", 1),
    "rebuild": ("rebuild", 1),
    "manage": ("manage", 4),
    "provide": ("provide", 4),
    "inspect": ("inspect", 6),
    "clean": ("clean", 15),
    "rescue": ("rescue", 38),
    "unrescue": ("unrescue", 38),
    "deploy": ("active", 73),
    "undeploy": ("deleted", 73),
    "unhold": ("unhold", 85),
    "service": ("service", 87),
    "abort": ("abort", 13),
}
#: Ironic's abort of a deploy waiting in ``wait call-back`` (406 below it).
DEPLOY_WAIT_ABORT = 110
#: Ironic's abort of an inspection waiting in ``inspect wait`` (406 below it).
INSPECT_WAIT_ABORT = 41
#: The wait states an abort leaves only from a version on: what waits there, and the version.
_ABORT_SINCE = {
    DEPLOY_WAIT: ("a deploy", DEPLOY_WAIT_ABORT),
    INSPECT_WAIT: ("an inspection", INSPECT_WAIT_ABORT),
}


def provision_rules(body: Any) -> list[str]:
    """As Ironic: a provision state change that gives steps to run also needs their rule,
    checked before the body is."""
    rules = ["baremetal:node:set_provision_state"]
    if isinstance(body, dict) and not body.get("runbook"):  # a runbook's steps: its own rule
        rules += [
            f"baremetal:node:set_provision_state:{steps}"
            for steps in ("clean_steps", "service_steps")
            if body.get(steps)
        ]
    return rules


def check_disable_ramdisk(c: Call, target: str, value: Any) -> bool:
    """``disable_ramdisk`` is a boolean (400), taken by clean from 1.70 and service from 1.108
    (406 below, Ironic's message) and by no other verb (400), as Ironic 39 answers; its value.

    The fake clean and service steps boot no ramdisk either way; the conductor refuses the
    steps that need one or that only one would report, and a cleaning then sets up no
    cleaning network (``conductor/steps.py``). Both keep it in driver_internal_info while
    the verb's steps run (``service_disable_ramdisk``, ``cleaning_disable_ramdisk``);
    metalwire's service steps touch no network either way."""
    if value is None:
        return False
    disabled = boolean(value, "disable_ramdisk")
    since = DISABLE_RAMDISK_SINCE.get(target)
    if since is None:
        raise InvalidParameterValue(
            "disable_ramdisk is supported only with manual cleaning or servicing"
        )
    if not c.version.at_least(since):
        raise NotAcceptable("disable_ramdisk is not acceptable in this API version")
    return disabled


@router.get(
    "/states",
    openapi_extra=doc(
        "getNodeStates",
        "A node's power and provision states.",
        "nodes",
        ok="The states.",
        returns=ref("States"),
    ),
)
def get_states(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:get_states", ident)
    with c.services.db.read() as session:
        node = node_db.get(session, ident)
    states: dict[str, Any] = {
        "power_state": node.power_state,
        "target_power_state": node_db.field_value(node, "target_power_state"),
        "provision_state": shown_provision_state(node, c.version),
        "target_provision_state": node.target_provision_state,
        "provision_updated_at": as_json(node.provision_updated_at),
        "last_error": node.last_error,
        "console_enabled": bool(node_db.field_value(node, "console_enabled", False)),
        "raid_config": node_db.field_value(node, "raid_config") or {},
        "target_raid_config": node_db.field_value(node, "target_raid_config") or {},
        "boot_mode": node_db.field_value(node, "boot_mode"),
        "secure_boot": node_db.field_value(node, "secure_boot"),
    }
    return {k: v for k, v in states.items() if c.version.at_least(_VERSIONED_STATES.get(k, 1))}


@router.put(
    "/states/raid",
    status_code=204,
    openapi_extra=doc(
        "setTargetRaidConfig",
        "Set a node's target RAID configuration; an empty object clears it.",
        "nodes",
        ok="Recorded.",
        errors=WRITE,
        body=bodies.ANYTHING,
        body_required=False,
        since=mv.RAID_CONFIG,
    ),
)
def set_target_raid_config(request: Request, ident: str, body: JsonBody = None) -> Response:
    """As Ironic: the node first (404), then the version (406), then the body (400)."""
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:set_raid_state", ident)
    if not c.version.at_least(mv.RAID_CONFIG):
        with c.services.db.read() as session:
            node_db.get(session, ident)  # NodeNotFound before the version, as Ironic
        raise mv.too_old("/v1/nodes/{node}/states/raid", mv.RAID_CONFIG, c.version)
    config = {} if body is None else body
    if not isinstance(config, dict):
        raise InvalidParameterValue(
            f"Invalid target_raid_config: expected an object, got {type(config).__name__}."
        )
    c.services.rpcapi.set_target_raid_config(c.context, ident, config)
    return Response(status_code=204)


@router.put(
    "/states/provision",
    status_code=202,
    openapi_extra=doc(
        "setProvisionState",
        "Move a node through the provision state machine.",
        "nodes",
        ok="Accepted.",
        errors=WRITE,
        body=bodies.provision_target(VERBS, STEP_INTERFACES),
        headers=bodies.STATES_LOCATION,
    ),
)
def set_provision_state(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = call(request)
    authz.node_by_ident(c, provision_rules(body), ident)
    target = body_target(body, "provision verb")
    if target not in VERBS:
        raise InvalidParameterValue(
            f"Invalid provision state target {target!r}; metalwire supports "
            f"{', '.join(sorted(VERBS))}."
        )
    verb, since = VERBS[target]
    if not c.version.at_least(since):
        raise mv.too_old(f"Provision verb {target!r}", since, c.version)
    disable_ramdisk_asked = body.get("disable_ramdisk")
    if body.get("runbook"):
        use = with_runbook_steps(c, ident, verb, body)
        body, disable_ramdisk_asked = use.body, use.disable_ramdisk
    disable_ramdisk = check_disable_ramdisk(c, target, disable_ramdisk_asked)
    check_steps(body, verb, c.version.at_least(DEPLOY_STEPS_SINCE))
    if verb == "abort":
        _check_abort_version(c, ident)
    options = ProvisionOptions(
        configdrive=_configdrive(c, verb, body.get("configdrive")),
        rescue_password=_rescue_password(verb, body.get("rescue_password")),
        steps=tuple(own_steps(body, verb)),
        disable_ramdisk=disable_ramdisk,
    )
    c.services.rpcapi.do_provisioning_action(c.context, ident, verb, options)
    return accepted(c, ident)


def _check_abort_version(c: Call, ident: str) -> None:
    with c.services.db.read() as session:
        state = node_db.get(session, ident).provision_state
    if state not in _ABORT_SINCE:
        return
    what, since = _ABORT_SINCE[state]
    if not c.version.at_least(since):
        raise mv.too_old(f"Aborting {what} in '{state}'", since, c.version)


def _configdrive(c: Call, verb: str, value: Any) -> str | dict[str, Any] | None:
    """The request's configdrive, refused where Ironic refuses it (400)."""
    if not value:
        return None
    allowed = ["active", "rebuild"] if c.version.at_least(CONFIGDRIVE_ON_REBUILD) else ["active"]
    if verb not in allowed:
        raise InvalidParameterValue(
            "Adding a config drive is only supported when setting provision state to "
            f"{', '.join(allowed)}."
        )
    if isinstance(value, dict):
        if not c.version.at_least(CONFIGDRIVE_AS_JSON):
            raise InvalidParameterValue(
                "Providing a JSON object for configdrive is only supported starting with "
                f"API version 1.{CONFIGDRIVE_AS_JSON}."
            )
        unknown = sorted(set(value) - {"meta_data", "network_data", "user_data", "vendor_data"})
        if unknown:
            raise InvalidParameterValue(
                f"Invalid configdrive format: unknown key(s) {', '.join(unknown)}; a configdrive "
                "object holds meta_data, network_data, user_data and vendor_data."
            )
        return value
    if not isinstance(value, str):
        raise InvalidParameterValue(
            "Invalid configdrive format: expected a gzipped, base64-encoded image, a URL or "
            "a JSON object."
        )
    return value


def _rescue_password(verb: str, value: Any) -> str | None:
    if value is not None and verb != "rescue":
        raise InvalidParameterValue(
            '"rescue_password" is only valid when setting target provision state to rescue'
        )
    if verb == "rescue" and not (isinstance(value, str) and value.strip()):
        raise InvalidParameterValue(
            'A non-empty "rescue_password" is required when setting target provision state '
            "to rescue"
        )
    return value if isinstance(value, str) else None


@router.put(
    "/maintenance",
    status_code=202,
    openapi_extra=doc(
        "setMaintenance",
        "Put a node in maintenance.",
        "nodes",
        ok="Accepted.",
        errors=WRITE,
        body=bodies.MAINTENANCE_REASON,
        body_required=False,
    ),
)
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


@router.delete(
    "/maintenance",
    status_code=202,
    openapi_extra=doc(
        "unsetMaintenance", "Take a node out of maintenance.", "nodes", ok="Accepted.", errors=WRITE
    ),
)
def unset_maintenance(request: Request, ident: str) -> Response:
    c = call(request)
    authz.node_by_ident(c, "baremetal:node:clear_maintenance", ident)
    c.services.rpcapi.update_node(c.context, ident, {"maintenance": False})
    return Response(status_code=202)
