"""Which fields and list filters each resource has, from which microversion.

The one declaration of each: the views show a field, the create and patch checks accept it,
the list handlers read a filter and refuse it below its version, and the OpenAPI document
describes both, all from the tables here. A field introduced above the request's version is
neither shown nor settable: setting it answers 406, as Ironic does, unless Ironic takes it at
every version (``gated`` false) and only hides it. A filter given below its version answers
406 with Ironic's message for that gate.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from metalwire.api import microversion as mv


class Access(Enum):
    READ_ONLY = "read-only"
    CREATE_ONLY = "create-only"  # settable at creation, never patched (uuid)
    WRITABLE = "writable"
    PATCH_ONLY = "patch-only"  # patched, never given at creation (Ironic: protected)


@dataclass(frozen=True)
class Field:
    name: str
    since: int
    access: Access = Access.WRITABLE
    kind: str = "any"  # str, bool, dict, list, or any; checked on create and patch
    # A bool is also given as a string: validation.boolean reads it.
    # False where Ironic takes the field at every version (create, patch, ``?fields=``) and
    # only hides it below ``since``: a portgroup's physical_network and category.
    gated: bool = True
    # False where Ironic gates create and ``?fields=`` but takes a PATCH at every version
    # (a port's name, description, vendor, category and available_for_dynamic_portgroup:
    # Ironic 39's port PATCH checks the version of none of them).
    patch_gated: bool = True
    # True where Ironic knows nothing of the field below ``since`` (a runbook's description
    # and traits): ``?fields=`` and a create naming it there are 400 (an unknown field), not
    # 406, and ``sort_key`` is left to the list's own check.
    unknown_below: bool = False

    def settable_at(self, minor: int) -> bool:
        return self.since <= minor or not self.gated

    def patchable_at(self, minor: int) -> bool:
        return self.settable_at(minor) or not self.patch_gated


@dataclass(frozen=True)
class Filter:
    """A list query parameter: ``kind`` is str, bool (``validation.boolean`` words) or list
    (comma-separated values, any of which matches)."""

    name: str
    since: int
    kind: str = "str"
    doc: str = ""
    # What Ironic answers below ``since`` (its check_allow_* gates: 406, this text); an
    # ungated filter (Ironic reads it at every version) is taken at every version.
    refusal: str | None = None
    gated: bool = True
    # A list filter given no value (``?shard=``) lists nothing when true, as Ironic's node
    # list; otherwise it narrows nothing, as Ironic's port and portgroup lists.
    empty_lists_none: bool = False

    def refusal_message(self, version: mv.Version) -> str:
        """Ironic's words for the filter given below its version; its bare "Request not
        acceptable." is followed by what needs which version."""
        if self.refusal == _PLAIN_REFUSAL:
            return mv.too_old_message(f"The {self.name} filter", self.since, version)
        if self.refusal is not None:
            return self.refusal
        return f"Request not acceptable. The minimal required API version should be 1.{self.since}"


RO, CO, W, PO = Access.READ_ONLY, Access.CREATE_ONLY, Access.WRITABLE, Access.PATCH_ONLY

