"""``metalwire allocation create|list|show|set|unset|delete``: requests for a node by
resource class, traits and candidates, answered within the request."""

from __future__ import annotations

import argparse
import sys
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
    wait_timeout,
)
from metalwire.cli.output import UsageError
from metalwire.client import Client

ALLOCATION_COLUMNS = ("uuid", "name", "resource_class", "state", "node_uuid")
# Text fields of allocation create, given with --OPTION VALUE.
ALLOCATION_TEXTS = ("uuid", "name", "resource_class", "owner", "node")
# List fields of allocation create: the option (repeated) -> the field.
ALLOCATION_LISTS = {"trait": "traits", "candidate_node": "candidate_nodes"}
# Dictionary fields set with --OPTION KEY=VALUE and unset with --OPTION KEY (option -> field).
ALLOCATION_DICTS = {"extra": "extra"}
# The filters of allocation list, by the client's name of each.
ALLOCATION_FILTERS = ("node", "resource_class", "state", "owner")


def _allocation_create(client: Client, args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {}
    for name in ALLOCATION_TEXTS:
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    for option, field in ALLOCATION_LISTS.items():
        if getattr(args, option):
            fields[field] = getattr(args, option)
    if args.extra:
        fields["extra"] = dict_values(args.extra)
    if "node" not in fields and "resource_class" not in fields:
        raise UsageError("give --resource-class, or --node to record a deployed node's allocation")
    allocation = client.create_allocation(**fields)
    status = print_created(allocation, args)
    if allocation.state == "error":
        print(
            f"metalwire: allocation {allocation.uuid} failed: {allocation.last_error}",
            file=sys.stderr,
        )
        return 1
    return status


def _allocation_list(client: Client, args: argparse.Namespace) -> int:
    query = list_query(args)
    for name in ALLOCATION_FILTERS:
        if getattr(args, name) is not None:
            query[name] = getattr(args, name)
    print_resources(client.list_allocations(**query), ALLOCATION_COLUMNS, args)
    return 0


_allocation_set, _allocation_unset = set_and_unset(
    Client.update_allocation, "allocation", ("name",), ("name",), ALLOCATION_DICTS
)


def _add_allocation_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "allocation",
        type=identifier,
        metavar="ALLOCATION",
        help="name or UUID of the allocation",
    )


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    allocation = commands.add_parser(
        "allocation",
        help="manage allocations",
        description="Manage allocations: requests for a node.",
    )
    actions = allocation.add_subparsers(dest="allocation_command", metavar="ACTION", required=True)

    create = add_command(
        actions,
        "create",
        common,
        "Ask for a node; exit status 1 when none fits (the allocation is kept, in state error)",
        _allocation_create,
        True,
    )
    create.add_argument(
        "--wait",
        type=wait_timeout,
        nargs="?",
        const=0,
        metavar="TIMEOUT",
        help="taken as the baremetal command takes it; an allocation is active or failed "
        "when created, so there is nothing to wait for",
    )
    create.add_argument(
        "--resource-class",
        dest="resource_class",
        type=identifier,
        help="the resource class the node must have (needed unless --node is given)",
    )
    create.add_argument(
        "--trait",
        action="append",
        type=identifier,
        metavar="TRAIT",
        help="a trait the node must have (repeat for more)",
    )
    create.add_argument(
        "--candidate-node",
        dest="candidate_node",
        action="append",
        type=identifier,
        metavar="NODE",
        help="a node the allocation may take (name or UUID; repeat for more; default: any)",
    )
    create.add_argument("--name", help="the allocation's name")
    create.add_argument("--uuid", help="the allocation's UUID (default: a new one)")
    create.add_argument("--owner", help="the project the allocation is for (API 1.60)")
    create.add_argument(
        "--node",
        type=identifier,
        help="record the allocation of this deployed node (backfill, API 1.58)",
    )
    add_extra_option(create)

    listing = add_command(actions, "list", common, "List allocations", _allocation_list, True)
    add_list_arguments(listing)
    listing.add_argument("--node", type=identifier, help="only the allocation of this node")
    listing.add_argument(
        "--resource-class", dest="resource_class", type=identifier, help="only this class"
    )
    listing.add_argument(
        "--state", type=identifier, help="only allocations in this state (allocating, ...)"
    )
    listing.add_argument("--owner", type=identifier, help="only this project's allocations")

    show = add_command(
        actions,
        "show",
        common,
        "Show an allocation",
        show_handler(Client.get_allocation, "allocation"),
        True,
    )
    _add_allocation_argument(show)
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    set_ = add_command(actions, "set", common, "Set allocation fields", _allocation_set)
    _add_allocation_argument(set_)
    set_.add_argument("--name", help="the allocation's name")
    add_extra_option(set_)

    unset = add_command(actions, "unset", common, "Unset allocation fields", _allocation_unset)
    _add_allocation_argument(unset)
    add_unset_arguments(unset, "allocation", ("name",), ALLOCATION_DICTS)

    delete = add_command(
        actions,
        "delete",
        common,
        "Delete allocations, freeing their nodes",
        delete_handler(Client.delete_allocation, "allocation"),
    )
    delete.add_argument(
        "items",
        nargs="+",
        type=identifier,
        metavar="ALLOCATION",
        help="names or UUIDs of allocations",
    )
