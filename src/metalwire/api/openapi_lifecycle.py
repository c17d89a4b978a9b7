"""The OpenAPI description of the node lifecycle routes Nova drives (power, console,
validation, NMI) and of the volume connectors and targets."""

from __future__ import annotations

from metalwire.api import openapi_schemas as s
from metalwire.api.fields import (
    VOLUME_CONNECTOR_FIELDS,
    VOLUME_TARGET_FIELDS,
)
from metalwire.api.openapi_operations import (
    READ,
    WRITE,
    Schema,
    operation,
    paging,
    path_param,
    query,
    responses,
)
from metalwire.api.routes.volume import RESOURCES
from metalwire.conductor import hardware
from metalwire.db import volumes as volume_db

_NODE = path_param("ident", "The node's UUID or name.")
_LOCATION = {"Location": {"description": "URL of the node's states.", "schema": {"type": "string"}}}

_RESULT: Schema = {
    "type": "object",
    "properties": {"result": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["result"],
    "additionalProperties": False,
}
VALIDATION: Schema = {
    "type": "object",
    "properties": {kind: _RESULT for kind in hardware.VALIDATED},
    "required": list(hardware.VALIDATED),
    "additionalProperties": False,
}
CONSOLE: Schema = {
    "type": "object",
    "properties": {
        "console_enabled": {"type": "boolean"},
        "console_info": {"type": ["object", "null"]},
    },
    "required": ["console_enabled", "console_info"],
    "additionalProperties": False,
}
_POWER_BODY: Schema = {
    "type": "object",
    "properties": {
        "target": {"anyOf": [{"enum": list(hardware.POWER_TARGETS)}, {"type": "string"}]},
        "timeout": {"type": "integer", "minimum": 1, "description": "Seconds (1.27)."},
    },
    "required": ["target"],
}
_CONSOLE_BODY: Schema = {
    "type": "object",
    "properties": {"enabled": {"type": ["boolean", "string"]}},
    "required": ["enabled"],
}


def _ref(name: str) -> Schema:
    return s.ref("schemas", name)


_SORTABLE = {"connectors": volume_db.CONNECTORS.sortable, "targets": volume_db.TARGETS.sortable}
_FIELDS = {"connectors": VOLUME_CONNECTOR_FIELDS, "targets": VOLUME_TARGET_FIELDS}


def schemas() -> dict[str, Schema]:
    out: dict[str, Schema] = {"NodeValidation": VALIDATION, "NodeConsole": CONSOLE}
    for r in RESOURCES:
        kind = "VolumeConnector" if r.name == "connectors" else "VolumeTarget"
        out[kind] = s.resource(_FIELDS[r.name], ())
        out[f"{kind}Create"] = s.create_body(
            _FIELDS[r.name], r.kind.model.__table__, list(r.required)
        )
        out[f"{kind}List"] = s.collection(r.name, kind)
    return out


def node_paths() -> dict[str, Schema]:
    n = "nodes"
    return {
        "/v1/nodes/{ident}/states/power": {
            "put": operation(
                "setPowerState",
                "Power a node on or off, reboot it, soft reboot it or soft power it off.",
                n,
                responses(202, "Accepted.", None, WRITE, _LOCATION),
                [_NODE],
                body=_POWER_BODY,
            )
        },
        "/v1/nodes/{ident}/states/console": {
            "get": operation(
                "getConsole",
                "Whether the console is enabled, and how to connect to it.",
                n,
                responses(200, "The console.", s.ref("schemas", "NodeConsole"), READ),
                [_NODE],
            ),
            "put": operation(
                "setConsoleState",
                "Start or stop a node's console.",
                n,
                responses(202, "Accepted.", None, WRITE, _LOCATION),
                [_NODE],
                body=_CONSOLE_BODY,
            ),
        },
        "/v1/nodes/{ident}/validate": {
            "get": operation(
                "validateNode",
                "Validate each of a node's interfaces.",
                n,
                responses(
                    200, "One result per interface.", s.ref("schemas", "NodeValidation"), READ
                ),
                [_NODE],
            )
        },
        "/v1/nodes/{ident}/management/inject_nmi": {
            "put": operation(
                "injectNmi",
                "Inject a non-maskable interrupt (1.29; refused by fake-hardware, as in Ironic).",
                n,
                responses(204, "Injected.", None, WRITE),
                [_NODE],
                body={"type": "object"},
                body_required=False,
            )
        },
    }


def volume_paths() -> dict[str, Schema]:
    root: Schema = {
        "type": "object",
        "properties": {
            "links": s.LINKS,
            "connectors": s.LINKS,
            "targets": s.LINKS,
        },
        "required": ["links", "connectors", "targets"],
    }
    get_root = operation(
        "getVolume",
        "The volume resources (1.32).",
        "volume",
        responses(200, "Links.", root, (406, 404)),
    )
    paths: dict[str, Schema] = {
        "/v1/volume": {"get": get_root},
        "/v1/volume/": {"get": {**get_root, "operationId": "getVolumeSlash"}},
    }
    detail = query("detail", {"type": "boolean"}, "Show every field.")
    fields = query("fields", {"type": "string"}, "Comma-separated fields to show.")
    uuid = path_param("uuid", "The object's UUID.")
    for r in RESOURCES:
        kind = "VolumeConnector" if r.name == "connectors" else "VolumeTarget"
        noun = "volume connector" if r.name == "connectors" else "volume target"
        obj = s.ref("schemas", kind)
        listing = s.ref("schemas", f"{kind}List")
        params = [*paging(set(_SORTABLE[r.name])), fields, detail]
        node = query("node", {"type": "string"}, f"The {noun}s of this node (UUID or name).")
        paths[f"/v1/{r.path}"] = {
            "get": operation(
                f"list{kind}s",
                f"List {noun}s (1.32).",
                "volume",
                responses(200, f"{noun}s", listing, READ),
                [node, *params],
            ),
            "post": operation(
                f"create{kind}",
                f"Create a {noun}.",
                "volume",
                responses(201, f"The new {noun}.", obj, (400, 404, 406, 409, 503)),
                body=s.ref("schemas", f"{kind}Create"),
            ),
        }
        paths[f"/v1/nodes/{{ident}}/{r.path}"] = {
            "get": operation(
                f"listNode{kind}s",
                f"List a node's {noun}s (1.32).",
                "volume",
                responses(200, f"{noun}s", listing, READ),
                [_NODE, *params],
            )
        }
        paths[f"/v1/{r.path}/{{uuid}}"] = {
            "get": operation(
                f"get{kind}",
                f"Show a {noun}.",
                "volume",
                responses(200, f"The {noun}.", obj, READ),
                [uuid, fields],
            ),
            "patch": operation(
                f"patch{kind}",
                f"Change a {noun} with a JSON Patch (its node powered off).",
                "volume",
                responses(200, f"The changed {noun}.", obj, WRITE),
                [uuid],
                body=s.ref("schemas", "JsonPatch"),
            ),
            "delete": operation(
                f"delete{kind}",
                f"Delete a {noun} (its node powered off).",
                "volume",
                responses(204, "Deleted.", None, WRITE),
                [uuid],
            ),
        }
    return paths
