"""``/v1/nodes``: create, show, list, patch, delete, and the node's ports and portgroups."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from metalwire.api import microversion as mv
from metalwire.api import network_data, secrets, validation
from metalwire.api import openapi_bodies as bodies
from metalwire.api.auth.policy import FieldMasks
from metalwire.api.fields import (
    FAULTS,
    NODE_FIELDS,
    NODE_FILTERS,
    NODE_LIST_FIELDS,
    PROVISION_STATES,
)
from metalwire.api.jsonpatch import operations_at
from metalwire.api.openapi_operations import WRITE, query
from metalwire.api.route_docs import FIELDS, doc, listing, lists, ref
from metalwire.api.routes import authz
from metalwire.api.routes import conductors as conductor_routes
from metalwire.api.routes import portgroups as portgroup_routes
from metalwire.api.routes import ports as port_routes
from metalwire.api.routes.before_body import patch_allowed
from metalwire.api.routes.common import Call, JsonBody, call, flag, list_filters, named
from metalwire.api.routes.resource import Resource
from metalwire.api.views import node_view
from metalwire.conductor.registry import Serving
from metalwire.db import allocations as allocation_db
from metalwire.db import nodes as node_db
from metalwire.db.models import Node
from metalwire.errors import Invalid, InvalidParameterValue, InvalidState, NodeNotFound

router = APIRouter(prefix="/v1/nodes")

# Ironic's schema limit; the description is kept in the node's attrs, which have none.
DESCRIPTION_MAX_LENGTH = 4096
#: Words Ironic 39's node routes take for themselves (GET /v1/nodes/detail, ...): no node may
#: be named one, or it could not be reached by its name.
RESERVED_NODE_NAMES = (
    "maintenance",
    "management",
    "states",
    "vendor_passthru",
    "detail",
    "validate",
)


def normalize(c: Call, values: dict[str, Any]) -> dict[str, Any]:
    """Check formats of node fields a client sets; returns them ready to store."""
    out = dict(values)
    if out.get("name") is not None:
        out["name"] = validation.logical_name(out["name"], "node name", c.version)
        _check_not_reserved(out["name"])
    for key in ("uuid", "instance_uuid", "chassis_uuid"):
        if out.get(key) is not None:
            out[key] = validation.uuid_value(out[key], key)
    if out.get("conductor_group") is not None:
        out["conductor_group"] = validation.conductor_group(out["conductor_group"])
    elif "conductor_group" in out:
        out["conductor_group"] = ""  # no group: a null on create (as Ironic), or a remove
    if "driver" in out and not out["driver"]:
        raise InvalidParameterValue("driver cannot be empty.")
    if out.get("instance_name") == "":
        raise InvalidParameterValue(
            "instance_name cannot be empty: give a name of 1 to 255 characters, or null."
        )
    validation.check_lengths(out, Node.__table__)
    description = out.get("description")
    if isinstance(description, str) and len(description) > DESCRIPTION_MAX_LENGTH:
        raise InvalidParameterValue(
            f"Invalid value for description: {len(description)} characters, at most "
            f"{DESCRIPTION_MAX_LENGTH} allowed."
        )
    for key in ("maintenance", "console_enabled"):
        if key in out and out[key] is None:
            raise InvalidParameterValue(f"{key} cannot be null: it is either true or false.")
    if "network_data" in out:
        network_data.check_document(out["network_data"], empty_allowed=True)
        if out["network_data"] is None:
            out["network_data"] = {}  # as Ironic shows a node created with null
    if "protected" in out and out["protected"] is None:
        out["protected"] = False  # as Ironic: removing protection leaves the node unprotected
    return out


def _check_not_reserved(name: str) -> None:
    if name in RESERVED_NODE_NAMES:
        raise InvalidParameterValue(
            f"Cannot use {name!r} as node name: the API uses it as a path of its own; "
            f"reserved: {', '.join(RESERVED_NODE_NAMES)}."
        )


def _parent_uuid(c: Call, value: Any, owner: str | None, child: str | None) -> str | None:
    """The UUID of the parent a create or patch names (UUID or name, 1.83). As Ironic, a
    parent that does not exist, that the requester cannot see or of another owner is refused
    with the same words, so the answer tells nothing about other projects' nodes."""
    if value is None:
        return None
    refused = InvalidParameterValue(
        f"Unable to apply the requested parent_node '{value}'. Requested value was invalid."
    )
    if not isinstance(value, str):
        raise refused
    with c.services.db.read() as session:
        try:
            parent = node_db.get(session, value)
        except NodeNotFound:
            raise refused from None
    try:
        authz.node(c, (), parent, value)
    except NodeNotFound:
        raise refused from None
    if parent.owner != owner or parent.uuid == child:
        raise refused
    return parent.uuid


