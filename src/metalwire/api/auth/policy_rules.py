"""The default policy rules: Ironic's rule names and secure-RBAC check strings.

The check strings are the contract (operators' policy files refer to these names and reuse
these strings), so they are spelled exactly as Ironic spells them. Only the rules of the
resources metalwire serves are here. Each rule keeps the pre-RBAC rule it replaced as its
deprecated rule: oslo.policy evaluates it only with ``[oslo_policy] enforce_new_defaults =
false``, or when a policy file still overrides the old name.
"""

from __future__ import annotations

from oslo_policy import policy

# -- personas ---------------------------------------------------------------------------------

SYSTEM_ADMIN = "role:admin and system_scope:all"
# "rule:service_role" matches only with [DEFAULT] rbac_service_role_elevated_access: the
# target then names the service project (see metalwire.api.auth.policy).
SYSTEM_MEMBER = "(role:member and system_scope:all) or rule:service_role"
SYSTEM_READER = (
    "(role:reader and system_scope:all) or (role:service and system_scope:all) or rule:service_role"
)
PROJECT_ADMIN = "role:admin and project_id:%(node.owner)s"
PROJECT_MEMBER = "role:member and (project_id:%(node.owner)s or project_id:%(node.lessee)s)"
PROJECT_READER = "role:reader and (project_id:%(node.owner)s or project_id:%(node.lessee)s)"
SYSTEM_SERVICE = "role:service and system_scope:all"
PROJECT_SERVICE = "role:service and project_id:%(node.owner)s"
OWNER_ADMIN = "role:admin and project_id:%(node.owner)s"
OWNER_MANAGER = "role:manager and project_id:%(node.owner)s"
OWNER_MEMBER = "role:member and project_id:%(node.owner)s"
OWNER_READER = "role:reader and project_id:%(node.owner)s"
LESSEE_ADMIN = "role:admin and project_id:%(node.lessee)s"
LESSEE_MANAGER = "role:manager and project_id:%(node.lessee)s"
# Any reader or service user may ask for a list; what it shows is filtered by project.
API_READER = "(role:reader) or (role:service)"


def _any(*checks: str) -> str:
    return " or ".join(f"({check})" for check in checks)


SYSTEM_OR_PROJECT_MEMBER = _any(SYSTEM_MEMBER, PROJECT_MEMBER, SYSTEM_SERVICE)
SYSTEM_OR_PROJECT_READER = _any(SYSTEM_READER, PROJECT_READER, PROJECT_SERVICE)
SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN = _any(
    SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_MEMBER, LESSEE_ADMIN, LESSEE_MANAGER, PROJECT_SERVICE
)
SYSTEM_ADMIN_OR_OWNER_ADMIN = _any(
    SYSTEM_ADMIN, SYSTEM_SERVICE, OWNER_ADMIN, OWNER_MANAGER, PROJECT_SERVICE
)
SYSTEM_MEMBER_OR_OWNER_ADMIN = _any(
    SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_ADMIN, OWNER_MANAGER, PROJECT_SERVICE
)
SYSTEM_MEMBER_OR_OWNER_MEMBER = _any(SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_MEMBER, PROJECT_SERVICE)
SYSTEM_OR_OWNER_READER = _any(SYSTEM_READER, SYSTEM_SERVICE, OWNER_READER, PROJECT_SERVICE)

# -- the pre-RBAC rules the deprecated defaults refer to ---------------------------------------

_LEGACY = "Pre-RBAC rule without system scope; kept for deprecated defaults only."
_DEPRECATED = "Replaced by the scope- and role-aware secure RBAC default."

BASE_RULES = [
    policy.RuleDefault(
        "admin_api",
        "role:admin or role:administrator",
        description="Legacy cloud administrator.",
        deprecated_for_removal=True,
        deprecated_reason=_LEGACY,
        deprecated_since="W",
    ),
    policy.RuleDefault(
        "service_role",
        "role:service and project_name:%(config.service_project_name)s",
        description="The service role in the service project "
        "([DEFAULT] rbac_service_project_name); matches only with "
        "[DEFAULT] rbac_service_role_elevated_access = true.",
    ),
    policy.RuleDefault(
        "is_member",
        "(project_domain_id:default or project_domain_id:None) and "
        "(project_name:demo or project_name:baremetal)",
        description="Legacy: the projects allowed to use the API.",
        deprecated_for_removal=True,
        deprecated_reason=_LEGACY,
        deprecated_since="W",
    ),
    policy.RuleDefault(
        "is_observer",
        "rule:is_member and (role:observer or role:baremetal_observer)",
        description="Legacy read-only access.",
        deprecated_for_removal=True,
        deprecated_reason=_LEGACY,
        deprecated_since="W",
    ),
    policy.RuleDefault(
        "is_admin",
        "rule:admin_api or (rule:is_member and role:baremetal_admin)",
        description="Legacy full access.",
        deprecated_for_removal=True,
        deprecated_reason=_LEGACY,
        deprecated_since="W",
    ),
]

