"""``metalwire audit [--node N] [--repair] [--latest]``: where VIF attachments and Neutron,
or the switch ports metalwire set and the switches, disagree, and the safe fixes.

One row per finding: its kind, node, VIF (the Neutron port), the port or portgroup it is
attached to, what a repair does and why it was found; ``--long`` adds what metalwire expected
and what Neutron or the switch holds. With ``--repair`` the rows are the findings acted on, with
``Repaired`` and ``Result``; the findings left after a new audit are counted on stderr, and
the exit status is 1 if a repair failed. What the audit could not compare (a switch port
whose device type cannot be read back) is listed on stderr as not checked.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from metalwire.cli.commands.common import add_command, identifier
from metalwire.cli.output import UsageError, label, pick_columns, print_listing
from metalwire.client import Client

COLUMNS = ("kind", "node_uuid", "vif_id", "target_uuid", "repair", "message")
LONG_COLUMNS = ("kind", "node_uuid", "node_name", "vif_id", "target_uuid", "expected", "actual")
REPAIR_COLUMNS = ("repaired", "result")


def _print(rows: list[dict[str, Any]], fields: tuple[str, ...], args: argparse.Namespace) -> None:
    values = [[row.get(f) for f in fields] for row in rows]
    print_listing([label(f) for f in fields], values, args.format, sys.stdout, args.columns)


def _warn_not_checked(report: dict[str, Any]) -> None:
    """What the audit could not compare, on stderr: it is not known to agree."""
    for item in report.get("not_checked") or []:
        print(
            f"Not checked: node {item['node_uuid']} {item['where']}: {item['reason']}",
            file=sys.stderr,
        )


def _audit(client: Client, args: argparse.Namespace) -> int:
    if args.latest and (args.node or args.repair):
        raise UsageError(
            "--latest shows the kept audit of every node; it takes no --node or --repair"
        )
    fields = (*LONG_COLUMNS, "repair", "message") if args.long else COLUMNS
    shown = (*fields, *REPAIR_COLUMNS) if args.repair else fields
    pick_columns([label(f) for f in shown], args.columns)  # before repairing anything
    if not args.repair:
        report = client.latest_audit() if args.latest else client.audit(args.node)
        _print(list(report["findings"]), fields, args)
        _warn_not_checked(report)
        if args.latest and report.get("checked_at") is None:
            print("No audit has run yet.", file=sys.stderr)
        return 0
    done = client.audit_repair(args.node)
    repairs = list(done["repairs"])
    _print(repairs, (*fields, *REPAIR_COLUMNS), args)
    left = len(done["findings"])
    if left:
        print(f"{left} finding(s) left after the repair (see metalwire audit).", file=sys.stderr)
    return 1 if any(not r["repaired"] for r in repairs) else 0


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    """Add ``metalwire audit``."""
    parser = add_command(
        commands,
        "audit",
        common,
        "Compare the VIF attachments with Neutron and the switch ports with the switches "
        "(metalwire only)",
        _audit,
        True,
    )
    parser.add_argument(
        "--node", type=identifier, metavar="NODE", help="only this node (name or UUID)"
    )
    parser.add_argument(
        "--repair",
        action="store_true",
        help="fix what is safe (bind again, reset MACs, unbind orphans), each fix in the "
        "node's history",
    )
    parser.add_argument(
        "--latest",
        action="store_true",
        help="show the latest audit the server kept (periodic or asked for), without "
        "calling Neutron or a switch",
    )
    parser.add_argument(
        "--long",
        action="store_true",
        help="show what was expected and what Neutron or the switch holds",
    )
