"""``metalwire port create|list|show|delete``."""

from __future__ import annotations

import argparse
from typing import Any

from metalwire.cli.commands.common import (
    add_command,
    add_list_arguments,
    boolean,
    delete_each,
    dict_values,
    identifier,
    key_value,
    list_query,
    node_uuid,
    portgroup_uuid,
    print_created,
    print_resources,
    show_by_id_or_address,
)
from metalwire.client import Client

PORT_COLUMNS = ("uuid", "address")


def _port_create(client: Client, args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {}
    if args.uuid:
        fields["uuid"] = args.uuid
    if args.extra:
        fields["extra"] = dict_values(args.extra)
    if args.local_link_connection:
        fields["local_link_connection"] = dict_values(args.local_link_connection)
    if args.pxe_enabled is not None:
        fields["pxe_enabled"] = args.pxe_enabled
    for name in ("physical_network", "name", "description", "vendor", "category"):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    if args.available_for_dynamic_portgroup is not None:
        fields["available_for_dynamic_portgroup"] = args.available_for_dynamic_portgroup
    if args.is_smartnic:
        fields["is_smartnic"] = True
    if args.port_group:
        fields["portgroup_uuid"] = portgroup_uuid(client, args.port_group)
    port = client.create_port(node_uuid(client, args.node), args.address, **fields)
    return print_created(port, args)


def _port_list(client: Client, args: argparse.Namespace) -> int:
    query = list_query(args)
    for name, value in (
        ("node", args.node),
        ("address", args.address),
        ("portgroup", args.port_group),
    ):
        if value is not None:
            query[name] = value
    print_resources(client.list_ports(**query), PORT_COLUMNS, args)
    return 0


def _port_show(client: Client, args: argparse.Namespace) -> int:
    return show_by_id_or_address(args, args.port, "Port", client.get_port, client.list_ports)


def _port_delete(client: Client, args: argparse.Namespace) -> int:
    return delete_each(args.ports, "port", client.delete_port)


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    port = commands.add_parser("port", help="manage ports", description="Manage ports.")
    actions = port.add_subparsers(dest="port_command", metavar="ACTION", required=True)

    create = add_command(actions, "create", common, "Create a port", _port_create, True)
    create.add_argument("address", metavar="ADDRESS", help="MAC address of the port")
    create.add_argument(
        "--node", type=identifier, required=True, help="name or UUID of the port's node"
    )
    create.add_argument("--uuid", help="the port's UUID (default: a new one)")
    create.add_argument(
        "--extra",
        type=key_value,
        action="append",
        metavar="KEY=VALUE",
        help="a key of extra (repeat for more)",
    )
    create.add_argument(
        "--local-link-connection",
        dest="local_link_connection",
        type=key_value,
        action="append",
        metavar="KEY=VALUE",
        help="switch_id, port_id or switch_info (repeat for more)",
    )
    create.add_argument(
        "--pxe-enabled",
        dest="pxe_enabled",
        type=boolean,
        metavar="BOOLEAN",
        help="whether the node may PXE boot from this port",
    )
    create.add_argument(
        "--port-group",
        dest="port_group",
        metavar="PORTGROUP",
        help="name or UUID of the portgroup the port belongs to",
    )
    create.add_argument(
        "--physical-network",
        dest="physical_network",
        metavar="NETWORK",
        help="the physical network the port is connected to",
    )
    create.add_argument(
        "--is-smartnic", dest="is_smartnic", action="store_true", help="the port is a Smart NIC"
    )
    create.add_argument("--name", help="name of the port (API 1.88)")
    create.add_argument("--description", help="free text about the port (API 1.97)")
    create.add_argument("--vendor", help="the NIC's vendor (API 1.100)")
    create.add_argument("--category", help="a label trait-based networking filters on (API 1.101)")
    create.add_argument(
        "--available-for-dynamic-portgroup",
        dest="available_for_dynamic_portgroup",
        type=boolean,
        metavar="BOOLEAN",
        help="whether trait-based networking may bond the port (API 1.111; default true)",
    )

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

    show = add_command(actions, "show", common, "Show a port", _port_show, True)
    show.add_argument(
        "port",
        type=identifier,
        metavar="PORT",
        help="UUID or name (API 1.88) of the port (MAC with --address)",
    )
    show.add_argument("--address", action="store_true", help="PORT is a MAC address")
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    delete = add_command(actions, "delete", common, "Delete ports", _port_delete)
    delete.add_argument(
        "ports",
        nargs="+",
        type=identifier,
        metavar="PORT",
        help="UUIDs or names (API 1.88) of ports",
    )
