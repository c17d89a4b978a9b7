"""How nodes, ports and portgroups look to a client of a given microversion."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from metalwire.api import microversion as mv
from metalwire.api import secrets
from metalwire.api.fields import (
    LINK_FIELDS,
    NODE_DEFAULTS,
    NODE_SUBLINKS,
    Field,
    visible,
)
from metalwire.db import lookups
from metalwire.db import nodes as node_db
from metalwire.db import vifs as vif_db
from metalwire.db.models import Node, Port, Portgroup, VifAttachment
from metalwire.errors import InvalidParameterValue

TENANT_VIF_KEY = "tenant_vif_port_id"
INSPECT_WAIT, INSPECT_WAIT_SINCE = "inspect wait", 39


def self_link(base: str, collection: str, ident: str) -> dict[str, str]:
    return {"href": f"{base}/v1/{collection}/{ident}", "rel": "self"}


def links(base: str, collection: str, ident: str) -> list[dict[str, str]]:
    return [
        self_link(base, collection, ident),
        {"href": f"{base}/{collection}/{ident}", "rel": "bookmark"},
    ]


def as_json(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return value.isoformat()
    return value


def selected_fields(
    all_fields: tuple[Field, ...],
    version: mv.Version,
    wanted: str | None,
    default: Sequence[str] | None,
) -> list[str]:
    """Field names to show: ``?fields=`` if given, else ``default`` (a list view) or all."""
    names = [f.name for f in visible(all_fields, version.minor)]
    if wanted is None:
        return names if default is None else [n for n in default if n in names]
    chosen = [n.strip() for n in wanted.split(",") if n.strip()]
    # Ironic refuses a field newer than the request (406), but takes an ungated one at every
    # version and leaves it out.
    # A field Ironic knows nothing of below its version is unknown there (400, below).
    newer = {f.name: f for f in all_fields if f.name not in names and not f.unknown_below}
    for name in chosen:
        if name in newer and newer[name].gated:
            raise mv.too_old(f"Field {name}", newer[name].since, version)
    chosen = [n for n in chosen if n not in newer]
    unknown = [n for n in chosen if n not in names]
    if unknown:
        raise InvalidParameterValue(
            f"Field(s) {', '.join(unknown)} are not valid for this resource at version "
            f"{version}; valid fields are {', '.join(names)}."
        )
    return chosen


def check_sort_key(all_fields: tuple[Field, ...], version: mv.Version, sort_key: str) -> None:
    """As Ironic: sorting by a field newer than the request is refused (406), as showing it."""
    newer = {
        f.name: f for f in all_fields if f.gated and not f.unknown_below and f.since > version.minor
    }
    if sort_key in newer:
        raise mv.too_old(f"Sorting by {sort_key}", newer[sort_key].since, version)


def shown_provision_state(node: Node, version: mv.Version) -> str | None:
    """The node's provision state under the names of ``version``: before 1.2 ``available``
    was NOSTATE (null), before 1.39 ``inspect wait`` was shown as ``inspecting``."""
    state = node.provision_state
    if state == "available" and not version.at_least(2):
        return None
    if state == INSPECT_WAIT and not version.at_least(INSPECT_WAIT_SINCE):
        return "inspecting"
    return state


def node_view(
    node: Node, fields: list[str], base: str, version: mv.Version, sublinks: bool = False
) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for name in fields:
        if name == "provision_state":
            body[name] = shown_provision_state(node, version)
            continue
        value = node_db.field_value(node, name, NODE_DEFAULTS.get(name))
        body[name] = as_json(secrets.shown(name, value))
    body["links"] = links(base, "nodes", node.uuid)
    if sublinks:
        for name, since in NODE_SUBLINKS:
            if version.at_least(since):
                body[name] = links(base, "nodes", f"{node.uuid}/{name}")
    return body


def _internal_info(stored: dict[str, Any], attachment: VifAttachment | None) -> dict[str, Any]:
    if attachment is None or attachment.source == "legacy" or attachment.pending:
        return stored
    return {**stored, TENANT_VIF_KEY: attachment.vif_id}


def port_views(
    session: Session, ports: Sequence[Port], fields: list[str], base: str
) -> list[dict[str, Any]]:
    node_uuids = lookups.uuids_by_id(session, Node, (p.node_id for p in ports))
    pg_uuids = lookups.uuids_by_id(session, Portgroup, (p.portgroup_id for p in ports))
    attached = (
        vif_db.by_port_ids(session, [p.id for p in ports]) if ("internal_info" in fields) else {}
    )
    views = []
    for port in ports:
        body: dict[str, Any] = {}
        for name in fields:
            if name in LINK_FIELDS:
                continue  # always shown, below
            if name == "node_uuid":
                body[name] = node_uuids.get(port.node_id)
            elif name == "portgroup_uuid":
                body[name] = pg_uuids.get(port.portgroup_id) if port.portgroup_id else None
            elif name == "internal_info":
                body[name] = _internal_info(port.internal_info, attached.get(port.id))
            else:
                body[name] = as_json(getattr(port, name))
        body["links"] = links(base, "ports", port.uuid)
        views.append(body)
    return views


def portgroup_views(
    session: Session,
    portgroups: Sequence[Portgroup],
    fields: list[str],
    base: str,
    sublinks: bool = False,
) -> list[dict[str, Any]]:
    node_uuids = lookups.uuids_by_id(session, Node, (pg.node_id for pg in portgroups))
    attached = (
        vif_db.by_portgroup_ids(session, [pg.id for pg in portgroups])
        if ("internal_info" in fields)
        else {}
    )
    views = []
    for portgroup in portgroups:
        body: dict[str, Any] = {}
        for name in fields:
            if name in LINK_FIELDS:
                continue  # below
            if name == "node_uuid":
                body[name] = node_uuids.get(portgroup.node_id)
            elif name == "internal_info":
                body[name] = _internal_info(portgroup.internal_info, attached.get(portgroup.id))
            else:
                body[name] = as_json(getattr(portgroup, name))
        body["links"] = links(base, "portgroups", portgroup.uuid)
        if sublinks or "ports" in fields:
            body["ports"] = links(base, "portgroups", f"{portgroup.uuid}/ports")
        views.append(body)
    return views
