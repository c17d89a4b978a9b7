"""``/v1/metalwire/audit``: where the VIF attachments and Neutron disagree (metalwire only).

The paths sit under ``/v1/metalwire/``, a name Ironic will never give one of its resources,
so no Ironic client or future Ironic endpoint can meet them. Like every endpoint but the
version documents, they need an authenticated request, and the rule ``metalwire:audit:get``
(reads) or ``metalwire:audit:repair`` (system reader, system admin by default). Whoever a
policy file lets in without ``baremetal:node:list_all`` meets only the nodes its project
owns or leases: a node of another project is a 404, and the latest audit shows only
findings on its own nodes.

* ``GET /v1/metalwire/audit[?node=N]``: audit now (every node, or one) and answer the
  findings; an audit of every node also becomes the latest one.
* ``GET /v1/metalwire/audit/latest``: the latest audit of every node (periodic, see
  ``[conductor] audit_interval``, or asked for), without calling Neutron.
* ``POST /v1/metalwire/audit/repair[?node=N]``: fix what is safe, under each node's lock,
  each fix in the node's history; answers the repairs and the findings of a new audit.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from metalwire.api.routes import authz
from metalwire.api.routes.common import Call, call
from metalwire.db import nodes as node_db
from metalwire.errors import NodeNotFound

PREFIX = "/v1/metalwire/audit"
router = APIRouter(prefix=PREFIX)


def _authorize(c: Call, rule: str) -> None:
    authz.policy(c).authorize(rule, authz.identity(c))


def _nodes_of(c: Call, ident: str | None) -> list[str] | None:
    """The nodes to audit, None for every node. A node the requester may not see is a 404,
    as one that is not; without ``baremetal:node:list_all``, the nodes of its project."""
    if ident is not None:
        uuids = c.services.audited_nodes(ident)
        p = authz.policy(c)
        if p.enabled:
            with c.services.db.read() as session:
                owner, lessee = node_db.projects(session, uuids[0])
            if not p.sees_node(authz.identity(c), owner, lessee):
                raise NodeNotFound(ident)
        return uuids
    project = authz.list_project(c, "node")
    if project is None:
        return None
    with c.services.db.read() as session:
        return node_db.all_uuids(session, project)


@router.get("")
def get_audit(request: Request) -> dict[str, Any]:
    c = call(request)
    _authorize(c, "metalwire:audit:get")
    nodes = _nodes_of(c, c.request.query_params.get("node"))
    if nodes is None:
        return c.services.audit_everything(c.context).as_json()
    return c.services.rpcapi.audit(c.context, nodes).as_json()


@router.get("/latest")
def get_latest_audit(request: Request) -> dict[str, Any]:
    c = call(request)
    _authorize(c, "metalwire:audit:get")
    report = c.services.audit.report()
    if report is None:
        return {"checked_at": None, "nodes_checked": 0, "findings": []}
    body = report.as_json()
    if authz.policy(c).enabled:
        nodes = _nodes_of(c, None)
        if nodes is not None:  # only the findings on the requester's own nodes
            mine = set(nodes)
            body["findings"] = [f.as_json() for f in report.findings if f.node_uuid in mine]
            body["nodes_checked"] = min(report.nodes_checked, len(mine))
    return body


@router.post("/repair")
def repair(request: Request) -> dict[str, Any]:
    c = call(request)
    _authorize(c, "metalwire:audit:repair")
    nodes = _nodes_of(c, c.request.query_params.get("node"))
    chosen = c.services.audited_nodes(None) if nodes is None else nodes
    done = c.services.rpcapi.audit_repair(c.context, chosen)
    if nodes is None:  # a repair of every node also audited every node
        c.services.audit.record(done.after)
    return done.as_json()