NODE_FIELDS: tuple[Field, ...] = (
    Field("uuid", 1, CO, "str"),
    Field("name", 5, W, "str"),
    Field("driver", 1, W, "str"),
    Field("driver_info", 1, W, "dict"),
    Field("driver_internal_info", 3, RO),
    Field("extra", 1, W, "dict"),
    Field("instance_info", 1, W, "dict"),
    Field("instance_uuid", 1, W, "str"),
    Field("properties", 1, W, "dict"),
    Field("chassis_uuid", 1, W, "str"),
    Field("maintenance", 1, W, "bool"),
    Field("maintenance_reason", 1, RO, "str"),  # set by PUT /maintenance only, as Ironic
    Field("power_state", 1, RO),
    Field("target_power_state", 1, RO),
    Field("provision_state", 1, RO),
    Field("target_provision_state", 1, RO),
    Field("provision_updated_at", 1, RO),
    Field("last_error", 1, RO),
    Field("console_enabled", 1, CO, "bool"),
    Field("reservation", 1, RO),
    Field("created_at", 1, RO),
    Field("updated_at", 1, RO),
    Field("inspection_started_at", 6, RO),
    Field("inspection_finished_at", 6, RO),
    Field("clean_step", 7, RO),
    Field("raid_config", 12, RO),
    Field("target_raid_config", 12, RO),
    Field("network_interface", 20, W, "str"),
    Field("resource_class", 21, W, "str"),
    *(
        Field(f"{kind}_interface", 31, W, "str")
        for kind in (
            "boot",
            "console",
            "deploy",
            "inspect",
            "management",
            "power",
            "raid",
            "vendor",
        )
    ),
    Field("storage_interface", 33, W, "str"),
    Field("traits", 37, RO),
    Field("rescue_interface", 38, W, "str"),
    Field("bios_interface", 40, W, "str"),
    Field("fault", 42, RO),
    Field("deploy_step", 44, RO),
    Field("conductor_group", 46, W, "str"),
    Field("automated_clean", 47, W, "bool"),
    Field("protected", 48, PO, "bool"),
    Field("protected_reason", 48, PO, "str"),
    Field("conductor", 49, RO),
    Field("owner", 50, W, "str"),
    Field("description", 51, W, "str"),
    Field("allocation_uuid", 52, RO),
    Field("retired", 61, W, "bool"),
    Field("retired_reason", 61, W, "str"),
    Field("lessee", 65, W, "str"),
    Field("network_data", 66, W, "dict"),
    Field("boot_mode", 75, RO),
    Field("secure_boot", 75, RO),
    Field("shard", 82, W, "str"),
    Field("parent_node", 83, W, "str"),
    Field("firmware_interface", 86, W, "str"),
    Field("service_step", 87, RO),
    Field("disable_power_off", 95, W, "bool"),
    Field("instance_name", 104, W, "str"),
    Field("health", 109, RO),
)
NODE_LIST_FIELDS = (
    "uuid",
    "name",
    "instance_uuid",
    "power_state",
    "provision_state",
    "maintenance",
)
# Values shown for fields never set, where Ironic shows something other than null.
NODE_DEFAULTS: dict[str, object] = {
    "console_enabled": False,
    "clean_step": {},
    "deploy_step": {},
    "raid_config": {},
    "target_raid_config": {},
    "traits": [],
    "conductor_group": "",
    "automated_clean": None,
    "protected": False,
    "retired": False,
    "network_data": {},
    "maintenance": False,
    "service_step": {},
    "disable_power_off": False,
}

_PLAIN_REFUSAL = "Request not acceptable."

# The values the provision_state and fault list filters take: the states of Ironic 39's
# provision state machine and its faults. Anything else is a 400, as in Ironic, not an
# empty list.
PROVISION_STATES = (
    "active",
    "adopt failed",
    "adopting",
    "available",
    "clean failed",
    "clean hold",
    "clean wait",
    "cleaning",
    "deleting",
    "deploy failed",
    "deploy hold",
    "deploying",
    "enroll",
    "error",
    "inspect failed",
    "inspect wait",
    "inspecting",
    "manageable",
    "rescue",
    "rescue failed",
    "rescue wait",
    "rescuing",
    "service failed",
    "service hold",
    "service wait",
    "servicing",
    "unrescue failed",
    "unrescuing",
    "verifying",
    "wait call-back",
)
FAULTS = ("power failure", "clean failure", "rescue abort failure", "service failure")

