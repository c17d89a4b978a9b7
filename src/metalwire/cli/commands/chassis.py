"""``metalwire chassis create|list|show|set|unset|delete``: chassis, the groups of nodes (a
rack, an enclosure) a node names by ``--chassis-uuid``."""

from __future__ import annotations

import argparse
from typing import Any

from metalwire.cli.commands.common import (
    add_command,
    add_extra_option,
    add_list_arguments,
    add_unset_arguments,
    delete_handler,
    dict_values,
    identifier,
    list_query,
    print_created,
    print_resources,
    set_and_unset,
    show_handler,
)
from metalwire.client import Client

CHASSIS_COLUMNS = ("uuid", "description")
# Dictionary fields set with --OPTION KEY=VALUE and unset with --OPTION KEY (option -> field).
CHASSIS_DICTS = {"extra": "extra"}


def _chassis_create(client: Client, args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {}
    for name in ("uuid", "description"):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    if args.extra:
        fields["extra"] = dict_values(args.extra)
    return print_created(client.create_chassis(**fields), args)


def _chassis_list(client: Client, args: argparse.Namespace) -> int:
    print_resources(client.list_chassis(**list_query(args)), CHASSIS_COLUMNS, args)
    return 0


_chassis_set, _chassis_unset = set_and_unset(
    Client.update_chassis, "chassis", ("description",), ("description",), CHASSIS_DICTS
)


def _add_chassis_field_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``chassis create`` and ``chassis set``."""
    parser.add_argument("--description", help="what the chassis is (e.g. rack 12, row B)")
    add_extra_option(parser)


def _add_chassis_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("chassis", type=identifier, metavar="CHASSIS", help="UUID of the chassis")


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    chassis = commands.add_parser(
        "chassis", help="manage chassis", description="Manage chassis (groups of nodes)."
    )
    actions = chassis.add_subparsers(dest="chassis_command", metavar="ACTION", required=True)

    create = add_command(actions, "create", common, "Create a chassis", _chassis_create, True)
    create.add_argument("--uuid", help="the chassis's UUID (default: a new one)")
    _add_chassis_field_options(create)

    listing = add_command(actions, "list", common, "List chassis", _chassis_list, True)
    add_list_arguments(listing)

    show = add_command(
        actions, "show", common, "Show a chassis", show_handler(Client.get_chassis, "chassis"), True
    )
    _add_chassis_argument(show)
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    set_ = add_command(actions, "set", common, "Set chassis fields", _chassis_set)
    _add_chassis_argument(set_)
    _add_chassis_field_options(set_)

    unset = add_command(actions, "unset", common, "Unset chassis fields", _chassis_unset)
    _add_chassis_argument(unset)
    add_unset_arguments(unset, "chassis", ("description",), CHASSIS_DICTS)

    delete = add_command(
        actions,
        "delete",
        common,
        "Delete chassis",
        delete_handler(Client.delete_chassis, "chassis"),
    )
    delete.add_argument(
        "items", nargs="+", type=identifier, metavar="CHASSIS", help="UUIDs of chassis"
    )
