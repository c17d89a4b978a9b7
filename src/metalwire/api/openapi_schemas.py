"""The reusable parts of the OpenAPI document: resources, bodies, headers, parameters, errors.

Resource schemas come from the field tables (``api/fields.py``), so a field added there is
described here too. Every field is optional in a response: which ones are shown depends on
the microversion and on ``?fields=``; no other key may appear.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import FromClause, String

from metalwire.api import microversion as mv
from metalwire.api.fields import (
    ALLOCATION_FIELDS,
    CHASSIS_FIELDS,
    DEPLOY_TEMPLATE_FIELDS,
    NODE_FIELDS,
    NODE_SUBLINKS,
    PORT_FIELDS,
    PORTGROUP_FIELDS,
    RUNBOOK_FIELDS,
    Access,
    Field,
)
from metalwire.api.validation import LINK_NETWORK_TYPES
from metalwire.conductor.steps import STEP_INTERFACES
from metalwire.config import DefaultOptions
from metalwire.db.models import (
    Allocation,
    Chassis,
    DeployTemplate,
    Node,
    Port,
    Portgroup,
    Runbook,
)

Schema = dict[str, Any]


def ref(kind: str, name: str) -> Schema:
    return {"$ref": f"#/components/{kind}/{name}"}


_UUID: Schema = {"type": "string", "format": "uuid"}
MAC_PATTERN = r"^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$"
_DATAPATH_ID = r"^[0-9a-fA-F]{16}$"
_TIMESTAMP: Schema = {"type": ["string", "null"], "format": "date-time"}
_TIMESTAMPS = {
    "created_at",
    "updated_at",
    "provision_updated_at",
    "inspection_started_at",
    "inspection_finished_at",
}
_KIND: dict[str, Schema] = {
    "str": {"type": ["string", "null"]},
    "bool": {"type": ["boolean", "null"]},
    "dict": {"type": ["object", "null"]},
    "list": {"type": ["array", "null"]},
    "any": {},
}
_DEFAULTS = DefaultOptions()


def _one_of_or_any(names: list[str], what: str) -> Schema:
    """A free string, with the default names offered first (a generator picks them often)."""
    return {
        "anyOf": [{"type": "string", "enum": names}, {"type": "string"}],
        "description": f"{what}; by default one of {', '.join(names)}.",
    }


def _shown(field: Field) -> Schema:
    if field.name in ("uuid",):
        return _UUID
    if field.name in _TIMESTAMPS:
        return _TIMESTAMP
    if field.name in ("node_uuid", "portgroup_uuid", "instance_uuid", "chassis_uuid"):
        return {"type": ["string", "null"]}
    return dict(_KIND[field.kind])


_NAME = r"^[A-Za-z0-9\-._~]+$"
# What refuse_switch_name lets through: the switch identities Ironic takes, and on an
# ironic-networking node any other text, a switch of the switch file by its section name.
_SWITCH_ID: Schema = {
    "anyOf": [
        {"type": "string", "pattern": MAC_PATTERN, "description": "The switch's MAC address."},
        {
            "type": "string",
            "pattern": _DATAPATH_ID,
            "description": "The switch's OpenFlow datapath ID, 16 hexadecimal digits.",
        },
        {
            "type": "string",
            "description": "Only on a node whose network_interface is ironic-networking: "
            "a switch of its switch file, by section name. Elsewhere a 400.",
        },
    ],
    "description": "A MAC address or an OpenFlow datapath ID (kept in lower case, ':' "
    "separated), or on an ironic-networking node a switch name.",
}
_LOCAL_LINK: Schema = {
    "type": "object",
    "description": "switch_id and port_id (hostname and port_id for a smart NIC), unless "
    "network_type is unmanaged.",
    "properties": {
        "switch_id": _SWITCH_ID,
        "port_id": {"type": "string"},
        "switch_info": {"type": "string"},
        "hostname": {"type": "string"},
        "network_type": {"type": "string", "enum": list(LINK_NETWORK_TYPES)},
    },
    "additionalProperties": False,
}


def _settable(field: Field, table: FromClause) -> Schema:
    """The value a client may give: what the API accepts, so generated values mostly pass."""
    if field.name == "driver":
        return _one_of_or_any(
            _DEFAULTS.enabled_hardware_types,
            "A hardware type named in [DEFAULT] enabled_hardware_types",
        )
    if field.name == "network_interface":
        return _one_of_or_any(
            _DEFAULTS.enabled_network_interfaces,
            "A network interface named in [DEFAULT] enabled_network_interfaces",
        )
    if field.name == "address":
        return {"type": "string", "pattern": MAC_PATTERN}
    if field.name == "local_link_connection":
        return _LOCAL_LINK
    if field.name in ("uuid", "node_uuid", "portgroup_uuid", "instance_uuid", "chassis_uuid"):
        return {"type": "string", "format": "uuid"}
    if field.kind == "bool":
        return {"type": "boolean"}
    if field.kind == "dict":
        return {"type": "object"}
    if field.kind == "list":
        return {"type": "array", "items": {"type": "string"}}
    if field.kind == "str":
        schema: Schema = {"type": "string"}
        column = table.columns.get(field.name)
        if column is not None and isinstance(column.type, String) and column.type.length:
            schema["maxLength"] = column.type.length
        if field.name == "name":
            schema.update(pattern=_NAME, minLength=1, maxLength=255)
        return schema
    return {}


def _since(schema: Schema, field: Field) -> Schema:
    if field.since > 1 and not field.gated:
        text = f"Shown from API version 1.{field.since}; accepted at every version."
        return {**schema, "description": text}
    if field.since > 1:
        return {**schema, "description": f"From API version 1.{field.since}."}
    return schema


LINK: Schema = {
    "type": "object",
    "properties": {"href": {"type": "string"}, "rel": {"type": "string"}},
    "required": ["href", "rel"],
}
LINKS: Schema = {"type": "array", "items": ref("schemas", "Link")}


def resource(fields: tuple[Field, ...], sublinks: tuple[str, ...]) -> Schema:
    """A node, port or portgroup as shown: any of its fields, its links and sub-links."""
    properties: dict[str, Schema] = {f.name: _since(_shown(f), f) for f in fields}
    properties["links"] = LINKS
    for name in sublinks:
        properties[name] = LINKS
    return {
        "type": "object",
        "properties": properties,
        "required": ["links"],
        "additionalProperties": False,
    }


def chassis_resource() -> Schema:
    """A chassis as shown: its ``nodes`` links come inside a list, as Ironic 39 shows them."""
    shown = resource(CHASSIS_FIELDS, ())
    nodes: Schema = {"type": "array", "items": LINKS}
    return {**shown, "properties": {**shown["properties"], "nodes": nodes}}


_TRAIT_NAME: Schema = {
    "type": "string",
    "pattern": "^[A-Z][A-Z0-9_]{0,254}$",
    "description": "A trait: a standard one (os-traits) or CUSTOM_ and upper-case letters, "
    "digits and '_'.",
}
DEPLOY_STEP: Schema = {
    "type": "object",
    "properties": {
        "interface": {"type": "string", "enum": list(STEP_INTERFACES)},
        "step": {"type": "string", "minLength": 1},
        "args": {"type": "object"},
        "priority": {
            "anyOf": [
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": "^[0-9]+$"},
            ],
            "description": "0 disables the step; shown as an integer.",
        },
    },
    "required": ["interface", "step", "args", "priority"],
    "additionalProperties": False,
}


def deploy_template_resource() -> Schema:
    """A deploy template as shown: its steps with their arguments' secrets masked."""
    shown = resource(DEPLOY_TEMPLATE_FIELDS, ())
    steps: Schema = {"type": "array", "items": DEPLOY_STEP}
    return {**shown, "properties": {**shown["properties"], "name": _TRAIT_NAME, "steps": steps}}