_ADMIN = "rule:is_admin"
_ADMIN_OR_OBSERVER = "rule:is_admin or rule:is_observer"


def _rule(
    name: str,
    check: str,
    description: str,
    operations: list[tuple[str, str]],
    deprecated: tuple[str, str] | None = None,
    scopes: tuple[str, ...] = ("system", "project"),
) -> policy.DocumentedRuleDefault:
    """A documented default; ``deprecated`` is (old rule name, old check string)."""
    old = None
    if deprecated is not None:
        old = policy.DeprecatedRule(
            name=deprecated[0],
            check_str=deprecated[1],
            deprecated_reason=_DEPRECATED,
            deprecated_since="W",
        )
    return policy.DocumentedRuleDefault(
        name=name,
        check_str=check,
        description=description,
        operations=[{"path": path, "method": method} for method, path in operations],
        scope_types=list(scopes),
        deprecated_rule=old,
    )


NODE = "/nodes/{node_ident}"
_PATCH = [("PATCH", NODE)]
# As Ironic, the field rules fall back on the old get rule: pre-RBAC setups see every field.
_NODE_GET_OLD = ("baremetal:node:get", _ADMIN_OR_OBSERVER)


def _update(
    field: str, check: str, old: str = "baremetal:node:update"
) -> policy.DocumentedRuleDefault:
    return _rule(
        f"baremetal:node:update:{field}",
        check,
        f"Change a node's {field.replace('_', ' ')}.",
        _PATCH,
        (old, _ADMIN),
    )


