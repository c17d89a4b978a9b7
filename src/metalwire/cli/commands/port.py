"""``metalwire port create|list|show|set|unset|delete``."""

from __future__ import annotations

import argparse
from typing import Any

from metalwire.cli.commands.common import (
    add_command,
    add_extra_option,
    add_list_arguments,
    add_shard_filters,
    add_unset_arguments,
    boolean,
    delete_each,
    dict_additions,
    dict_removals,
    dict_values,
    identifier,
    key_value,
    list_query,
    node_uuid,
    portgroup_uuid,
    print_created,
    print_resources,
    send_patch,
    show_by_id_or_address,
)
from metalwire.client import Client, patch
from metalwire.client.patch import PatchOp

PORT_COLUMNS = ("uuid", "address")
# Text fields set with --OPTION VALUE (create, set) and unset with --OPTION.
PORT_TEXTS = ("physical_network", "name", "description", "vendor", "category")
# Dictionary fields set with --OPTION KEY=VALUE and unset with --OPTION KEY (option -> field).
PORT_DICTS = {"extra": "extra", "local_link_connection": "local_link_connection"}
# Flags set with --OPTION BOOLEAN.
PORT_FLAGS = ("pxe_enabled", "available_for_dynamic_portgroup")


def _port_create(client: Client, args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {}
    if args.uuid:
        fields["uuid"] = args.uuid
    for option, field in PORT_DICTS.items():
        if getattr(args, option):
            fields[field] = dict_values(getattr(args, option))
    for name in (*PORT_TEXTS, *PORT_FLAGS):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    if args.is_smartnic:
        fields["is_smartnic"] = True
    if args.port_group:
        fields["portgroup_uuid"] = portgroup_uuid(client, args.port_group)
    port = client.create_port(node_uuid(client, args.node), args.address, **fields)
    return print_created(port, args)


def _port_set(client: Client, args: argparse.Namespace) -> int:
    ops: list[PatchOp] = []
    if args.node is not None:
        ops.append(patch.add("node_uuid", node_uuid(client, args.node)))
    if args.port_group is not None:
        ops.append(patch.add("portgroup_uuid", portgroup_uuid(client, args.port_group)))
    for name in ("address", *PORT_TEXTS, *PORT_FLAGS):
        if getattr(args, name) is not None:
            ops.append(patch.add(name, getattr(args, name)))
    if args.is_smartnic:
        ops.append(patch.add("is_smartnic", True))
    ops.extend(dict_additions(args, PORT_DICTS))
    return send_patch(client.update_port, args.port, ops, "set")


def _port_unset(client: Client, args: argparse.Namespace) -> int:
    ops = [patch.remove(name) for name in (*PORT_TEXTS, "is_smartnic") if getattr(args, name)]
    if args.port_group:
        ops.append(patch.remove("portgroup_uuid"))
    ops.extend(dict_removals(args, PORT_DICTS))
    return send_patch(client.update_port, args.port, ops, "unset")


def _port_list(client: Client, args: argparse.Namespace) -> int:
    query = list_query(args)
    for name, value in (
        ("node", args.node),
        ("address", args.address),
        ("portgroup", args.port_group),
        ("physical_network", args.physical_network),
        ("shard", args.shard),
    ):
        if value is not None:
            query[name] = value
    print_resources(client.list_ports(**query), PORT_COLUMNS, args)
    return 0


def _port_show(client: Client, args: argparse.Namespace) -> int:
    return show_by_id_or_address(args, args.port, "Port", client.get_port, client.list_ports)


def _port_delete(client: Client, args: argparse.Namespace) -> int:
    return delete_each(args.ports, "port", client.delete_port)


def _add_port_field_options(parser: argparse.ArgumentParser, creating: bool) -> None:
    """The options of ``port create`` and ``port set``: what a port is given."""
    replacing = "" if creating else " (in place of its current one)"
    add_extra_option(parser)
    parser.add_argument(
        "--local-link-connection",
        dest="local_link_connection",
        type=key_value,
        action="append",
        metavar="KEY=VALUE",
        help="switch_id, port_id, switch_info, hostname or network_type (repeat for more)",
    )
    pxe = parser.add_mutually_exclusive_group()
    pxe.add_argument(
        "--pxe-enabled",
        dest="pxe_enabled",
        type=boolean,
        metavar="BOOLEAN",
        help="whether the node may PXE boot from this port",
    )
    pxe.add_argument(
        "--pxe-disabled",
        dest="pxe_enabled",
        action="store_const",
        const=False,
        help="the node may not PXE boot from this port (--pxe-enabled false)",
    )
    parser.add_argument(
        "--port-group",
        dest="port_group",
        type=identifier,
        metavar="PORTGROUP",
        help=f"name or UUID of the portgroup the port belongs to{replacing}",
    )
    parser.add_argument(
        "--physical-network",
        dest="physical_network",
        metavar="NETWORK",
        help="the physical network the port is connected to",
    )
    parser.add_argument(
        "--is-smartnic", dest="is_smartnic", action="store_true", help="the port is a Smart NIC"
    )
    parser.add_argument("--name", help="name of the port (API 1.88)")
    parser.add_argument("--description", help="free text about the port (API 1.97)")
    parser.add_argument("--vendor", help="the NIC's vendor (API 1.100)")
    parser.add_argument("--category", help="a label trait-based networking filters on (API 1.101)")
    parser.add_argument(
        "--available-for-dynamic-portgroup",
        dest="available_for_dynamic_portgroup",
        type=boolean,
        metavar="BOOLEAN",
        help="whether trait-based networking may bond the port (API 1.111; default true)",
    )


def _add_port_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "port", type=identifier, metavar="PORT", help="UUID or name (API 1.88) of the port"
    )


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    port = commands.add_parser("port", help="manage ports", description="Manage ports.")
    actions = port.add_subparsers(dest="port_command", metavar="ACTION", required=True)

    create = add_command(actions, "create", common, "Create a port", _port_create, True)
    create.add_argument("address", metavar="ADDRESS", help="MAC address of the port")
    create.add_argument(
        "--node", type=identifier, required=True, help="name or UUID of the port's node"
    )
    create.add_argument("--uuid", help="the port's UUID (default: a new one)")
    _add_port_field_options(create, creating=True)

    listing = add_command(actions, "list", common, "List ports", _port_list, True)
    add_list_arguments(listing)
    listing.add_argument("--node", type=identifier, help="only ports of this node (name or UUID)")
    listing.add_argument("--address", type=identifier, help="only the port with this MAC address")
    listing.add_argument(
        "--port-group",
        dest="port_group",
        type=identifier,
        metavar="PORTGROUP",
        help="only ports of this portgroup",
    )
    listing.add_argument(
        "--physical-network",
        dest="physical_network",
        type=identifier,
        metavar="NETWORK",
        help="only ports on this physical network",
    )
    add_shard_filters(listing, "the ports of nodes")

    show = add_command(actions, "show", common, "Show a port", _port_show, True)
    show.add_argument(
        "port",
        type=identifier,
        metavar="PORT",
        help="UUID or name (API 1.88) of the port (MAC with --address)",
    )
    show.add_argument("--address", action="store_true", help="PORT is a MAC address")
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    set_ = add_command(actions, "set", common, "Set port fields", _port_set)
    _add_port_argument(set_)
    set_.add_argument("--address", metavar="ADDRESS", help="the port's new MAC address")
    set_.add_argument("--node", type=identifier, help="name or UUID of the node the port moves to")
    _add_port_field_options(set_, creating=False)

    unset = add_command(actions, "unset", common, "Unset port fields", _port_unset)
    _add_port_argument(unset)
    unset.add_argument(
        "--port-group",
        dest="port_group",
        action="store_true",
        help="take the port out of its portgroup",
    )
    unset.add_argument(
        "--is-smartnic", dest="is_smartnic", action="store_true", help="the port is no Smart NIC"
    )
    add_unset_arguments(unset, "port", PORT_TEXTS, PORT_DICTS)

    delete = add_command(actions, "delete", common, "Delete ports", _port_delete)
    delete.add_argument(
        "ports",
        nargs="+",
        type=identifier,
        metavar="PORT",
        help="UUIDs or names (API 1.88) of ports",
    )
