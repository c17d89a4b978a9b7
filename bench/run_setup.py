"""bench/run.py before the measured phases: the API version negotiated with the server, and
the nodes and ports created for the run or found again from an earlier one."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import httpx
from run_context import Bench, Node, log
from run_http import VERSION_HEADER, Api
from run_stats import OpStats, cpu_seconds
from run_verify import verify

MIN_VIF_VERSION = (1, 28)


def parse_version(text: str) -> tuple[int, int]:
    major, minor = text.strip().split(".", 1)
    return int(major), int(minor)


def negotiate(bench: Bench) -> None:
    wanted = parse_version(bench.args.api_version)
    try:
        root = httpx.get(bench.args.url + "/", timeout=bench.args.timeout)
        root.raise_for_status()
        info = root.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise SystemExit(f"no API version document at {bench.args.url}/: {exc}") from exc
    current = info.get("default_version") or (info.get("versions") or [{}])[0]
    server_max = parse_version(str(current.get("version", bench.args.api_version)))
    server_min = parse_version(str(current.get("min_version", "1.1")))
    chosen = min(wanted, server_max)
    if chosen < MIN_VIF_VERSION or chosen < server_min:
        raise SystemExit(f"server supports {server_min}..{server_max}; the VIF API needs >= 1.28")
    bench.api_version = f"{chosen[0]}.{chosen[1]}"
    v1 = httpx.get(
        bench.args.url + "/v1/",
        headers={VERSION_HEADER: bench.api_version},
        timeout=bench.args.timeout,
    )
    bench.summary["server"] = {
        "name": info.get("name"),
        "min_version": f"{server_min[0]}.{server_min[1]}",
        "max_version": f"{server_max[0]}.{server_max[1]}",
        "v1_status": v1.status_code,
    }
    if chosen != wanted:
        log(f"server max version is {bench.api_version}; using it instead")
    log(f"{bench.args.url}: API {bench.api_version} (server max {server_max[0]}.{server_max[1]})")


def mac(bench: Bench, index: int) -> str:
    a, b = bench.mac_prefix
    octets = (2, a, b, (index >> 16) & 255, (index >> 8) & 255, index & 255)
    return ":".join(f"{o:02x}" for o in octets)


def setup(bench: Bench) -> None:
    args = bench.args
    burst_ports = max(args.burst) if args.burst else 0
    plan: list[tuple[int, str, int]] = [
        (i, f"{args.name_prefix}-{i:03d}", args.ports) for i in range(args.nodes)
    ]
    if burst_ports:
        plan.append((args.nodes, f"{args.name_prefix}-burst", burst_ports))
    bench.mac_prefix = (random.randrange(256), random.randrange(256))
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
            node = Node(data["uuid"], name, data.get("network_interface") or args.network_interface)
            for j in range(nports):
                port_body = {
                    "node_uuid": node.uuid,
                    "address": mac(bench, index * stride + j),
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
    bench.created = True
    bench.pool_map(make, plan, args.setup_concurrency)
    elapsed = time.perf_counter() - t0
    cpu = cpu_seconds() - cpu0
    bench.nodes = [made[i] for i in range(args.nodes) if i in made]
    bench.burst_node = made.get(args.nodes) if burst_ports else None
    nports = sum(len(n.ports) for n in bench.all_nodes)
    bench.summary["setup"] = {
        "seconds": round(elapsed, 3),
        "nodes_created": len(made),
        "ports_created": nports,
        "requests_per_s": round((len(made) + nports) / elapsed, 2) if elapsed else None,
        "client_cpu_pct": round(100.0 * cpu / elapsed, 1) if elapsed else None,
        "node_create": stats["node"].summary(),
        "port_create": stats["port"].summary(),
        "verify": verify(bench, bench.all_nodes, {}, check_port_counts=True),
    }
    log(f"setup: {len(made)} nodes, {nports} ports in {elapsed:.2f} s")


def find_existing(bench: Bench) -> None:
    args = bench.args
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

    bench.pool_map(look, names, args.setup_concurrency)
    bench.nodes = [found[n] for n in names[: args.nodes] if n in found]
    bench.burst_node = found.get(f"{args.name_prefix}-burst") if args.burst else None
    if len(bench.nodes) < args.nodes:
        raise SystemExit(f"--skip-setup: found {len(bench.nodes)} of {args.nodes} nodes")
    log(f"reusing {len(bench.all_nodes)} existing nodes named {args.name_prefix}-*")
