"""The handlers' side of the policy: who asks, and the checks of nodes, ports and portgroups.

Each function is free when the policy is off (noauth, or http_basic without personas): no
rule is evaluated and no extra row is read.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from typing import Any

from sqlalchemy.orm import Session

from metalwire.api.auth.identity import ADMIN, Identity, from_scope
from metalwire.api.auth.policy import FieldMasks, Policy, node_target
from metalwire.api.jsonpatch import operations_at
from metalwire.api.routes.common import Call
from metalwire.db import nodes as node_db
from metalwire.db.models import Node, Port, Portgroup, VolumeConnector, VolumeTarget
from metalwire.errors import (
    Invalid,
    InvalidParameterValue,
    InvalidState,
    NodeNotFound,
    PortgroupNotFound,
    PortNotFound,
)

LOG = logging.getLogger(__name__)

#: What belongs to one node and may be moved to another by a PATCH of ``node_uuid``.
OnNode = Port | Portgroup | VolumeConnector | VolumeTarget


def policy(c: Call) -> Policy:
    found: Policy = c.request.app.state.policy
    return found


def identity(c: Call) -> Identity:
    return from_scope(c.request.scope) or ADMIN


def node(c: Call, rules: str | Iterable[str], found: Node, ident: str) -> None:
    """The node must be visible (else 404 for ``ident``), then each of ``rules`` (else 403)."""
    policy(c).authorize_node(rules, identity(c), found.owner, found.lessee, NodeNotFound(ident))


def node_found(c: Call, rules: str | Iterable[str], ident: str) -> Node:
    """As :func:`node`, reading the node whether the policy is on or not: for a handler
    whose later checks Ironic makes only once the node is found (404 first)."""
    with c.services.db.read() as session:
        found = node_db.get(session, ident)
    node(c, rules, found, ident)
    return found


def node_by_ident(c: Call, rules: str | Iterable[str], ident: str) -> None:
    """As :func:`node`, for a handler that has not read the node (read only when needed)."""
    p = policy(c)
    if p.enabled:
        with c.services.db.read() as session:
            owner, lessee = node_db.projects(session, ident)
        p.authorize_node(rules, identity(c), owner, lessee, NodeNotFound(ident))


def delete_node(c: Call, ident: str) -> None:
    p = policy(c)
    if not p.enabled:
        return
    with c.services.db.read() as session:
        owner, lessee = node_db.projects(session, ident)
    p.authorize_delete_node(identity(c), owner, lessee, NodeNotFound(ident))


def sets_owner(patch: Any) -> bool:
    """Whether a node's JSON patch sets a value at /owner (Ironic looks at the values set
    there; a removal is not one)."""
    return any(op.get("op") != "remove" for op in operations_at(patch, "/owner"))


def owner_change(c: Call, patch: Any, found: Node) -> None:
    """As Ironic: a patch giving an ``active`` node an owner also needs
    ``baremetal:node:update_owner_provisioned``; refused, it is a 409."""
    p = policy(c)
    if not p.enabled or found.provision_state != "active":
        return
    if not sets_owner(patch):
        return
    rule = "baremetal:node:update_owner_provisioned"
    if not p.allows(rule, identity(c), node_target(found.owner, found.lessee)):
        LOG.info("policy %s refused the owner change of active node %s", rule, found.uuid)
        raise InvalidState(
            f'Cannot update owner of node "{found.uuid}" while it is in state "active".'
        )


def field_masks(c: Call) -> FieldMasks | None:
    """The masks of node fields for this request's requester; None: it sees every field."""
    p = policy(c)
    return p.field_masks(identity(c)) if p.enabled else None


def moved_to_node(c: Call, session: Session, item: OnNode, new_node: Any) -> None:
    """As Ironic, a port, portgroup, volume connector or volume target moves only to a node
    the requester may see and that the owner of its node owns; else a 400 naming
    ``node_uuid``, whether the node exists or not."""
    if not isinstance(new_node, str):
        return  # not a node identifier: the patch's validation names what is wrong
    p = policy(c)
    refused = InvalidParameterValue(
        f"Unable to apply the requested node_uuid '{new_node}'. Requested value was invalid."
    )
    try:
        owner, lessee = node_db.projects(session, new_node)
    except NodeNotFound:
        if p.enabled:
            raise refused from None
        return  # nothing to hide from an administrator: the update names the missing node
    if p.enabled and not p.sees_node(identity(c), owner, lessee):
        raise refused
    current_owner, _lessee = _node_of(session, item)
    if current_owner != owner:
        LOG.warning(
            "refused moving %s to node %s: its node is owned by %s, the new one by %s",
            item.uuid,
            new_node,
            current_owner,
            owner,
        )
        raise refused


