"""``/v1/metalwire`` and ``/v1/metalwire/node_summaries``: what the topology page needs to
list thousands of nodes a page at a time and to find one (metalwire only, read only).

* ``GET /v1/metalwire``: what this server offers beyond Ironic's API, so that a client (the
  page) can tell before it sends ``X-Metalwire-Dry-Run`` that the header will be honoured
  (a server that ignores it would attach the VIF).
* ``GET /v1/metalwire/node_summaries[?q=TEXT]``: one page of nodes (Ironic's ``limit``,
  ``marker``, ``sort_key``, ``sort_dir`` and ``next`` link) with how many ports, portgroups
  (of them dynamic, built by trait-based networking) and attached VIFs each has and its
  ports' physical networks. With ``q``, only the nodes
  whose name contains it (any case), or that it names exactly by node, port or portgroup UUID,
  by a port's or portgroup's MAC address (any usual spelling) or portgroup name, or by the id
  of an attached VIF; each row then says what matched.

Both sit behind the authentication like every endpoint, and the list is filtered as
``GET /v1/nodes`` is: with the policy on, to the nodes the requester's project owns or leases
unless ``baremetal:node:list_all`` allows every node.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from metalwire.api import dry_run
from metalwire.api import openapi_bodies as bodies
from metalwire.api.openapi_operations import paging
from metalwire.api.route_docs import doc
from metalwire.api.routes import authz
from metalwire.api.routes.common import call, collection, page
from metalwire.db import node_summaries
from metalwire.db import nodes as node_db
from metalwire.db.node_summaries import NodeSummary
from metalwire.errors import InvalidParameterValue

PREFIX = "/v1/metalwire"
router = APIRouter(prefix=PREFIX)

# What a client may rely on this server to do (``GET /v1/metalwire``).
FEATURES = ("vif_attach_dry_run", "node_summaries", "drift_audit")
# As long as the longest value searched for (a VIF id, a node name).
MAX_QUERY_LENGTH = 255


_DISCOVER = doc(
    "discoverMetalwire",
    "What this server offers beyond the Bare Metal API (metalwire only).",
    "metalwire",
    ok="The features.",
    returns=bodies.features(FEATURES),
    errors=(406,),
)


@router.get("", openapi_extra=_DISCOVER)
@router.get("/", openapi_extra=_DISCOVER)
def discover(request: Request) -> dict[str, Any]:
    return {"features": list(FEATURES), "dry_run_header": dry_run.HEADER}


def _query(request: Request) -> str | None:
    raw = request.query_params.get("q")
    text = None if raw is None else raw.strip()
    if text and len(text) > MAX_QUERY_LENGTH:
        raise InvalidParameterValue(
            f"Invalid q {text[:40]!r}...: at most {MAX_QUERY_LENGTH} characters are searched "
            f"for, this one has {len(text)}."
        )
    return text or None


def summary_view(summary: NodeSummary) -> dict[str, Any]:
    node = summary.node
    return {
        "uuid": node.uuid,
        "name": node.name,
        "provision_state": node.provision_state,
        "network_interface": node.network_interface,
        "maintenance": node.maintenance,
        "ports": summary.ports,
        "portgroups": summary.portgroups,
        "dynamic_portgroups": summary.dynamic_portgroups,
        "vifs": summary.vifs,
        "physical_networks": summary.physical_networks,
        "matched": [{"field": m.field, "value": m.value, "uuid": m.uuid} for m in summary.matched],
    }


@router.get(
    "/node_summaries",
    openapi_extra=doc(
        "listNodeSummaries",
        "A page of nodes with their port, portgroup and VIF counts; a search with q "
        "(metalwire only).",
        "metalwire",
        ok="The page.",
        returns=bodies.NODE_SUMMARIES,
        query=(bodies.summary_search(MAX_QUERY_LENGTH), *paging(node_db.SORTABLE)),
    ),
)
def list_node_summaries(request: Request) -> dict[str, Any]:
    c = call(request)
    p = page(c)
    q = _query(request)
    project = authz.list_project(c, "node")
    with c.services.db.read() as session:
        found = node_summaries.list_summaries(session, project, q, p)
    views = [summary_view(s) for s in found]
    return collection(c, "nodes", [s.node for s in found], views, p.limit)