NODE_RULES = [
    _rule(
        "baremetal:node:create",
        _any(SYSTEM_ADMIN, SYSTEM_SERVICE),
        "Create a node.",
        [("POST", "/nodes")],
        ("baremetal:node:create", _ADMIN),
    ),
    _rule(
        "baremetal:node:create:self_owned_node",
        "(role:admin) or (role:service)",
        "Create a node owned by the requester's project ([api] "
        "project_admin_can_manage_own_nodes).",
        [("POST", "/nodes")],
    ),
    _rule(
        "baremetal:node:list",
        API_READER,
        "List the nodes the requester's project owns or leases.",
        [("GET", "/nodes"), ("GET", "/nodes/detail")],
        ("baremetal:node:list", "rule:baremetal:node:get"),
    ),
    _rule(
        "baremetal:node:list_all",
        SYSTEM_READER,
        "List every node.",
        [("GET", "/nodes"), ("GET", "/nodes/detail")],
        ("baremetal:node:list_all", "rule:baremetal:node:get"),
    ),
    _rule(
        "baremetal:node:get",
        SYSTEM_OR_PROJECT_READER,
        "See a node (and, through it, its ports, portgroups and VIFs).",
        [("GET", NODE)],
        ("baremetal:node:get", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:node:get:filter_threshold",
        SYSTEM_READER,
        "Who sees every node field; anyone else is also subject to the "
        "baremetal:node:get:<field> rules, which mask the field they name.",
        [("GET", NODE)],
        _NODE_GET_OLD,
    ),
    *(
        _rule(
            f"baremetal:node:get:{field}",
            SYSTEM_OR_OWNER_READER,
            f"See a node's {field} unmasked (when baremetal:node:get:filter_threshold "
            "does not allow).",
            [("GET", NODE)],
            _NODE_GET_OLD,
        )
        for field in ("last_error", "reservation", "driver_internal_info", "driver_info")
    ),
    _update("driver_info", SYSTEM_MEMBER_OR_OWNER_MEMBER),
    _update("properties", SYSTEM_MEMBER_OR_OWNER_MEMBER),
    _update("chassis_uuid", SYSTEM_ADMIN),
    _update("instance_uuid", SYSTEM_MEMBER_OR_OWNER_MEMBER),
    _update("lessee", SYSTEM_MEMBER_OR_OWNER_MEMBER),
    _update("owner", SYSTEM_MEMBER),
    _update("driver_interfaces", SYSTEM_MEMBER_OR_OWNER_ADMIN),
    _update("network_data", SYSTEM_MEMBER_OR_OWNER_MEMBER),
    _update("conductor_group", SYSTEM_MEMBER),
    _update("name", SYSTEM_MEMBER_OR_OWNER_MEMBER),
    _update("retired", SYSTEM_MEMBER_OR_OWNER_MEMBER),
    _rule(
        "baremetal:node:update:shard",
        SYSTEM_ADMIN,
        "Change a node's shard.",
        _PATCH,
    ),
    _rule(
        "baremetal:node:update:parent_node",
        SYSTEM_MEMBER,
        "Change a node's parent node.",
        _PATCH,
    ),
    _rule(
        "baremetal:node:update:disable_power_off",
        SYSTEM_ADMIN,
        "Change a node's disable_power_off.",
        _PATCH,
    ),
    _rule(
        "baremetal:node:update",
        SYSTEM_OR_PROJECT_MEMBER,
        "Change a node field no field rule names.",
        _PATCH,
        ("baremetal:node:update", _ADMIN),
    ),
    _rule(
        "baremetal:node:update_extra",
        SYSTEM_OR_PROJECT_MEMBER,
        "Change a node's extra.",
        _PATCH,
        ("baremetal:node:update_extra", "rule:baremetal:node:update"),
    ),
    _rule(
        "baremetal:node:update_instance_info",
        SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
        "Change a node's instance_info.",
        _PATCH,
        ("baremetal:node:update_instance_info", "rule:baremetal:node:update"),
    ),
    _rule(
        "baremetal:node:update_owner_provisioned",
        SYSTEM_ADMIN,
        "Change the owner of an active node.",
        _PATCH,
        ("baremetal:node:update_owner_provisioned", _ADMIN),
        scopes=("system",),
    ),
    _rule(
        "baremetal:node:disable_cleaning",
        SYSTEM_ADMIN,
        "Set a node's automated_clean to false.",
        _PATCH,
        ("baremetal:node:disable_cleaning", "rule:baremetal:node:update"),
    ),
    _rule(
        "baremetal:node:delete",
        SYSTEM_ADMIN,
        "Delete a node.",
        [("DELETE", NODE)],
        ("baremetal:node:delete", _ADMIN),
    ),
    _rule(
        "baremetal:node:delete:self_owned_node",
        PROJECT_ADMIN,
        "Delete a node the requester's project owns ([api] project_admin_can_manage_own_nodes).",
        [("DELETE", NODE)],
    ),
    _rule(
        "baremetal:node:set_maintenance",
        SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
        "Put a node in maintenance.",
        [("PUT", f"{NODE}/maintenance")],
        ("baremetal:node:set_maintenance", _ADMIN),
    ),
    _rule(
        "baremetal:node:clear_maintenance",
        SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
        "Take a node out of maintenance.",
        [("DELETE", f"{NODE}/maintenance")],
        ("baremetal:node:clear_maintenance", _ADMIN),
    ),
    _rule(
        "baremetal:node:get_states",
        SYSTEM_OR_PROJECT_READER,
        "See a node's states.",
        [("GET", f"{NODE}/states")],
        ("baremetal:node:get_states", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:node:set_provision_state",
        SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
        "Change a node's provision state.",
        [("PUT", f"{NODE}/states/provision")],
        ("baremetal:node:set_provision_state", _ADMIN),
    ),
    _rule(
        "baremetal:node:set_provision_state:clean_steps",
        SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
        "Give a provision state change the clean steps to run (checked as well as "
        "baremetal:node:set_provision_state).",
        [("PUT", f"{NODE}/states/provision")],
    ),
    _rule(
        "baremetal:node:set_provision_state:service_steps",
        SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
        "Give a service the steps to run (checked as well as baremetal:node:set_provision_state).",
        [("PUT", f"{NODE}/states/provision")],
    ),
    _rule(
        "baremetal:node:set_power_state",
        SYSTEM_OR_PROJECT_MEMBER,
        "Change a node's power state.",
        [("PUT", f"{NODE}/states/power")],
        ("baremetal:node:set_power_state", _ADMIN),
    ),
    _rule(
        "baremetal:node:validate",
        SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
        "Validate a node's hardware and network interfaces.",
        [("GET", f"{NODE}/validate")],
        ("baremetal:node:validate", _ADMIN),
    ),
    _rule(
        "baremetal:node:get_console",
        SYSTEM_MEMBER_OR_OWNER_MEMBER,
        "See a node's console connection information.",
        [("GET", f"{NODE}/states/console")],
        ("baremetal:node:get_console", _ADMIN),
    ),
    _rule(
        "baremetal:node:set_console_state",
        SYSTEM_MEMBER_OR_OWNER_MEMBER,
        "Start or stop a node's console.",
        [("PUT", f"{NODE}/states/console")],
        ("baremetal:node:set_console_state", _ADMIN),
    ),
    _rule(
        "baremetal:node:set_raid_state",
        SYSTEM_MEMBER_OR_OWNER_MEMBER,
        "Set or clear a node's target RAID configuration.",
        [("PUT", f"{NODE}/states/raid")],
        ("baremetal:node:set_raid_state", _ADMIN),
    ),
    _rule(
        "baremetal:node:inject_nmi",
        SYSTEM_MEMBER_OR_OWNER_ADMIN,
        "Inject a non-maskable interrupt into a node.",
        [("PUT", f"{NODE}/management/inject_nmi")],
        ("baremetal:node:inject_nmi", _ADMIN),
    ),
    _rule(
        "baremetal:node:get_boot_device",
        SYSTEM_MEMBER_OR_OWNER_ADMIN,
        "See a node's boot device and the devices it can boot from.",
        [
            ("GET", f"{NODE}/management/boot_device"),
            ("GET", f"{NODE}/management/boot_device/supported"),
        ],
        ("baremetal:node:get_boot_device", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:node:set_boot_device",
        SYSTEM_MEMBER_OR_OWNER_ADMIN,
        "Set the device a node boots from.",
        [("PUT", f"{NODE}/management/boot_device")],
        # Ironic 39 names set_maintenance's old default here, not its own
        ("baremetal:node:set_maintenance", _ADMIN),
    ),
    _rule(
        "baremetal:node:get_indicator_state",
        SYSTEM_OR_PROJECT_READER,
        "See a node's indicators and their states.",
        [
            ("GET", f"{NODE}/management/indicators/{{component}}/{{indicator}}"),
            ("GET", f"{NODE}/management/indicators"),
        ],
        ("baremetal:node:get_indicator_state", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:node:set_indicator_state",
        SYSTEM_MEMBER_OR_OWNER_MEMBER,
        "Change the state of a node's indicator.",
        [("PUT", f"{NODE}/management/indicators/{{component}}/{{indicator}}")],
        ("baremetal:node:set_indicator_state", _ADMIN),
    ),
    _rule(
        "baremetal:node:set_boot_mode",
        SYSTEM_OR_PROJECT_MEMBER,
        "Change a node's boot mode.",
        [("PUT", f"{NODE}/states/boot_mode")],
        ("baremetal:node:set_power_state", _ADMIN),
    ),
    _rule(
        "baremetal:node:set_secure_boot",
        SYSTEM_OR_PROJECT_MEMBER,
        "Turn a node's secure boot on or off.",
        [("PUT", f"{NODE}/states/secure_boot")],
        ("baremetal:node:set_power_state", _ADMIN),
    ),
    _rule(
        "baremetal:node:bios:get",
        SYSTEM_OR_PROJECT_READER,
        "See a node's BIOS settings.",
        [("GET", f"{NODE}/bios"), ("GET", f"{NODE}/bios/{{setting}}")],
        ("baremetal:node:bios:get", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:node:vif:list",
        SYSTEM_OR_PROJECT_READER,
        "List a node's VIFs.",
        [("GET", f"{NODE}/vifs")],
        ("baremetal:node:vif:list", _ADMIN),
    ),
    _rule(
        "baremetal:node:vif:attach",
        SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
        "Attach a VIF to a node.",
        [("POST", f"{NODE}/vifs")],
        ("baremetal:node:vif:attach", _ADMIN),
    ),
    _rule(
        "baremetal:node:vif:detach",
        SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
        "Detach a VIF from a node.",
        [("DELETE", f"{NODE}/vifs/{{node_vif_ident}}")],
        ("baremetal:node:vif:detach", _ADMIN),
    ),
    _rule(
        "baremetal:node:traits:list",
        SYSTEM_OR_PROJECT_READER,
        "List a node's traits.",
        [("GET", f"{NODE}/traits")],
        ("baremetal:node:traits:list", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:node:traits:set",
        SYSTEM_MEMBER_OR_OWNER_ADMIN,
        "Set a node's traits, or add one.",
        [("PUT", f"{NODE}/traits"), ("PUT", f"{NODE}/traits/{{trait}}")],
        ("baremetal:node:traits:set", _ADMIN),
    ),
    _rule(
        "baremetal:node:traits:delete",
        SYSTEM_MEMBER_OR_OWNER_ADMIN,
        "Remove a node's traits, or one of them.",
        [("DELETE", f"{NODE}/traits"), ("DELETE", f"{NODE}/traits/{{trait}}")],
        ("baremetal:node:traits:delete", _ADMIN),
    ),
    _rule(
        "baremetal:node:firmware:get",
        SYSTEM_OR_PROJECT_READER,
        "List a node's firmware components.",
        [("GET", f"{NODE}/firmware")],
    ),
    _rule(
        "baremetal:node:vmedia:attach",
        SYSTEM_OR_PROJECT_MEMBER,
        "Attach a virtual media device to a node.",
        [("POST", f"{NODE}/vmedia")],
    ),
    _rule(
        "baremetal:node:vmedia:detach",
        SYSTEM_OR_PROJECT_MEMBER,
        "Detach a virtual media device from a node.",
        [("DELETE", f"{NODE}/vmedia")],
    ),
    _rule(
        "baremetal:node:vmedia:get",
        SYSTEM_OR_PROJECT_READER,
        "See a node's virtual media devices.",
        [("GET", f"{NODE}/vmedia")],
    ),
    _rule(
        "baremetal:node:history:get",
        SYSTEM_OR_OWNER_READER,
        "See a node's history.",
        [("GET", f"{NODE}/history"), ("GET", f"{NODE}/history/{{event_ident}}")],
        ("baremetal:node:get", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:node:inventory:get",
        SYSTEM_OR_OWNER_READER,
        "See the inventory a node's inspection stored.",
        [("GET", f"{NODE}/inventory")],
        ("baremetal:node:get", _ADMIN_OR_OBSERVER),
    ),
]


def _resource_rules(kind: str, path: str) -> list[policy.DocumentedRuleDefault]:
    """The rules of ports or portgroups, which are decided by their node's projects."""
    one = f"{path}/{{{kind}_ident}}"
    get_old = (f"baremetal:{kind}:get", _ADMIN_OR_OBSERVER)
    # Ironic's portgroup list rules fall back on the old get rule, its port list rules on
    # the new get rule.
    list_old: tuple[str, str] = (f"baremetal:{kind}:list", "rule:baremetal:port:get")
    list_all_old: tuple[str, str] = (f"baremetal:{kind}:list_all", "rule:baremetal:port:get")
    if kind == "portgroup":
        list_old = list_all_old = get_old
    return [
        _rule(
            f"baremetal:{kind}:get",
            SYSTEM_OR_PROJECT_READER,
            f"See a {kind}.",
            [("GET", one)],
            get_old,
        ),
        _rule(
            f"baremetal:{kind}:list",
            API_READER,
            f"List the {kind}s of the nodes the requester's project owns or leases.",
            [("GET", path), ("GET", f"{path}/detail")],
            list_old,
        ),
        _rule(
            f"baremetal:{kind}:list_all",
            SYSTEM_READER,
            f"List every {kind}.",
            [("GET", path), ("GET", f"{path}/detail")],
            list_all_old,
        ),
        _rule(
            f"baremetal:{kind}:create",
            SYSTEM_ADMIN_OR_OWNER_ADMIN,
            f"Create a {kind}.",
            [("POST", path)],
            (f"baremetal:{kind}:create", _ADMIN),
        ),
        _rule(
            f"baremetal:{kind}:delete",
            SYSTEM_ADMIN_OR_OWNER_ADMIN,
            f"Delete a {kind}.",
            [("DELETE", one)],
            (f"baremetal:{kind}:delete", _ADMIN),
        ),
        _rule(
            f"baremetal:{kind}:update",
            SYSTEM_MEMBER_OR_OWNER_ADMIN,
            f"Change a {kind}.",
            [("PATCH", one)],
            (f"baremetal:{kind}:update", _ADMIN),
        ),
    ]


PORT_RULES = _resource_rules("port", "/ports")
PORTGROUP_RULES = _resource_rules("portgroup", "/portgroups")


_CHASSIS = "/chassis/{chassis_id}"
CHASSIS_RULES = [
    _rule(
        "baremetal:chassis:get",
        SYSTEM_READER,
        "List chassis, see a chassis.",
        [("GET", "/chassis"), ("GET", "/chassis/detail"), ("GET", _CHASSIS)],
        ("baremetal:chassis:get", _ADMIN_OR_OBSERVER),
        scopes=("system",),
    ),
    _rule(
        "baremetal:chassis:create",
        SYSTEM_ADMIN,
        "Create a chassis.",
        [("POST", "/chassis")],
        ("baremetal:chassis:create", _ADMIN),
        scopes=("system",),
    ),
    _rule(
        "baremetal:chassis:delete",
        SYSTEM_ADMIN,
        "Delete a chassis.",
        [("DELETE", _CHASSIS)],
        ("baremetal:chassis:delete", _ADMIN),
        scopes=("system",),
    ),
    _rule(
        "baremetal:chassis:update",
        SYSTEM_MEMBER,
        "Change a chassis.",
        [("PATCH", _CHASSIS)],
        ("baremetal:chassis:update", _ADMIN),
        scopes=("system",),
    ),
]


_TEMPLATE = "/deploy_templates/{deploy_template_ident}"
DEPLOY_TEMPLATE_RULES = [
    _rule(
        "baremetal:deploy_template:get",
        SYSTEM_READER,
        "List deploy templates, see a deploy template.",
        [("GET", "/deploy_templates"), ("GET", _TEMPLATE)],
        ("baremetal:deploy_template:get", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:deploy_template:create",
        SYSTEM_ADMIN,
        "Create a deploy template.",
        [("POST", "/deploy_templates")],
        ("baremetal:deploy_template:create", _ADMIN),
    ),
    _rule(
        "baremetal:deploy_template:delete",
        SYSTEM_ADMIN,
        "Delete a deploy template.",
        [("DELETE", _TEMPLATE)],
        ("baremetal:deploy_template:delete", _ADMIN),
    ),
    _rule(
        "baremetal:deploy_template:update",
        SYSTEM_ADMIN,
        "Change a deploy template.",
        [("PATCH", _TEMPLATE)],
        ("baremetal:deploy_template:update", _ADMIN),
    ),
]

# Runbooks belong to a project (their owner) or to the system (no owner), as Ironic's rules
# see them; a project's manager administers its own.
RUNBOOK_OWNER_MANAGER = "role:manager and project_id:%(runbook.owner)s"
RUNBOOK_OWNER_READER = "role:reader and project_id:%(runbook.owner)s"
RUNBOOK_ADMIN = f"({SYSTEM_MEMBER}) or ({RUNBOOK_OWNER_MANAGER}) or role:service"
RUNBOOK_READER = f"({SYSTEM_READER}) or ({RUNBOOK_OWNER_READER}) or role:service"
RUNBOOK_CREATOR = f"({SYSTEM_MEMBER}) or role:manager or role:service"
_RUNBOOK = "/runbooks/{runbook_ident}"
RUNBOOK_RULES = [
    _rule(
        "baremetal:runbook:get",
        RUNBOOK_READER,
        "See a runbook (a public one is shown to anyone who may list runbooks).",
        [("GET", _RUNBOOK), ("GET", _RUNBOOK + "/traits")],
    ),
    _rule(
        "baremetal:runbook:list",
        API_READER,
        "List runbooks: the requester's project's and the public ones.",
        [("GET", "/runbooks")],
    ),
    _rule(
        "baremetal:runbook:list_all",
        SYSTEM_READER,
        "List every project's runbooks.",
        [("GET", "/runbooks")],
    ),
    _rule(
        "baremetal:runbook:create",
        RUNBOOK_CREATOR,
        "Create a runbook (a project's own, unless system scoped).",
        [("POST", "/runbooks")],
    ),
    _rule(
        "baremetal:runbook:delete",
        RUNBOOK_ADMIN,
        "Delete a runbook.",
        [("DELETE", _RUNBOOK)],
    ),
    _rule(
        "baremetal:runbook:update",
        RUNBOOK_ADMIN,
        "Change a runbook, its traits included.",
        [
            ("PATCH", _RUNBOOK),
            ("PUT", _RUNBOOK + "/traits"),
            ("PUT", _RUNBOOK + "/traits/{trait}"),
            ("DELETE", _RUNBOOK + "/traits"),
            ("DELETE", _RUNBOOK + "/traits/{trait}"),
        ],
    ),
    _rule(
        "baremetal:runbook:update:public",
        SYSTEM_MEMBER,
        "Make a runbook public or not.",
        [("PATCH", _RUNBOOK + "/public")],
    ),
    _rule(
        "baremetal:runbook:update:owner",
        SYSTEM_MEMBER,
        "Set or unset a runbook's owner.",
        [("PATCH", _RUNBOOK + "/owner")],
    ),
    _rule(
        "baremetal:runbook:use",
        RUNBOOK_ADMIN,
        "Clean or service a node with a runbook.",
        [("PUT", "/nodes/{node_ident}/states/provision")],
    ),
]

# Allocations belong to a project (their owner), as Ironic's rules see them.
ALLOCATION_OWNER_MEMBER = "role:member and project_id:%(allocation.owner)s"
ALLOCATION_OWNER_READER = "role:reader and project_id:%(allocation.owner)s"
_ALLOCATION = "/allocations/{allocation_id}"
_NODE_ALLOCATION = "/nodes/{node_ident}/allocation"
ALLOCATION_RULES = [
    _rule(
        "baremetal:allocation:get",
        f"({SYSTEM_READER}) or ({ALLOCATION_OWNER_READER})",
        "See an allocation.",
        [("GET", _ALLOCATION), ("GET", _NODE_ALLOCATION)],
        ("baremetal:allocation:get", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:allocation:list",
        API_READER,
        "List allocations, filtered by the requester's project.",
        [("GET", "/allocations")],
        ("baremetal:allocation:list", "rule:baremetal:allocation:get"),
    ),
    _rule(
        "baremetal:allocation:list_all",
        SYSTEM_READER,
        "List every project's allocations.",
        [("GET", "/allocations")],
        (
            "baremetal:allocation:list_all",
            "rule:baremetal:allocation:get and is_admin_project:True",
        ),
    ),
    _rule(
        "baremetal:allocation:create",
        f"({SYSTEM_MEMBER}) or (role:member)",
        "Create an allocation.",
        [("POST", "/allocations")],
        ("baremetal:allocation:create", "rule:is_admin and is_admin_project:True"),
    ),
    _rule(
        "baremetal:allocation:create_restricted",
        SYSTEM_MEMBER,
        "Create an allocation for another project (an owner other than the requester's).",
        [("POST", "/allocations")],
        ("baremetal:allocation:create_restricted", "rule:baremetal:allocation:create"),
    ),
    _rule(
        "baremetal:allocation:delete",
        f"({SYSTEM_MEMBER}) or ({ALLOCATION_OWNER_MEMBER})",
        "Delete an allocation.",
        [("DELETE", _ALLOCATION), ("DELETE", _NODE_ALLOCATION)],
        ("baremetal:allocation:delete", _ADMIN),
    ),
    _rule(
        "baremetal:allocation:update",
        f"({SYSTEM_MEMBER}) or ({ALLOCATION_OWNER_MEMBER})",
        "Change an allocation's name and extra.",
        [("PATCH", _ALLOCATION)],
        ("baremetal:allocation:update", _ADMIN),
    ),
]


SHARD_RULES = [
    _rule(
        "baremetal:shards:get",
        SYSTEM_READER,
        "List the shards the nodes are in, with how many nodes each has.",
        [("GET", "/shards")],
    ),
]

EVENT_RULES = [
    _rule(
        "baremetal:events:post",
        SYSTEM_ADMIN,
        "Post the network service's events about its ports.",
        [("POST", "/events")],
        ("baremetal:events:post", _ADMIN),
        scopes=("system",),
    ),
]

_DRIVER = "/drivers/{driver_name}"
DRIVER_RULES = [
    _rule(
        "baremetal:driver:ipa_continue_inspection",
        "",  # anyone: the ramdisk has no credentials (as Ironic's)
        "Post an inspection ramdisk's report (a public route, checked for an anonymous caller).",
        [("POST", "/continue_inspection")],
    ),
    _rule(
        "baremetal:driver:get",
        SYSTEM_READER,
        "List the enabled hardware types (drivers), or see one.",
        [("GET", "/drivers"), ("GET", _DRIVER)],
        ("baremetal:driver:get", _ADMIN_OR_OBSERVER),
        scopes=("system",),
    ),
    _rule(
        "baremetal:driver:get_properties",
        SYSTEM_READER,
        "See the driver_info keys a hardware type reads.",
        [("GET", _DRIVER + "/properties")],
        ("baremetal:driver:get_properties", _ADMIN_OR_OBSERVER),
        scopes=("system",),
    ),
    _rule(
        "baremetal:driver:get_raid_logical_disk_properties",
        SYSTEM_READER,
        "See what a logical disk of a hardware type's target RAID configuration takes.",
        [("GET", _DRIVER + "/raid/logical_disk_properties")],
        ("baremetal:driver:get_raid_logical_disk_properties", _ADMIN_OR_OBSERVER),
        scopes=("system",),
    ),
]

CONDUCTOR_RULES = [
    _rule(
        "baremetal:conductor:get",
        SYSTEM_READER,
        "List the registered conductors, or see one.",
        [("GET", "/conductors"), ("GET", "/conductors/{hostname}")],
        ("baremetal:conductor:get", _ADMIN_OR_OBSERVER),
    ),
]

# metalwire's own endpoints (Ironic has none of them): operators' tools, system scoped.
METALWIRE_RULES = [
    _rule(
        "metalwire:metrics:get",
        SYSTEM_READER,
        "Scrape this process's Prometheus metrics (unless [metrics] public).",
        [("GET", "/metrics")],
        scopes=("system",),
    ),
    _rule(
        "metalwire:audit:get",
        SYSTEM_READER,
        "Read the latest audit of the VIF attachments against Neutron, or audit now.",
        [
            ("GET", "/v1/metalwire/audit"),
            ("GET", "/v1/metalwire/audit/latest"),
            ("POST", "/v1/metalwire/audit"),
        ],
        scopes=("system",),
    ),
    _rule(
        "metalwire:audit:repair",
        SYSTEM_ADMIN,
        "Repair what an audit finds that is safe to repair.",
        [("POST", "/v1/metalwire/audit/repair")],
        scopes=("system",),
    ),
]


SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN = _any(
    SYSTEM_MEMBER,
    SYSTEM_SERVICE,
    OWNER_ADMIN,
    OWNER_MANAGER,
    LESSEE_ADMIN,
    LESSEE_MANAGER,
    PROJECT_SERVICE,
)
_VOLUME = ["/volume/connectors", "/volume/targets"]
VOLUME_RULES = [
    _rule(
        "baremetal:volume:list_all",
        SYSTEM_READER,
        "List every volume connector and target.",
        [("GET", path) for path in _VOLUME],
        ("baremetal:volume:get", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:volume:list",
        API_READER,
        "List the volume connectors and targets of the nodes the project owns or leases.",
        [("GET", path) for path in _VOLUME],
        ("baremetal:volume:get", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:volume:get",
        SYSTEM_OR_PROJECT_READER,
        "See a volume connector or target, or a node's volume links.",
        [*(("GET", path + "/{uuid}") for path in _VOLUME), ("GET", NODE + "/volume")],
        ("baremetal:volume:get", _ADMIN_OR_OBSERVER),
    ),
    _rule(
        "baremetal:volume:create",
        SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN,
        "Create a volume connector or target.",
        [("POST", path) for path in _VOLUME],
        ("baremetal:volume:create", _ADMIN),
    ),
    _rule(
        "baremetal:volume:delete",
        SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN,
        "Delete a volume connector or target.",
        [("DELETE", path + "/{uuid}") for path in _VOLUME],
        ("baremetal:volume:delete", _ADMIN),
    ),
    _rule(
        "baremetal:volume:update",
        SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
        "Change a volume connector or target.",
        [("PATCH", path + "/{uuid}") for path in _VOLUME],
        ("baremetal:volume:update", _ADMIN),
    ),
    _rule(
        "baremetal:volume:view_target_properties",
        # Ironic's: a system reader, or an admin of any scope.
        _any(SYSTEM_READER, "role:admin"),
        "See a volume target's properties (its storage connection details); refused, they "
        "read a redaction notice.",
        [("GET", path + "/{uuid}") for path in _VOLUME],
        ("baremetal:volume:update", _ADMIN),
    ),
]


def defaults() -> list[policy.RuleDefault]:
    return [
        *BASE_RULES,
        *NODE_RULES,
        *PORT_RULES,
        *PORTGROUP_RULES,
        *VOLUME_RULES,
        *CHASSIS_RULES,
        *DEPLOY_TEMPLATE_RULES,
        *RUNBOOK_RULES,
        *ALLOCATION_RULES,
        *SHARD_RULES,
        *EVENT_RULES,
        *DRIVER_RULES,
        *CONDUCTOR_RULES,
        *METALWIRE_RULES,
    ]