NODE_FILTERS: tuple[Filter, ...] = (
    Filter("instance_uuid", 1, doc="The node with this instance."),
    Filter("chassis_uuid", 1, doc="The nodes in this chassis."),
    Filter("maintenance", 1, "bool", "Nodes in (or out of) maintenance."),
    Filter("associated", 1, "bool", "Nodes with (or without) an instance."),
    Filter("provision_state", 9, doc="Nodes in this provision state.", refusal=_PLAIN_REFUSAL),
    Filter("driver", 16, doc="Nodes of this hardware type."),
    Filter("resource_class", 21, doc="Nodes of this resource class."),
    Filter("fault", 42, doc="Nodes with this fault."),
    Filter("conductor_group", 46, doc="Nodes of this conductor group."),
    Filter("conductor", 49, doc="Nodes this conductor serves."),
    Filter("owner", 50, doc="Nodes this project owns."),
    Filter("description_contains", 51, doc="Nodes whose description contains this text."),
    Filter("retired", 61, "bool", "Retired (or not retired) nodes.", gated=False),
    Filter("lessee", 65, doc="Nodes this project leases."),
    # Read by Ironic at every version; a requester who may not list every node may name
    # only its own project (403 otherwise).
    Filter("project", 1, doc="Nodes this project owns or leases.", gated=False),
    Filter(
        "shard",
        82,
        "list",
        "Nodes in any of these shards (comma-separated); no shard named lists no node.",
        empty_lists_none=True,
    ),
    Filter("sharded", 82, "bool", "Nodes with (true) or without (false) a shard."),
    Filter("include_children", 83, "bool", "Child nodes too (hidden otherwise)."),
    Filter("parent_node", 83, doc="The children of this node (its UUID)."),
    Filter(
        "instance_name",
        104,
        doc="Nodes with this instance name.",
        refusal="instance_name is not acceptable in this API version",
    ),
)

PORT_FIELDS: tuple[Field, ...] = (
    Field("uuid", 1, CO, "str"),
    Field("address", 1, W, "str"),
    Field("node_uuid", 1, W, "str"),
    Field("extra", 1, W, "dict"),
    Field("internal_info", 18, RO),
    Field("local_link_connection", 19, W, "dict"),
    Field("pxe_enabled", 19, W, "bool"),
    Field("portgroup_uuid", 24, W, "str"),
    Field("physical_network", 34, W, "str"),
    Field("is_smartnic", 53, W, "bool"),
    Field("name", 88, W, "str", patch_gated=False),
    Field("description", 97, W, "str", patch_gated=False),
    Field("vendor", 100, W, "str", patch_gated=False),
    Field("category", 101, W, "str", patch_gated=False),
    Field("available_for_dynamic_portgroup", 111, W, "bool", patch_gated=False),
    Field("created_at", 1, RO),
    Field("updated_at", 1, RO),
    Field("links", 1, RO),  # always shown; Ironic 39 takes it in ?fields=
)
PORT_LIST_FIELDS = ("uuid", "address")
PORT_FILTERS: tuple[Filter, ...] = (
    Filter("node", 1, doc="Ports of this node (UUID or name)."),
    Filter("node_uuid", 1, doc="Ports of this node (UUID)."),
    Filter("address", 1, doc="The port with this MAC address."),
    Filter("portgroup", 24, doc="Ports of this portgroup.", refusal=_PLAIN_REFUSAL),
    Filter("physical_network", 34, doc="Ports on this physical network.", gated=False),
    Filter("shard", 82, "list", "Ports of nodes in any of these shards (comma-separated)."),
    Filter("description_contains", 97, doc="Ports whose description contains this.", gated=False),
    Filter(
        "conductor_groups",
        99,
        "list",
        "Ports of nodes in any of these conductor groups (comma-separated).",
        gated=False,
    ),
)

PORTGROUP_FIELDS: tuple[Field, ...] = (
    Field("uuid", 23, CO, "str"),
    Field("address", 23, W, "str"),
    Field("name", 23, W, "str"),
    Field("node_uuid", 23, W, "str"),
    Field("standalone_ports_supported", 23, W, "bool"),
    Field("internal_info", 23, RO),
    Field("extra", 23, W, "dict"),
    Field("mode", mv.PORTGROUP_MODE, W, "str"),
    Field("properties", mv.PORTGROUP_MODE, W, "dict"),
    Field("physical_network", 102, W, "str", gated=False),
    Field("category", 103, W, "str", gated=False),
    # set by the conductor's trait-based networking only: Ironic's schema has no place for it
    Field("dynamic_portgroup", 111, RO, "bool"),
    Field("created_at", 23, RO),
    Field("updated_at", 23, RO),
    # Links Ironic 39 takes in ?fields= as fields: ``links`` is always shown, ``ports`` (the
    # group's port list) when asked for and by a show or detailed list.
    Field("links", 23, RO),
    Field("ports", 23, RO),
)
PORTGROUP_LIST_FIELDS = ("uuid", "address", "name")
PORTGROUP_FILTERS: tuple[Filter, ...] = (
    Filter("node", 23, doc="Portgroups of this node (UUID or name)."),
    Filter("address", 23, doc="The portgroup with this MAC address."),
    Filter("shard", 106, "list", "Portgroups of nodes in any of these shards (comma-separated)."),
    Filter(
        "conductor_groups",
        99,
        "list",
        "Portgroups of nodes in any of these conductor groups (comma-separated).",
        gated=False,
    ),
)


