"""bench/run.py's measured phases: attach+list+detach cycles at a concurrency level, bursts
of VIFs on one node, GET vifs throughput, and the cleanup that deletes what setup made."""

from __future__ import annotations

import math
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from run_context import NOOP_SKIP, Bench, Node, log
from run_http import Api
from run_stats import (
    OpStats,
    cpu_seconds,
    idle_cpu_seconds,
    merge_all,
    percentile,
    tree_cpu_seconds,
)
from run_verify import verify


@dataclass
class Measured:
    """One measured window: its seconds and the CPU seconds each party used in it."""

    seconds: float
    client_cpu: float  # this process (the load generator)
    server_cpu: float | None  # the server's process and its workers, given its pid
    database_cpu: float | None  # the PostgreSQL server and its backends, given its pid
    idle_cpu: float  # every core of the machine, idle


def run_measured(
    worker: Callable[[int], None],
    concurrency: int,
    gate: threading.Barrier,
    stop_at: list[float],
    duration: float,
    server_pid: int | None = None,
    database_pid: int | None = None,
) -> Measured:
    """Run ``concurrency`` workers, measured from when all of them pass ``gate`` (after their
    warm-up) until the last ends (``stop_at`` is set ``duration`` seconds ahead)."""
    threads = [threading.Thread(target=worker, args=(w,), daemon=True) for w in range(concurrency)]
    for t in threads:
        t.start()
    gate.wait()
    server0 = tree_cpu_seconds(server_pid) if server_pid else 0.0
    postgres0 = tree_cpu_seconds(database_pid) if database_pid else 0.0
    idle0, cpu0, t0 = idle_cpu_seconds(), cpu_seconds(), time.perf_counter()
    stop_at[0] = t0 + duration
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    cpu, idle = cpu_seconds() - cpu0, idle_cpu_seconds() - idle0
    server_cpu = tree_cpu_seconds(server_pid) - server0 if server_pid else None
    database_cpu = tree_cpu_seconds(database_pid) - postgres0 if database_pid else None
    return Measured(elapsed, cpu, server_cpu, database_cpu, idle)


def cycles(bench: Bench, concurrency: int) -> dict[str, Any]:
    args = bench.args
    if concurrency > len(bench.nodes):
        return {"error": f"needs {concurrency} nodes, have {len(bench.nodes)} (--nodes)"}
    noop = bench.noop(bench.nodes)
    owned = [bench.nodes[w::concurrency] for w in range(concurrency)]
    results: list[dict[str, OpStats]] = [{} for _ in range(concurrency)]
    counts = [0] * concurrency
    mismatches = [0] * concurrency
    apis = [bench.api() for _ in range(concurrency)]
    for api in apis:
        api.warm()
    gate = threading.Barrier(concurrency + 1)
    warm_until = time.perf_counter() + args.warmup
    stop_at = [math.inf]
    quota: list[int | None] = [None] * concurrency
    if args.cycles:
        quota = [
            args.cycles // concurrency + (w < args.cycles % concurrency) for w in range(concurrency)
        ]

    def one_cycle(api: Api, node: Node, st: dict[str, OpStats], w: int) -> bool:
        vif = str(uuid.uuid4())
        t0 = time.perf_counter()
        base = f"/v1/nodes/{node.uuid}/vifs"
        att = api.call(st["attach"], "POST", base, {"id": vif}, ok=(204,))
        if att is None or att.status_code != 204:
            api.call(st["detach"], "DELETE", f"{base}/{vif}", ok=(204, 400, 404), record=False)
            return False
        lst = api.call(st["list"], "GET", base, ok=(200,))
        good = lst is not None and lst.status_code == 200
        if good and lst is not None and not noop:
            ids = [v.get("id") for v in lst.json().get("vifs", [])]
            if ids != [vif]:
                mismatches[w] += 1
        det = api.call(st["detach"], "DELETE", f"{base}/{vif}", ok=(204,))
        if det is None or det.status_code != 204:
            return False
        if good:
            st["cycle"].latencies.append(time.perf_counter() - t0)
        return good

    def worker(w: int) -> None:
        api = apis[w]
        mine = owned[w]
        turn = 0
        scratch = {k: OpStats() for k in ("attach", "list", "detach", "cycle")}
        while time.perf_counter() < warm_until:
            one_cycle(api, mine[turn % len(mine)], scratch, w)
            turn += 1
        mismatches[w] = 0
        st = {k: OpStats() for k in ("attach", "list", "detach", "cycle")}
        results[w] = st
        gate.wait()
        left = quota[w]
        while (time.perf_counter() < stop_at[0]) if left is None else left > 0:
            if one_cycle(api, mine[turn % len(mine)], st, w):
                counts[w] += 1
            turn += 1
            if left is not None:
                left -= 1

    measured = run_measured(
        worker, concurrency, gate, stop_at, args.duration, args.server_pid, args.database_pid
    )
    elapsed, cpu = measured.seconds, measured.client_cpu
    for api in apis:
        api.close()
    total = merge_all(results)
    done = sum(counts)
    out: dict[str, Any] = {
        "concurrency": concurrency,
        "cycles": done,
        "seconds": round(elapsed, 3),
        "cycles_per_s": round(done / elapsed, 2) if elapsed else None,
        "requests_per_s": round(3 * done / elapsed, 2) if elapsed else None,
        "client_cpu_pct": round(100.0 * cpu / elapsed, 1) if elapsed else None,
        "list_mismatches": NOOP_SKIP if noop else sum(mismatches),
    }
    if done:  # where the machine's CPU went, per cycle
        per_cycle = {
            "server_cpu_ms_per_cycle": measured.server_cpu,
            "database_cpu_ms_per_cycle": measured.database_cpu,
            "client_cpu_ms_per_cycle": cpu,
        }
        for key, seconds in per_cycle.items():
            if seconds is not None:
                out[key] = round(1000.0 * seconds / done, 3)
    if elapsed:
        out["idle_cores"] = round(measured.idle_cpu / elapsed, 2)
    for name in ("attach", "list", "detach", "cycle"):
        out[name] = total.get(name, OpStats()).summary()
    out["verify"] = verify(bench, bench.nodes, {})
    return out