def deploy_template_create() -> Schema:
    """A template's name and steps are required; a description is taken and not kept, as
    Ironic 39 takes it."""
    body = create_body(DEPLOY_TEMPLATE_FIELDS, DeployTemplate.__table__, ["name", "steps"])
    steps: Schema = {"type": "array", "items": DEPLOY_STEP, "minItems": 1}
    ignored: Schema = {
        "type": ["string", "null"],
        "maxLength": 255,
        "description": "Taken and not kept, as Ironic 39 takes it.",
    }
    properties = {**body["properties"], "name": _TRAIT_NAME, "steps": steps}
    return {**body, "properties": {**properties, "description": ignored}}


def create_body(fields: tuple[Field, ...], table: FromClause, required: list[str]) -> Schema:
    """What a create request may set: the writable and create-only fields."""
    settable = (Access.WRITABLE, Access.CREATE_ONLY)
    properties = {f.name: _since(_settable(f, table), f) for f in fields if f.access in settable}
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def allocation_create() -> Schema:
    """An allocation's create body: its settable fields, and the node it backfills (1.58)."""
    body = create_body(ALLOCATION_FIELDS, Allocation.__table__, [])
    body["properties"]["node"] = {
        "type": "string",
        "description": "The deployed node (UUID or name) the allocation is recorded for "
        "(backfilling, API 1.58 and later); resource_class then defaults to the node's.",
    }
    return body


