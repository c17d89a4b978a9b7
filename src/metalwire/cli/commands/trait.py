"""``metalwire node trait list|add|remove`` and ``metalwire runbook trait list|add|remove``: a
node's traits (what deploy templates, trait-based networking and the scheduler match on) and a
runbook's (the node traits that approve it, API 1.112)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from metalwire.cli.commands.common import Handler, add_item_command, identifier, run_each
from metalwire.cli.output import UsageError, print_listing
from metalwire.client import Client


@dataclass(frozen=True)
class TraitOwner:
    """What has traits, and the client's calls on them."""

    noun: str
    traits: Callable[[Client, str], list[str]]
    add: Callable[[Client, str, str], None]
    remove: Callable[[Client, str, str | None], None]


NODE = TraitOwner("node", Client.node_traits, Client.add_node_trait, Client.remove_node_trait)
RUNBOOK = TraitOwner(
    "runbook", Client.runbook_traits, Client.add_runbook_trait, Client.remove_runbook_trait
)


def _trait_list(owner: TraitOwner) -> Handler:
    def run(client: Client, args: argparse.Namespace) -> int:
        rows = [[trait] for trait in owner.traits(client, getattr(args, owner.noun))]
        print_listing(["Trait"], rows, args.format, sys.stdout, args.columns)
        return 0

    return run


def _trait_add(owner: TraitOwner) -> Handler:
    def run(client: Client, args: argparse.Namespace) -> int:
        item = getattr(args, owner.noun)
        # each trait its own request, as the baremetal command sends them
        return run_each(
            args.traits,
            lambda trait: owner.add(client, item, trait),
            lambda trait: f"Failed to add trait {trait} to {owner.noun} {item}",
        )

    return run


def _trait_remove(owner: TraitOwner) -> Handler:
    def run(client: Client, args: argparse.Namespace) -> int:
        item = getattr(args, owner.noun)
        if args.all == bool(args.traits):
            raise UsageError("give the traits to remove, or --all")
        if args.all:
            owner.remove(client, item, None)
            return 0
        return run_each(
            args.traits,
            lambda trait: owner.remove(client, item, trait),
            lambda trait: f"Failed to remove trait {trait} from {owner.noun} {item}",
        )

    return run


def register(actions_of_owner: Any, common: argparse.ArgumentParser, owner: TraitOwner) -> None:
    """Add ``trait list|add|remove`` to the actions of ``metalwire node`` or ``runbook``."""
    noun = owner.noun
    trait = actions_of_owner.add_parser("trait", help=f"list, add and remove a {noun}'s traits")
    actions = trait.add_subparsers(dest="trait_command", metavar="ACTION", required=True)

    def command(name: str, help: str, handler: Handler, formatted: bool = False) -> Any:
        return add_item_command(actions, name, common, help, handler, noun, formatted)

    command("list", f"List a {noun}'s traits", _trait_list(owner), True)
    add = command("add", f"Add traits to a {noun}", _trait_add(owner))
    remove = command("remove", f"Remove traits from a {noun}", _trait_remove(owner))
    add.add_argument(
        "traits",
        nargs="+",
        type=identifier,
        metavar="TRAIT",
        help="standard traits (HW_CPU_X86_AVX2) or custom ones (CUSTOM_...)",
    )
    remove.add_argument("traits", nargs="*", type=identifier, metavar="TRAIT")
    remove.add_argument("--all", action="store_true", help=f"remove every trait of the {noun}")
