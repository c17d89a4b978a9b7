"""Drive any Ironic-compatible endpoint through its public HTTP API and print figures.

Phases: setup (nodes and ports), attach+list+detach cycles at several concurrency
levels, same-node bursts, GET vifs throughput, cleanup. A verification runs after
each phase. One JSON summary goes to stdout; progress goes to stderr.

    python bench/run.py --url http://127.0.0.1:6385 --duration 10

The command line and the order of the phases are here; the rest is in run_http.py (the
client and its retries), run_stats.py (the figures), run_context.py (what the phases share),
run_setup.py (version and nodes), run_phases.py (the measured phases) and run_verify.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from collections.abc import Sequence
from typing import Any

from run_context import Bench, log
from run_phases import burst, cleanup, cycles, get_vifs
from run_setup import find_existing, negotiate, setup
from run_stats import cpu_seconds
from run_verify import verify

PHASES = ("setup", "cycles", "burst", "get", "cleanup")


def run(bench: Bench) -> dict[str, Any]:
    args = bench.args
    wall0, cpu0 = time.perf_counter(), cpu_seconds()
    bench.summary.update(
        {
            "label": args.label,
            "url": args.url,
            "network_interface": args.network_interface,
            "nodes": args.nodes,
            "ports_per_node": args.ports,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "phases": args.phases,
            "name_prefix": args.name_prefix,
        }
    )
    negotiate(bench)
    bench.summary["api_version"] = bench.api_version
    try:
        if "setup" in args.phases:
            setup(bench)
        else:
            find_existing(bench)
        if bench.nodes:
            bench.summary["network_interface"] = bench.nodes[0].network_interface
        if "cycles" in args.phases:
            levels: dict[str, Any] = {}
            for c in args.concurrency:
                log(
                    f"cycles: concurrency {c} for {args.cycles or args.duration}"
                    f"{' cycles' if args.cycles else ' s'}"
                )
                levels[str(c)] = res = cycles(bench, c)
                log(
                    f"cycles: c={c}: {res.get('cycles_per_s')} cycles/s, "
                    f"verify {res.get('verify', {}).get('status')}"
                )
            bench.summary["cycles"] = levels
        if "burst" in args.phases:
            bursts: dict[str, Any] = {}
            for k in args.burst:
                log(f"burst: {k} VIFs on one node, {args.burst_repeats} times")
                bursts[str(k)] = res = burst(bench, k)
                log(
                    f"burst: k={k}: {res.get('all_attached_ms_median')} ms median, "
                    f"{res.get('seen_409')} x 409"
                )
            bench.summary["burst"] = bursts
        if "get" in args.phases:
            log(f"get: GET vifs at concurrency {args.get_concurrency}")
            bench.summary["get_vifs"] = res = get_vifs(bench, args.get_concurrency)
            log(f"get: {res.get('gets_per_s')} GET/s")
        bench.summary["final_verify"] = verify(bench, bench.all_nodes, {})
    finally:
        if "cleanup" in args.phases and (bench.created or args.phases_given):
            log("cleanup: deleting ports and nodes")
            bench.summary["cleanup"] = cleanup(bench)
    wall = time.perf_counter() - wall0
    bench.summary["total_s"] = round(wall, 2)
    bench.summary["client_cpu_s"] = round(cpu_seconds() - cpu0, 2)
    return bench.summary


def int_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Bare-metal VIF API benchmark (prints JSON)")
    p.add_argument("--url", default="http://127.0.0.1:6385", help="API endpoint root")
    p.add_argument("--label", default="", help="free text copied into the summary")
    p.add_argument("--nodes", type=int, default=50)
    p.add_argument("--ports", type=int, default=4, help="ports per node")
    p.add_argument("--concurrency", type=int_list, default=[1, 8, 32], help="e.g. 1,8,32")
    p.add_argument("--duration", type=float, default=10.0, help="seconds per level")
    p.add_argument("--cycles", type=int, default=0, help="fixed cycles per level instead")
    p.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds per level")
    p.add_argument("--burst", type=int_list, default=[4, 8], help="VIFs per same-node burst")
    p.add_argument("--burst-repeats", type=int, default=3)
    p.add_argument("--get-concurrency", type=int, default=8)
    p.add_argument("--network-interface", default="flat")
    p.add_argument("--driver", default="fake-hardware")
    p.add_argument("--api-version", default="1.67")
    p.add_argument("--phases", default=",".join(PHASES), help=f"subset of {','.join(PHASES)}")
    p.add_argument("--skip-setup", action="store_true", help="reuse nodes named PREFIX-NNN")
    p.add_argument("--no-cleanup", action="store_true", help="keep the nodes and ports")
    p.add_argument(
        "--name-prefix",
        help="node names are PREFIX-NNN and PREFIX-burst (default: mwbench-<random>; "
        "--skip-setup needs the prefix of the earlier run)",
    )
    p.add_argument("--setup-concurrency", type=int, default=8)
    p.add_argument("--verify-concurrency", type=int, default=8)
    p.add_argument("--timeout", type=float, default=60.0, help="per HTTP request")
    p.add_argument(
        "--token", default="", help="Keystone token sent as X-Auth-Token with every request"
    )
    p.add_argument(
        "--server-pid",
        type=int,
        default=0,
        help="a server process on this machine: report the CPU time it and its child "
        "processes (workers) use per cycle",
    )
    p.add_argument(
        "--database-pid",
        type=int,
        default=0,
        help="the PostgreSQL server's postmaster on this machine: report the CPU time it and "
        "its backends use per cycle",
    )
    p.add_argument("--output", help="also write the JSON summary to this file")
    args = p.parse_args(argv)
    # Nodes reused with --skip-setup are deleted only when --phases names cleanup.
    args.phases_given = args.phases != ",".join(PHASES)
    phases = [x.strip() for x in args.phases.split(",") if x.strip()]
    unknown = set(phases) - set(PHASES)
    if unknown:
        p.error(f"unknown phases: {', '.join(sorted(unknown))}")
    if args.skip_setup and "setup" in phases:
        phases.remove("setup")
    if args.no_cleanup and "cleanup" in phases:
        phases.remove("cleanup")
    args.phases = phases
    if args.name_prefix is None:
        if "setup" not in phases:
            p.error("--skip-setup needs --name-prefix")
        args.name_prefix = f"mwbench-{uuid.uuid4().hex[:6]}"
    args.url = args.url.rstrip("/")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    summary = run(Bench(args))
    text = json.dumps(summary, indent=2)
    if args.output:
        with open(args.output, "w") as out:
            out.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