def collection(key: str, item: str) -> Schema:
    return {
        "type": "object",
        "properties": {
            key: {"type": "array", "items": ref("schemas", item)},
            "next": {"type": "string", "description": "The next page, when this one is full."},
        },
        "required": [key],
        "additionalProperties": False,
    }


JSON_PATCH: Schema = {
    "type": "array",
    "description": "RFC 6902 JSON Patch of add, replace and remove; paths are the resource's "
    "fields (/extra/key), each part letters (any script), digits, '_' or '-' at every version, "
    "as Ironic 39's patch schema takes them (no '~0'/'~1' escapes).",
    "items": {
        "type": "object",
        "properties": {
            "op": {"enum": ["add", "remove", "replace", "move", "copy", "test"]},
            "path": {
                "type": "string",
                "pattern": r"^(/[\w-]+)+$",
                "examples": ["/extra/key", "/name"],
            },
            "value": {},
        },
        "required": ["op", "path"],
        "additionalProperties": False,
    },
}

VERSION: Schema = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "links": LINKS,
        "status": {"type": "string"},
        "min_version": {"type": "string"},
        "version": {"type": "string"},
    },
    "required": ["id", "links", "status", "min_version", "version"],
}

HISTORY_ENTRY: Schema = {
    "type": "object",
    "properties": {
        "uuid": _UUID,
        "created_at": _TIMESTAMP,
        "severity": {"type": "string"},
        "event": {"type": "string"},
        "links": LINKS,
        "event_type": {"type": "string"},
        "conductor": {"type": ["string", "null"]},
        "user": {"type": ["string", "null"]},
        "vif_id": {"type": ["string", "null"]},
        "target_uuid": {"type": ["string", "null"]},
        "result": {"type": ["string", "null"]},
        "project": {"type": ["string", "null"], "description": "from 1.113"},
        "state": {"type": ["string", "null"], "description": "from 1.115"},
        "target_provision_state": {"type": ["string", "null"], "description": "from 1.115"},
        "duration_seconds": {"type": ["integer", "null"], "description": "from 1.115"},
    },
    "required": ["uuid", "created_at", "severity", "event", "links"],
    "additionalProperties": False,
}

STATES: Schema = {
    "type": "object",
    "properties": {
        "power_state": {"type": ["string", "null"]},
        "target_power_state": {"type": ["string", "null"]},
        "provision_state": {"type": ["string", "null"]},
        "target_provision_state": {"type": ["string", "null"]},
        "provision_updated_at": _TIMESTAMP,
        "last_error": {"type": ["string", "null"]},
        "console_enabled": {"type": "boolean"},
        "raid_config": {"type": "object", "description": "from 1.12"},
        "target_raid_config": {"type": "object", "description": "from 1.12"},
        "boot_mode": {"type": ["string", "null"], "description": "from 1.75"},
        "secure_boot": {"type": ["boolean", "null"], "description": "from 1.75"},
    },
    "additionalProperties": False,
}

VIF_ATTACH: Schema = {
    "type": "object",
    "properties": {
        "id": {
            "type": "string",
            "description": "A UUID or a name of at most 255 RFC 3986 unreserved characters; "
            "not '.' or '..'.",
            "pattern": r"^[A-Za-z0-9\-._~]{1,255}$",
        },
        "port_uuid": {"type": "string", "format": "uuid", "description": "From 1.67."},
        "portgroup_uuid": {"type": "string", "format": "uuid", "description": "From 1.67."},
    },
    "required": ["id"],
    "description": "Other keys are handed to the node's network interface.",
}

