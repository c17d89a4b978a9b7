"""The request and response bodies, headers and links the routes' declarations name
(:mod:`metalwire.api.route_docs`), where no field table describes them.

What a route module owns (its verbs, its features) comes in as an argument, so this module
imports nothing from ``api/routes``.
"""

from __future__ import annotations

from collections.abc import Iterable

from metalwire.api import dry_run
from metalwire.api import openapi_schemas as s
from metalwire.api.openapi_operations import Schema, query
from metalwire.conductor import audit, boot_device, boot_mode, hardware, network_events, vmedia
from metalwire.db import node_summaries

LOCATION: Schema = {
    "Location": {"description": "URL of the new object.", "schema": {"type": "string"}}
}
STATES_LOCATION: Schema = {
    "Location": {"description": "URL of the node's states.", "schema": {"type": "string"}}
}
WARNING: Schema = {
    "Warning": {
        "description": "Set when extra/vif_port_id (deprecated) was set.",
        "schema": {"type": "string"},
    }
}
ANYTHING: Schema = {"type": "object"}


def _object_links(kind: str, parameter: str) -> Schema:
    """Links from a new object to its show, patch and delete (``parameter`` names it)."""
    by_uuid = {parameter: "$response.body#/uuid"}
    return {
        f"{verb.title()}{kind}": {"operationId": f"{verb}{kind}", "parameters": by_uuid}
        for verb in ("get", "patch", "delete")
    }


_BY_NODE_UUID = {"ident": "$response.body#/uuid"}
NODE_LINKS: Schema = {
    **_object_links("Node", "ident"),
    "CreatePortOnNode": {
        "operationId": "createPort",
        "requestBody": {"node_uuid": "$response.body#/uuid"},
    },
    "CreatePortgroupOnNode": {
        "operationId": "createPortgroup",
        "requestBody": {"node_uuid": "$response.body#/uuid"},
    },
    "AttachVif": {"operationId": "attachVif", "parameters": _BY_NODE_UUID},
    "ListVifs": {"operationId": "listVifs", "parameters": _BY_NODE_UUID},
    "SetTraits": {"operationId": "setTraits", "parameters": _BY_NODE_UUID},
    "SetProvisionState": {"operationId": "setProvisionState", "parameters": _BY_NODE_UUID},
    "ListHistory": {"operationId": "listNodeHistory", "parameters": _BY_NODE_UUID},
}
PORT_LINKS: Schema = _object_links("Port", "uuid")
CHASSIS_LINKS: Schema = {
    **_object_links("Chassis", "ident"),
    "ListChassisNodes": {"operationId": "listChassisNodes", "parameters": _BY_NODE_UUID},
    "CreateNodeInChassis": {
        "operationId": "createNode",
        "requestBody": {"chassis_uuid": "$response.body#/uuid"},
    },
}
DEPLOY_TEMPLATE_LINKS: Schema = _object_links("DeployTemplate", "ident")
RUNBOOK_LINKS: Schema = _object_links("Runbook", "ident")
PORTGROUP_LINKS: Schema = {
    **_object_links("Portgroup", "ident"),
    "CreatePortInPortgroup": {
        "operationId": "createPort",
        "requestBody": {
            "node_uuid": "$response.body#/node_uuid",
            "portgroup_uuid": "$response.body#/uuid",
        },
    },
}


_POSITION: Schema = {
    "anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^[0-9]+$"}]
}


def _steps(interfaces: list[str], required: list[str], optional: Schema) -> Schema:
    step: Schema = {
        "type": "object",
        "properties": {
            "interface": {"enum": interfaces},
            "step": {"type": "string", "minLength": 1},
            "args": {"type": "object"},
            **optional,
        },
        "required": ["interface", "step", *required],
        "additionalProperties": False,
    }
    return {"type": "array", "items": step, "minItems": 1}


