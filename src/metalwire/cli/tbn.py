"""``metalwire tbn check FILE``: validate a trait-based networking rules file offline.

Prints each trait with its order and actions, in the order they are tried, and exits 0; or
prints every mistake with its line (and a filter's column) to stderr and exits 1. It reads no
configuration and talks to no server.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(commands: Any) -> None:
    tbn = commands.add_parser("tbn", help="trait-based networking rules")
    actions = tbn.add_subparsers(dest="tbn_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="validate a rules file, with line numbers",
        description="Validate a trait-based networking rules file, with line numbers.",
    )
    check.add_argument("file", metavar="FILE", help="the YAML rules file")
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    from metalwire.errors import TbnRulesInvalid
    from metalwire.networking.tbn.rules import load_rules

    try:
        rules = load_rules(args.file)
    except TbnRulesInvalid as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    ordered = sorted(rules.traits, key=lambda trait: trait.order)
    print(f"{args.file}: valid, {len(ordered)} trait(s)")
    for trait in ordered:
        print(f"{trait.name} (order {trait.order})")
        for action in trait.actions:
            print(f"  line {action.line}: {action.describe()}")
    return 0
