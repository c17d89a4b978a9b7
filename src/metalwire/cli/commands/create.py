"""``metalwire create FILE...``: enrol nodes with their ports and portgroups from files."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from metalwire.cli.commands.common import add_command
from metalwire.cli.output import print_list
from metalwire.client import Client
from metalwire.client.enrol import EnrolFileError, NodeSpec, Progress, enrol, load_file


def _progress(event: Progress) -> None:
    prefix = f"[{event.index}/{event.total}] {event.spec.label}"
    result = event.result
    if result is None:
        sys.stderr.write(f"{prefix} ... ")
    elif result.ok:
        sys.stderr.write(
            f"created {result.node_uuid} ({_count(len(result.ports), 'port')}, "
            f"{_count(len(result.portgroups), 'portgroup')})\n"
        )
    else:
        sys.stderr.write(f"{result.status.upper()}: {result.error}\n")
    sys.stderr.flush()


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _bulk_create(client: Client, args: argparse.Namespace) -> int:
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
    results = enrol(client, specs, progress=_progress)
    rows: list[list[Any]] = []
    for r in results:
        # What exists now: nothing is left of a node that was rolled back.
        left = r.status in ("created", "rollback failed")
        rows.append(
            [
                r.spec.label,
                r.node_uuid if left else None,
                r.status,
                len(r.ports) if left else 0,
                len(r.portgroups) if left else 0,
                r.error,
            ]
        )
    if rows or args.format != "table":
        headers = ["Node", "UUID", "Status", "Ports", "Portgroups", "Error"]
        print_list(headers, rows, args.format, sys.stdout, args.columns)
    created = [r for r in results if r.ok]
    failed = [r for r in results if r.status == "failed"]
    rolled = [r for r in results if r.status in ("rolled back", "rollback failed")]
    print(
        f"{_count(len(created), 'node')} created "
        f"({_count(sum(len(r.ports) for r in created), 'port')}, "
        f"{_count(sum(len(r.portgroups) for r in created), 'portgroup')}), "
        f"{len(failed)} failed, {len(rolled)} rolled back, of {len(results)}.",
        file=sys.stderr,
    )
    return 0 if len(created) == len(results) else 1


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