def provision_target(verbs: Iterable[str], step_interfaces: Iterable[str]) -> Schema:
    """The body of ``PUT .../states/provision``: the verb and the steps a verb takes."""
    interfaces = list(step_interfaces)
    clean_or_service = _steps(
        interfaces,
        [],
        {
            "order": _POSITION,
            "execute_on_child_nodes": {"type": "boolean"},
            "limit_child_node_execution": {"type": "array"},
        },
    )
    return {
        "type": "object",
        "properties": {
            "target": {"anyOf": [{"enum": sorted(verbs)}, {"type": "string"}]},
            "clean_steps": {
                **clean_or_service,
                "description": "Required with, and only with, clean.",
            },
            "service_steps": {
                **clean_or_service,
                "description": "Required with, and only with, service.",
            },
            "deploy_steps": {
                **_steps(interfaces, ["args", "priority"], {"priority": _POSITION}),
                "description": "Only with active, deploy or rebuild (1.69).",
            },
        },
        "required": ["target"],
    }


MAINTENANCE_REASON: Schema = {
    "type": "object",
    "properties": {"reason": {"type": ["string", "null"]}},
}
_TRAIT_NAMES: Schema = {"type": "array", "items": {"type": "string"}}
TRAITS: Schema = {
    "type": "object",
    "properties": {"traits": _TRAIT_NAMES},
    "required": ["traits"],
}
TRAIT_LIST: Schema = {**TRAITS, "additionalProperties": False}
VIF_LIST: Schema = {
    "type": "object",
    "properties": {
        "vifs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["id"],
            },
        }
    },
    "required": ["vifs"],
    "additionalProperties": False,
}

_LINKS: Schema = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"href": {"type": "string"}, "rel": {"type": "string"}},
    },
}
DRIVER: Schema = {
    "type": "object",
    "description": "From 1.30 with ?detail=true (and always on a show), default_<kind>_interface "
    "and enabled_<kind>_interfaces for each kind: bios (1.40), boot, console, deploy, "
    "firmware (1.86), inspect, management, network, power, raid, rescue (1.38), storage "
    "(1.33), vendor. With ?fields= only those fields and the links.",
    "properties": {
        "name": {"type": "string"},
        "hosts": {"type": "array", "items": {"type": "string"}},
        "links": _LINKS,
        "properties": {**_LINKS, "description": "From 1.14."},
        "type": {"type": "string", "enum": ["dynamic"], "description": "From 1.30."},
    },
    "additionalProperties": True,
    "required": ["links"],
}
DRIVERS: Schema = {
    "type": "object",
    "properties": {"drivers": {"type": "array", "items": DRIVER}},
    "required": ["drivers"],
}
DESCRIPTIONS: Schema = {"type": "object", "additionalProperties": {"type": "string"}}

CONDUCTOR: Schema = {
    "type": "object",
    "description": "A registered metalwire server. A list shows hostname, conductor_group and "
    "alive unless ?detail=true; with ?fields= only those fields and the links.",
    "properties": {
        "hostname": {"type": "string", "description": "Its [DEFAULT] host."},
        "conductor_group": {"type": "string"},
        "alive": {
            "type": "boolean",
            "description": "Not stopped, and a heartbeat within [conductor] heartbeat_timeout.",
        },
        "drivers": {
            "type": "array",
            "items": {"type": "string"},
            "description": "The hardware types it enables.",
        },
        "created_at": {"type": "string", "format": "date-time"},
        "updated_at": {"type": ["string", "null"], "format": "date-time"},
        "links": _LINKS,
    },
    "additionalProperties": False,
    "required": ["links"],
}
CONDUCTORS: Schema = {
    "type": "object",
    "properties": {
        "conductors": {"type": "array", "items": CONDUCTOR},
        "next": {"type": "string", "description": "The next page, when this one was full."},
    },
    "required": ["conductors"],
}

SHARDS: Schema = {
    "type": "object",
    "properties": {
        "shards": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "count": {"type": "integer", "minimum": 1},
                },
                "required": ["name", "count"],
            },
        }
    },
    "required": ["shards"],
}
CHILDREN: Schema = {
    "type": "object",
    "properties": {
        "children": {"type": "array", "items": {"type": "string", "format": "uuid"}},
        "links": {"type": "object"},
    },
    "required": ["children", "links"],
}