def visible(fields: tuple[Field, ...], minor: int) -> list[Field]:
    return [f for f in fields if f.since <= minor]


# Names Ironic 39 takes in ``?fields=`` that are links, not stored values: ``links`` (shown
# with every choice of fields) and a resource's sub-resource links (a chassis's ``nodes``, a
# portgroup's ``ports``). No resource has a stored field of these names: a view skips them
# when it copies values and adds the links itself.
LINK_FIELDS = frozenset({"links", "nodes", "ports"})


def by_name(fields: tuple[Field, ...]) -> dict[str, Field]:
    return {f.name: f for f in fields}


VOLUME = 32  # /v1/volume, its connectors and targets

# The links to a node's sub-resources that a node shown whole (no ?fields=) carries, each from
# the version that brings it, as Ironic 39's: the views and the OpenAPI document read them.
NODE_SUBLINKS: tuple[tuple[str, int], ...] = (
    ("ports", 1),
    ("states", mv.NODE_STATES_LINKS),
    ("portgroups", mv.PORTGROUP_SUBCONTROLLERS),
    ("volume", VOLUME),
)

# Chassis: served at every version, as Ironic's.
CHASSIS_FIELDS: tuple[Field, ...] = (
    Field("uuid", 1, CO, "str"),
    Field("description", 1, W, "str"),
    Field("extra", 1, W, "dict"),
    Field("created_at", 1, RO),
    Field("updated_at", 1, RO),
    # Links Ironic 39 takes in ?fields= as fields: ``nodes`` (the chassis's node list) is
    # shown when asked for (and by a show or detailed list), ``links`` always is.
    Field("nodes", 1, RO),
    Field("links", 1, RO),
)
CHASSIS_LIST_FIELDS = ("uuid", "description")

ALLOCATION_FIELDS: tuple[Field, ...] = (
    Field("uuid", mv.ALLOCATIONS, CO, "str"),
    Field("name", mv.ALLOCATIONS, W, "str"),
    Field("node_uuid", mv.ALLOCATIONS, RO),
    Field("state", mv.ALLOCATIONS, RO),
    Field("last_error", mv.ALLOCATIONS, RO),
    Field("resource_class", mv.ALLOCATIONS, CO, "str"),
    Field("traits", mv.ALLOCATIONS, CO, "list"),
    Field("candidate_nodes", mv.ALLOCATIONS, CO, "list"),
    Field("extra", mv.ALLOCATIONS, W, "dict"),
    Field("owner", mv.ALLOCATION_OWNER, CO, "str"),
    Field("created_at", mv.ALLOCATIONS, RO),
    Field("updated_at", mv.ALLOCATIONS, RO),
    Field("links", mv.ALLOCATIONS, RO),  # always shown; Ironic 39 takes it in ?fields=
)
# An allocation list shows every field, as Ironic's (it has no /detail).
ALLOCATION_LIST_FIELDS = tuple(f.name for f in ALLOCATION_FIELDS)
ALLOCATION_FILTERS: tuple[Filter, ...] = (
    Filter("node", mv.ALLOCATIONS, doc="The allocation of this node (UUID or name)."),
    Filter("resource_class", mv.ALLOCATIONS, doc="Allocations of this resource class."),
    Filter("state", mv.ALLOCATIONS, doc="Allocations in this state."),
    Filter("owner", mv.ALLOCATION_OWNER, doc="Allocations of this project."),
)