def _filters(c: Call, _parent: str | None) -> dict[str, Any]:
    filters = list_filters(c, NODE_FILTERS)
    for key in ("chassis_uuid", "instance_uuid"):
        if key in filters:
            filters[key] = validation.uuid_value(filters[key], key)
    _check_one_of(filters, "provision_state", PROVISION_STATES)
    _check_one_of(filters, "fault", FAULTS)
    if "conductor" in filters:  # the nodes whose conductor field names it
        filters["conductor"] = conductor_routes.serving(c).drivers_of(filters["conductor"])
    return filters


def _check_one_of(filters: dict[str, Any], key: str, known: tuple[str, ...]) -> None:
    """A filter on a value no node can have is a mistake (400 naming the values), not a
    request for an empty list."""
    value = filters.get(key)
    if value is not None and value not in known:
        raise InvalidParameterValue(
            f"Invalid {key} {value!r}: expected one of {', '.join(repr(k) for k in known)}."
        )


def _view(
    c: Call,
    node: Node,
    fields: list[str],
    sublinks: bool,
    masks: FieldMasks | None,
    served: Serving | None,
) -> dict[str, Any]:
    body = node_view(node, fields, c.base, c.version, sublinks=sublinks)
    if masks is not None:
        for name, mask in masks.masked(node.owner, node.lessee).items():
            if name in body:
                body[name] = copy.deepcopy(mask)
    if served is not None and "conductor" in body:
        body["conductor"] = served.conductor_of(node.driver)
    return body


def _views(
    c: Call, session: Session, nodes: Sequence[Node], fields: list[str], sublinks: bool
) -> list[dict[str, Any]]:
    masks = authz.field_masks(c)  # once per list
    served = conductor_routes.serving(c, session) if "conductor" in fields else None
    return [_view(c, n, fields, sublinks, masks, served) for n in nodes]


def _authorize_patch(c: Call, session: Session, node: Node, ident: str, patch: Any) -> None:
    authz.node(c, authz.patch_rules(patch), node, ident)
    authz.owner_change(c, patch, node)
    _refuse_owner_change_of_allocated(session, node, patch)


def _refuse_owner_change_of_allocated(session: Session, node: Node, patch: Any) -> None:
    """As Ironic: a node held by an allocation that has an owner keeps its owner (409)."""
    if not authz.sets_owner(patch):
        return
    allocation = allocation_db.of_node(session, node.id)
    if allocation is not None and allocation.owner is not None:
        raise InvalidState(
            f'Cannot update owner of node "{node.uuid}" while it is allocated to an '
            "allocation with an  owner."  # sic: Ironic's two spaces
        )


def _current(_c: Call, _session: Session, node: Node) -> dict[str, Any]:
    return {f.name: node_db.field_value(node, f.name) for f in NODE_FIELDS}


def _prepare(c: Call, node: Node, changes: dict[str, Any]) -> dict[str, Any]:
    changes = normalize(c, changes)
    if "driver" in changes and _reset_asked(c) and "network_interface" not in changes:
        # the other interfaces take the new driver's defaults anyway (hardware_types.on_update)
        changes["network_interface"] = None
    if "parent_node" in changes:
        owner = changes.get("owner", node.owner)
        changes["parent_node"] = _parent_uuid(c, changes["parent_node"], owner, node.uuid)
    return changes


def _check_changes(c: Call, _node: Node, current: dict[str, Any], changes: dict[str, Any]) -> None:
    """As Ironic: a node leaves its chassis (``chassis_uuid`` removed) from API 1.25 on; a
    request of an older version is refused (406)."""
    leaves = "chassis_uuid" in changes and not changes["chassis_uuid"]
    if leaves and current.get("chassis_uuid") and not c.version.at_least(mv.REMOVE_CHASSIS):
        raise mv.too_old("Removing a node's chassis_uuid", mv.REMOVE_CHASSIS, c.version)