# -- same-node burst ------------------------------------------------------------


def burst_once(bench: Bench, node: Node, vifs: list[str], method: str) -> dict[str, Any]:
    k = len(vifs)
    apis = [bench.api() for _ in range(k)]
    for api in apis:
        api.warm()
    stats = [OpStats() for _ in range(k)]
    ends = [0.0] * k
    codes = [0] * k
    start = [0.0]

    def release() -> None:
        start[0] = time.perf_counter()

    gate = threading.Barrier(k, action=release)

    def go(i: int) -> None:
        base = f"/v1/nodes/{node.uuid}/vifs"
        gate.wait()
        if method == "POST":
            resp = apis[i].call(stats[i], "POST", base, {"id": vifs[i]}, ok=(204,))
        else:
            resp = apis[i].call(stats[i], "DELETE", f"{base}/{vifs[i]}", ok=(204,))
        ends[i] = time.perf_counter()
        codes[i] = resp.status_code if resp is not None else 0

    threads = [threading.Thread(target=go, args=(i,), daemon=True) for i in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for api in apis:
        api.close()
    total = OpStats()
    for s in stats:
        total.merge(s)
    return {
        "ms": round((max(ends) - start[0]) * 1000.0, 2),
        "ok": sum(1 for c in codes if c == 204),
        "seen_409": total.seen.get(409, 0),
        "seen_503": total.seen.get(503, 0),
        "retries": total.retries,
        "reconnects": total.reconnects,
        "errors": total.samples,
    }


def burst(bench: Bench, k: int) -> dict[str, Any]:
    node = bench.burst_node
    if node is None:
        return {"error": "no burst node"}
    if len(node.ports) < k:
        log(f"burst node has {len(node.ports)} ports, fewer than {k}")
    rounds: list[dict[str, Any]] = []
    for _ in range(bench.args.burst_repeats):
        vifs = [str(uuid.uuid4()) for _ in range(k)]
        attach = burst_once(bench, node, vifs, "POST")
        attach["verify"] = verify(bench, [node], {node.uuid: set(vifs)})
        detach = burst_once(bench, node, vifs, "DELETE")
        detach["verify"] = verify(bench, [node], {})
        rounds.append({"attach": attach, "detach": detach})
    attach_ms = sorted(r["attach"]["ms"] for r in rounds)
    detach_ms = sorted(r["detach"]["ms"] for r in rounds)
    return {
        "k": k,
        "repeats": len(rounds),
        "all_attached_ms_median": round(percentile(attach_ms, 50), 2),
        "all_attached_ms_max": attach_ms[-1],
        "all_detached_ms_median": round(percentile(detach_ms, 50), 2),
        "seen_409": sum(r["attach"]["seen_409"] for r in rounds),
        "retries": sum(r["attach"]["retries"] for r in rounds),
        "detach_seen_409": sum(r["detach"]["seen_409"] for r in rounds),
        "detach_retries": sum(r["detach"]["retries"] for r in rounds),
        "failed_requests": sum(k - r["attach"]["ok"] + k - r["detach"]["ok"] for r in rounds),
        "rounds": rounds,
    }


# -- GET vifs throughput --------------------------------------------------------


def get_vifs(bench: Bench, concurrency: int) -> dict[str, Any]:
    args = bench.args
    nodes = bench.nodes
    noop = bench.noop(nodes)
    if concurrency > len(nodes):
        return {"error": f"needs {concurrency} nodes, have {len(nodes)}"}
    attached: dict[str, str] = {}
    lock = threading.Lock()
    prep = OpStats()

    def attach_one(api: Api, node: Node) -> None:
        vif = str(uuid.uuid4())
        resp = api.call(prep, "POST", f"/v1/nodes/{node.uuid}/vifs", {"id": vif}, ok=(204,))
        if resp is not None and resp.status_code == 204:
            with lock:
                attached[node.uuid] = vif

    bench.pool_map(attach_one, nodes, args.setup_concurrency)
    verify_before = verify(bench, nodes, {u: {v} for u, v in attached.items()})
    owned = [nodes[w::concurrency] for w in range(concurrency)]
    apis = [bench.api() for _ in range(concurrency)]
    for api in apis:
        api.warm()
    results = [OpStats() for _ in range(concurrency)]
    mismatches = [0] * concurrency
    gate = threading.Barrier(concurrency + 1)
    warm_until = time.perf_counter() + args.warmup
    stop_at = [math.inf]

    def one(api: Api, node: Node, st: OpStats, w: int) -> None:
        resp = api.call(st, "GET", f"/v1/nodes/{node.uuid}/vifs", ok=(200,))
        if resp is not None and resp.status_code == 200 and not noop:
            want = [attached[node.uuid]] if node.uuid in attached else []
            if [v.get("id") for v in resp.json().get("vifs", [])] != want:
                mismatches[w] += 1

    def worker(w: int) -> None:
        api, mine, turn = apis[w], owned[w], 0
        scratch = OpStats()
        while time.perf_counter() < warm_until:
            one(api, mine[turn % len(mine)], scratch, w)
            turn += 1
        mismatches[w] = 0
        gate.wait()
        while time.perf_counter() < stop_at[0]:
            one(api, mine[turn % len(mine)], results[w], w)
            turn += 1

    measured = run_measured(worker, concurrency, gate, stop_at, args.duration)
    elapsed, cpu = measured.seconds, measured.client_cpu
    for api in apis:
        api.close()
    total = OpStats()
    for r in results:
        total.merge(r)

    def detach_one(api: Api, node: Node) -> None:
        if node.uuid in attached:
            vif = attached[node.uuid]
            api.call(prep, "DELETE", f"/v1/nodes/{node.uuid}/vifs/{vif}", ok=(204,))

    bench.pool_map(detach_one, nodes, args.setup_concurrency)
    done = len(total.latencies)
    return {
        "concurrency": concurrency,
        "requests": done,
        "seconds": round(elapsed, 3),
        "gets_per_s": round(done / elapsed, 2) if elapsed else None,
        "client_cpu_pct": round(100.0 * cpu / elapsed, 1) if elapsed else None,
        "vifs_attached_during": len(attached),
        "list_mismatches": NOOP_SKIP if noop else sum(mismatches),
        "get": total.summary(),
        "attach_detach_around": prep.summary(),
        "verify_attached": verify_before,
        "verify": verify(bench, nodes, {}),
    }


# -- cleanup --------------------------------------------------------------------


def cleanup(bench: Bench) -> dict[str, Any]:
    stats = {"port": OpStats(), "node": OpStats()}
    lock = threading.Lock()

    def remove(api: Api, node: Node) -> None:
        local = {"port": OpStats(), "node": OpStats()}
        for port in node.ports:
            api.call(local["port"], "DELETE", f"/v1/ports/{port}", ok=(204, 404))
        api.call(local["node"], "DELETE", f"/v1/nodes/{node.uuid}", ok=(204, 404))
        with lock:
            for key, value in local.items():
                stats[key].merge(value)

    t0 = time.perf_counter()
    nodes = bench.all_nodes
    bench.pool_map(remove, nodes, bench.args.setup_concurrency)
    return {
        "seconds": round(time.perf_counter() - t0, 3),
        "nodes_deleted": len(stats["node"].latencies),
        "ports_deleted": len(stats["port"].latencies),
        "errors": stats["node"].errors + stats["port"].errors,
        "error_samples": (stats["node"].samples + stats["port"].samples)[:5],
    }
