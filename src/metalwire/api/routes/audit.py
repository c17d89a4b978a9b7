"""``/v1/metalwire/audit``: where the VIF attachments and Neutron, or the switch ports and
the switches, disagree (metalwire only).

The paths sit under ``/v1/metalwire/``, a name Ironic will never give one of its resources,
so no Ironic client or future Ironic endpoint can meet them. Like every endpoint but the
version documents, they need an authenticated request, and the rule ``metalwire:audit:get``
(reads) or ``metalwire:audit:repair`` (system reader, system admin by default). Whoever a
policy file lets in without ``baremetal:node:list_all`` meets only the nodes its project
owns or leases: a node of another project is a 404, and the latest audit shows only
findings on its own nodes.

* ``GET /v1/metalwire/audit[?node=N]``: the latest audit (periodic, see ``[conductor]
  audit_interval``, or asked for), every node's findings or one node's, without calling
  Neutron or a switch: a GET changes nothing. ``GET /v1/metalwire/audit/latest`` is its older name.
* ``POST /v1/metalwire/audit[?node=N]``: audit now (every node, or one) and answer the
  findings; an audit of every node also becomes the latest one.
* ``POST /v1/metalwire/audit/repair[?node=N]``: fix what is safe, under each node's lock,
  each fix in the node's history; answers the repairs and the findings of a new audit.

The POSTs take ``Content-Type: application/json`` (``{}`` or no body), so that no browser
form can send them (``metalwire.api.cross_site``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from metalwire.api import openapi_bodies as bodies
from metalwire.api.openapi_operations import WRITE
from metalwire.api.route_docs import alias, doc
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


def _latest(c: Call) -> dict[str, Any]:
    """The latest report, cut to the node asked for or to the requester's own nodes."""
    nodes = _nodes_of(c, c.request.query_params.get("node"))
    report = c.services.audit.report()
    if report is None:
        return {"checked_at": None, "nodes_checked": 0, "findings": [], "not_checked": []}
    body = report.as_json()
    if nodes is not None:
        mine = set(nodes)
        body["findings"] = [f.as_json() for f in report.findings if f.node_uuid in mine]
        body["not_checked"] = [n.as_json() for n in report.not_checked if n.node_uuid in mine]
        body["nodes_checked"] = min(report.nodes_checked, len(mine))
    return body


_LATEST = doc(
    "latestDriftAudit",
    "The latest audit (periodic or asked for), of every node or one, without calling Neutron "
    "or a switch (metalwire only).",
    "audit",
    ok="The findings of the latest audit.",
    returns=bodies.AUDIT_REPORT,
    errors=(404, 406),
    query=(bodies.AUDITED_NODE,),
)


@router.get("", openapi_extra=_LATEST)
def get_audit(request: Request) -> dict[str, Any]:
    c = call(request)
    _authorize(c, "metalwire:audit:get")
    return _latest(c)


@router.get(
    "/latest",
    openapi_extra=alias(
        _LATEST,
        "latestDriftAuditOldName",
        "The same as GET /v1/metalwire/audit, its older name (metalwire only).",
    ),
)
def get_latest_audit(request: Request) -> dict[str, Any]:
    """The same as ``GET /v1/metalwire/audit``, its older name."""
    return get_audit(request)


@router.post(
    "",
    openapi_extra=doc(
        "auditDrift",
        "Compare every VIF attachment (or one node's) with Neutron, and the switch ports "
        "metalwire set with the switches, now (metalwire only).",
        "audit",
        ok="The findings.",
        returns=bodies.AUDIT_REPORT,
        errors=(400, 403, 404, 406, 415, 502, 503),
        query=(bodies.AUDITED_NODE,),
        body=bodies.NO_FORM,
        body_required=False,
    ),
)
def run_audit(request: Request) -> dict[str, Any]:
    c = call(request)
    _authorize(c, "metalwire:audit:get")
    nodes = _nodes_of(c, c.request.query_params.get("node"))
    if nodes is None:
        return c.services.audit_everything(c.context).as_json()
    return c.services.rpcapi.audit(c.context, nodes).as_json()


@router.post(
    "/repair",
    openapi_extra=doc(
        "repairDrift",
        "Fix the safe findings under each node's lock, then audit again (metalwire only).",
        "audit",
        ok="The repairs and the findings left.",
        returns=bodies.AUDIT_REPAIRS,
        errors=(*WRITE, 415, 502),
        query=(bodies.AUDITED_NODE,),
        body=bodies.NO_FORM,
        body_required=False,
    ),
)
def repair(request: Request) -> dict[str, Any]:
    c = call(request)
    _authorize(c, "metalwire:audit:repair")
    nodes = _nodes_of(c, c.request.query_params.get("node"))
    chosen = c.services.audited_nodes(None) if nodes is None else nodes
    done = c.services.rpcapi.audit_repair(c.context, chosen)
    if nodes is None:  # a repair of every node also audited every node
        c.services.audit.record(done.after)
    return done.as_json()
