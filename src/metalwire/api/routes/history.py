"""``/v1/nodes/{node}/history``: what happened to a node (from API version 1.78)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from metalwire.api import microversion as mv
from metalwire.api.openapi_operations import paging
from metalwire.api.route_docs import DETAIL, doc, ref
from metalwire.api.routes import authz
from metalwire.api.routes.common import call, collection, flag, page
from metalwire.api.views import as_json, self_link
from metalwire.db import history as history_db
from metalwire.db import nodes as node_db
from metalwire.db.models import NodeHistory

router = APIRouter(prefix="/v1/nodes/{ident}/history")

# what a detailed entry shows from which version, as Ironic 39
PROJECT = 113
PROVISION_FIELDS = 115


def history_view(
    entry: NodeHistory, node_uuid: str, base: str, detail: bool, version: mv.Version
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "uuid": entry.uuid,
        "created_at": as_json(entry.created_at),
        "severity": entry.severity,
        "event": entry.event,
        # an entry links itself only, no bookmark: Ironic 39's history entries
        "links": [self_link(base, "nodes", f"{node_uuid}/history/{entry.uuid}")],
    }
    if detail:
        body.update(
            event_type=entry.event_type,
            conductor=entry.conductor,
            user=entry.user,
            vif_id=entry.vif_id,
            target_uuid=entry.target_uuid,
            result=entry.result,
        )
        if version.at_least(PROJECT):
            body["project"] = entry.project
        if version.at_least(PROVISION_FIELDS):
            body.update(
                state=entry.state,
                target_provision_state=entry.target_provision_state,
                duration_seconds=entry.duration_seconds,
            )
    return body


@router.get(
    "",
    openapi_extra=doc(
        "listNodeHistory",
        "A node's history.",
        "nodes",
        ok="Entries.",
        returns=ref("HistoryList"),
        query=(DETAIL, *paging({"id", "created_at"})),
        since=mv.NODE_HISTORY,
    ),
)
def list_history(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    c.require(mv.NODE_HISTORY)
    detail = bool(flag(c.request.query_params.get("detail"), "detail"))
    p = page(c)
    with c.services.db.read() as session:
        node = node_db.get(session, ident)
        authz.node(c, "baremetal:node:history:get", node, ident)
        entries = history_db.for_node(session, node.id, p)
    views = [history_view(e, node.uuid, c.base, detail, c.version) for e in entries]
    return collection(c, "history", entries, views, p.limit)


@router.get(
    "/{uuid}",
    openapi_extra=doc(
        "getNodeHistoryEntry",
        "One history entry.",
        "nodes",
        ok="The entry.",
        returns=ref("HistoryEntry"),
        since=mv.NODE_HISTORY,
    ),
)
def get_history(request: Request, ident: str, uuid: str) -> dict[str, Any]:
    c = call(request)
    c.require(mv.NODE_HISTORY)
    with c.services.db.read() as session:
        node = node_db.get(session, ident)
        authz.node(c, "baremetal:node:history:get", node, ident)
        entry = history_db.get(session, node.id, uuid)
    return history_view(entry, node.uuid, c.base, True, c.version)
