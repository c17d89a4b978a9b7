"""Concurrent attaches against real server processes."""

from __future__ import annotations

import random
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.integration.invariants import (
    HEADERS,
    IDLE_LIMITS,
    assert_one_node_per_vif,
    vif_placement,
)
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server


def make_node(client: httpx.Client, ports: int, prefix: int) -> str:
    resp = client.post("/v1/nodes", json={"driver": "fake-hardware"}, headers=HEADERS)
    node = str(resp.json()["uuid"])
    for i in range(ports):
        resp = client.post(
            "/v1/ports",
            headers=HEADERS,
            json={
                "node_uuid": node,
                "address": f"52:54:{prefix:02x}:00:{i // 256:02x}:{i % 256:02x}",
            },
        )
        assert resp.status_code == 201, resp.text
    return node


def test_eight_concurrent_attaches_to_one_node_all_succeed(server: MetalwireServer) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        node = make_node(client, 8, prefix=0xA1)
    barrier = threading.Barrier(8)

    def attach(i: int) -> tuple[int, float]:
        with httpx.Client(base_url=server.url, timeout=30) as own:
            own.get("/", headers=HEADERS)  # connect before the race starts
            barrier.wait()
            started = time.perf_counter()
            resp = own.post(f"/v1/nodes/{node}/vifs", json={"id": f"burst-{i}"}, headers=HEADERS)
            return resp.status_code, time.perf_counter() - started

    started = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(attach, range(8)))
    elapsed = time.perf_counter() - started
    assert [status for status, _ in results] == [204] * 8
    with httpx.Client(base_url=server.url, timeout=30) as client:
        ports = client.get(f"/v1/ports/detail?node={node}", headers=HEADERS).json()["ports"]
    holders = [p["internal_info"].get("tenant_vif_port_id") for p in ports]
    assert sorted(h for h in holders if h) == sorted(f"burst-{i}" for i in range(8))
    print(
        f"\n8 concurrent attaches to one node: all done in {elapsed * 1000:.0f} ms, "
        f"slowest request {max(t for _, t in results) * 1000:.0f} ms"
    )


def race(urls: list[str], nodes: list[str], seconds: float, workers: int) -> dict[str, int]:
    """Random attach/detach/list from many clients; counts outcomes."""
    counts: dict[str, int] = {}
    lock = threading.Lock()
    vifs = [str(uuid.uuid4()) for _ in range(len(nodes) * 3)]
    deadline = time.monotonic() + seconds

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        clients = [httpx.Client(base_url=u, timeout=60, limits=IDLE_LIMITS) for u in urls]
        try:
            while time.monotonic() < deadline:
                client = rng.choice(clients)
                node, vif = rng.choice(nodes), rng.choice(vifs)
                action = rng.choice(["attach", "attach", "detach", "list"])
                if action == "attach":
                    resp = client.post(f"/v1/nodes/{node}/vifs", json={"id": vif}, headers=HEADERS)
                elif action == "detach":
                    resp = client.delete(f"/v1/nodes/{node}/vifs/{vif}", headers=HEADERS)
                else:
                    resp = client.get(f"/v1/nodes/{node}/vifs", headers=HEADERS)
                assert resp.status_code < 500, resp.text
                key = f"{action} {resp.status_code}"
                with lock:
                    counts[key] = counts.get(key, 0) + 1
        finally:
            for client in clients:
                client.close()

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(worker, range(workers)))
    return counts


@pytest.mark.slow
def test_two_processes_on_one_sqlite_file_keep_invariants(tmp_path: Path) -> None:
    first = MetalwireServer(tmp_path / "a", database=f"sqlite:///{tmp_path}/shared.db")
    second = MetalwireServer(tmp_path / "b", database=f"sqlite:///{tmp_path}/shared.db")
    with first, second:
        with httpx.Client(base_url=first.url, timeout=30) as client:
            nodes = [make_node(client, 4, prefix=0xB0 + i) for i in range(6)]
        counts = race([first.url, second.url], nodes, seconds=30, workers=16)
        with httpx.Client(base_url=second.url, timeout=30) as client:
            placement = vif_placement(client)
    assert_one_node_per_vif(placement)
    attached_ok = counts.get("attach 204", 0)
    detached_ok = counts.get("detach 204", 0)
    assert attached_ok - detached_ok == len(placement), (counts, len(placement))
    assert attached_ok > 20 and detached_ok > 20, counts
    print(f"\nrace counts: {dict(sorted(counts.items()))}; attached at end: {len(placement)}")


def test_concurrent_patches_of_one_node_lose_no_change(server: MetalwireServer) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        node = client.post("/v1/nodes", json={"driver": "fake-hardware"}, headers=HEADERS).json()[
            "uuid"
        ]
    barrier = threading.Barrier(8)

    def change(i: int) -> tuple[int, int]:
        with httpx.Client(base_url=server.url, timeout=30) as own:
            barrier.wait()
            patched = own.patch(
                f"/v1/nodes/{node}",
                headers=HEADERS,
                json=[{"op": "add", "path": f"/extra/key{i}", "value": i}],
            )
            trait = own.put(f"/v1/nodes/{node}/traits/CUSTOM_T{i}", headers=HEADERS)
            return patched.status_code, trait.status_code

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(change, range(8)))
    assert results == [(200, 204)] * 8
    with httpx.Client(base_url=server.url, timeout=30) as client:
        shown = client.get(f"/v1/nodes/{node}", headers=HEADERS).json()
    assert shown["extra"] == {f"key{i}": i for i in range(8)}
    assert shown["traits"] == sorted(f"CUSTOM_T{i}" for i in range(8))
