"""What the Prometheus metrics add to one VIF cycle (attach, list, detach), in CPU time.

End-to-end throughput on a shared machine moves by more than the effect (``bench/fast_path.py
--switch METALWIRE_METRICS_ENABLED`` shows ratios from 0.8 to 1.3 between neighbouring rounds),
and so does a whole application driven in one process (two identical applications differ by
up to 10 % by the order they were built in). This measures the metrics' own work instead:

1. a real application with ``[metrics] enabled`` runs cycles while every metrics call is
   counted, which gives the calls one cycle makes (VIF operation counters, lock waits);
2. each of those calls, and :class:`RequestMetrics` around a do-nothing ASGI application for
   the cycle's three requests, is timed on its own (``time.thread_time``, alternating with the
   bare application, medians of several blocks);
3. the sum is the CPU a cycle pays for its metrics, to be set against the CPU a real server
   spends per cycle (``bench/fast_path.py`` prints it, read from /proc).

    .venv/bin/python bench/metrics_cost.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from metalwire import metrics
from metalwire.api.app import create_app
from metalwire.api.metrics import RequestMetrics
from metalwire.config import load_config
from metalwire.db import migrations
from metalwire.db.engine import Database
from metalwire.services import build_services

VERSION = (b"x-openstack-ironic-api-version", b"1.67")
NODE = "1be26c0b-03f2-4d2e-ae87-c02d7683c21d"
VIF = "7d2b6b1e-5c1a-4f0e-9d9b-2c6f1f3e8a10"
CYCLE = (
    ("POST", f"/v1/nodes/{NODE}/vifs"),
    ("GET", f"/v1/nodes/{NODE}/vifs"),
    ("DELETE", f"/v1/nodes/{NODE}/vifs/{VIF}"),
)


async def call(app: Any, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
    """One request straight through ASGI; the status and body of the answer."""
    payload = b"" if body is None else json.dumps(body).encode()
    headers = [VERSION, (b"host", b"bench")]
    if payload:
        headers += [(b"content-type", b"application/json")]
        headers += [(b"content-length", str(len(payload)).encode())]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 6385),
        "state": {},
    }
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": payload, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


def calls_per_cycle(cycles: int) -> dict[str, float]:
    """The metrics calls a real application makes per cycle, counted."""
    seen: Counter[str] = Counter()
    lock_wait, vif_operation = metrics.observe_lock_wait, metrics.vif_operation

    def counted_lock_wait(seconds: float) -> None:
        seen["lock_wait"] += 1
        lock_wait(seconds)

    def counted_vif_operation(*labels: str) -> Any:
        seen["vif_operation"] += 1
        return vif_operation(*labels)

    metrics.observe_lock_wait = counted_lock_wait  # before the services take the reference
    metrics.vif_operation = counted_vif_operation  # type: ignore[assignment]
    try:
        return asyncio.run(_count(cycles, seen))
    finally:
        metrics.observe_lock_wait, metrics.vif_operation = lock_wait, vif_operation


async def _count(cycles: int, seen: Counter[str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="metrics-cost-") as tmp:
        db = Database(f"sqlite:///{Path(tmp) / 'metalwire.db'}")
        migrations.upgrade(db.engine)
        db.dispose()
        config = load_config(
            environ={},
            overrides={("DEFAULT", "data_dir"): tmp, ("metrics", "enabled"): True},
        )
        services, locks = build_services(config, upgrade_schema=False)
        app = create_app(config, services)
        body = {"driver": "fake-hardware", "network_interface": "flat"}
        status, answer = await call(app, "POST", "/v1/nodes", body)
        assert status == 201, answer
        node = json.loads(answer)["uuid"]
        port = {"node_uuid": node, "address": "52:54:02:00:00:01"}
        status, answer = await call(app, "POST", "/v1/ports", port)
        assert status == 201, answer
        seen.clear()
        base = f"/v1/nodes/{node}/vifs"
        for _ in range(cycles):
            vif = str(uuid.uuid4())
            for method, path, sent in (
                ("POST", base, {"id": vif}),
                ("GET", base, None),
                ("DELETE", f"{base}/{vif}", None),
            ):
                status, answer = await call(app, method, path, sent)
                assert status in (200, 204), answer
        locks.release_all()
        services.db.dispose()
    return {name: count / cycles for name, count in seen.items()}


async def _answer_204(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _discard(message: Any) -> None:
    return None


async def _requests(app: Any, repeats: int) -> float:
    started = time.thread_time()
    for _ in range(repeats):
        for method, path in CYCLE:
            scope = {"type": "http", "method": method, "path": path, "state": {}}
            await app(scope, _receive, _discard)
    return (time.thread_time() - started) / repeats


def _per_call(work: Callable[[], object], repeats: int) -> float:
    started = time.thread_time()
    for _ in range(repeats):
        work()
    return (time.thread_time() - started) / repeats


def request_metrics_per_cycle(blocks: int, repeats: int) -> list[float]:
    """CPU seconds :class:`RequestMetrics` adds to a cycle's three requests, per block."""
    measured = RequestMetrics(_answer_204)

    async def run() -> list[float]:
        added = []
        for _ in range(blocks):
            bare = await _requests(_answer_204, repeats)
            added.append(await _requests(measured, repeats) - bare)
        return added

    return asyncio.run(run())


def timed(name: str, blocks: int, repeats: int) -> list[float]:
    """CPU seconds of one metrics call of kind ``name``, per block."""
    work: dict[str, Callable[[], object]] = {
        "lock_wait": lambda: metrics.observe_lock_wait(0.00001),
        "vif_operation": lambda: metrics.vif_operation("attach", "flat", "success").inc(),
    }
    return [_per_call(work[name], repeats) for _ in range(blocks)]


def spread_us(values: list[float]) -> str:
    low, mid, high = (
        round(1e6 * v, 2) for v in (min(values), statistics.median(values), max(values))
    )
    return f"{mid} us ({low}-{high})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=9)
    parser.add_argument("--repeats", type=int, default=20000, help="timed calls per block")
    parser.add_argument("--cycles", type=int, default=200, help="cycles counted in the app")
    parser.add_argument(
        "--server-cpu-ms",
        type=float,
        default=0.0,
        help="a real server's CPU per cycle (bench/fast_path.py), for the share",
    )
    args = parser.parse_args()
    counts = calls_per_cycle(args.cycles)
    parts = {"request_metrics": request_metrics_per_cycle(args.blocks, args.repeats // 3)}
    total = statistics.median(parts["request_metrics"])
    for name, per_cycle in sorted(counts.items()):
        parts[name] = timed(name, args.blocks, args.repeats)
        total += per_cycle * statistics.median(parts[name])
    result: dict[str, Any] = {
        "calls_per_cycle": counts,
        "us_per_call_or_cycle": {
            name: round(1e6 * statistics.median(values), 2) for name, values in parts.items()
        },
        "us_added_per_cycle": round(1e6 * total, 2),
    }
    print("metrics calls per cycle, counted in a real application:", counts, file=sys.stderr)
    print(f"  RequestMetrics, 3 requests: {spread_us(parts['request_metrics'])}", file=sys.stderr)
    for name in sorted(counts):
        print(f"  {name}, one call: {spread_us(parts[name])}", file=sys.stderr)
    print(f"  added per cycle: {result['us_added_per_cycle']} us", file=sys.stderr)
    if args.server_cpu_ms:
        share = total / (args.server_cpu_ms / 1000.0)
        result["share_of_server_cpu_per_cycle"] = round(share, 4)
        print(f"  of {args.server_cpu_ms} ms server CPU per cycle: {share:.2%}", file=sys.stderr)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