DISCOVERY: Schema = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "description": {"type": "string"},
        "default_version": s.ref("schemas", "Version"),
        "versions": {"type": "array", "items": s.ref("schemas", "Version")},
    },
    "required": ["name", "default_version", "versions"],
}
V1: Schema = {
    "type": "object",
    "properties": {"id": {"const": "v1"}, "version": s.ref("schemas", "Version")},
    "required": ["id", "links", "media_types", "chassis", "nodes", "ports", "version"],
}

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
POWER_TARGET: Schema = {
    "type": "object",
    "properties": {
        "target": {"anyOf": [{"enum": list(hardware.POWER_TARGETS)}, {"type": "string"}]},
        "timeout": {"type": "integer", "minimum": 1, "description": "Seconds (1.27)."},
    },
    "required": ["target"],
}
CONSOLE_ENABLED: Schema = {
    "type": "object",
    "properties": {"enabled": {"type": ["boolean", "string"]}},
    "required": ["enabled"],
}
_ALL_BOOT_DEVICES = sorted({d for devices in boot_device.SUPPORTED.values() for d in devices})
BOOT_DEVICE_SET: Schema = {
    "type": "object",
    "properties": {
        "boot_device": {
            "type": "string",
            "description": "One the node's management interface offers "
            f"(of {', '.join(_ALL_BOOT_DEVICES)}).",
        },
        "persistent": {
            "type": ["boolean", "string"],
            "description": "Boot from it always, not only next time (default false).",
        },
    },
    "required": ["boot_device"],
    "additionalProperties": False,
}
BOOT_DEVICE: Schema = {
    "type": "object",
    "properties": {
        "boot_device": {"type": ["string", "null"]},
        "persistent": {"type": ["boolean", "null"]},
    },
    "required": ["boot_device", "persistent"],
    "additionalProperties": False,
}
SUPPORTED_BOOT_DEVICES: Schema = {
    "type": "object",
    "properties": {"supported_boot_devices": {"type": "array", "items": {"type": "string"}}},
    "required": ["supported_boot_devices"],
    "additionalProperties": False,
}
BOOT_MODE_TARGET: Schema = {
    "type": "object",
    "properties": {"target": {"enum": list(boot_mode.BOOT_MODES)}},
    "required": ["target"],
}
SECURE_BOOT_TARGET: Schema = {
    "type": "object",
    "properties": {"target": {"type": ["boolean", "string"]}},
    "required": ["target"],
}
INDICATOR: Schema = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "<indicator>@<component>"},
        "component": {"type": "string"},
        "readonly": {"type": "boolean"},
        "states": {"type": "array", "items": {"type": "string"}},
        "links": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["name", "component", "readonly", "states", "links"],
    "additionalProperties": False,
}
INDICATOR_STATE: Schema = {
    "type": "object",
    "properties": {"state": {"enum": ["on", "off", "blinking", "unknown"]}},
    "required": ["state"],
}
_NULLABLE_COUNT: Schema = {"type": ["integer", "null"], "minimum": 0}
BIOS_SETTING: Schema = {
    "type": "object",
    "description": "A BIOS setting; the registry's fields from 1.74.",
    "properties": {
        "name": {"type": "string"},
        "value": {"type": ["string", "null"]},
        "attribute_type": {"type": ["string", "null"]},
        "allowable_values": {"type": ["array", "null"], "items": {"type": "string"}},
        "lower_bound": _NULLABLE_COUNT,
        "upper_bound": _NULLABLE_COUNT,
        "min_length": _NULLABLE_COUNT,
        "max_length": _NULLABLE_COUNT,
        "read_only": {"type": ["boolean", "null"]},
        "reset_required": {"type": ["boolean", "null"]},
        "unique": {"type": ["boolean", "null"]},
        "created_at": {"type": "string", "format": "date-time"},
        "updated_at": {"type": ["string", "null"], "format": "date-time"},
        "links": {"type": "array", "items": {"type": "object"}},
    },
    "additionalProperties": False,
}
VOLUME_FIELDS = query("fields", {"type": "string"}, "Comma-separated fields to show.")
VOLUME_DETAIL = query("detail", {"type": "boolean"}, "Show every field.")


def volume_node_query(noun: str) -> Schema:
    """The ``node`` filter of the volume connectors' or targets' list."""
    return query("node", {"type": "string"}, f"The {noun}s of this node (UUID or name).")


VOLUME_ROOT: Schema = {
    "type": "object",
    "properties": {"links": s.LINKS, "connectors": s.LINKS, "targets": s.LINKS},
    "required": ["links", "connectors", "targets"],
}