_NULLABLE_STRING: Schema = {"type": ["string", "null"]}
_DRY_RUN_TARGET: Schema = {
    "type": "object",
    "properties": {
        "type": {
            "enum": ["port", "portgroup", "dynamic_portgroup"],
            "description": "dynamic_portgroup: the one trait-based networking would build "
            "(uuid and name null until it is).",
        },
        "uuid": {"type": ["string", "null"], "format": "uuid"},
        "address": _NULLABLE_STRING,
        "physical_network": {
            "type": ["string", "null"],
            "description": "A portgroup's is the one its member ports share, if they do.",
        },
        "name": {**_NULLABLE_STRING, "description": "Portgroups only."},
        "ports": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Portgroups only: the member ports' UUIDs.",
        },
        "pxe_enabled": {"type": "boolean", "description": "Ports only."},
        "portgroup_uuid": {**_NULLABLE_STRING, "description": "Ports only."},
    },
    "required": ["type", "uuid", "address", "physical_network"],
}
REFUSAL_CODES = [
    "unusable",
    "physical_network",
    "busy",
    "portgroup_busy",
    "member_busy",
    "no_members",
    "no_usable_member",
    "portgroup_member",
    "ranked_lower",
    "not_requested",
]
_SWITCHPORT_RECORD: Schema = {
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "mode": {"enum": ["access", "trunk", "hybrid"]},
                "native_vlan": {"type": "integer"},
                "allowed_vlans": {"type": "array", "items": {"type": "integer"}},
            },
            "required": ["mode", "native_vlan", "allowed_vlans"],
        },
        {"type": "null", "description": "No VLAN configuration."},
    ]
}
_DRY_RUN_SWITCH: Schema = {
    "type": "object",
    "properties": {
        "switch": {"type": "string", "description": "Its name in the switch file."},
        "device_type": {"type": "string"},
        "ports": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "port_uuid": {"type": "string", "format": "uuid"},
                    "port_id": {"type": "string", "description": "The switch interface."},
                    "from": _SWITCHPORT_RECORD,
                    "to": _SWITCHPORT_RECORD,
                    "commands": {
                        "type": ["array", "null"],
                        "items": {"type": "string"},
                        "description": "What networking-generic-switch would send for the "
                        "device type (null: see commands_unavailable).",
                    },
                },
                "required": ["port_uuid", "port_id", "from", "to", "commands"],
            },
        },
        "commands_unavailable": {**_NULLABLE_STRING, "description": "Why no commands."},
    },
    "required": ["switch", "device_type", "ports", "commands_unavailable"],
}
DRY_RUN_ATTACH: Schema = {
    "type": "object",
    "description": "Where the attach would put the VIF and why no other port or portgroup "
    "(metalwire only, with the X-Metalwire-Dry-Run header).",
    "properties": {
        "dry_run": {"const": True},
        "node_uuid": {"type": "string", "format": "uuid"},
        "vif_id": {"type": "string"},
        "network_interface": {"type": "string"},
        "physical_networks": {
            "type": "array",
            "items": {"type": "string"},
            "description": "The VIF's physical networks, as the attach reads them (from "
            "Neutron); empty means any.",
        },
        "switch_changes": {
            "type": ["array", "null"],
            "items": _DRY_RUN_SWITCH,
            "description": "ironic-networking: per switch, each port the attach would move "
            "and the commands it would send (rendered, nothing sent); empty when it moves "
            "none. null for other interfaces or when no target is chosen.",
        },
        "trait_based_networking": {
            "type": ["object", "null"],
            "description": "With [conductor] enable_trait_based_networking, the plan that "
            "decides the target: trait (the one applied, or null), node_traits, reason (why "
            "nothing applies), tried (each trait with its actions: action, filter, "
            "min_count, max_count, applies, carried_out, problem, targets, refused with "
            "each reason, dynamic_portgroup). When trait is null and "
            "trait_based_networking_raise_when_no_match is off, the attach places the VIF as "
            "without trait-based networking: target, error and refused are that choice's. "
            "null otherwise.",
        },
        "chooses_target": {
            "type": "boolean",
            "description": "false when the node's network interface records no target "
            "(noop): the attach would succeed, and target, error and refused are empty.",
        },
        "target": {
            "oneOf": [_DRY_RUN_TARGET, {"type": "null"}],
            "description": "The port or portgroup the VIF would get; null if none.",
        },
        "error": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "code": {"type": "integer"},
                        "type": {"type": "string"},
                        "message": {"type": "string"},
                    },
                    "required": ["code", "type", "message"],
                },
                {"type": "null"},
            ],
            "description": "When target is null: the error the attach would answer.",
        },
        "refused": {
            "type": "array",
            "description": "Every other port and portgroup of the node, and why it would not "
            "get the VIF.",
            "items": {
                "allOf": [_DRY_RUN_TARGET],
                "type": "object",
                "properties": {
                    "reason": {"enum": REFUSAL_CODES},
                    "message": {"type": "string"},
                    "vif": {
                        **_NULLABLE_STRING,
                        "description": "The VIF that makes it, its portgroup or a member busy.",
                    },
                },
                "required": ["reason", "message", "vif"],
            },
        },
    },
    "required": [
        "dry_run",
        "node_uuid",
        "vif_id",
        "network_interface",
        "physical_networks",
        "switch_changes",
        "chooses_target",
        "target",
        "error",
        "refused",
    ],
}