NODES = Resource[Node](
    json_suffix=True,
    kind="node",
    collection="nodes",
    fields=NODE_FIELDS,
    list_fields=NODE_LIST_FIELDS,
    mandatory=("driver",),
    read=node_db.get,
    list_rows=node_db.list_nodes,
    views=_views,
    filters=_filters,
    authorize_get=lambda c, _session, node, ident: authz.node(c, (), node, ident),
    authorize_patch=_authorize_patch,
    patch_rules_read_body=True,
    current=_current,
    update=lambda c, uuid, changes, expected: c.services.rpcapi.update_node(
        c.context, uuid, changes, expected, patched=True
    ),
    prepare=_prepare,
    check_changes=_check_changes,
    check_patch=lambda _c, patch: network_data.check_patch_values(patch),
    unmasked=secrets.keep_stored_secrets,
    project_filter="project",
)


LISTING = listing(NODE_FILTERS, node_db.SORTABLE | set(node_db.ATTR_SORT_KEYS))
_LIST, _LIST_DETAIL = lists("listNodes", "nodes", "nodes", "NodeList", LISTING)


@router.get("", openapi_extra=_LIST)
@router.get("/", openapi_extra=_LIST)
def list_nodes(request: Request) -> dict[str, Any]:
    return NODES.list_view(call(request), detail_path=False)


@router.get("/detail", openapi_extra=_LIST_DETAIL)
def list_nodes_detail(request: Request) -> dict[str, Any]:
    return NODES.list_view(call(request), detail_path=True)


@router.get(
    "/{ident}",
    openapi_extra=doc(
        "getNode", "Show a node.", "nodes", ok="The node.", returns=ref("Node"), query=(FIELDS,)
    ),
)
def get_node(request: Request, ident: str) -> dict[str, Any]:
    return NODES.get(call(request), ident)


@router.post(
    "",
    status_code=201,
    openapi_extra=doc(
        "createNode",
        "Create a node.",
        "nodes",
        ok="The new node.",
        returns=ref("Node"),
        errors=(400, 406, 409, 503),
        body=ref("NodeCreate"),
        headers=bodies.LOCATION,
        links=bodies.NODE_LINKS,
    ),
)
def create_node(request: Request, response: Response, body: JsonBody = None) -> dict[str, Any]:
    c = call(request)
    values = validation.check_create_body(body, NODE_FIELDS, c.version, required=("driver",))
    values = normalize(c, values)
    if "parent_node" in values:
        values["parent_node"] = _parent_uuid(c, values["parent_node"], values.get("owner"), None)
    authz.create_node(c, values)
    values.setdefault(
        "provision_state", "enroll" if c.version.at_least(mv.ENROLL_DEFAULT) else "available"
    )
    node = c.services.rpcapi.create_node(c.context, values)
    response.headers["Location"] = f"{c.base}/v1/nodes/{node.uuid}"
    return NODES.show(c, node)


@router.patch(
    "/{ident}",
    openapi_extra=doc(
        "patchNode",
        "Change a node with a JSON Patch.",
        "nodes",
        ok="The changed node.",
        returns=ref("Node"),
        errors=WRITE,
        query=[
            query(
                "reset_interfaces",
                {"type": "boolean"},
                "With a new driver, every interface the patch does not change takes its "
                "default, the network interface too (1.45; only with a patch of /driver).",
            )
        ],
        body=ref("JsonPatch"),
    ),
)
def patch_node(
    request: Request,
    ident: str,
    _allowed: Annotated[None, patch_allowed(NODES, "ident")],
    body: JsonBody = None,
) -> dict[str, Any]:
    c = call(request)
    _check_reset_interfaces(c, body)
    updated, _changes = NODES.patch(c, ident, body)
    return NODES.show(c, updated)


def _reset_asked(c: Call) -> bool:
    return bool(flag(c.request.query_params.get("reset_interfaces"), "reset_interfaces"))


