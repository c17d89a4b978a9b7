"""The OpenAPI paths of the drift audit: metalwire's own, under ``/v1/metalwire/audit``.

A GET reads the latest report; a POST runs an audit or a repair and takes a JSON content type
(``metalwire.api.cross_site``), which the request body declares.
"""

from __future__ import annotations

from metalwire.api.openapi_operations import WRITE, Schema, operation, query, responses
from metalwire.conductor import audit

# A write under /v1/metalwire/ without Content-Type: application/json is a 415.
_NO_FORM: Schema = {
    "type": "object",
    "description": "Nothing is read from it: {} (or no body) with Content-Type application/json.",
}


def paths() -> dict[str, Schema]:
    """The drift audit: metalwire's own, under /v1/metalwire/ where Ironic has nothing."""
    finding: Schema = {
        "type": "object",
        "properties": {
            "kind": {"enum": list(audit.KINDS)},
            "node_uuid": {"type": "string"},
            "node_name": {"type": ["string", "null"]},
            "vif_id": {"type": "string", "description": "The VIF (or orphan) Neutron port."},
            "target_uuid": {
                "type": ["string", "null"],
                "description": "The port or portgroup the VIF is attached to.",
            },
            "expected": {"description": "What metalwire's records say Neutron should hold."},
            "actual": {"description": "What Neutron holds."},
            "repairable": {"type": "boolean"},
            "repair": {"type": ["string", "null"], "description": "What a repair does."},
            "message": {"type": "string"},
        },
        "required": ["kind", "node_uuid", "vif_id", "repairable", "message"],
    }
    report: Schema = {
        "type": "object",
        "properties": {
            "checked_at": {"type": ["string", "null"], "format": "date-time"},
            "nodes_checked": {"type": "integer"},
            "findings": {"type": "array", "items": finding},
        },
        "required": ["checked_at", "nodes_checked", "findings"],
    }
    repaired: Schema = {
        "allOf": [finding],
        "properties": {"repaired": {"type": "boolean"}, "result": {"type": "string"}},
        "required": ["repaired", "result"],
    }
    repairs: Schema = {
        **report,
        "properties": {
            **report["properties"],
            "repairs": {"type": "array", "items": repaired},
        },
        "required": [*report["required"], "repairs"],
    }
    node = query("node", {"type": "string"}, "Only this node (UUID or name); default every node.")
    tag = "audit"
    read = responses(200, "The findings of the latest audit.", report, (404, 406))
    return {
        "/v1/metalwire/audit": {
            "get": operation(
                "latestDriftAudit",
                "The latest audit (periodic or asked for), of every node or one, without "
                "calling Neutron (metalwire only).",
                tag,
                read,
                [node],
            ),
            "post": operation(
                "auditDrift",
                "Compare every VIF attachment (or one node's) with Neutron now (metalwire only).",
                tag,
                responses(200, "The findings.", report, (400, 403, 404, 406, 415, 502, 503)),
                [node],
                _NO_FORM,
                body_required=False,
            ),
        },
        "/v1/metalwire/audit/latest": {
            "get": operation(
                "latestDriftAuditOldName",
                "The same as GET /v1/metalwire/audit, its older name (metalwire only).",
                tag,
                read,
                [node],
            )
        },
        "/v1/metalwire/audit/repair": {
            "post": operation(
                "repairDrift",
                "Fix the safe findings under each node's lock, then audit again (metalwire only).",
                tag,
                responses(200, "The repairs and the findings left.", repairs, (*WRITE, 415, 502)),
                [node],
                _NO_FORM,
                body_required=False,
            )
        },
    }
