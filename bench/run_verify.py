"""bench/run.py's verification after each phase: what the server lists against what the
bench attached, VIF by VIF and port by port."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from typing import Any

from run_context import NOOP_SKIP, Bench, Node
from run_http import Api
from run_stats import OpStats


def verify(
    bench: Bench,
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
    noop = bench.noop(nodes)
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
                mine += [f"{node.name}: VIF {v} listed, never attached" for v in set(counts) - want]
        presp = api.call(stats, "GET", f"/v1/ports/detail?node={node.uuid}", record=False)
        if presp is None or presp.status_code != 200:
            notes.append("ports detail unavailable")
        else:
            ports = presp.json().get("ports", [])
            if check_port_counts and len(ports) != len(node.ports):
                mine.append(f"{node.name}: {len(ports)} ports listed, {len(node.ports)} created")
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
                mine += [f"{node.name}: VIF {v} on {c} ports" for v, c in pcounts.items() if c > 1]
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

    bench.pool_map(check, list(nodes), bench.args.verify_concurrency)
    problems += [f"VIF {v} listed on nodes {', '.join(n)}" for v, n in owners.items() if len(n) > 1]
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