CONDUCTOR_FIELDS: tuple[Field, ...] = (
    Field("hostname", mv.CONDUCTORS, RO),
    Field("conductor_group", mv.CONDUCTORS, RO),
    Field("alive", mv.CONDUCTORS, RO),
    Field("drivers", mv.CONDUCTORS, RO),
    Field("created_at", mv.CONDUCTORS, RO),
    Field("updated_at", mv.CONDUCTORS, RO),
    Field("links", mv.CONDUCTORS, RO),  # always shown; Ironic 39 takes it in ?fields=
)
CONDUCTOR_LIST_FIELDS = ("hostname", "conductor_group", "alive")

DEPLOY_TEMPLATE_FIELDS: tuple[Field, ...] = (
    Field("uuid", mv.DEPLOY_TEMPLATES, CO, "str"),
    Field("name", mv.DEPLOY_TEMPLATES, W, "str"),
    Field("steps", mv.DEPLOY_TEMPLATES, W, "list"),
    Field("extra", mv.DEPLOY_TEMPLATES, W, "dict"),
    Field("created_at", mv.DEPLOY_TEMPLATES, RO),
    Field("updated_at", mv.DEPLOY_TEMPLATES, RO),
    Field("links", mv.DEPLOY_TEMPLATES, RO),  # always shown; Ironic 39 takes it in ?fields=
)
DEPLOY_TEMPLATE_LIST_FIELDS = ("uuid", "name")

RUNBOOK_FIELDS: tuple[Field, ...] = (
    Field("uuid", mv.RUNBOOKS, CO, "str"),
    Field("name", mv.RUNBOOKS, W, "str"),
    Field("description", mv.RUNBOOK_TRAITS, W, "str", unknown_below=True),
    Field("steps", mv.RUNBOOKS, W, "list"),
    # changed through /v1/runbooks/{runbook}/traits
    Field("traits", mv.RUNBOOK_TRAITS, RO, unknown_below=True),
    Field("disable_ramdisk", mv.RUNBOOKS, W, "bool"),
    Field("public", mv.RUNBOOKS, W, "bool"),
    Field("owner", mv.RUNBOOKS, W, "str"),
    Field("extra", mv.RUNBOOKS, W, "dict"),
    Field("created_at", mv.RUNBOOKS, RO),
    Field("updated_at", mv.RUNBOOKS, RO),
    Field("links", mv.RUNBOOKS, RO),  # always shown; Ironic 39 takes it in ?fields=
)
RUNBOOK_LIST_FIELDS = ("uuid", "name")

VOLUME_CONNECTOR_FIELDS: tuple[Field, ...] = (
    Field("uuid", VOLUME, CO, "str"),
    Field("node_uuid", VOLUME, W, "str"),
    Field("type", VOLUME, W, "str"),
    Field("connector_id", VOLUME, W, "str"),
    Field("extra", VOLUME, W, "dict"),
    Field("created_at", VOLUME, RO),
    Field("updated_at", VOLUME, RO),
)
VOLUME_CONNECTOR_LIST_FIELDS = ("uuid", "node_uuid", "type", "connector_id")

VOLUME_TARGET_FIELDS: tuple[Field, ...] = (
    Field("uuid", VOLUME, CO, "str"),
    Field("node_uuid", VOLUME, W, "str"),
    Field("volume_type", VOLUME, W, "str"),
    Field("properties", VOLUME, W, "dict"),
    Field("boot_index", VOLUME, W),  # an integer: checked by the volume routes
    Field("volume_id", VOLUME, W, "str"),
    Field("extra", VOLUME, W, "dict"),
    Field("created_at", VOLUME, RO),
    Field("updated_at", VOLUME, RO),
)
VOLUME_TARGET_LIST_FIELDS = ("uuid", "node_uuid", "volume_type", "boot_index", "volume_id")
# Under a node's path too, where Ironic takes ``node`` and lists that node's rows anyway.
VOLUME_FILTERS: tuple[Filter, ...] = (
    Filter("node", VOLUME, doc="The rows of this node (UUID or name).", gated=False),
)
