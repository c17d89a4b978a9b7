"""Drive any Ironic-compatible endpoint through its public HTTP API and print figures.

Phases: setup (nodes and ports), attach+list+detach cycles at several concurrency
levels, same-node bursts, GET vifs throughput, cleanup. A verification runs after
each phase. One JSON summary goes to stdout; progress goes to stderr.

    python bench/run.py --url http://127.0.0.1:6385 --duration 10
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import resource
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx

VERSION_HEADER = "X-OpenStack-Ironic-API-Version"
MIN_VIF_VERSION = (1, 28)
PHASES = ("setup", "cycles", "burst", "get", "cleanup")
NOOP_SKIP = "skipped (noop records nothing)"

# Same policy as openstacksdk's bare-metal proxy on top of keystoneauth: 409 (node
# locked) and 503 (no conductor) are retried up to 5 times; the delay honours an
# integer Retry-After header, otherwise it starts at 0.5 s and doubles (max 60 s).
RETRIABLE = (409, 503)
MAX_RETRIES = 5
FIRST_DELAY = 0.5
MAX_DELAY = 60.0
# Requests cut by a dropped keep-alive connection are sent again on a new one, at most
# twice, and counted apart ("reconnects").
MAX_RECONNECTS = 2

T = TypeVar("T")


def log(msg: str) -> None:
    print(f"[run {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def parse_version(text: str) -> tuple[int, int]:
    major, minor = text.strip().split(".", 1)
    return int(major), int(minor)


def percentile(sorted_values: Sequence[float], pct: float) -> float:
    if not sorted_values:
        return float("nan")
    rank = max(1, math.ceil(pct / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


def ms(seconds: float) -> float | None:
    return None if math.isnan(seconds) else round(seconds * 1000.0, 2)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def process_cpu_seconds(pid: int) -> float:
    """CPU time (user + system, every thread) a process on this machine has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # After the command name: state is field 3, utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class OpStats:
    """Outcome of one kind of request: latencies of successes, retries, failures."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    retries: int = 0
    reconnects: int = 0
    seen: Counter[int] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)

    def fail(self, message: str) -> None:
        self.errors += 1
        if len(self.samples) < 5:
            self.samples.append(message[:300])

    def merge(self, other: OpStats) -> None:
        self.latencies.extend(other.latencies)
        self.errors += other.errors
        self.retries += other.retries
        self.reconnects += other.reconnects
        self.seen.update(other.seen)
        room = 5 - len(self.samples)
        self.samples.extend(other.samples[: max(0, room)])

    def summary(self) -> dict[str, Any]:
        values = sorted(self.latencies)
        out: dict[str, Any] = {
            "ok": len(values),
            "errors": self.errors,
            "retries": self.retries,
            "reconnects": self.reconnects,
            "seen_409": self.seen.get(409, 0),
            "seen_503": self.seen.get(503, 0),
            "p50_ms": ms(percentile(values, 50)),
            "p95_ms": ms(percentile(values, 95)),
            "p99_ms": ms(percentile(values, 99)),
            "max_ms": ms(values[-1]) if values else None,
        }
        if self.samples:
            out["error_samples"] = self.samples
        return out


def merge_all(groups: Iterable[dict[str, OpStats]]) -> dict[str, OpStats]:
    total: dict[str, OpStats] = {}
    for group in groups:
        for name, stats in group.items():
            total.setdefault(name, OpStats()).merge(stats)
    return total


class Api:
    """One worker's keep-alive connection, with openstacksdk-style 409/503 retries.

    Requests go straight to an httpx transport: the httpx.Client layer (cookies, auth,
    hooks, URL merging) roughly doubles the client's CPU cost per request, and the
    client shares the machine's cores with the server under test.
    """

    def __init__(self, url: str, api_version: str, timeout: float, token: str = "") -> None:
        self.base = url
        self.headers = {VERSION_HEADER: api_version, "Accept": "application/json"}
        if token:
            self.headers["X-Auth-Token"] = token
        self.extensions: dict[str, Any] = {"timeout": httpx.Timeout(timeout).as_dict()}
        self.transport = httpx.HTTPTransport(
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1)
        )

    def close(self) -> None:
        self.transport.close()

    def send(self, method: str, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        request = httpx.Request(
            method, self.base + path, headers=self.headers, json=body, extensions=self.extensions
        )
        resp = self.transport.handle_request(request)
        try:
            resp.read()
        finally:
            resp.close()
        return resp

    def warm(self) -> None:
        with contextlib.suppress(httpx.HTTPError):
            self.send("GET", "/")

    def call(
        self,
        stats: OpStats,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        ok: tuple[int, ...] = (200, 201, 202, 204),
        record: bool = True,
    ) -> httpx.Response | None:
        """Send one logical request (retries included); None on a transport error."""
        start = time.perf_counter()
        delay = FIRST_DELAY
        retries_left = MAX_RETRIES
        reconnects_left = MAX_RECONNECTS
        try:
            while True:
                try:
                    resp = self.send(method, path, body)
                except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError):
                    # A keep-alive connection the server dropped: reconnect and resend.
                    if reconnects_left <= 0:
                        raise
                    reconnects_left -= 1
                    stats.reconnects += 1
                    continue
                code = resp.status_code
                if code in RETRIABLE:
                    stats.seen[code] += 1
                    if retries_left > 0:
                        wait: float | None = None
                        retry_after = resp.headers.get("Retry-After")
                        if retry_after:
                            with contextlib.suppress(ValueError):
                                wait = float(int(retry_after))
                        if wait is None:
                            wait = delay
                            delay = min(delay * 2.0, MAX_DELAY)
                        retries_left -= 1
                        stats.retries += 1
                        time.sleep(wait)
                        continue
                break
        except httpx.HTTPError as exc:
            stats.fail(f"{method} {path}: {type(exc).__name__}: {exc}")
            return None
        if code in ok:
            if record:
                stats.latencies.append(time.perf_counter() - start)
        else:
            stats.fail(f"{method} {path}: HTTP {code}: {resp.text[:200]}")
        return resp


@dataclass
class Node:
    uuid: str
    name: str
    network_interface: str
    ports: list[str] = field(default_factory=list)


@dataclass
class Bench:
    args: argparse.Namespace
    api_version: str = ""
    nodes: list[Node] = field(default_factory=list)
    burst_node: Node | None = None
    created: bool = False
    mac_prefix: tuple[int, int] = (0, 0)
    summary: dict[str, Any] = field(default_factory=dict)

    # -- plumbing -------------------------------------------------------------------

    def api(self) -> Api:
        return Api(self.args.url, self.api_version, self.args.timeout, self.args.token)

    def pool_map(self, fn: Callable[[Api, T], Any], items: Sequence[T], workers: int) -> None:
        """Run fn(api, item) over items with a few workers, each with its own connection."""
        local = threading.local()
        apis: list[Api] = []
        lock = threading.Lock()

        def run(item: T) -> Any:
            api = getattr(local, "api", None)
            if api is None:
                api = self.api()
                local.api = api
                with lock:
                    apis.append(api)
            return fn(api, item)

        try:
            with ThreadPoolExecutor(max_workers=max(1, min(workers, len(items)))) as pool:
                list(pool.map(run, items))
        finally:
            for api in apis:
                api.close()

    @property
    def all_nodes(self) -> list[Node]:
        return self.nodes + ([self.burst_node] if self.burst_node else [])

    def noop(self, nodes: Iterable[Node]) -> bool:
        return all(n.network_interface == "noop" for n in nodes)

    # -- discovery ------------------------------------------------------------------

    def negotiate(self) -> None:
        wanted = parse_version(self.args.api_version)
        try:
            root = httpx.get(self.args.url + "/", timeout=self.args.timeout)
            root.raise_for_status()
            info = root.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise SystemExit(f"no API version document at {self.args.url}/: {exc}") from exc
        current = info.get("default_version") or (info.get("versions") or [{}])[0]
        server_max = parse_version(str(current.get("version", self.args.api_version)))
        server_min = parse_version(str(current.get("min_version", "1.1")))
        chosen = min(wanted, server_max)
        if chosen < MIN_VIF_VERSION or chosen < server_min:
            raise SystemExit(
                f"server supports {server_min}..{server_max}; the VIF API needs >= 1.28"
            )
        self.api_version = f"{chosen[0]}.{chosen[1]}"
        v1 = httpx.get(
            self.args.url + "/v1/",
            headers={VERSION_HEADER: self.api_version},
            timeout=self.args.timeout,
        )
        self.summary["server"] = {
            "name": info.get("name"),
            "min_version": f"{server_min[0]}.{server_min[1]}",
            "max_version": f"{server_max[0]}.{server_max[1]}",
            "v1_status": v1.status_code,
        }
        if chosen != wanted:
            log(f"server max version is {self.api_version}; using it instead")
        log(f"{self.args.url}: API {self.api_version} (server max {server_max[0]}.{server_max[1]})")

    # -- setup ----------------------------------------------------------------------

    def mac(self, index: int) -> str:
        a, b = self.mac_prefix
        octets = (2, a, b, (index >> 16) & 255, (index >> 8) & 255, index & 255)
        return ":".join(f"{o:02x}" for o in octets)

    def setup(self) -> None:
        args = self.args
        burst_ports = max(args.burst) if args.burst else 0
        plan: list[tuple[int, str, int]] = [
            (i, f"{args.name_prefix}-{i:03d}", args.ports) for i in range(args.nodes)
        ]
        if burst_ports:
            plan.append((args.nodes, f"{args.name_prefix}-burst", burst_ports))
        self.mac_prefix = (random.randrange(256), random.randrange(256))
        stride = max(args.ports, burst_ports)
        stats: dict[str, OpStats] = {"node": OpStats(), "port": OpStats()}
        lock = threading.Lock()
        made: dict[int, Node] = {}

        def make(api: Api, item: tuple[int, str, int]) -> None:
            index, name, nports = item
            local = {"node": OpStats(), "port": OpStats()}
            body: dict[str, Any] = {"driver": args.driver, "name": name}
            if args.network_interface:
                body["network_interface"] = args.network_interface
            resp = api.call(local["node"], "POST", "/v1/nodes", body)
            if resp is not None and resp.status_code in (200, 201):
                data = resp.json()
                node = Node(
                    data["uuid"], name, data.get("network_interface") or args.network_interface
                )
                for j in range(nports):
                    port_body = {
                        "node_uuid": node.uuid,
                        "address": self.mac(index * stride + j),
                        "pxe_enabled": True,
                    }
                    presp = api.call(local["port"], "POST", "/v1/ports", port_body)
                    if presp is not None and presp.status_code in (200, 201):
                        node.ports.append(presp.json()["uuid"])
                with lock:
                    made[index] = node
            with lock:
                for key, value in local.items():
                    stats[key].merge(value)

        log(f"setup: {args.nodes} nodes x {args.ports} ports (+ burst node with {burst_ports})")
        cpu0, t0 = cpu_seconds(), time.perf_counter()
        self.created = True
        self.pool_map(make, plan, args.setup_concurrency)
        elapsed = time.perf_counter() - t0
        cpu = cpu_seconds() - cpu0
        self.nodes = [made[i] for i in range(args.nodes) if i in made]
        self.burst_node = made.get(args.nodes) if burst_ports else None
        nports = sum(len(n.ports) for n in self.all_nodes)
        self.summary["setup"] = {
            "seconds": round(elapsed, 3),
            "nodes_created": len(made),
            "ports_created": nports,
            "requests_per_s": round((len(made) + nports) / elapsed, 2) if elapsed else None,
            "client_cpu_pct": round(100.0 * cpu / elapsed, 1) if elapsed else None,
            "node_create": stats["node"].summary(),
            "port_create": stats["port"].summary(),
            "verify": self.verify(self.all_nodes, {}, check_port_counts=True),
        }
        log(f"setup: {len(made)} nodes, {nports} ports in {elapsed:.2f} s")

    def find_existing(self) -> None:
        args = self.args
        names = [f"{args.name_prefix}-{i:03d}" for i in range(args.nodes)]
        if args.burst:
            names.append(f"{args.name_prefix}-burst")
        found: dict[str, Node] = {}
        lock = threading.Lock()
        stats = OpStats()

        def look(api: Api, name: str) -> None:
            resp = api.call(stats, "GET", f"/v1/nodes/{name}")
            if resp is None or resp.status_code != 200:
                return
            data = resp.json()
            node = Node(data["uuid"], name, data.get("network_interface") or "")
            presp = api.call(stats, "GET", f"/v1/ports/detail?node={node.uuid}")
            if presp is not None and presp.status_code == 200:
                node.ports = [p["uuid"] for p in presp.json().get("ports", [])]
            with lock:
                found[name] = node

        self.pool_map(look, names, args.setup_concurrency)
        self.nodes = [found[n] for n in names[: args.nodes] if n in found]
        self.burst_node = found.get(f"{args.name_prefix}-burst") if args.burst else None
        if len(self.nodes) < args.nodes:
            raise SystemExit(f"--skip-setup: found {len(self.nodes)} of {args.nodes} nodes")
        log(f"reusing {len(self.all_nodes)} existing nodes named {args.name_prefix}-*")

    # -- verification ---------------------------------------------------------------

    def verify(
        self,
        nodes: Sequence[Node],
        expected: dict[str, set[str]],
        check_port_counts: bool = False,
    ) -> dict[str, Any]:
        """Compare what the server lists with what we attached (empty when absent)."""
        problems: list[str] = []
        port_notes: set[str] = set()
        lock = threading.Lock()
        owners: dict[str, list[str]] = {}
        stats = OpStats()
        noop = self.noop(nodes)
        if noop and not check_port_counts:
            return {"status": NOOP_SKIP, "nodes_checked": 0}

        def check(api: Api, node: Node) -> None:
            mine: list[str] = []
            notes: list[str] = []
            want = expected.get(node.uuid, set())
            listed: list[str] = []
            if not noop:
                resp = api.call(stats, "GET", f"/v1/nodes/{node.uuid}/vifs", record=False)
                if resp is None or resp.status_code != 200:
                    mine.append(f"{node.name}: cannot list VIFs")
                else:
                    listed = [v["id"] for v in resp.json().get("vifs", [])]
                    counts = Counter(listed)
                    mine += [
                        f"{node.name}: VIF {v} listed {c} times" for v, c in counts.items() if c > 1
                    ]
                    mine += [
                        f"{node.name}: VIF {v} attached but not listed" for v in want - set(counts)
                    ]
                    mine += [
                        f"{node.name}: VIF {v} listed, never attached" for v in set(counts) - want
                    ]
            presp = api.call(stats, "GET", f"/v1/ports/detail?node={node.uuid}", record=False)
            if presp is None or presp.status_code != 200:
                notes.append("ports detail unavailable")
            else:
                ports = presp.json().get("ports", [])
                if check_port_counts and len(ports) != len(node.ports):
                    mine.append(
                        f"{node.name}: {len(ports)} ports listed, {len(node.ports)} created"
                    )
                    notes.append("port counts differ")
                if not noop and ports and all("internal_info" not in p for p in ports):
                    notes.append("ports carry no internal_info")
                elif not noop:
                    on_ports = [
                        str(p["internal_info"]["tenant_vif_port_id"])
                        for p in ports
                        if (p.get("internal_info") or {}).get("tenant_vif_port_id")
                    ]
                    pcounts = Counter(on_ports)
                    mine += [
                        f"{node.name}: VIF {v} on {c} ports" for v, c in pcounts.items() if c > 1
                    ]
                    mine += [
                        f"{node.name}: VIF {v} listed but on no port"
                        for v in set(listed) - set(pcounts)
                    ]
                    mine += [
                        f"{node.name}: port holds VIF {v} that is not listed"
                        for v in set(pcounts) - set(listed)
                    ]
            with lock:
                problems.extend(mine)
                port_notes.update(notes)
                for vif in set(listed):
                    owners.setdefault(vif, []).append(node.name)

        self.pool_map(check, list(nodes), self.args.verify_concurrency)
        problems += [
            f"VIF {v} listed on nodes {', '.join(n)}" for v, n in owners.items() if len(n) > 1
        ]
        result: dict[str, Any] = {
            "status": "failed" if problems else (NOOP_SKIP if noop else "ok"),
            "nodes_checked": len(nodes),
            "vifs_expected": sum(len(v) for v in expected.values()),
        }
        if noop and problems:
            result["status"] = f"failed ({NOOP_SKIP} for VIFs)"
        if problems:
            result["problems"] = problems[:20]
            result["problem_count"] = len(problems)
        if check_port_counts:
            result["port_counts"] = "differ" if "port counts differ" in port_notes else "ok"
            port_notes.discard("port counts differ")
        if port_notes:
            result["port_check"] = "; ".join(sorted(port_notes))
        elif not noop:
            result["port_check"] = "ok"
        if stats.errors:
            result["request_errors"] = stats.summary()
        return result

    # -- attach / list / detach cycles ----------------------------------------------

    def cycles(self, concurrency: int) -> dict[str, Any]:
        args = self.args
        if concurrency > len(self.nodes):
            return {"error": f"needs {concurrency} nodes, have {len(self.nodes)} (--nodes)"}
        noop = self.noop(self.nodes)
        owned = [self.nodes[w::concurrency] for w in range(concurrency)]
        results: list[dict[str, OpStats]] = [{} for _ in range(concurrency)]
        counts = [0] * concurrency
        mismatches = [0] * concurrency
        apis = [self.api() for _ in range(concurrency)]
        for api in apis:
            api.warm()
        gate = threading.Barrier(concurrency + 1)
        warm_until = time.perf_counter() + args.warmup
        stop_at = [math.inf]
        quota: list[int | None] = [None] * concurrency
        if args.cycles:
            quota = [
                args.cycles // concurrency + (w < args.cycles % concurrency)
                for w in range(concurrency)
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

        threads = [
            threading.Thread(target=worker, args=(w,), daemon=True) for w in range(concurrency)
        ]
        for t in threads:
            t.start()
        gate.wait()
        server = args.server_pid
        server0 = process_cpu_seconds(server) if server else 0.0
        cpu0, t0 = cpu_seconds(), time.perf_counter()
        stop_at[0] = t0 + args.duration
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        cpu = cpu_seconds() - cpu0
        server_cpu = process_cpu_seconds(server) - server0 if server else None
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
        if server_cpu is not None and done:
            out["server_cpu_ms_per_cycle"] = round(1000.0 * server_cpu / done, 3)
        for name in ("attach", "list", "detach", "cycle"):
            out[name] = total.get(name, OpStats()).summary()
        out["verify"] = self.verify(self.nodes, {})
        return out

    # -- same-node burst ------------------------------------------------------------

    def burst_once(self, node: Node, vifs: list[str], method: str) -> dict[str, Any]:
        k = len(vifs)
        apis = [self.api() for _ in range(k)]
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

    def burst(self, k: int) -> dict[str, Any]:
        node = self.burst_node
        if node is None:
            return {"error": "no burst node"}
        if len(node.ports) < k:
            log(f"burst node has {len(node.ports)} ports, fewer than {k}")
        rounds: list[dict[str, Any]] = []
        for _ in range(self.args.burst_repeats):
            vifs = [str(uuid.uuid4()) for _ in range(k)]
            attach = self.burst_once(node, vifs, "POST")
            attach["verify"] = self.verify([node], {node.uuid: set(vifs)})
            detach = self.burst_once(node, vifs, "DELETE")
            detach["verify"] = self.verify([node], {})
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

    def get_vifs(self, concurrency: int) -> dict[str, Any]:
        args = self.args
        nodes = self.nodes
        noop = self.noop(nodes)
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

        self.pool_map(attach_one, nodes, args.setup_concurrency)
        verify_before = self.verify(nodes, {u: {v} for u, v in attached.items()})
        owned = [nodes[w::concurrency] for w in range(concurrency)]
        apis = [self.api() for _ in range(concurrency)]
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

        threads = [
            threading.Thread(target=worker, args=(w,), daemon=True) for w in range(concurrency)
        ]
        for t in threads:
            t.start()
        gate.wait()
        cpu0, t0 = cpu_seconds(), time.perf_counter()
        stop_at[0] = t0 + args.duration
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        cpu = cpu_seconds() - cpu0
        for api in apis:
            api.close()
        total = OpStats()
        for r in results:
            total.merge(r)

        def detach_one(api: Api, node: Node) -> None:
            if node.uuid in attached:
                vif = attached[node.uuid]
                api.call(prep, "DELETE", f"/v1/nodes/{node.uuid}/vifs/{vif}", ok=(204,))

        self.pool_map(detach_one, nodes, args.setup_concurrency)
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
            "verify": self.verify(nodes, {}),
        }

    # -- cleanup --------------------------------------------------------------------

    def cleanup(self) -> dict[str, Any]:
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
        nodes = self.all_nodes
        self.pool_map(remove, nodes, self.args.setup_concurrency)
        return {
            "seconds": round(time.perf_counter() - t0, 3),
            "nodes_deleted": len(stats["node"].latencies),
            "ports_deleted": len(stats["port"].latencies),
            "errors": stats["node"].errors + stats["port"].errors,
            "error_samples": (stats["node"].samples + stats["port"].samples)[:5],
        }

    # -- driver ---------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        args = self.args
        wall0, cpu0 = time.perf_counter(), cpu_seconds()
        self.summary.update(
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
        self.negotiate()
        self.summary["api_version"] = self.api_version
        try:
            if "setup" in args.phases:
                self.setup()
            else:
                self.find_existing()
            if self.nodes:
                self.summary["network_interface"] = self.nodes[0].network_interface
            if "cycles" in args.phases:
                levels: dict[str, Any] = {}
                for c in args.concurrency:
                    log(
                        f"cycles: concurrency {c} for {args.cycles or args.duration}"
                        f"{' cycles' if args.cycles else ' s'}"
                    )
                    levels[str(c)] = res = self.cycles(c)
                    log(
                        f"cycles: c={c}: {res.get('cycles_per_s')} cycles/s, "
                        f"verify {res.get('verify', {}).get('status')}"
                    )
                self.summary["cycles"] = levels
            if "burst" in args.phases:
                bursts: dict[str, Any] = {}
                for k in args.burst:
                    log(f"burst: {k} VIFs on one node, {args.burst_repeats} times")
                    bursts[str(k)] = res = self.burst(k)
                    log(
                        f"burst: k={k}: {res.get('all_attached_ms_median')} ms median, "
                        f"{res.get('seen_409')} x 409"
                    )
                self.summary["burst"] = bursts
            if "get" in args.phases:
                log(f"get: GET vifs at concurrency {args.get_concurrency}")
                self.summary["get_vifs"] = res = self.get_vifs(args.get_concurrency)
                log(f"get: {res.get('gets_per_s')} GET/s")
            self.summary["final_verify"] = self.verify(self.all_nodes, {})
        finally:
            if "cleanup" in args.phases and (self.created or args.phases_given):
                log("cleanup: deleting ports and nodes")
                self.summary["cleanup"] = self.cleanup()
        wall = time.perf_counter() - wall0
        self.summary["total_s"] = round(wall, 2)
        self.summary["client_cpu_s"] = round(cpu_seconds() - cpu0, 2)
        return self.summary


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
        help="a server process on this machine: report its CPU time per cycle",
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
    summary = Bench(args).run()
    text = json.dumps(summary, indent=2)
    if args.output:
        with open(args.output, "w") as out:
            out.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
