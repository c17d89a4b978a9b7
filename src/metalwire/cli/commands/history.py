"""``metalwire node validate`` and ``node history list|show``: what a node's interfaces say of
it now, and what happened to it."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from metalwire.cli.commands.common import (
    add_list_arguments,
    add_node_command,
    identifier,
    list_query,
    print_resource,
    print_resources,
)
from metalwire.cli.output import print_listing
from metalwire.client import Client

HISTORY_COLUMNS = ("uuid", "created_at", "severity", "event")


def _validate(client: Client, args: argparse.Namespace) -> int:
    checked = client.validate_node(args.node)
    rows = [
        [name, found.get("result"), found.get("reason")] for name, found in sorted(checked.items())
    ]
    print_listing(["Interface", "Result", "Reason"], rows, args.format, sys.stdout, args.columns)
    return 0


def _history_list(client: Client, args: argparse.Namespace) -> int:
    entries = client.list_node_history(args.node, **list_query(args))
    print_resources(entries, HISTORY_COLUMNS, args)
    return 0


def _history_show(client: Client, args: argparse.Namespace) -> int:
    print_resource(client.get_node_history_event(args.node, args.event), args)
    return 0


def register(node_actions: Any, common: argparse.ArgumentParser) -> None:
    """Add ``validate`` and ``history list|show`` to the actions of ``metalwire node``."""
    add_node_command(
        node_actions, "validate", common, "Check each of a node's interfaces", _validate, True
    )

    history = node_actions.add_parser("history", help="what happened to a node (API 1.78)")
    actions = history.add_subparsers(dest="history_command", metavar="ACTION", required=True)
    listing = add_node_command(
        actions, "list", common, "List a node's history, oldest first", _history_list, True
    )
    add_list_arguments(listing)
    show = add_node_command(
        actions, "show", common, "Show one event of a node's history", _history_show, True
    )
    show.add_argument("event", type=identifier, metavar="EVENT", help="UUID of the event")