def features(offered: Iterable[str]) -> Schema:
    """The body of ``GET /v1/metalwire``."""
    return {
        "type": "object",
        "properties": {
            "features": {"type": "array", "items": {"enum": list(offered)}},
            "dry_run_header": {"const": dry_run.HEADER},
        },
        "required": ["features", "dry_run_header"],
    }


def summary_search(max_length: int) -> Schema:
    """The ``q`` parameter of the node summaries."""
    return query(
        "q",
        {"type": "string", "maxLength": max_length},
        "Only nodes whose name contains this (any case), or that it names exactly by node, "
        "port or portgroup UUID, MAC address, portgroup name or attached VIF id.",
    )


_NULLABLE: Schema = {"type": ["string", "null"]}
_COUNT: Schema = {"type": "integer", "minimum": 0}
_MATCHED: Schema = {
    "type": "object",
    "properties": {
        "field": {"enum": list(node_summaries.MATCHED_FIELDS)},
        "value": {"type": "string"},
        "uuid": {**_NULLABLE, "description": "The port or portgroup that matched."},
    },
    "required": ["field", "value", "uuid"],
}
_SUMMARY: Schema = {
    "type": "object",
    "properties": {
        "uuid": {"type": "string"},
        "name": _NULLABLE,
        "provision_state": {"type": "string"},
        "network_interface": {"type": "string"},
        "maintenance": {"type": "boolean"},
        "ports": _COUNT,
        "portgroups": _COUNT,
        "dynamic_portgroups": {
            **_COUNT,
            "description": "Of the portgroups, those trait-based networking built for a VIF.",
        },
        "vifs": {**_COUNT, "description": "Attached VIFs (not those being attached)."},
        "physical_networks": {"type": "array", "items": {"type": "string"}},
        "matched": {"type": "array", "items": _MATCHED},
    },
    "required": [
        *("uuid", "name", "provision_state", "network_interface", "maintenance"),
        *("ports", "portgroups", "dynamic_portgroups", "vifs", "physical_networks", "matched"),
    ],
}
NODE_SUMMARIES: Schema = {
    "type": "object",
    "properties": {
        "nodes": {"type": "array", "items": _SUMMARY},
        "next": {"type": "string", "description": "The next page, when this one is full."},
    },
    "required": ["nodes"],
}

# A write under /v1/metalwire/ without Content-Type: application/json is a 415.
NO_FORM: Schema = {
    "type": "object",
    "description": "Nothing is read from it: {} (or no body) with Content-Type application/json.",
}
AUDITED_NODE = query(
    "node", {"type": "string"}, "Only this node (UUID or name); default every node."
)
_FINDING: Schema = {
    "type": "object",
    "properties": {
        "kind": {"enum": list(audit.KINDS)},
        "node_uuid": {"type": "string"},
        "node_name": {"type": ["string", "null"]},
        "vif_id": {
            "type": "string",
            "description": "The VIF (or orphan) Neutron port; for switchport_mismatch the VIF "
            "on the port, empty if none.",
        },
        "target_uuid": {
            "type": ["string", "null"],
            "description": "The port or portgroup the VIF is attached to.",
        },
        "expected": {
            "description": "What metalwire's records say Neutron (or the switch) should hold."
        },
        "actual": {"description": "What Neutron (or the switch) holds."},
        "repairable": {"type": "boolean"},
        "repair": {"type": ["string", "null"], "description": "What a repair does."},
        "message": {"type": "string"},
    },
    "required": ["kind", "node_uuid", "vif_id", "repairable", "message"],
}
AUDIT_REPORT: Schema = {
    "type": "object",
    "properties": {
        "checked_at": {"type": ["string", "null"], "format": "date-time"},
        "nodes_checked": {"type": "integer"},
        "findings": {"type": "array", "items": _FINDING},
        "not_checked": {
            "type": "array",
            "description": "What could not be compared, e.g. a switch port whose device "
            "type cannot be read back: never counted as agreeing.",
            "items": {
                "type": "object",
                "properties": {
                    "node_uuid": {"type": "string"},
                    "node_name": {"type": ["string", "null"]},
                    "target_uuid": {"type": ["string", "null"]},
                    "where": {"type": "string", "description": "e.g. switch tor-1 port swp1"},
                    "reason": {"type": "string"},
                },
                "required": ["node_uuid", "node_name", "target_uuid", "where", "reason"],
            },
        },
    },
    "required": ["checked_at", "nodes_checked", "findings", "not_checked"],
}
_REPAIRED: Schema = {
    "allOf": [_FINDING],
    "properties": {"repaired": {"type": "boolean"}, "result": {"type": "string"}},
    "required": ["repaired", "result"],
}
AUDIT_REPAIRS: Schema = {
    **AUDIT_REPORT,
    "properties": {
        **AUDIT_REPORT["properties"],
        "repairs": {"type": "array", "items": _REPAIRED},
    },
    "required": [*AUDIT_REPORT["required"], "repairs"],
}


