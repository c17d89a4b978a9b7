"""``metalwire node ...``: create, list, show, set, unset and delete nodes, move them through
their provision states and in and out of maintenance (``node vif ...`` is in vif.py, ``node
trait ...`` in trait.py; ``node power ...``, ``reboot``, ``boot ...``, ``secure boot ...``,
``inject nmi`` and ``console ...`` in power.py; ``node validate`` and ``history ...`` in
history.py; ``node inventory save`` and ``children list`` in inventory.py).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
from dataclasses import dataclass
from typing import Any

from metalwire import interface_kinds
from metalwire.cli.commands import history, inventory, power, trait, vif
from metalwire.cli.commands.common import (
    Handler,
    add_command,
    add_flag_pair,
    add_list_arguments,
    add_node_command,
    add_shard_filters,
    add_unset_arguments,
    boolean,
    delete_each,
    dict_additions,
    dict_removals,
    dict_values,
    fail,
    identifier,
    json_document,
    key_value,
    list_query,
    node_uuid,
    print_created,
    print_resource,
    print_resources,
    run_each,
    send_patch,
    wait_timeout,
)
from metalwire.cli.output import UsageError
from metalwire.client import Client, ProvisionStateError, patch
from metalwire.client.client import FAILURE_STATES, ProvisionTarget, verb_over
from metalwire.client.patch import PatchOp

NODE_COLUMNS = ("uuid", "name", "instance_uuid", "power_state", "provision_state", "maintenance")


@dataclass(frozen=True)
class ProvisionCommand:
    """A command that asks for a provision verb (``node deploy``, ``node clean`` ...)."""

    target: ProvisionTarget
    # The states the node is in once the verb is done, or None: wherever it leads (a failure
    # state is a failure all the same).
    ends_in: tuple[str, ...] | None
    help: str
    options: tuple[str, ...] = ()  # what it takes of _PROVISION_OPTIONS


PROVISION_COMMANDS: dict[str, ProvisionCommand] = {
    "manage": ProvisionCommand(
        "manage", ("manageable",), "Set provision state of a node to 'manage'"
    ),
    "provide": ProvisionCommand(
        "provide", ("available",), "Set provision state of a node to 'provide'"
    ),
    "deploy": ProvisionCommand(
        "active",
        ("active",),
        "Deploy a node (provision target 'active')",
        ("deploy_steps", "configdrive"),
    ),
    "undeploy": ProvisionCommand(
        "deleted",
        ("available", "manageable"),  # a retired node's tear-down ends in manageable
        "Tear a node down (provision target 'deleted'; a retired node ends in manageable)",
    ),
    "rebuild": ProvisionCommand(
        "rebuild",
        ("active",),
        "Deploy a deployed node again (provision target 'rebuild')",
        ("deploy_steps", "configdrive"),
    ),
    "clean": ProvisionCommand(
        "clean",
        ("manageable",),
        "Run clean steps on a manageable node, given or a runbook's",
        ("clean_steps", "runbook", "disable_ramdisk"),
    ),
    "service": ProvisionCommand(
        "service",
        ("active",),
        "Run service steps on a deployed node, given or a runbook's (API 1.87)",
        ("service_steps", "runbook", "disable_ramdisk"),
    ),
    "inspect": ProvisionCommand(
        "inspect", ("manageable",), "Inspect a manageable node (provision target 'inspect')"
    ),
    "rescue": ProvisionCommand(
        "rescue",
        ("rescue",),
        "Boot a deployed node into its rescue ramdisk (API 1.38)",
        ("rescue_password",),
    ),
    "unrescue": ProvisionCommand(
        "unrescue", ("active",), "Bring a rescued node back to its instance (API 1.38)"
    ),
    "abort": ProvisionCommand(
        "abort",
        tuple(sorted(FAILURE_STATES)),  # what an aborted verb leaves, as Ironic
        "Abort what a node waits on (cleaning, inspection, rescue, a deploy or servicing)",
    ),
    "unhold": ProvisionCommand(
        "unhold", None, "Let a node held by a hold step go on with its steps (API 1.85)"
    ),
}

# How each provision option is given: option, its argument type, help.
_STEPS_HELP = "JSON, a .json or .yaml file, or - to read it from standard input"
_PROVISION_OPTIONS: dict[str, tuple[str, Any, str]] = {
    "clean_steps": ("--clean-steps", json_document, f"the clean steps to run: {_STEPS_HELP}"),
    "service_steps": (
        "--service-steps",
        json_document,
        f"the service steps to run: {_STEPS_HELP}",
    ),
    "deploy_steps": (
        "--deploy-steps",
        json_document,
        f"deploy steps to run besides the node's (API 1.69): {_STEPS_HELP}",
    ),
    "runbook": ("--runbook", identifier, "name or UUID of the runbook whose steps run (API 1.92)"),
    "configdrive": (
        "--config-drive",
        None,
        "the instance's config drive: a URL, a gzipped and base64-encoded image or a file "
        "holding one, or a JSON object of meta_data, user_data, network_data and vendor_data "
        "(API 1.56)",
    ),
    "rescue_password": ("--rescue-password", None, "the password of the rescue ramdisk's user"),
}

# The interfaces node set --reset-KIND-interface gives their driver's default back.
RESETTABLE_INTERFACES = tuple(sorted(("network_interface", *interface_kinds.FIELDS)))

# Simple node fields settable with --OPTION VALUE in node create/set; unset with --OPTION
# (an interface unset takes the default of the node's driver back).
NODE_SCALARS = (
    "name",
    "resource_class",
    "network_interface",
    *interface_kinds.FIELDS,
    "owner",
    "lessee",
    "description",
    "conductor_group",
    "shard",
    "chassis_uuid",
    "parent_node",
    "instance_name",
)
# Node fields unset with --OPTION (their default back).
NODE_UNSETS = (
    "instance_uuid",
    *NODE_SCALARS,
    "automated_clean",
    "protected",
    "protected_reason",
    "retired",
    "retired_reason",
    "network_data",
)
# Node fields set only by node set with --OPTION VALUE, and its flags (True or False).
NODE_SET_TEXTS = ("driver", "instance_uuid", "protected_reason", "retired_reason")
NODE_FLAGS = ("automated_clean", "disable_power_off")
NODE_SET_FLAGS = (*NODE_FLAGS, "protected", "retired")
# Filters of node list given as --OPTION VALUE; the UUIDs must not be empty.
NODE_LIST_TEXTS = (
    "provision_state",
    "driver",
    "resource_class",
    "conductor_group",
    "conductor",
    "owner",
    "lessee",
    "description_contains",
    "fault",
    "instance_name",
)
NODE_LIST_UUIDS = ("instance_uuid", "chassis_uuid")
# Every filter of node list, by its destination (the client's filter of that name), but
# parent_node (a name is read as its UUID first).
NODE_LIST_FILTERS = (
    "maintenance",
    "associated",
    "retired",
    *NODE_LIST_TEXTS,
    *NODE_LIST_UUIDS,
    "shard",
    "sharded",
    "include_children",
)
# Dictionary node fields set with --OPTION KEY=VALUE and unset with --OPTION KEY.
NODE_DICTS = {
    "property": "properties",
    "extra": "extra",
    "driver_info": "driver_info",
    "instance_info": "instance_info",
}


def _node_create(client: Client, args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {}
    if args.uuid:
        fields["uuid"] = args.uuid
    for name in NODE_SCALARS:
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    for option, field in NODE_DICTS.items():
        if option != "instance_info" and getattr(args, option):
            fields[field] = dict_values(getattr(args, option))
    for name in (*NODE_FLAGS, "network_data"):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    return print_created(client.create_node(args.driver, **fields), args)


def _node_list(client: Client, args: argparse.Namespace) -> int:
    query = list_query(args)
    for name in NODE_LIST_FILTERS:
        if getattr(args, name) is not None:
            query[name] = getattr(args, name)
    if args.parent_node is not None:
        query["parent_node"] = node_uuid(client, args.parent_node)
    print_resources(client.list_nodes(**query), NODE_COLUMNS, args)
    return 0


def _node_show(client: Client, args: argparse.Namespace) -> int:
    if args.instance:
        node = client.get_node_by_instance(args.node, fields=args.fields)
    else:
        node = client.get_node(args.node, fields=args.fields)
    print_resource(node, args)
    return 0


def _node_set(client: Client, args: argparse.Namespace) -> int:
    if args.reset_interfaces and args.driver is None:
        raise UsageError("--reset-interfaces goes with --driver (the new driver's defaults)")
    raid = args.target_raid_config
    if raid is not None and not isinstance(raid, dict):
        raise UsageError('--target-raid-config: expected a JSON object ({"logical_disks": ...})')
    ops: list[PatchOp] = []
    for name in (*NODE_SET_TEXTS, *NODE_SCALARS, *NODE_SET_FLAGS, "network_data"):
        value = getattr(args, name)
        if value is not None:
            ops.append(patch.add(name, value))
    ops.extend(dict_additions(args, NODE_DICTS))
    for field in RESETTABLE_INTERFACES:  # --reset-KIND-interface: the driver's default back
        if getattr(args, f"reset_{field}"):
            if getattr(args, field) is not None:
                option = field.replace("_", "-")
                raise UsageError(f"--{option} and --reset-{option} ask for different values")
            ops.append(patch.remove(field))
    update = functools.partial(client.update_node, reset_interfaces=args.reset_interfaces)
    if raid is not None:  # its own request, first, as the baremetal command sends it
        client.set_target_raid_config(args.node, raid)
        if not ops:
            return 0
    return send_patch(update, args.node, ops, "set")


def _node_unset(client: Client, args: argparse.Namespace) -> int:
    ops: list[PatchOp] = []
    for name in NODE_UNSETS:
        if getattr(args, name):
            ops.append(patch.remove(name))
    ops.extend(dict_removals(args, NODE_DICTS))
    if args.target_raid_config:
        client.set_target_raid_config(args.node, {})
        if not ops:
            return 0
    return send_patch(client.update_node, args.node, ops, "unset")


def _node_delete(client: Client, args: argparse.Namespace) -> int:
    return delete_each(args.nodes, "node", client.delete_node)


def _provision(command: str) -> Handler:
    verb = PROVISION_COMMANDS[command]

    def run(client: Client, args: argparse.Namespace) -> int:
        given = {name: getattr(args, name) for name in verb.options}
        if given.get("configdrive") is not None:
            given["configdrive"] = _config_drive(given["configdrive"])
        client.set_provision_state(args.node, verb.target, **given)
        if getattr(args, "wait", None) is not None and verb.ends_in:
            timeout = args.wait or math.inf  # --wait alone, or 0: no limit
            try:
                client.wait_for_provision_state(args.node, verb.ends_in, timeout=timeout)
            except ProvisionStateError as error:
                return fail(f"{command} of node {args.node} failed: {error}")
            return 0
        states = client.get_states(args.node)
        state = states.get("provision_state")
        done = state not in FAILURE_STATES if verb.ends_in is None else state in verb.ends_in
        if verb_over(states) and not done:
            reason = states.get("last_error") or f"the node is in provision state {state!r}"
            return fail(f"{command} of node {args.node} failed: {reason}")
        return 0

    return run


def _config_drive(value: str) -> str | dict[str, Any]:
    """``--config-drive``: a JSON object, the name of a file holding the encoded image (read
    as the baremetal command reads it), or the URL or encoded image itself."""
    if value.lstrip().startswith("{"):
        try:
            drive = json.loads(value)
        except ValueError as error:
            raise UsageError(f"--config-drive: not a JSON object ({error})") from None
        if isinstance(drive, dict):
            return drive
    if os.path.isdir(value):
        raise UsageError(
            f"--config-drive: {value} is a directory; give the image built from it (gzipped "
            "and base64-encoded), its URL, or its contents as a JSON object"
        )
    if os.path.isfile(value):
        try:
            with open(value, encoding="utf-8") as image:
                return image.read().strip()
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"--config-drive: cannot read {value}: {error}") from None
    return value


def _add_provision_command(
    actions: Any, common: argparse.ArgumentParser, command: str, verb: ProvisionCommand
) -> None:
    parser = add_node_command(actions, command, common, verb.help, _provision(command))
    if verb.target not in ("abort", "unhold"):  # nor does the baremetal command wait on these
        parser.add_argument(
            "--wait",
            type=wait_timeout,
            nargs="?",
            const=0,
            metavar="TIMEOUT",
            help=f"wait until the node is {' or '.join(verb.ends_in or ())}, at most TIMEOUT "
            "seconds (none or 0: no limit); a verb that ends otherwise fails",
        )
    # A clean or a service runs its own steps or a runbook's: one of the two is required.
    given: Any = parser
    if "runbook" in verb.options:
        given = parser.add_mutually_exclusive_group(required=True)
    for name in verb.options:
        if name == "disable_ramdisk":
            parser.add_argument(
                "--disable-ramdisk",
                action="store_true",
                default=None,
                help="run the steps without booting the ramdisk",
            )
            continue
        option, kind, help_text = _PROVISION_OPTIONS[name]
        given.add_argument(
            option,
            dest=name,
            type=kind,
            required=name == "rescue_password",
            metavar=name.upper() if kind is not json_document else "DOCUMENT",
            help=help_text,
        )


def _maintenance_set(client: Client, args: argparse.Namespace) -> int:
    return run_each(
        args.nodes,
        lambda n: client.set_maintenance(n, args.reason),
        lambda n: f"Failed to set maintenance on node {n}",
    )


def _maintenance_unset(client: Client, args: argparse.Namespace) -> int:
    return run_each(
        args.nodes, client.unset_maintenance, lambda n: f"Failed to unset maintenance on node {n}"
    )


def _add_node_field_options(parser: argparse.ArgumentParser, creating: bool) -> None:
    parser.add_argument(
        "--network-data",
        dest="network_data",
        type=json_document,
        metavar="DOCUMENT",
        help="the node's static network configuration for its config drive (API 1.66): "
        "JSON, a .json or .yaml file, or - to read it from standard input",
    )
    for name in NODE_SCALARS:
        option = "--" + name.replace("_", "-")
        parser.add_argument(option, dest=name, metavar=name.upper(), help=f"the node's {name}")
    for option, field in NODE_DICTS.items():
        if creating and option == "instance_info":
            continue
        parser.add_argument(
            "--" + option.replace("_", "-"),
            dest=option,
            type=key_value,
            action="append",
            metavar="KEY=VALUE",
            help=f"a key of {field} (repeat for more; VALUE is JSON or text)",
        )
    add_flag_pair(
        parser,
        "automated_clean",
        ("--automated-clean", "enable automated cleaning of the node"),
        ("--no-automated-clean", "disable automated cleaning of the node"),
    )
    add_flag_pair(
        parser,
        "disable_power_off",
        ("--disable-power-off", "never power the node off (API 1.95)"),
        ("--enable-power-off", "the node may be powered off again (API 1.95)"),
    )


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    node = commands.add_parser("node", help="manage nodes", description="Manage nodes.")
    actions = node.add_subparsers(dest="node_command", metavar="ACTION", required=True)

    create = add_command(actions, "create", common, "Register a new node", _node_create, True)
    create.add_argument("--driver", required=True, help="hardware type (e.g. ipmi)")
    create.add_argument("--uuid", help="the node's UUID (default: a new one)")
    _add_node_field_options(create, creating=True)

    listing = add_command(actions, "list", common, "List nodes", _node_list, True)
    add_list_arguments(listing)
    add_flag_pair(
        listing,
        "maintenance",
        ("--maintenance", "only nodes in maintenance mode"),
        ("--no-maintenance", "only nodes not in maintenance mode"),
    )
    add_flag_pair(
        listing,
        "associated",
        ("--associated", "only nodes with an instance"),
        ("--unassociated", "only nodes without an instance"),
    )
    add_flag_pair(
        listing,
        "retired",
        ("--retired", "only retired nodes (API 1.61)"),
        ("--no-retired", "only nodes not retired (API 1.61)"),
    )
    listing.add_argument(
        "--include-children",
        dest="include_children",
        action="store_const",
        const=True,
        help="child nodes too (left out otherwise; API 1.83)",
    )
    listing.add_argument(
        "--parent-node",
        dest="parent_node",
        type=identifier,
        metavar="NODE",
        help="only the children of this node (name or UUID; API 1.83)",
    )
    for name in (*NODE_LIST_TEXTS, *NODE_LIST_UUIDS):
        uuid = name in NODE_LIST_UUIDS
        listing.add_argument(
            "--" + name.replace("_", "-"),
            *(["--chassis"] if name == "chassis_uuid" else []),  # the baremetal command's
            dest=name,
            type=identifier if uuid else str,
            metavar="UUID" if uuid else name.upper(),
            help=f"only nodes with this {name.replace('_', ' ')}",
        )
    sharding = add_shard_filters(listing, "nodes")
    sharding.add_argument(
        "--sharded",
        type=boolean,
        metavar="BOOLEAN",
        help="only nodes in a shard (true) or in none (false) (API 1.82)",
    )
    sharding.add_argument(
        "--unsharded",
        dest="sharded",
        action="store_const",
        const=False,
        help="only nodes in no shard, as --sharded false (API 1.82)",
    )

    show = add_node_command(actions, "show", common, "Show a node", _node_show, True)
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")
    show.add_argument(
        "--instance", action="store_true", help="NODE is the UUID of the instance on the node"
    )

    set_ = add_node_command(actions, "set", common, "Set node fields", _node_set)
    set_.add_argument("--driver", help="hardware type")
    set_.add_argument(
        "--instance-uuid", dest="instance_uuid", metavar="UUID", help="the instance on the node"
    )
    for flag, help_text in (
        ("protected", "protect the node from undeploy and rebuild"),
        ("retired", "retire the node: it is not deployed again once torn down (API 1.61)"),
    ):
        set_.add_argument(f"--{flag}", dest=flag, action="store_const", const=True, help=help_text)
        set_.add_argument(
            f"--{flag}-reason",
            dest=f"{flag}_reason",
            metavar="REASON",
            help=f"why the node is {flag}",
        )
    set_.add_argument(
        "--reset-interfaces",
        dest="reset_interfaces",
        action="store_true",
        help="with --driver: every interface not set here takes the new driver's default, "
        "the network interface too (API 1.45)",
    )
    _add_node_field_options(set_, creating=False)
    set_.add_argument(
        "--target-raid-config",
        dest="target_raid_config",
        type=json_document,
        metavar="DOCUMENT",
        help="the node's target RAID configuration (API 1.12): JSON, a .json or .yaml file, "
        "or - to read it from standard input",
    )
    for field in RESETTABLE_INTERFACES:
        set_.add_argument(
            f"--reset-{field.replace('_', '-')}",
            dest=f"reset_{field}",
            action="store_true",
            help=f"the driver's default {field.replace('_', ' ')} back (as unset does)",
        )

    unset = add_node_command(actions, "unset", common, "Unset node fields", _node_unset)
    add_unset_arguments(unset, "node", NODE_UNSETS, NODE_DICTS)
    unset.add_argument(
        "--target-raid-config",
        dest="target_raid_config",
        action="store_true",
        help="clear the node's target RAID configuration",
    )

    delete = add_command(actions, "delete", common, "Delete nodes", _node_delete)
    delete.add_argument(
        "nodes", nargs="+", type=identifier, metavar="NODE", help="names or UUIDs of nodes"
    )

    for command, verb in PROVISION_COMMANDS.items():
        _add_provision_command(actions, common, command, verb)

    maint = actions.add_parser("maintenance", help="set or unset maintenance mode")
    maint_actions = maint.add_subparsers(
        dest="maintenance_command", metavar="ACTION", required=True
    )
    mset = add_command(
        maint_actions, "set", common, "Put nodes in maintenance mode", _maintenance_set
    )
    mset.add_argument(
        "nodes", nargs="+", type=identifier, metavar="NODE", help="names or UUIDs of nodes"
    )
    mset.add_argument("--reason", help="why the nodes are in maintenance")
    munset = add_command(
        maint_actions, "unset", common, "Take nodes out of maintenance mode", _maintenance_unset
    )
    munset.add_argument(
        "nodes", nargs="+", type=identifier, metavar="NODE", help="names or UUIDs of nodes"
    )

    vif.register(actions, common)
    trait.register(actions, common, trait.NODE)
    power.register(actions, common)
    history.register(actions, common)
    inventory.register_node_actions(actions, common)
