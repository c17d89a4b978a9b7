"""``/v1/metalwire/audit``: where the VIF attachments and Neutron disagree (metalwire only).

The paths sit under ``/v1/metalwire/``, a name Ironic will never give one of its resources,
so no Ironic client or future Ironic endpoint can meet them. Like every endpoint but the
version documents, they need an authenticated request.

* ``GET /v1/metalwire/audit[?node=N]``: audit now (every node, or one) and answer the
  findings; an audit of every node also becomes the latest one.
* ``GET /v1/metalwire/audit/latest``: the latest audit of every node (periodic, see
  ``[conductor] audit_interval``, or asked for), without calling Neutron.
* ``POST /v1/metalwire/audit/repair[?node=N]``: fix what is safe, under each node's lock,
  each fix in the node's history; answers the repairs and the findings of a new audit.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request

from metalwire.api.app_services import Services
from metalwire.api.routes.common import call
from metalwire.conductor.audit import AuditReport
from metalwire.conductor.audit_runner import PeriodicAudit
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db

LOG = logging.getLogger(__name__)

PREFIX = "/v1/metalwire/audit"
router = APIRouter(prefix=PREFIX)


def audited_nodes(services: Services, ident: str | None) -> list[str]:
    """The UUIDs of the nodes to audit: the one named (404 if none), or every node."""
    with services.db.read() as session:
        if ident is not None:
            return [node_db.get(session, ident).uuid]
        return node_db.all_uuids(session)


def audit_everything(services: Services, context: RequestContext) -> AuditReport:
    """Audit every node and keep the report as the latest."""
    report = services.rpcapi.audit(context, audited_nodes(services, None))
    services.audit.record(report)
    return report


@router.get("")
def get_audit(request: Request) -> dict[str, Any]:
    c = call(request)
    node = c.request.query_params.get("node")
    if node is None:
        return audit_everything(c.services, c.context).as_json()
    return c.services.rpcapi.audit(c.context, audited_nodes(c.services, node)).as_json()


@router.get("/latest")
def get_latest_audit(request: Request) -> dict[str, Any]:
    report = call(request).services.audit.report()
    if report is None:
        return {"checked_at": None, "nodes_checked": 0, "findings": []}
    return report.as_json()


@router.post("/repair")
def repair(request: Request) -> dict[str, Any]:
    c = call(request)
    node = c.request.query_params.get("node")
    done = c.services.rpcapi.audit_repair(c.context, audited_nodes(c.services, node))
    if node is None:
        c.services.audit.record(done.after)
    return done.as_json()


def periodic_audit(services: Services) -> PeriodicAudit | None:
    """The periodic audit ``[conductor] audit_interval`` asks for, or None (0, or no Neutron)."""
    interval = services.config.conductor.audit_interval
    if interval <= 0:
        return None
    if not services.config.neutron.configured:
        LOG.warning(
            "[conductor] audit_interval is %g s, but no Neutron is configured: the periodic "
            "drift audit does not run",
            interval,
        )
        return None
    return PeriodicAudit(interval, lambda: audit_everything(services, RequestContext()))
