"""``metalwire node ...``: create, list, show, set, unset and delete nodes, move them through
their provision states and in and out of maintenance (``node vif ...`` is in vif.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from metalwire.cli.commands import vif
from metalwire.cli.commands.common import (
    Handler,
    add_command,
    add_list_arguments,
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
    print_created,
    print_resource,
    print_resources,
    send_patch,
)
from metalwire.client import Client, MetalwireClientError, patch
from metalwire.client.client import ProvisionTarget, verb_over
from metalwire.client.patch import PatchOp

NODE_COLUMNS = ("uuid", "name", "instance_uuid", "power_state", "provision_state", "maintenance")

# Provision verb of each command -> (API target, the state it ends in when done).
PROVISION_COMMANDS: dict[str, tuple[ProvisionTarget, str, str]] = {
    "manage": ("manage", "manageable", "Set provision state of a node to 'manage'"),
    "provide": ("provide", "available", "Set provision state of a node to 'provide'"),
    "deploy": ("active", "active", "Deploy a node (provision target 'active')"),
    "undeploy": ("deleted", "available", "Tear a node down (provision target 'deleted')"),
}

# Simple node fields settable with --OPTION VALUE in node create/set; unset with --OPTION.
NODE_SCALARS = (
    "name",
    "resource_class",
    "network_interface",
    "owner",
    "lessee",
    "description",
    "conductor_group",
    "shard",
)
# Node fields unset with --OPTION (their default back).
NODE_UNSETS = (
    "instance_uuid",
    *NODE_SCALARS,
    "automated_clean",
    "protected_reason",
    "network_data",
)
# Filters of node list given as --OPTION VALUE; the UUIDs must not be empty.
NODE_LIST_TEXTS = (
    "provision_state",
    "driver",
    "resource_class",
    "conductor_group",
    "owner",
    "lessee",
    "description_contains",
)
NODE_LIST_UUIDS = ("instance_uuid", "chassis_uuid")
# Every filter of node list, by its destination (the client's filter of that name).
NODE_LIST_FILTERS = (
    "maintenance",
    "associated",
    *NODE_LIST_TEXTS,
    *NODE_LIST_UUIDS,
    "shard",
    "sharded",
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
    if args.automated_clean is not None:
        fields["automated_clean"] = args.automated_clean
    if args.network_data is not None:
        fields["network_data"] = args.network_data
    return print_created(client.create_node(args.driver, **fields), args)


def _node_list(client: Client, args: argparse.Namespace) -> int:
    query = list_query(args)
    for name in NODE_LIST_FILTERS:
        if getattr(args, name) is not None:
            query[name] = getattr(args, name)
    print_resources(client.list_nodes(**query), NODE_COLUMNS, args)
    return 0


def _node_show(client: Client, args: argparse.Namespace) -> int:
    print_resource(client.get_node(args.node, fields=args.fields), args)
    return 0


def _node_set(client: Client, args: argparse.Namespace) -> int:
    ops: list[PatchOp] = []
    for name in ("driver", "instance_uuid", *NODE_SCALARS, "protected_reason"):
        value = getattr(args, name)
        if value is not None:
            ops.append(patch.add(name, value))
    ops.extend(dict_additions(args, NODE_DICTS))
    for name in ("automated_clean", "protected", "network_data"):
        if getattr(args, name) is not None:
            ops.append(patch.add(name, getattr(args, name)))
    return send_patch(client.update_node, args.node, ops, "set")


def _node_unset(client: Client, args: argparse.Namespace) -> int:
    ops: list[PatchOp] = []
    for name in NODE_UNSETS:
        if getattr(args, name):
            ops.append(patch.remove(name))
    ops.extend(dict_removals(args, NODE_DICTS))
    return send_patch(client.update_node, args.node, ops, "unset")


def _node_delete(client: Client, args: argparse.Namespace) -> int:
    return delete_each(args.nodes, "node", client.delete_node)


def _provision(command: str) -> Handler:
    target, expected, _ = PROVISION_COMMANDS[command]

    def run(client: Client, args: argparse.Namespace) -> int:
        client.set_provision_state(args.node, target)
        states = client.get_states(args.node)
        state = states.get("provision_state")
        if verb_over(states) and state != expected:
            reason = states.get("last_error") or f"the node is in provision state {state!r}"
            return fail(f"{command} of node {args.node} failed: {reason}")
        return 0

    return run


def _maintenance_set(client: Client, args: argparse.Namespace) -> int:
    return _each_node(
        args.nodes, "set maintenance on", lambda n: client.set_maintenance(n, args.reason)
    )


def _maintenance_unset(client: Client, args: argparse.Namespace) -> int:
    return _each_node(args.nodes, "unset maintenance on", client.unset_maintenance)


def _each_node(nodes: Sequence[str], what: str, action: Callable[[str], None]) -> int:
    failures = 0
    for node in nodes:
        try:
            action(node)
        except MetalwireClientError as error:
            failures += 1
            print(f"Failed to {what} node {node}: {error}", file=sys.stderr)
    return 1 if failures else 0


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
    clean = parser.add_mutually_exclusive_group()
    clean.add_argument(
        "--automated-clean",
        dest="automated_clean",
        action="store_const",
        const=True,
        help="enable automated cleaning of the node",
    )
    clean.add_argument(
        "--no-automated-clean",
        dest="automated_clean",
        action="store_const",
        const=False,
        help="disable automated cleaning of the node",
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
    maintenance = listing.add_mutually_exclusive_group()
    maintenance.add_argument(
        "--maintenance",
        dest="maintenance",
        action="store_const",
        const=True,
        help="only nodes in maintenance mode",
    )
    maintenance.add_argument(
        "--no-maintenance",
        dest="maintenance",
        action="store_const",
        const=False,
        help="only nodes not in maintenance mode",
    )
    associated = listing.add_mutually_exclusive_group()
    associated.add_argument(
        "--associated",
        dest="associated",
        action="store_const",
        const=True,
        help="only nodes with an instance",
    )
    associated.add_argument(
        "--unassociated",
        dest="associated",
        action="store_const",
        const=False,
        help="only nodes without an instance",
    )
    for name in (*NODE_LIST_TEXTS, *NODE_LIST_UUIDS):
        uuid = name in NODE_LIST_UUIDS
        listing.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            type=identifier if uuid else str,
            metavar="UUID" if uuid else name.upper(),
            help=f"only nodes with this {name.replace('_', ' ')}",
        )
    sharding = listing.add_mutually_exclusive_group()
    sharding.add_argument(
        "--shard",
        metavar="SHARD",
        help="only nodes in this shard, or in one of several separated by commas (API 1.82)",
    )
    sharding.add_argument(
        "--sharded",
        type=boolean,
        metavar="BOOLEAN",
        help="only nodes in a shard (true) or in none (false) (API 1.82)",
    )

    show = add_command(actions, "show", common, "Show a node", _node_show, True)
    show.add_argument("node", type=identifier, metavar="NODE", help="name or UUID of the node")
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    set_ = add_command(actions, "set", common, "Set node fields", _node_set)
    set_.add_argument("node", type=identifier, metavar="NODE", help="name or UUID of the node")
    set_.add_argument("--driver", help="hardware type")
    set_.add_argument(
        "--instance-uuid", dest="instance_uuid", metavar="UUID", help="the instance on the node"
    )
    set_.add_argument(
        "--protected",
        dest="protected",
        action="store_const",
        const=True,
        help="protect the node from undeploy and rebuild",
    )
    set_.add_argument(
        "--protected-reason",
        dest="protected_reason",
        metavar="REASON",
        help="why the node is protected",
    )
    _add_node_field_options(set_, creating=False)

    unset = add_command(actions, "unset", common, "Unset node fields", _node_unset)
    unset.add_argument("node", type=identifier, metavar="NODE", help="name or UUID of the node")
    add_unset_arguments(unset, "node", NODE_UNSETS, NODE_DICTS)

    delete = add_command(actions, "delete", common, "Delete nodes", _node_delete)
    delete.add_argument(
        "nodes", nargs="+", type=identifier, metavar="NODE", help="names or UUIDs of nodes"
    )

    for command, (_, _, help_text) in PROVISION_COMMANDS.items():
        verb = add_command(actions, command, common, help_text, _provision(command))
        verb.add_argument("node", type=identifier, metavar="NODE", help="name or UUID of the node")

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