def create_node(c: Call, values: dict[str, Any]) -> None:
    """``baremetal:node:create``; with ``[api] project_admin_can_manage_own_nodes`` a project
    admin may create a node, which its project then owns."""
    p = policy(c)
    who = identity(c)
    own = c.services.config.api.project_admin_can_manage_own_nodes and p.allows(
        "baremetal:node:create:self_owned_node", who
    )
    if not own:
        p.authorize("baremetal:node:create", who)
        return
    if p.enabled and who.system_scope != "all":
        if values.get("owner") and values["owner"] != who.project_id:
            raise Invalid(
                f"Cannot create a node owned by {values['owner']!r} as a project scoped "
                f"admin of {who.project_id!r}: the owner must be your own project."
            )
        values["owner"] = who.project_id


def list_project(c: Call, kind: str) -> str | None:
    return policy(c).list_project(kind, identity(c))


def _node_of(session: Session, item: OnNode) -> tuple[str | None, str | None]:
    return node_db.projects(session, item.node_id)


def port(c: Call, rule: str, session: Session, found: Port) -> None:
    p = policy(c)
    if p.enabled:
        owner, lessee = _node_of(session, found)
        p.authorize_through_node(rule, identity(c), owner, lessee, PortNotFound(found.uuid))


def portgroup(c: Call, rule: str, session: Session, found: Portgroup, ident: str) -> None:
    p = policy(c)
    if p.enabled:
        owner, lessee = _node_of(session, found)
        p.authorize_through_node(rule, identity(c), owner, lessee, PortgroupNotFound(ident))


def create_on_node(c: Call, rule: str, node_ident: Any) -> None:
    """A port's or portgroup's create rule, against the node it is created on; as Ironic,
    a node that does not exist or is not visible is decided as a node without projects."""
    p = policy(c)
    if not p.enabled:
        return
    owner = lessee = None
    if isinstance(node_ident, str):
        with c.services.db.read() as session, contextlib.suppress(NodeNotFound):
            owner, lessee = node_db.projects(session, node_ident)
    p.authorize(rule, identity(c), node_target(owner, lessee))


# Ironic's order: the first path prefix that matches names the rule of a patch operation.
_PATCH_RULES = (
    ("/instance_info", "baremetal:node:update_instance_info"),
    ("/extra", "baremetal:node:update_extra"),
    ("/driver_info", "baremetal:node:update:driver_info"),
    ("/properties", "baremetal:node:update:properties"),
    ("/chassis_uuid", "baremetal:node:update:chassis_uuid"),
    ("/instance_uuid", "baremetal:node:update:instance_uuid"),
    ("/instance_name", "baremetal:node:update_instance_info"),
    ("/lessee", "baremetal:node:update:lessee"),
    ("/owner", "baremetal:node:update:owner"),
    ("/driver", "baremetal:node:update:driver_interfaces"),
    ("/network_data", "baremetal:node:update:network_data"),
    ("/conductor_group", "baremetal:node:update:conductor_group"),
    ("/name", "baremetal:node:update:name"),
    ("/retired", "baremetal:node:update:retired"),
    ("/shard", "baremetal:node:update:shard"),
    ("/parent_node", "baremetal:node:update:parent_node"),
    ("/disable_power_off", "baremetal:node:update:disable_power_off"),
)
_INTERFACES = frozenset(
    {
        *("bios", "boot", "console", "deploy", "firmware", "inspect", "management"),
        *("network", "power", "raid", "rescue", "storage", "vendor"),
    }
)


def patch_rules(patch: Any) -> list[str]:
    """The rules a node patch needs: one per field rule it touches, plus
    ``baremetal:node:update`` when an operation falls under no field rule."""
    rules: list[str] = []
    generic = False
    for op in patch if isinstance(patch, list) else ():
        path = op.get("path") if isinstance(op, dict) else None
        if not isinstance(path, str):
            continue  # the patch itself is refused later, naming what is wrong
        rule = next((r for prefix, r in _PATCH_RULES if path.startswith(prefix)), None)
        head, _, tail = path.lstrip("/").rpartition("_")
        if rule is None and tail == "interface" and head in _INTERFACES:
            rule = "baremetal:node:update:driver_interfaces"
        if rule is None and path.startswith("/automated_clean") and op.get("value") is False:
            rule = "baremetal:node:disable_cleaning"
        if rule is None:
            generic = True
        elif rule not in rules:
            rules.append(rule)
    if generic or not rules:
        rules.append("baremetal:node:update")
    return rules
