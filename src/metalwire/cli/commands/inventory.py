"""``metalwire node inventory save``, ``metalwire node children list`` and ``metalwire shard
list``: what is known about nodes beyond their fields, as the baremetal command shows it (a
node's inspection inventory, its child nodes, the shards nodes are in)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from metalwire.cli.commands.common import add_command, add_node_command, fail
from metalwire.cli.output import print_listing
from metalwire.client import Client


def _inventory_save(client: Client, args: argparse.Namespace) -> int:
    inventory = client.node_inventory(args.node)
    if args.file is None:
        json.dump(inventory, sys.stdout)
        print()
        return 0
    try:
        with open(args.file, "w", encoding="utf-8") as out:
            json.dump(inventory, out)
    except OSError as error:
        return fail(f"cannot write {args.file}: {error}")
    return 0


def _children_list(client: Client, args: argparse.Namespace) -> int:
    rows = [[child] for child in client.node_children(args.node)]
    print_listing(["Child Nodes"], rows, args.format, sys.stdout, args.columns)
    return 0


def _shard_list(client: Client, args: argparse.Namespace) -> int:
    rows = [[shard.get("name"), shard.get("count")] for shard in client.list_shards()]
    print_listing(["Name", "Count"], rows, args.format, sys.stdout, args.columns)
    return 0


def register_node_actions(node_actions: Any, common: argparse.ArgumentParser) -> None:
    """Add ``inventory save`` and ``children list`` to the actions of ``metalwire node``."""
    inventory = node_actions.add_parser(
        "inventory", help="what a node's inspection found (API 1.81)"
    )
    actions = inventory.add_subparsers(dest="inventory_command", metavar="ACTION", required=True)
    save = add_node_command(
        actions,
        "save",
        common,
        "Write a node's inventory and plugin data as JSON",
        _inventory_save,
    )
    save.add_argument("--file", metavar="FILE", help="write it here (default: standard output)")

    children = node_actions.add_parser("children", help="a node's child nodes (API 1.83)")
    actions = children.add_subparsers(dest="children_command", metavar="ACTION", required=True)
    add_node_command(actions, "list", common, "List a node's child nodes", _children_list, True)


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    """Add ``shard list``."""
    shard = commands.add_parser(
        "shard", help="list the shards", description="The shards nodes are in (API 1.82)."
    )
    actions = shard.add_subparsers(dest="shard_command", metavar="ACTION", required=True)
    add_command(actions, "list", common, "List the shards and their node counts", _shard_list, True)
