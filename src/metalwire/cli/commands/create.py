"""``metalwire create FILE...``: enrol nodes with their ports and portgroups from files."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from metalwire.cli.commands.common import add_command
from metalwire.cli.output import pick_columns, print_list
from metalwire.client import Client
from metalwire.client.enrol import (
    EnrolFileError,
    NodeResult,
    NodeSpec,
    Progress,
    enrol,
    load_file,
)
from metalwire.wording import counted


def _progress(event: Progress) -> None:
    prefix = f"[{event.index}/{event.total}] {event.spec.label}"
    result = event.result
    if result is None:
        sys.stderr.write(f"{prefix} ... ")
    elif result.status == "created":
        sys.stderr.write(
            f"created {result.node_uuid} ({counted(len(result.ports), 'port')}, "
            f"{counted(len(result.portgroups), 'portgroup')})\n"
        )
    elif result.ok:
        details = f": {'; '.join(result.changes)}" if result.changes else ""
        sys.stderr.write(f"exists as {result.node_uuid}, {result.status}{details}\n")
    else:
        sys.stderr.write(f"{result.status.upper()}: {result.error}\n")
    sys.stderr.flush()


_HEADERS = ["Node", "UUID", "Status", "Ports", "Portgroups", "Error", "Changes"]


def _bulk_create(client: Client, args: argparse.Namespace) -> int:
    pick_columns(_HEADERS, args.columns)  # before creating anything
    specs: list[NodeSpec] = []
    problems: list[str] = []
    for name in args.files:
        try:
            specs.extend(load_file(name))
        except EnrolFileError as error:
            problems.append(str(error))
    if problems:
        for problem in problems:
            print(f"metalwire: {problem}", file=sys.stderr)
        print("metalwire: nothing was created.", file=sys.stderr)
        return 1
    results = enrol(client, specs, progress=_progress, existing=args.existing)
    rows: list[list[Any]] = []
    for r in results:
        # What exists now: nothing is left of a node that was rolled back.
        gone = r.status == "rolled back"
        rows.append(
            [
                r.spec.label,
                None if gone else r.node_uuid,
                r.status,
                0 if gone else len(r.ports),
                0 if gone else len(r.portgroups),
                r.error,
                "; ".join(r.changes) or None,
            ]
        )
    if rows or args.format != "table":
        print_list(_HEADERS, rows, args.format, sys.stdout, args.columns)
    print(_summary(results), file=sys.stderr)
    return 0 if all(r.ok for r in results) else 1


def _summary(results: list[NodeResult]) -> str:
    created = [r for r in results if r.status == "created"]
    others = "".join(
        f", {count} {status}"
        for status in ("updated", "unchanged", "skipped")
        if (count := sum(r.status == status for r in results))
    )
    failed = sum(r.status == "failed" for r in results)
    rolled = sum(r.status in ("rolled back", "rollback failed") for r in results)
    return (
        f"{counted(len(created), 'node')} created "
        f"({counted(sum(len(r.ports) for r in created), 'port')}, "
        f"{counted(sum(len(r.portgroups) for r in created), 'portgroup')}){others}, "
        f"{failed} failed, {rolled} rolled back, of {len(results)}."
    )


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    create = add_command(
        commands,
        "create",
        common,
        "Enrol nodes with their ports and portgroups from YAML or JSON files",
        _bulk_create,
        True,
    )
    create.add_argument("files", nargs="+", metavar="FILE", help=".yaml or .json file")
    create.add_argument(
        "--existing",
        choices=["skip", "update", "fail"],
        default="skip",
        help="a node of the file (by name or UUID) that exists: leave it and report what "
        "differs (skip, the default), set its fields and those of the portgroups and "
        "ports the file lists to the file's values, creating the missing ones and deleting "
        "none (update), or report it failed (fail)",
    )
