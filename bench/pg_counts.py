"""Count what one VIF operation costs PostgreSQL: commits, rollbacks and row writes.

Starts a throwaway PostgreSQL cluster and a real ``metalwire serve`` on it, enrols nodes
with a port each, then runs attach, list and detach requests from one client and reads
PostgreSQL's counters (``PostgresServer.activity``) before and after each kind of request.
The counts do not depend on the machine's load, so they compare builds where timings cannot.

With ``--statements`` PostgreSQL also loads ``pg_stat_statements`` (its ``track = all``, so
the foreign keys' own checks are counted too) and each kind of request gets a table of the
statements it ran: how many per request, their mean execution time, the shared buffers they
touched and the WAL they wrote. Where PostgreSQL's time per request goes, statement by
statement (times move with the machine's load; calls, buffers and WAL do not).

    python bench/pg_counts.py                 # 50 nodes, a VIF each
    python bench/pg_counts.py --cycles 200 --json
    python bench/pg_counts.py --statements
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
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


# What pg_stat_statements says of each statement (its text normalized, constants as $n).
_STATEMENT_COLUMNS = (
    "calls",
    "total_exec_time",
    "shared_blks_hit + shared_blks_read",
    "shared_blks_dirtied",
    "wal_records",
    "wal_bytes",
)


@dataclass(frozen=True)
class StatementCost:
    """One statement's cost per request of a kind."""

    text: str
    calls: float  # per request
    exec_us: float  # mean execution time of one call
    buffers: float  # shared buffers touched, per request
    dirtied: float  # shared buffers dirtied, per request
    wal_records: float  # per request
    wal_bytes: float  # per request

    @property
    def exec_us_per_request(self) -> float:
        return self.calls * self.exec_us


def statement_costs(rows: list[tuple[Any, ...]], requests: int) -> list[StatementCost]:
    """``rows`` of (query, *_STATEMENT_COLUMNS) as costs per request, the costliest first;
    statements run fewer than once in ten requests are left out (the bench's own reads)."""
    costs = []
    for text, calls, total_ms, buffers, dirtied, wal_records, wal_bytes in rows:
        if not calls or calls * 10 < requests:
            continue
        costs.append(
            StatementCost(
                text=" ".join(str(text).split()),
                calls=round(calls / requests, 2),
                exec_us=round(float(total_ms) * 1000 / calls, 1),
                buffers=round(buffers / requests, 1),
                dirtied=round(dirtied / requests, 1),
                wal_records=round(wal_records / requests, 1),
                wal_bytes=round(float(wal_bytes) / requests),
            )
        )
    return sorted(costs, key=lambda c: -c.exec_us_per_request)


class StatementStats:
    """pg_stat_statements of one database, reset and read around each kind of request."""

    def __init__(self, pg: PostgresServer, database: str) -> None:
        self.pg, self.database = pg, database
        pg.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", database)

    def reset(self) -> None:
        self.pg.execute("SELECT pg_stat_statements_reset()", self.database)

    def read(self, requests: int) -> list[StatementCost]:
        conn = self.pg.connect(self.database)
        try:
            rows = conn.execute(
                f"SELECT query, {', '.join(_STATEMENT_COLUMNS)} FROM pg_stat_statements s"
                " JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = %s",
                (self.database,),
            ).fetchall()
        finally:
            conn.close()
        return statement_costs(rows, requests)


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
    pg: PostgresServer,
    database: str,
    url: str,
    cycles: int,
    nodes: int,
    trace: bool,
    stats: StatementStats | None = None,
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
        costs: dict[str, list[StatementCost]] = {}
        for name, send in steps.items():
            before = pg.activity(database)
            if stats is not None:
                stats.reset()
            for i in range(cycles):
                r = send(i)
                if r.status_code >= 300:
                    raise SystemExit(f"{name} {i}: {r.status_code} {r.text}")
            if stats is not None:
                costs[name] = stats.read(cycles)
            result[name] = per_request(before, pg.activity(database), cycles)
        if stats is not None:
            result["statement_costs"] = costs
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
    p.add_argument(
        "--statements",
        action="store_true",
        help="per kind of request, each statement's calls, time, buffers and WAL",
    )
    args = p.parse_args()
    env = dict(item.split("=", 1) for item in args.metalwire_env)
    with tempfile.TemporaryDirectory(prefix="pg-counts-") as tmp:
        settings = {"track_counts": "on"}
        if args.trace:
            settings["log_statement"] = "all"
        if args.statements:
            settings["shared_preload_libraries"] = "pg_stat_statements"
            settings["pg_stat_statements.track"] = "all"
        with PostgresServer(settings=settings) as pg:
            db_url = pg.create_database("metalwire")
            stats = StatementStats(pg, "metalwire") if args.statements else None
            with MetalwireServer(Path(tmp) / "mw", database=db_url, env=env) as server:
                result = measure(
                    pg, "metalwire", server.url, args.cycles, args.cycles, args.trace, stats
                )
    if args.json:
        print(json.dumps(result, indent=2, default=asdict))
        return 0
    print(f"per request, {args.cycles} of each (one node each), one client:")
    print(f"{'request':8} " + " ".join(f"{c:>14}" for c in COUNTERS))
    for name in ("attach", "list", "detach"):
        print(f"{name:8} " + " ".join(f"{result[name][c]:>14}" for c in COUNTERS))
    for name, costs in result.get("statement_costs", {}).items():
        total = sum(c.exec_us_per_request for c in costs)
        print(f"\n{name}: {total:.0f} us of execution per request")
        print(
            f"  {'calls':>5} {'us/call':>8} {'buffers':>7} {'dirtied':>7} {'WAL':>4} {'bytes':>6}"
        )
        for c in costs:
            print(
                f"  {c.calls:>5} {c.exec_us:>8} {c.buffers:>7} {c.dirtied:>7}"
                f" {c.wal_records:>4} {c.wal_bytes:>6}  {c.text[:90]}"
            )
    for name, statements in result.get("statements", {}).items():
        print(f"\n{name}: {len(statements)} statements")
        for statement in statements:
            print(f"  {statement[:160]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
