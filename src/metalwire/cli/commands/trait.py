"""``metalwire node trait list|add|remove``: a node's traits (what deploy templates, trait-based
networking and the scheduler match on)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from metalwire.cli.commands.common import add_node_command, identifier, run_each
from metalwire.cli.output import UsageError, print_listing
from metalwire.client import Client


def _trait_list(client: Client, args: argparse.Namespace) -> int:
    rows = [[trait] for trait in client.node_traits(args.node)]
    print_listing(["Trait"], rows, args.format, sys.stdout, args.columns)
    return 0


def _trait_add(client: Client, args: argparse.Namespace) -> int:
    # each trait its own request, as the baremetal command sends them
    return run_each(
        args.traits,
        lambda trait: client.add_node_trait(args.node, trait),
        lambda trait: f"Failed to add trait {trait} to node {args.node}",
    )


def _trait_remove(client: Client, args: argparse.Namespace) -> int:
    if args.all == bool(args.traits):
        raise UsageError("give the traits to remove, or --all")
    if args.all:
        client.remove_node_trait(args.node)
        return 0
    return run_each(
        args.traits,
        lambda trait: client.remove_node_trait(args.node, trait),
        lambda trait: f"Failed to remove trait {trait} from node {args.node}",
    )


def register(node_actions: Any, common: argparse.ArgumentParser) -> None:
    """Add ``trait list|add|remove`` to the actions of ``metalwire node``."""
    trait = node_actions.add_parser("trait", help="list, add and remove a node's traits")
    actions = trait.add_subparsers(dest="trait_command", metavar="ACTION", required=True)
    add_node_command(actions, "list", common, "List a node's traits", _trait_list, True)
    add = add_node_command(actions, "add", common, "Add traits to a node", _trait_add)
    remove = add_node_command(actions, "remove", common, "Remove traits from a node", _trait_remove)
    add.add_argument(
        "traits",
        nargs="+",
        type=identifier,
        metavar="TRAIT",
        help="standard traits (HW_CPU_X86_AVX2) or custom ones (CUSTOM_...)",
    )
    remove.add_argument("traits", nargs="*", type=identifier, metavar="TRAIT")
    remove.add_argument("--all", action="store_true", help="remove every trait of the node")