def _check_reset_interfaces(c: Call, patch: Any) -> None:
    """``?reset_interfaces=true`` (1.45, as Ironic's): with a driver change, every interface
    the patch does not set takes the new driver's default, the network interface too
    (without it, the hardware interfaces do and the network interface stays). It is for a
    patch of /driver only (400 otherwise, as Ironic)."""
    if c.request.query_params.get("reset_interfaces") is None:
        return
    if not c.version.at_least(mv.RESET_INTERFACES):
        raise mv.too_old("The reset_interfaces query parameter", mv.RESET_INTERFACES, c.version)
    if _reset_asked(c) and not operations_at(patch, "/driver"):
        raise Invalid(
            "The reset_interfaces parameter can only be used when changing the node's driver "
            "(with a PATCH of /driver)."
        )


@router.delete(
    "/{ident}",
    status_code=204,
    openapi_extra=doc(
        "deleteNode",
        "Delete a node, its ports and portgroups.",
        "nodes",
        ok="Deleted.",
        errors=WRITE,
    ),
)
def delete_node(request: Request, ident: str) -> Response:
    c = call(request)
    ident = named(c, ident, NODES.read)
    authz.delete_node(c, ident)
    c.services.rpcapi.delete_node(c.context, ident)
    return Response(status_code=204)


@router.get(
    "/{ident}/children",
    openapi_extra=doc(
        "listNodeChildren",
        "The UUIDs of a node's child nodes.",
        "node",
        ok="The children.",
        returns=bodies.CHILDREN,
        since=mv.PARENT_CHILD_NODES,
    ),
)
def node_children(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    c.require(mv.PARENT_CHILD_NODES)
    with c.services.db.read() as session:
        node = node_db.get(session, ident)
        authz.node(c, (), node, ident)
        uuids = node_db.children(session, node.uuid, authz.list_project(c, "node"))
    query = f"?parent_node={node.uuid}"
    return {
        "children": uuids,
        "links": {"href": f"{c.base}/v1/nodes{query}", "rel": "children"},
    }


def _visible_node_id(request: Request, session: Session, ident: str) -> dict[str, Any]:
    """The filter of a node's sub-resources; an invisible node is 404 (while
    ``/v1/ports?node=`` of it is an empty list, as Ironic answers)."""
    node = node_db.get(session, ident)
    authz.node(call(request), (), node, ident)
    return {"node_id": node.id}


def _node_ports(request: Request, ident: str, detail_path: bool) -> dict[str, Any]:
    return port_routes.PORTS.list_view(
        call(request), detail_path, lambda s: _visible_node_id(request, s, ident), parent="node"
    )


_PORTS, _PORTS_DETAIL = lists(
    "listNodePorts", "the node's ports", "nodes", "PortList", port_routes.LISTING
)


@router.get("/{ident}/ports", openapi_extra=_PORTS)
def node_ports(request: Request, ident: str) -> dict[str, Any]:
    return _node_ports(request, ident, detail_path=False)


@router.get("/{ident}/ports/detail", openapi_extra=_PORTS_DETAIL)
def node_ports_detail(request: Request, ident: str) -> dict[str, Any]:
    return _node_ports(request, ident, detail_path=True)


def _node_portgroups(request: Request, ident: str, detail_path: bool) -> dict[str, Any]:
    call(request).require(mv.PORTGROUP_SUBCONTROLLERS)
    return portgroup_routes.PORTGROUPS.list_view(
        portgroup_routes.portgroup_call(request),
        detail_path,
        lambda s: _visible_node_id(request, s, ident),
        parent="node",
    )


_PORTGROUPS, _PORTGROUPS_DETAIL = lists(
    "listNodePortgroups",
    "the node's portgroups",
    "nodes",
    "PortgroupList",
    portgroup_routes.LISTING,
)


@router.get("/{ident}/portgroups", openapi_extra=_PORTGROUPS)
def node_portgroups(request: Request, ident: str) -> dict[str, Any]:
    return _node_portgroups(request, ident, detail_path=False)


@router.get("/{ident}/portgroups/detail", openapi_extra=_PORTGROUPS_DETAIL)
def node_portgroups_detail(request: Request, ident: str) -> dict[str, Any]:
    return _node_portgroups(request, ident, detail_path=True)
