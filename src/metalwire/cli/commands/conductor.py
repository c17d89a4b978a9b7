"""``metalwire conductor list|show`` and ``metalwire driver list|show``: the server processes
that run the nodes' operations (their host names, groups and whether they are alive, which a
scale-out deployment has several of) and the hardware types they enable."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from metalwire.cli.commands.common import (
    Handler,
    add_command,
    add_list_arguments,
    identifier,
    list_query,
    print_resource,
    print_resources,
)
from metalwire.cli.output import print_listing
from metalwire.client import Client

CONDUCTOR_COLUMNS = ("hostname", "conductor_group", "alive")
DRIVER_COLUMNS = ("name", "hosts")
# The driver list's labels, as the baremetal command's.
DRIVER_LABELS = {"name": "Supported driver(s)", "hosts": "Active host(s)"}


def _conductor_list(client: Client, args: argparse.Namespace) -> int:
    print_resources(client.list_conductors(**list_query(args)), CONDUCTOR_COLUMNS, args)
    return 0


def _conductor_show(client: Client, args: argparse.Namespace) -> int:
    print_resource(client.get_conductor(args.hostname, fields=args.fields), args)
    return 0


def _driver_list(client: Client, args: argparse.Namespace) -> int:
    drivers = client.list_drivers(args.long, args.type, args.fields)
    print_resources(drivers, DRIVER_COLUMNS, args, DRIVER_LABELS)
    return 0


def _driver_show(client: Client, args: argparse.Namespace) -> int:
    print_resource(client.get_driver(args.driver, fields=args.fields), args)
    return 0


def _properties(read: Callable[[Client, str], dict[str, str]]) -> Handler:
    def run(client: Client, args: argparse.Namespace) -> int:
        rows = [[key, text] for key, text in sorted(read(client, args.driver).items())]
        print_listing(["Property", "Description"], rows, args.format, sys.stdout, args.columns)
        return 0

    return run


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    conductor = commands.add_parser(
        "conductor",
        help="list the conductors",
        description="List and show the conductors: the server processes that run the "
        "nodes' operations (API 1.49).",
    )
    actions = conductor.add_subparsers(dest="conductor_command", metavar="ACTION", required=True)
    listing = add_command(actions, "list", common, "List conductors", _conductor_list, True)
    add_list_arguments(listing)
    show = add_command(actions, "show", common, "Show a conductor", _conductor_show, True)
    show.add_argument("hostname", type=identifier, metavar="HOSTNAME", help="its host name")
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    driver = commands.add_parser(
        "driver",
        help="list the enabled hardware types",
        description="List and show the enabled hardware types (drivers).",
    )
    actions = driver.add_subparsers(dest="driver_command", metavar="ACTION", required=True)
    listing = add_command(actions, "list", common, "List the enabled drivers", _driver_list, True)
    listing.add_argument(
        "--type",
        choices=("classic", "dynamic"),
        help="only drivers of this type (every enabled hardware type is dynamic)",
    )
    shape = listing.add_mutually_exclusive_group()
    shape.add_argument(
        "--long", action="store_true", help="show every field, each kind's interfaces too"
    )
    shape.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")
    show = add_command(actions, "show", common, "Show a driver", _driver_show, True)
    show.add_argument("driver", type=identifier, metavar="DRIVER", help="its name")
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")
    properties = actions.add_parser("property", help="what a driver reads from driver_info")
    _add_properties_list(
        properties,
        common,
        "List the driver_info keys the driver's default interfaces read",
        Client.driver_properties,
    )
    raid = actions.add_parser("raid", help="what a driver's RAID interface takes")
    raid_actions = raid.add_subparsers(dest="driver_raid_command", metavar="ACTION", required=True)
    _add_properties_list(
        raid_actions.add_parser("property", help="what a logical disk takes"),
        common,
        "List what a logical disk of a target RAID configuration takes",
        Client.driver_raid_properties,
    )


def _add_properties_list(
    group: argparse.ArgumentParser,
    common: argparse.ArgumentParser,
    help_text: str,
    read: Callable[[Client, str], dict[str, str]],
) -> None:
    actions = group.add_subparsers(dest="properties_command", metavar="ACTION", required=True)
    listing = add_command(actions, "list", common, help_text, _properties(read), True)
    listing.add_argument("driver", type=identifier, metavar="DRIVER", help="its name")
