"""Count what one VIF operation costs PostgreSQL: commits, rollbacks and row writes.

Starts a throwaway PostgreSQL cluster and a real ``metalwire serve`` on it, enrols nodes
with a port each, then runs attach, list and detach requests from one client and reads
PostgreSQL's counters (``PostgresServer.activity``) before and after each kind of request.
The counts do not depend on the machine's load, so they compare builds where timings cannot.

    python bench/pg_counts.py                 # 50 nodes, a VIF each
    python bench/pg_counts.py --cycles 200 --json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.postgres import PostgresServer  # noqa: E402
from tests.support.server import MetalwireServer  # noqa: E402

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.67"}
COUNTERS = PostgresServer.ACTIVITY


def per_request(before: dict[str, int], after: dict[str, int], n: int) -> dict[str, float]:
    # Reading the counters is one commit of the database: the one taken at a window's start.
    delta = {k: after[k] - before[k] for k in COUNTERS}
    delta["xact_commit"] -= 1
    return {k: round(v / n, 2) for k, v in delta.items()}


def mark(pg: PostgresServer, text: str) -> None:
    pg.execute(f"SELECT 'pg_counts {text}'")


def statements_between(log: str, start: str, end: str) -> list[str]:
    """The statements PostgreSQL logged between two marks, without the log line prefix."""
    lines = log.splitlines()
    first = next(i for i, line in enumerate(lines) if f"pg_counts {start}" in line)
    last = next(i for i, line in enumerate(lines) if f"pg_counts {end}" in line)
    out = []
    for line in lines[first + 1 : last]:
        # "statement: ..." (simple query), "execute <name>: ..." (extended query protocol,
        # a prepared statement's name or <unnamed>)
        found = _LOGGED.search(line)
        if found:
            out.append(found.group(1))
        elif line.startswith(("\t", " ")) and out and "parameters:" not in line:
            out[-1] += " " + line.strip()
    return out


_LOGGED = re.compile(r"LOG:\s+(?:statement|execute [^:]+): (.*)")


def enrol(client: httpx.Client, nodes: int) -> list[str]:
    uuids = []
    for i in range(nodes):
        r = client.post(
            "/v1/nodes",
            json={"driver": "fake-hardware", "name": f"pg-{i}", "network_interface": "flat"},
        )
        r.raise_for_status()
        node = r.json()["uuid"]
        r = client.post(
            "/v1/ports",
            json={"node_uuid": node, "address": f"52:54:00:00:{i // 256:02x}:{i % 256:02x}"},
        )
        r.raise_for_status()
        uuids.append(node)
    return uuids


def measure(
    pg: PostgresServer, database: str, url: str, cycles: int, nodes: int, trace: bool
) -> Any:
    with httpx.Client(base_url=url, headers=HEADERS, timeout=30.0) as client:
        node_uuids = enrol(client, nodes)
        vifs = [str(uuid.uuid4()) for _ in range(cycles)]
        steps: dict[str, Callable[[int], httpx.Response]] = {
            "attach": lambda i: client.post(
                f"/v1/nodes/{node_uuids[i % nodes]}/vifs", json={"id": vifs[i]}
            ),
            "list": lambda i: client.get(f"/v1/nodes/{node_uuids[i % nodes]}/vifs"),
            "detach": lambda i: client.delete(f"/v1/nodes/{node_uuids[i % nodes]}/vifs/{vifs[i]}"),
        }
        result: dict[str, Any] = {}
        # Each kind of request in its own window, so its counts are its own: attach a VIF
        # to every node, then list every node's, then detach them all.
        for name, send in steps.items():
            before = pg.activity(database)
            for i in range(cycles):
                r = send(i)
                if r.status_code >= 300:
                    raise SystemExit(f"{name} {i}: {r.status_code} {r.text}")
            result[name] = per_request(before, pg.activity(database), cycles)
        if trace:
            # One more request of each kind, on a fresh VIF, with its statements logged.
            vifs.append(str(uuid.uuid4()))
            for name, send in steps.items():
                mark(pg, f"{name} start")
                send(cycles)
                mark(pg, f"{name} end")
            log = pg.log_file.read_text(errors="replace")
            result["statements"] = {
                name: statements_between(log, f"{name} start", f"{name} end") for name in steps
            }
        return result


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cycles", type=int, default=50)
    p.add_argument("--metalwire-env", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--json", action="store_true", help="print JSON only")
    p.add_argument("--trace", action="store_true", help="print one request's statements too")
    args = p.parse_args()
    env = dict(item.split("=", 1) for item in args.metalwire_env)
    with tempfile.TemporaryDirectory(prefix="pg-counts-") as tmp:
        settings = {"track_counts": "on"}
        if args.trace:
            settings["log_statement"] = "all"
        with PostgresServer(settings=settings) as pg:
            db_url = pg.create_database("metalwire")
            with MetalwireServer(Path(tmp) / "mw", database=db_url, env=env) as server:
                result = measure(pg, "metalwire", server.url, args.cycles, args.cycles, args.trace)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"per request, {args.cycles} of each (one node each), one client:")
    print(f"{'request':8} " + " ".join(f"{c:>14}" for c in COUNTERS))
    for name in ("attach", "list", "detach"):
        print(f"{name:8} " + " ".join(f"{result[name][c]:>14}" for c in COUNTERS))
    for name, statements in result.get("statements", {}).items():
        print(f"\n{name}: {len(statements)} statements")
        for statement in statements:
            print(f"  {statement[:160]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