_FAULT: Schema = {
    "type": "object",
    "properties": {
        "faultcode": {"enum": ["Client", "Server"]},
        "faultstring": {"type": "string"},
        "debuginfo": {"type": "null"},
    },
    "required": ["faultcode", "faultstring"],
}
_ROUTING: Schema = {
    "type": "object",
    "properties": {
        "code": {"type": ["integer", "string"]},
        "title": {"type": "string"},
        "description": {"type": "string"},
    },
    "required": ["code", "title", "description"],
}

ERROR: Schema = {
    "type": "object",
    "description": (
        "Ironic's error body. `error_message` is JSON text: for an error about an object, "
        "`{faultcode, faultstring, debuginfo}`; for a routing or version-negotiation error "
        "(unknown path, method not allowed, unsupported microversion), `{code, title, "
        "description}`. Clients parse the inner text to show the message."
    ),
    "properties": {
        "error_message": {
            "anyOf": [
                {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {"anyOf": [_FAULT, _ROUTING]},
                },
                _FAULT,
                _ROUTING,
            ]
        }
    },
    "required": ["error_message"],
}


def _versions() -> list[str]:
    return [f"1.{n}" for n in range(mv.MIN_VERSION.minor, mv.MAX_VERSION.minor + 1)]


HEADER_PARAMETERS: dict[str, Schema] = {
    "IronicApiVersion": {
        "name": mv.IRONIC_HEADER,
        "in": "header",
        "required": False,
        "description": "The microversion, `1.N` or `latest`; without a version header, "
        f"{mv.MIN_VERSION}. Outside [{mv.MIN_VERSION}, {mv.MAX_VERSION}] or malformed: 406.",
        # The newest version is listed on its own too, so a generator picks it often.
        "schema": {"anyOf": [{"enum": ["latest", str(mv.MAX_VERSION)]}, {"enum": _versions()}]},
    },
    "OpenStackApiVersion": {
        "name": mv.GENERIC_HEADER,
        "in": "header",
        "required": False,
        "description": f"The microversion as `{mv.SERVICE_TYPE} 1.N`, the generic form.",
        "schema": {
            "type": "string",
            "enum": [f"{mv.SERVICE_TYPE} {v}" for v in [*_versions(), "latest"]],
        },
    },
}

DRY_RUN_PARAMETER: Schema = {
    "name": "X-Metalwire-Dry-Run",
    "in": "header",
    "required": False,
    "description": "metalwire only: `true` attaches nothing and answers 200 with where the "
    "VIF would go and why no other target would take it. Absent or `false`: the attach.",
    "schema": {"enum": ["true", "false"]},
}

RESPONSE_HEADERS: dict[str, Schema] = {
    "MinimumVersion": {
        "description": "The oldest microversion served.",
        "schema": {"type": "string", "pattern": r"^1\.\d+$"},
    },
    "MaximumVersion": {
        "description": "The newest microversion served.",
        "schema": {"type": "string", "pattern": r"^1\.\d+$"},
    },
    "Version": {
        "description": "The microversion the request was answered at.",
        "schema": {"type": "string", "pattern": r"^1\.\d+$"},
    },
    "GenericVersion": {
        "description": "The microversion the request was answered at, generic form.",
        "schema": {"type": "string", "pattern": rf"^{mv.SERVICE_TYPE} 1\.\d+$"},
    },
    "RequestId": {
        "description": "The request's id, as in the server log.",
        "schema": {"type": "string"},
    },
}


def version_headers() -> dict[str, Schema]:
    """The headers every response may carry (none is promised on a negotiation error)."""
    return {
        mv.MIN_HEADER: ref("headers", "MinimumVersion"),
        mv.MAX_HEADER: ref("headers", "MaximumVersion"),
        mv.IRONIC_HEADER: ref("headers", "Version"),
        mv.GENERIC_HEADER: ref("headers", "GenericVersion"),
        "X-OpenStack-Request-Id": ref("headers", "RequestId"),
    }


