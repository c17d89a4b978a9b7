"""``metalwire portgroup create|list|show|delete``: portgroups (bonds)."""

from __future__ import annotations

import argparse
from typing import Any

from metalwire.cli.commands.common import (
    add_command,
    add_list_arguments,
    delete_each,
    dict_values,
    identifier,
    key_value,
    list_query,
    node_uuid,
    print_created,
    print_resources,
    show_by_id_or_address,
)
from metalwire.client import Client

PORTGROUP_COLUMNS = ("uuid", "address", "name")


def _portgroup_create(client: Client, args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {}
    for name in ("uuid", "name", "address", "mode", "physical_network", "category"):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    if args.extra:
        fields["extra"] = dict_values(args.extra)
    if args.property:
        fields["properties"] = dict_values(args.property)
    if args.standalone_ports is not None:
        fields["standalone_ports_supported"] = args.standalone_ports
    portgroup = client.create_portgroup(node_uuid(client, args.node), **fields)
    return print_created(portgroup, args)


def _portgroup_list(client: Client, args: argparse.Namespace) -> int:
    query = list_query(args)
    for name, value in (("node", args.node), ("address", args.address)):
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


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    portgroup = commands.add_parser(
        "portgroup", help="manage portgroups", description="Manage portgroups (bonds)."
    )
    actions = portgroup.add_subparsers(dest="portgroup_command", metavar="ACTION", required=True)

    create = add_command(actions, "create", common, "Create a portgroup", _portgroup_create, True)
    create.add_argument(
        "--node", type=identifier, required=True, help="name or UUID of the portgroup's node"
    )
    create.add_argument("--address", help="MAC address of the portgroup")
    create.add_argument("--name", help="name of the portgroup")
    create.add_argument("--uuid", help="the portgroup's UUID (default: a new one)")
    create.add_argument("--mode", help="bonding mode (e.g. 802.3ad, active-backup)")
    create.add_argument(
        "--physical-network",
        dest="physical_network",
        metavar="NETWORK",
        help="the physical network of the portgroup and its members (API 1.102)",
    )
    create.add_argument("--category", help="a label trait-based networking filters on (API 1.103)")
    create.add_argument(
        "--extra",
        type=key_value,
        action="append",
        metavar="KEY=VALUE",
        help="a key of extra (repeat for more)",
    )
    create.add_argument(
        "--property",
        type=key_value,
        action="append",
        metavar="KEY=VALUE",
        help="a bonding property (repeat for more)",
    )
    standalone = create.add_mutually_exclusive_group()
    standalone.add_argument(
        "--support-standalone-ports",
        dest="standalone_ports",
        action="store_const",
        const=True,
        help="member ports may be used on their own",
    )
    standalone.add_argument(
        "--unsupport-standalone-ports",
        dest="standalone_ports",
        action="store_const",
        const=False,
        help="member ports may not be used on their own",
    )

    listing = add_command(actions, "list", common, "List portgroups", _portgroup_list, True)
    add_list_arguments(listing)
    listing.add_argument(
        "--node", type=identifier, help="only portgroups of this node (name or UUID)"
    )
    listing.add_argument(
        "--address", type=identifier, help="only the portgroup with this MAC address"
    )

    show = add_command(actions, "show", common, "Show a portgroup", _portgroup_show, True)
    show.add_argument(
        "portgroup",
        type=identifier,
        metavar="PORTGROUP",
        help="name or UUID of the portgroup (MAC with --address)",
    )
    show.add_argument("--address", action="store_true", help="PORTGROUP is a MAC address")
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    delete = add_command(actions, "delete", common, "Delete portgroups", _portgroup_delete)
    delete.add_argument(
        "portgroups",
        nargs="+",
        type=identifier,
        metavar="PORTGROUP",
        help="names or UUIDs of portgroups",
    )
