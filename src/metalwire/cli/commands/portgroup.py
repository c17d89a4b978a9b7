"""``metalwire portgroup create|list|show|set|unset|delete``: portgroups (bonds)."""

from __future__ import annotations

import argparse
from typing import Any

from metalwire.cli.commands.common import (
    add_command,
    add_extra_option,
    add_flag_pair,
    add_list_arguments,
    add_shard_filters,
    add_unset_arguments,
    delete_each,
    dict_additions,
    dict_removals,
    dict_values,
    identifier,
    key_value,
    list_query,
    node_uuid,
    print_created,
    print_resources,
    send_patch,
    show_by_id_or_address,
)
from metalwire.client import Client, patch
from metalwire.client.patch import PatchOp

PORTGROUP_COLUMNS = ("uuid", "address", "name")
# Text fields set with --OPTION VALUE (create, set); those in PORTGROUP_UNSETS unset with
# --OPTION (a mode is replaced, never removed: it has a default of its own).
PORTGROUP_TEXTS = ("name", "address", "mode", "physical_network", "category")
PORTGROUP_UNSETS = ("name", "address", "physical_network", "category")
# Dictionary fields set with --OPTION KEY=VALUE and unset with --OPTION KEY (option -> field).
PORTGROUP_DICTS = {"extra": "extra", "property": "properties"}


def _portgroup_create(client: Client, args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {}
    for name in ("uuid", *PORTGROUP_TEXTS):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    for option, field in PORTGROUP_DICTS.items():
        if getattr(args, option):
            fields[field] = dict_values(getattr(args, option))
    if args.standalone_ports is not None:
        fields["standalone_ports_supported"] = args.standalone_ports
    portgroup = client.create_portgroup(node_uuid(client, args.node), **fields)
    return print_created(portgroup, args)


def _portgroup_set(client: Client, args: argparse.Namespace) -> int:
    ops: list[PatchOp] = []
    if args.node is not None:
        ops.append(patch.add("node_uuid", node_uuid(client, args.node)))
    for name in PORTGROUP_TEXTS:
        if getattr(args, name) is not None:
            ops.append(patch.add(name, getattr(args, name)))
    if args.standalone_ports is not None:
        ops.append(patch.add("standalone_ports_supported", args.standalone_ports))
    ops.extend(dict_additions(args, PORTGROUP_DICTS))
    return send_patch(client.update_portgroup, args.portgroup, ops, "set")


def _portgroup_unset(client: Client, args: argparse.Namespace) -> int:
    ops = [patch.remove(name) for name in PORTGROUP_UNSETS if getattr(args, name)]
    ops.extend(dict_removals(args, PORTGROUP_DICTS))
    return send_patch(client.update_portgroup, args.portgroup, ops, "unset")


def _portgroup_list(client: Client, args: argparse.Namespace) -> int:
    query = list_query(args)
    for name, value in (("node", args.node), ("address", args.address), ("shard", args.shard)):
        if value is not None:
            query[name] = value
    print_resources(client.list_portgroups(**query), PORTGROUP_COLUMNS, args)
    return 0


def _portgroup_show(client: Client, args: argparse.Namespace) -> int:
    return show_by_id_or_address(
        args, args.portgroup, "Portgroup", client.get_portgroup, client.list_portgroups
    )


def _portgroup_delete(client: Client, args: argparse.Namespace) -> int:
    return delete_each(args.portgroups, "port group", client.delete_portgroup)


def _add_portgroup_field_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``portgroup create`` and ``portgroup set``: what a portgroup is given."""
    parser.add_argument("--address", help="MAC address of the portgroup")
    parser.add_argument("--name", help="name of the portgroup")
    parser.add_argument("--mode", help="bonding mode (e.g. 802.3ad, active-backup)")
    parser.add_argument(
        "--physical-network",
        dest="physical_network",
        metavar="NETWORK",
        help="the physical network of the portgroup and its members (API 1.102)",
    )
    parser.add_argument("--category", help="a label trait-based networking filters on (API 1.103)")
    add_extra_option(parser)
    parser.add_argument(
        "--property",
        type=key_value,
        action="append",
        metavar="KEY=VALUE",
        help="a bonding property (repeat for more)",
    )
    add_flag_pair(
        parser,
        "standalone_ports",
        ("--support-standalone-ports", "member ports may be used on their own"),
        ("--unsupport-standalone-ports", "member ports may not be used on their own"),
    )


def _add_portgroup_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "portgroup", type=identifier, metavar="PORTGROUP", help="name or UUID of the portgroup"
    )


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    portgroup = commands.add_parser(
        "portgroup", help="manage portgroups", description="Manage portgroups (bonds)."
    )
    actions = portgroup.add_subparsers(dest="portgroup_command", metavar="ACTION", required=True)

    create = add_command(actions, "create", common, "Create a portgroup", _portgroup_create, True)
    create.add_argument(
        "--node", type=identifier, required=True, help="name or UUID of the portgroup's node"
    )
    create.add_argument("--uuid", help="the portgroup's UUID (default: a new one)")
    _add_portgroup_field_options(create)

    listing = add_command(actions, "list", common, "List portgroups", _portgroup_list, True)
    add_list_arguments(listing)
    listing.add_argument(
        "--node", type=identifier, help="only portgroups of this node (name or UUID)"
    )
    listing.add_argument(
        "--address", type=identifier, help="only the portgroup with this MAC address"
    )
    add_shard_filters(listing, "the portgroups of nodes")

    show = add_command(actions, "show", common, "Show a portgroup", _portgroup_show, True)
    show.add_argument(
        "portgroup",
        type=identifier,
        metavar="PORTGROUP",
        help="name or UUID of the portgroup (MAC with --address)",
    )
    show.add_argument("--address", action="store_true", help="PORTGROUP is a MAC address")
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    set_ = add_command(actions, "set", common, "Set portgroup fields", _portgroup_set)
    _add_portgroup_argument(set_)
    set_.add_argument(
        "--node", type=identifier, help="name or UUID of the node the portgroup moves to"
    )
    _add_portgroup_field_options(set_)

    unset = add_command(actions, "unset", common, "Unset portgroup fields", _portgroup_unset)
    _add_portgroup_argument(unset)
    add_unset_arguments(unset, "portgroup", PORTGROUP_UNSETS, PORTGROUP_DICTS)

    delete = add_command(actions, "delete", common, "Delete portgroups", _portgroup_delete)
    delete.add_argument(
        "portgroups",
        nargs="+",
        type=identifier,
        metavar="PORTGROUP",
        help="names or UUIDs of portgroups",
    )
