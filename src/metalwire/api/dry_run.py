"""The dry-run attach: ``POST /v1/nodes/{node}/vifs`` with ``X-Metalwire-Dry-Run: true``.

Opt-in by a header no OpenStack client sends, so Ironic's API is unchanged for them. The
answer is 200 with where the VIF would go and, for every other port and portgroup of the
node, why not (:func:`document`); the fields are described in ``docs/api-ref/vifs.md``.
"""

from __future__ import annotations

from typing import Any

from starlette.types import Scope

from metalwire.conductor.dry_run import DryRunAttach
from metalwire.db.models import Port, Portgroup
from metalwire.errors import InvalidParameterValue
from metalwire.networking.selection import Placement, describe, portgroup_physnet
from metalwire.networking.task import Task
from metalwire.networking.tbn.targets import Choice, NewDynamicPortgroup, TbnChoice

HEADER = "X-Metalwire-Dry-Run"
_HEADER_KEY = HEADER.lower().encode()


def requested(scope: Scope) -> bool:
    """Whether the request asks for a dry run; 400 naming the header for a value not
    ``true`` or ``false``."""
    for key, value in scope["headers"]:
        if key == _HEADER_KEY:
            text = str(value.decode("latin-1")).strip().lower()
            if text in ("true", "false"):
                return text == "true"
            raise InvalidParameterValue(
                f"Invalid {HEADER} header {value.decode('latin-1')!r}: expected true or false."
            )
    return False


def _target(task: Task, target: Port | Portgroup) -> dict[str, Any]:
    if isinstance(target, Portgroup):
        return {
            "type": "portgroup",
            "uuid": target.uuid,
            "name": target.name,
            "address": target.address,
            "physical_network": portgroup_physnet(task, target),
            "ports": [port.uuid for port in sorted(task.members(target), key=lambda p: p.id)],
        }
    group = task.portgroup_by_id(target.portgroup_id)
    return {
        "type": "port",
        "uuid": target.uuid,
        "address": target.address,
        "physical_network": target.physical_network,
        "pxe_enabled": target.pxe_enabled,
        "portgroup_uuid": group.uuid if group is not None else None,
    }


def _tbn_target(task: Task, choice: Choice) -> dict[str, Any]:
    if not isinstance(choice, NewDynamicPortgroup):
        return _target(task, choice)
    return {
        "type": "dynamic_portgroup",
        "uuid": None,  # made, with a generated name, when the attach builds it
        "name": None,
        "address": None,
        "physical_network": choice.physical_network,
        "ports": [port.uuid for port in choice.members],
    }


def _tbn_document(result: DryRunAttach, tbn: TbnChoice) -> dict[str, Any]:
    """With trait-based networking the plan decides: the trait applied, each action tried
    with the ports it matched and why the others did not, and the target it carries out."""
    error = tbn.error
    return {
        "chooses_target": True,
        "target": None if tbn.target is None else _tbn_target(result.task, tbn.target),
        "error": None
        if error is None
        else {"code": error.code, "type": type(error).__name__, "message": str(error)},
        "refused": [],
        "trait_based_networking": tbn.plan.as_dict(),
    }


def document(result: DryRunAttach) -> dict[str, Any]:
    """The answer's body."""
    head = {
        "dry_run": True,
        "node_uuid": result.node.uuid,
        "vif_id": result.vif_id,
        "network_interface": result.network_interface,
        "physical_networks": sorted(result.physical_networks),
        "switch_changes": None
        if result.switch_changes is None
        else [switch.as_json() for switch in result.switch_changes],
    }
    if result.tbn is not None and not result.tbn.places_nothing:
        return {**head, **_tbn_document(result, result.tbn)}
    task = result.task
    placement = result.placement
    if placement is None:  # e.g. noop: the attach succeeds and records no target
        placement = Placement(None, [])
    error = placement.error
    refused = []
    for target, refusal in placement.refused:
        entry = _target(task, target)
        entry["reason"] = refusal.code
        entry["message"] = f"{describe(target)} {refusal.text}"
        entry["vif"] = refusal.vif
        refused.append(entry)
    return {
        **head,
        "chooses_target": result.placement is not None,
        "target": None if placement.chosen is None else _target(task, placement.chosen),
        "error": None
        if error is None
        else {"code": error.code, "type": type(error).__name__, "message": str(error)},
        "refused": refused,
        # A plan that placed nothing without refusing: the target is the ordinary choice.
        "trait_based_networking": None if result.tbn is None else result.tbn.plan.as_dict(),
    }