_NULLABLE_TEXT: Schema = {"type": ["string", "null"]}
FIRMWARE_COMPONENT: Schema = {
    "type": "object",
    "description": "A firmware component as Ironic's redfish firmware interface records it; "
    "metalwire, which drives no BMC, lists none.",
    "properties": {
        "component": {"type": "string"},
        "initial_version": _NULLABLE_TEXT,
        "current_version": _NULLABLE_TEXT,
        "last_version_flashed": _NULLABLE_TEXT,
        "created_at": {"type": "string", "format": "date-time"},
        "updated_at": {"type": ["string", "null"], "format": "date-time"},
        "vendor": {**_NULLABLE_TEXT, "description": "From 1.114."},
        "model": {**_NULLABLE_TEXT, "description": "From 1.114."},
        "serial_number": {**_NULLABLE_TEXT, "description": "From 1.114."},
    },
    "required": ["created_at", "updated_at"],
    "additionalProperties": False,
}

VMEDIA_ATTACH: Schema = {
    "type": "object",
    "properties": {
        "device_type": {"enum": list(vmedia.DEVICES)},
        "image_url": {
            "type": "string",
            "description": "An http, https, nfs, cifs or smb URL.",
        },
        "image_download_source": {
            "enum": ["http", "local", "swift"],
            "description": "How Ironic would serve the image to the BMC (default local; an "
            "nfs, cifs or smb image cannot be served locally: that is recorded as a failure).",
        },
    },
    "required": ["device_type", "image_url"],
    "additionalProperties": False,
}
VIRTUAL_MEDIA: Schema = {
    "type": "object",
    "properties": {
        "media_types": {"type": "array", "items": {"type": "string"}},
        "inserted": {"type": "boolean"},
        "image": {"type": "string"},
    },
    "required": ["media_types", "inserted", "image"],
    "additionalProperties": False,
}

_UUID_OR_NULL: Schema = {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}]}
NETWORK_EVENTS: Schema = {
    "type": "object",
    "properties": {
        "events": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "event": {"enum": list(network_events.EVENT_NAMES)},
                    "port_id": {
                        "type": "string",
                        "format": "uuid",
                        "description": "The Neutron port (a VIF, if it is attached).",
                    },
                    "mac_address": {"type": "string", "pattern": s.MAC_PATTERN},
                    "status": {"type": "string", "description": "The port's status in Neutron."},
                    "device_id": _UUID_OR_NULL,
                    "binding:host_id": _UUID_OR_NULL,
                    "binding:vnic_type": {"type": ["string", "null"]},
                },
                "required": ["event", "port_id", "mac_address", "status"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["events"],
    "additionalProperties": False,
}


_ADDRESS_OR_NULL: Schema = {"type": ["string", "null"]}
CONTINUE_INSPECTION: Schema = {
    "type": "object",
    "description": "What the inspection ramdisk reports: its inventory, and any other member "
    "(error, logs, ...) as the plugin data.",
    "properties": {
        "inventory": {
            "type": "object",
            "properties": {
                "interfaces": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "properties": {
                            "mac_address": {"type": "string"},
                            "lldp": {
                                "type": ["array", "null"],
                                "description": "The LLDP TLVs received: [type, hex value] pairs.",
                            },
                        },
                        "required": ["mac_address"],
                    },
                },
                "bmc_address": _ADDRESS_OR_NULL,
                "bmc_v6address": _ADDRESS_OR_NULL,
            },
            "required": ["interfaces"],
        },
        "error": {"type": ["string", "null"], "description": "What failed in the ramdisk."},
    },
    "required": ["inventory"],
}
NODE_UUID_OF_RAMDISK = query(
    "node_uuid",
    {"type": "string", "format": "uuid"},
    "The node the ramdisk was booted for, if it knows (from 1.84).",
)
