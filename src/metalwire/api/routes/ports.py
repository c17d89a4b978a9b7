"""``/v1/ports``: a node's physical NICs."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api import validation
from metalwire.api.fields import LINK_FIELDS, PORT_FIELDS, PORT_FILTERS, PORT_LIST_FIELDS, Field
from metalwire.api.jsonpatch import operations_at
from metalwire.api.route_docs import listing, object_docs
from metalwire.api.routes import authz
from metalwire.api.routes.before_body import patch_allowed
from metalwire.api.routes.common import Call, JsonBody, call, list_filters
from metalwire.api.routes.resource import Resource, Views
from metalwire.api.routes.vifs import check_vif_id
from metalwire.api.views import port_views
from metalwire.db import nodes as node_db
from metalwire.db import portgroups as portgroup_db
from metalwire.db import ports as port_db
from metalwire.db.models import Port, Portgroup
from metalwire.errors import Forbidden, InvalidParameterValue, NodeNotFound
from metalwire.identifiers import is_uuid_like

router = APIRouter(prefix="/v1/ports")
LOG = logging.getLogger(__name__)

# Shown as UUIDs but stored as row ids: not compared when checking for concurrent changes.
OWNER_FIELDS = frozenset({"node_uuid", "portgroup_uuid"})

Member = TypeVar("Member", Port, Portgroup)

LEGACY_VIF_WARNING = (
    '299 - "Setting extra/vif_port_id is deprecated; attach VIFs with '
    'POST /v1/nodes/{node}/vifs instead."'
)


def normalize(values: dict[str, Any], version: mv.Version) -> dict[str, Any]:
    """Check formats of port fields a client sets; returns them ready to store."""
    out = dict(values)
    if out.get("uuid") is not None:
        out["uuid"] = validation.uuid_value(out["uuid"], "uuid")
    if "address" in out:
        out["address"] = validation.mac_address(out["address"])
    if "node_uuid" in out:
        out["node_uuid"] = validation.uuid_value(out["node_uuid"], "node_uuid")
    if out.get("portgroup_uuid") is not None:
        out["portgroup_uuid"] = validation.uuid_value(out["portgroup_uuid"], "portgroup_uuid")
    refuse_empty_physical_network(out)
    refuse_null_pxe_enabled(out)
    if out.get("local_link_connection") is not None:
        out["local_link_connection"] = validation.local_link_connection(
            out["local_link_connection"], version, bool(out.get("is_smartnic"))
        )
    for key, default in (
        ("local_link_connection", {}),
        ("extra", {}),
        ("is_smartnic", False),
        ("available_for_dynamic_portgroup", True),  # a PATCH's remove; a null is refused first
    ):
        if key in out and out[key] is None:
            out[key] = default
    validation.check_lengths(out, Port.__table__)
    return out


def refuse_non_boolean_dynamic_portgroup(values: Any) -> None:
    """available_for_dynamic_portgroup is a JSON true or false, never null nor a string (as
    Ironic's schema has it, unlike pxe_enabled and is_smartnic, which take "true"): a 400 at
    any version, as Ironic's schema answers before its version checks."""
    if not isinstance(values, dict) or "available_for_dynamic_portgroup" not in values:
        return
    value = values["available_for_dynamic_portgroup"]
    if not isinstance(value, bool):
        raise InvalidParameterValue(
            "Invalid value for field available_for_dynamic_portgroup: "
            f"{json.dumps(value)}; use true or false (a JSON boolean)."
        )


def refuse_null_pxe_enabled(values: dict[str, Any]) -> None:
    """A port boots by PXE or it does not: pxe_enabled null, or removed by a PATCH, is a 400
    on create and PATCH alike (Ironic's schema takes null, then fails to store it: a 500)."""
    if "pxe_enabled" in values and values["pxe_enabled"] is None:
        raise InvalidParameterValue("pxe_enabled cannot be null: it is either true or false.")


def refuse_empty_physical_network(values: dict[str, Any]) -> None:
    """A port's physical_network names a physical network, or is null for none: an empty
    string would match no VIF's physical network yet read as set (400, as Ironic)."""
    if values.get("physical_network") == "":
        raise InvalidParameterValue(
            "Invalid value for field physical_network: an empty string; give the name of a "
            "physical network, or null for none."
        )


def refuse_member_physnet_change(c: Call, current: dict[str, Any], changes: dict[str, Any]) -> None:
    """From 1.102 a portgroup has a physical network of its own, which its members share:
    a port that stays in its portgroup does not change it alone (400, as Ironic). Below
    1.102 the conductor's rule applies (a member on another one than the others: 409)."""
    if "physical_network" not in changes or not c.version.at_least(mv.PORTGROUP_PHYSNET):
        return
    group = changes.get("portgroup_uuid", current["portgroup_uuid"])
    if group is None or group != current["portgroup_uuid"]:
        return
    raise InvalidParameterValue(
        f"Cannot change the physical_network of port {current['uuid']}: it is a member of "
        f"portgroup {group}, whose physical_network its members share. Change the "
        "portgroup's physical_network, or take the port out of the portgroup in the same "
        "request."
    )


def refuse_non_boolean_dynamic_portgroup_in_patch(patch: Any) -> None:
    """A PATCH giving available_for_dynamic_portgroup a value that is not a JSON boolean is a
    400, as Ironic's schema answers; a remove gives it its default (true)."""
    for operation in operations_at(patch, "/available_for_dynamic_portgroup"):
        if operation.get("op") in ("add", "replace") and "value" in operation:
            refuse_non_boolean_dynamic_portgroup(
                {"available_for_dynamic_portgroup": operation["value"]}
            )


def refuse_link_network_type_in_patch(patch: Any, version: mv.Version) -> None:
    """A PATCH of /local_link_connection/network_type before 1.64 is a 406, as in Ironic
    (which gates that path only, not a whole link given with the key)."""
    if operations_at(patch, "/local_link_connection/network_type"):
        validation.refuse_link_network_type(version)


def check_legacy_vif_id(extra: Any, current: Any = None) -> None:
    """A VIF set in extra/vif_port_id passes the checks of POST /vifs (when it changes)."""
    if not isinstance(extra, dict) or not extra.get("vif_port_id"):
        return
    value = extra["vif_port_id"]
    if isinstance(current, dict) and current.get("vif_port_id") == value:
        return  # stored before this check existed: other changes still go through
    try:
        check_vif_id(value)
    except InvalidParameterValue as exc:
        raise InvalidParameterValue(f"extra/vif_port_id: {exc}") from None


def warn_if_legacy_vif(response: Response, extra: Any, kind: str, uuid: str) -> None:
    if isinstance(extra, dict) and extra.get("vif_port_id"):
        LOG.warning(
            "%s %s: extra/vif_port_id set to %s; this path is deprecated",
            kind,
            uuid,
            extra["vif_port_id"],
        )
        response.headers["Warning"] = LEGACY_VIF_WARNING


def _filters(c: Call, parent: str | None) -> dict[str, Any]:
    """The list's filters. Below a node or a portgroup the parent stands in for the filter
    of its kind (what ``?node=`` or ``?portgroup=`` says there is not read), and counts
    among the filters only one of which may narrow a list, as Ironic's."""
    given = list_filters(c, PORT_FILTERS)
    for name in ("node", "portgroup"):  # as Ironic's, before any other check
        if given.get(name):
            validation.uuid_or_name(given[name], name)
    if given.get("node_uuid"):
        # As Ironic: a UUID, not a name, and it wins over ``node``.
        validation.uuid_value(given["node_uuid"], "node_uuid")
    if parent == "node":
        given.pop("node", None)
        given.pop("node_uuid", None)
    elif parent == "portgroup":
        given.pop("portgroup", None)
    node_ident = given.get("node_uuid") or given.get("node")
    if node_ident and not c.version.at_least(mv.NODE_NAME) and not is_uuid_like(node_ident):
        raise mv.too_old(f"A node named by its name ({node_ident!r})", mv.NODE_NAME, c.version)
    owners = [
        bool(node_ident) or parent == "node",
        bool(given.get("portgroup")) or parent == "portgroup",
        "shard" in given,
    ]
    if sum(owners) > 1:
        # Ironic's answer (403, its words first) when more than one of them narrows the list
        named = [
            f"{kind} (this path's)" if kind == parent else kind
            for kind, given_here in zip(("node", "portgroup", "shard"), owners, strict=True)
            if given_here
        ]
        raise Forbidden(
            "Operation not permitted: a port list is narrowed by one of node, portgroup and "
            f"shard at a time; this request gives {' and '.join(named)}."
        )
    if "conductor_groups" in given and (owners[0] or owners[1] or given.get("address")):
        raise InvalidParameterValue(
            "Filtering by conductor_groups cannot be combined with node_ident, "
            "portgroup_ident, or node address filters."
        )
    filters: dict[str, Any] = {}
    with c.services.db.read() as session:
        if node_ident:
            filters["node_id"] = node_db.get(session, node_ident).id
        if given.get("portgroup"):
            filters["portgroup_id"] = portgroup_db.get(session, given["portgroup"]).id
    if given.get("address"):
        filters["address"] = validation.mac_address(given["address"])
    for name in ("physical_network", "shard", "description_contains", "conductor_groups"):
        if name in given:
            filters[name] = given[name]
    return filters


def _views(
    c: Call, session: Session, ports: Sequence[Port], fields: list[str], _sublinks: bool
) -> list[dict[str, Any]]:
    return port_views(session, ports, fields, c.base)


def member_document(
    views: Views[Member],
    fields: tuple[Field, ...],
) -> Callable[[Call, Session, Member], dict[str, Any]]:
    """The document a port's or portgroup's patch applies to: every field as shown (its
    links as the view adds them), but ``internal_info`` as stored."""
    names = [f.name for f in fields if f.name not in LINK_FIELDS]

    def current(c: Call, session: Session, member: Member) -> dict[str, Any]:
        document = views(c, session, [member], names, False)[0]
        document["internal_info"] = member.internal_info
        return document

    return current


def check_member_patch(
    c: Call, member: Port | Portgroup, current: dict[str, Any], changes: dict[str, Any]
) -> None:
    """A port or portgroup moves only to a node allowed (``authz.moved_to_node``), and a VIF
    its patch sets in extra/vif_port_id passes the checks of POST /vifs."""
    if changes.get("node_uuid", current["node_uuid"]) != current["node_uuid"]:
        with c.services.db.read() as session:
            authz.moved_to_node(c, session, member, changes["node_uuid"])
    check_legacy_vif_id(changes.get("extra"), current["extra"])


def check_port_patch(c: Call, port: Port, current: dict[str, Any], changes: dict[str, Any]) -> None:
    check_member_patch(c, port, current, changes)
    refuse_member_physnet_change(c, current, changes)


PORTS = Resource[Port](
    kind="port",
    collection="ports",
    fields=PORT_FIELDS,
    list_fields=PORT_LIST_FIELDS,
    mandatory=("address", "node_uuid"),
    read=port_db.get,
    list_rows=port_db.list_ports,
    views=_views,
    filters=_filters,
    authorize_get=lambda c, session, port, _ident: authz.port(
        c, "baremetal:port:get", session, port
    ),
    authorize_patch=lambda c, session, port, _ident, _patch: authz.port(
        c, "baremetal:port:update", session, port
    ),
    current=member_document(_views, PORT_FIELDS),
    update=lambda c, uuid, changes, expected: c.services.rpcapi.update_port(
        c.context, uuid, changes, expected
    ),
    prepare=lambda c, _port, changes: normalize(changes, c.version),
    check_changes=check_port_patch,
    owner_fields=OWNER_FIELDS,
)


LISTING = listing(PORT_FILTERS, port_db.SORTABLE)
_DOCS = object_docs("Port", "port", LISTING, bodies.PORT_LINKS)


@router.get("", openapi_extra=_DOCS.list)
@router.get("/", openapi_extra=_DOCS.list)
def list_ports(request: Request) -> dict[str, Any]:
    return PORTS.list_view(call(request), detail_path=False)


@router.get("/detail", openapi_extra=_DOCS.list_detail)
def list_ports_detail(request: Request) -> dict[str, Any]:
    return PORTS.list_view(call(request), detail_path=True)


@router.get("/{uuid}", openapi_extra=_DOCS.show)
def get_port(request: Request, uuid: str) -> dict[str, Any]:
    return PORTS.get(call(request), uuid)


def node_ident_as_uuid(c: Call, body: Any) -> Any:
    """A create body naming its node by ``node_ident`` (UUID or name, 1.94), with the node's
    UUID as ``node_uuid`` instead; any other body as given."""
    if not isinstance(body, dict) or "node_ident" not in body:
        return body
    if not c.version.at_least(mv.PORT_NODE_IDENT):
        raise mv.too_old("A port's node given as node_ident", mv.PORT_NODE_IDENT, c.version)
    ident = body["node_ident"]
    if "node_uuid" in body:
        raise InvalidParameterValue("Give the port's node as node_ident or node_uuid, not both.")
    if not isinstance(ident, str) or not ident:
        raise InvalidParameterValue(f"Invalid node_ident {ident!r}: expected a UUID or a name.")
    with c.services.db.read() as session:
        try:
            node = node_db.get(session, ident)
        except NodeNotFound:
            # As Ironic: the node of a new port is part of the request, so a 400.
            raise InvalidParameterValue(f"Node {ident} could not be found.") from None
    return {**{k: v for k, v in body.items() if k != "node_ident"}, "node_uuid": node.uuid}


@router.post("", status_code=201, openapi_extra=_DOCS.create)
def create_port(request: Request, response: Response, body: JsonBody = None) -> dict[str, Any]:
    c = call(request)
    body = node_ident_as_uuid(c, body)
    refuse_non_boolean_dynamic_portgroup(body)
    values = validation.check_create_body(
        body, PORT_FIELDS, c.version, required=("address", "node_uuid")
    )
    validation.link_network_type_allowed(values.get("local_link_connection"), c.version)
    authz.create_on_node(c, "baremetal:port:create", values.get("node_uuid"))
    check_legacy_vif_id(values.get("extra"))
    # Ironic 39: a port may join a dynamic portgroup unless it is created saying otherwise
    values.setdefault("available_for_dynamic_portgroup", True)
    if values.get("is_smartnic"):
        validation.smart_nic_link(values.get("local_link_connection"))
    port = c.services.rpcapi.create_port(c.context, normalize(values, c.version))
    response.headers["Location"] = f"{c.base}/v1/ports/{port.uuid}"
    warn_if_legacy_vif(response, port.extra, "Port", port.uuid)
    return PORTS.show(c, port)


@router.patch("/{uuid}", openapi_extra=_DOCS.patch)
def patch_port(
    request: Request,
    response: Response,
    uuid: str,
    _allowed: Annotated[None, patch_allowed(PORTS, "uuid")],
    body: JsonBody = None,
) -> dict[str, Any]:
    c = call(request)
    refuse_non_boolean_dynamic_portgroup_in_patch(body)
    refuse_link_network_type_in_patch(body, c.version)
    updated, changes = PORTS.patch(c, uuid, body)
    if "extra" in changes:
        warn_if_legacy_vif(response, changes["extra"], "Port", uuid)
    return PORTS.show(c, updated)


@router.delete("/{uuid}", status_code=204, openapi_extra=_DOCS.delete)
def delete_port(request: Request, uuid: str) -> Response:
    c = call(request)
    if authz.policy(c).enabled:
        with c.services.db.read() as session:
            authz.port(c, "baremetal:port:delete", session, port_db.get(session, uuid))
    c.services.rpcapi.delete_port(c.context, uuid)
    return Response(status_code=204)