ERROR_STATUSES: dict[int, str] = {
    400: "The request is invalid; the message names the field or value.",
    403: "The node is protected.",
    404: "Not found, or not at this microversion, or an unknown path.",
    405: "The path exists, the method does not.",
    406: "The microversion, or a field or verb of the request, is not served.",
    409: "The request clashes with the current state (in use, duplicate, node locked).",
    413: "The request body is too large.",
    415: "A metalwire write without Content-Type: application/json (as a form would send).",
    502: "The network service refused the work.",
    503: "The network service or the database could not be reached in time.",
}


def error_responses() -> dict[str, Schema]:
    return {
        f"Error{status}": {
            "description": text,
            "headers": version_headers(),
            "content": {"application/json": {"schema": ref("schemas", "Error")}},
        }
        for status, text in ERROR_STATUSES.items()
    }


RUNBOOK_STEP: Schema = {
    "type": "object",
    "properties": {
        "interface": {"type": "string", "enum": list(STEP_INTERFACES)},
        "step": {"type": "string", "minLength": 1},
        "args": {"type": "object"},
        "order": {
            "anyOf": [
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": "^[0-9]+$"},
            ],
            "description": "Where the step runs among the runbook's; shown as an integer.",
        },
    },
    "required": ["interface", "step", "order"],
    "additionalProperties": False,
}
_RUNBOOK_NAME: Schema = {
    "type": "string",
    "pattern": "^[A-Za-z0-9._~-]{1,255}$",
    "description": "From 1.112 any logical name; below it a trait (os-traits, or CUSTOM_ and "
    "upper-case letters, digits and '_').",
}


def runbook_resource() -> Schema:
    """A runbook as shown: its steps with their arguments' secrets masked, its traits (1.112)."""
    shown = resource(RUNBOOK_FIELDS, ())
    steps: Schema = {"type": "array", "items": RUNBOOK_STEP}
    properties = {**shown["properties"], "name": _RUNBOOK_NAME, "steps": steps}
    return {**shown, "properties": properties}


def runbook_create() -> Schema:
    """A runbook's name and steps are required; its traits are set afterwards."""
    body = create_body(RUNBOOK_FIELDS, Runbook.__table__, ["name", "steps"])
    steps: Schema = {"type": "array", "items": RUNBOOK_STEP, "minItems": 1}
    return {**body, "properties": {**body["properties"], "name": _RUNBOOK_NAME, "steps": steps}}


def components() -> dict[str, Any]:
    schemas: dict[str, Schema] = {
        "Link": LINK,
        "Error": ERROR,
        "Version": VERSION,
        "Node": resource(NODE_FIELDS, tuple(name for name, _since in NODE_SUBLINKS)),
        "Port": resource(PORT_FIELDS, ()),
        "Portgroup": resource(PORTGROUP_FIELDS, ("ports",)),
        "NodeCreate": create_body(NODE_FIELDS, Node.__table__, ["driver"]),
        "PortCreate": create_body(PORT_FIELDS, Port.__table__, ["address", "node_uuid"]),
        "PortgroupCreate": create_body(PORTGROUP_FIELDS, Portgroup.__table__, ["node_uuid"]),
        "NodeList": collection("nodes", "Node"),
        "PortList": collection("ports", "Port"),
        "PortgroupList": collection("portgroups", "Portgroup"),
        "Chassis": chassis_resource(),
        "ChassisCreate": create_body(CHASSIS_FIELDS, Chassis.__table__, []),
        "ChassisList": collection("chassis", "Chassis"),
        "DeployTemplate": deploy_template_resource(),
        "DeployTemplateCreate": deploy_template_create(),
        "DeployTemplateList": collection("deploy_templates", "DeployTemplate"),
        "Runbook": runbook_resource(),
        "RunbookCreate": runbook_create(),
        "RunbookList": collection("runbooks", "Runbook"),
        "Allocation": resource(ALLOCATION_FIELDS, ()),
        "AllocationCreate": allocation_create(),
        "AllocationList": collection("allocations", "Allocation"),
        "HistoryEntry": HISTORY_ENTRY,
        "HistoryList": collection("history", "HistoryEntry"),
        "States": STATES,
        "JsonPatch": JSON_PATCH,
        "VifAttach": VIF_ATTACH,
        "VifAttachDryRun": DRY_RUN_ATTACH,
    }
    return {
        "schemas": schemas,
        "parameters": {**HEADER_PARAMETERS, "MetalwireDryRun": DRY_RUN_PARAMETER},
        "headers": RESPONSE_HEADERS,
        "responses": error_responses(),
    }
