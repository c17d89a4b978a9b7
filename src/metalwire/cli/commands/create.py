"""``metalwire create FILE...``: enrol chassis and nodes with their ports and portgroups from
files."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from metalwire.cli.commands.common import add_command
from metalwire.cli.output import pick_columns, print_list
from metalwire.client import Client
from metalwire.client.enrol import (
    ChassisResult,
    Description,
    EnrolFileError,
    NodeResult,
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


def _chassis_progress(result: ChassisResult) -> None:
    prefix = f"chassis {result.spec.label} ... "
    if result.status == "created":
        line = f"created {result.chassis_uuid}"
    elif result.ok and result.status != "rolled back":
        details = f": {'; '.join(result.changes)}" if result.changes else ""
        line = f"exists as {result.chassis_uuid}, {result.status}{details}"
    else:
        line = f"{result.status.upper()}: {result.error}"
    sys.stderr.write(f"{prefix}{line}\n")
    sys.stderr.flush()


_HEADERS = ["Node", "UUID", "Status", "Ports", "Portgroups", "Error", "Changes", "Chassis"]


def _bulk_create(client: Client, args: argparse.Namespace) -> int:
    pick_columns(_HEADERS, args.columns)  # before creating anything
    descriptions: list[Description] = []
    problems: list[str] = []
    for name in args.files:
        try:
            descriptions.append(load_file(name))
        except EnrolFileError as error:
            problems.append(str(error))
    if problems:
        for problem in problems:
            print(f"metalwire: {problem}", file=sys.stderr)
        print("metalwire: nothing was created.", file=sys.stderr)
        return 1
    enrolled = enrol(
        client,
        descriptions,
        progress=_progress,
        existing=args.existing,
        chassis_progress=_chassis_progress,
    )
    rows: list[list[Any]] = []
    for r in enrolled.nodes:
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
                None if gone else r.chassis_uuid,
            ]
        )
    if rows or args.format != "table":
        print_list(_HEADERS, rows, args.format, sys.stdout, args.columns)
    if enrolled.chassis:
        print(_chassis_summary(enrolled.chassis), file=sys.stderr)
    print(_summary(enrolled.nodes), file=sys.stderr)
    return 0 if enrolled.ok else 1


def _chassis_summary(results: list[ChassisResult]) -> str:
    counts = "".join(
        f", {count} {status}"
        for status in ("skipped", "updated", "unchanged", "failed", "rolled back")
        if (count := sum(r.status == status for r in results))
    )
    kept_failed = sum(r.status == "rollback failed" for r in results)
    not_deleted = f", {kept_failed} not deleted again" if kept_failed else ""
    created = sum(r.status == "created" for r in results)
    return f"{created} chassis created{counts}{not_deleted}, of {len(results)}."


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
        "Enrol chassis and nodes with their ports and portgroups from YAML or JSON files",
        _bulk_create,
        True,
    )
    create.add_argument("files", nargs="+", metavar="FILE", help=".yaml or .json file")
    create.add_argument(
        "--existing",
        choices=["skip", "update", "fail"],
        default="skip",
        help="a node of the file (by name or UUID) or a chassis (by UUID) that exists: "
        "leave it and report what "
        "differs (skip, the default), set its fields and those of the portgroups and "
        "ports the file lists to the file's values, creating the missing ones and deleting "
        "none (update), or report it failed (fail)",
    )
