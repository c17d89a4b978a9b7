"""Several metalwire processes on one PostgreSQL database: races and crashes."""

from __future__ import annotations

import random
import socket
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.integration.invariants import HEADERS, vif_placement
from tests.integration.test_concurrency import make_node
from tests.support.postgres import PostgresServer
from tests.support.server import MetalwireServer, free_port

pytestmark = [pytest.mark.server, pytest.mark.postgresql]


def run_owned_vifs(
    urls: list[str], nodes: list[str], seconds: float, workers: int
) -> tuple[dict[str, str | None], dict[str, int]]:
    """Each worker owns three VIFs and moves them around at random, from random servers.

    Returns where every VIF must be (node or None), as the responses said, and counts.
    """
    expected: dict[str, str | None] = {}
    counts: dict[str, int] = {}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        mine: dict[str, str | None] = {str(uuid.uuid4()): None for _ in range(3)}
        clients = [httpx.Client(base_url=u, timeout=60) for u in urls]
        try:
            while time.monotonic() < deadline:
                client = rng.choice(clients)
                vif = rng.choice(list(mine))
                where = mine[vif]
                if where is None or rng.random() < 0.2:
                    node = rng.choice(nodes)
                    resp = client.post(f"/v1/nodes/{node}/vifs", json={"id": vif}, headers=HEADERS)
                    action = "attach"
                    if resp.status_code == 204:
                        assert where is None, f"{vif} attached twice: {where} and {node}"
                        mine[vif] = node
                elif rng.random() < 0.5:
                    resp = client.delete(f"/v1/nodes/{where}/vifs/{vif}", headers=HEADERS)
                    action = "detach"
                    assert resp.status_code == 204, resp.text
                    mine[vif] = None
                else:
                    resp = client.get(f"/v1/nodes/{where}/vifs", headers=HEADERS)
                    action = "list"
                    assert {"id": vif} in resp.json()["vifs"], f"{vif} lost from {where}"
                assert resp.status_code < 500, resp.text
                with lock:
                    key = f"{action} {resp.status_code}"
                    counts[key] = counts.get(key, 0) + 1
        finally:
            for client in clients:
                client.close()
            with lock:
                expected.update(mine)

    with ThreadPoolExecutor(workers) as pool:
        for future in [pool.submit(worker, i) for i in range(workers)]:
            future.result()
    return expected, counts


@pytest.mark.slow
def test_three_processes_on_postgresql_lose_and_duplicate_nothing(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    url = postgres_server.create_database("race")
    servers = [MetalwireServer(tmp_path / f"s{i}", database=url) for i in range(3)]
    for server in servers:
        server.start()
    try:
        with httpx.Client(base_url=servers[0].url, timeout=30) as client:
            nodes = [make_node(client, 4, prefix=0xC0 + i) for i in range(8)]
        expected, counts = run_owned_vifs([s.url for s in servers], nodes, 30, workers=32)
        with httpx.Client(base_url=servers[2].url, timeout=30) as client:
            placement = vif_placement(client)
    finally:
        for server in servers:
            server.stop()
    lost = [v for v, node in expected.items() if node and placement.get(v) != [node]]
    extra = [v for v, nodes in placement.items() if expected.get(v) is None or len(nodes) > 1]
    print(
        f"\nrace on PostgreSQL, 3 processes, 32 clients, 30 s: {dict(sorted(counts.items()))}"
        f"; attached at end {len(placement)}; lost {len(lost)}; duplicated {len(extra)}"
    )
    assert lost == [] and extra == []
    assert counts.get("attach 204", 0) > 100 and counts.get("detach 204", 0) > 100, counts


class Blackhole:
    """A TCP listener that accepts connections and never answers: a hung Neutron."""

    def __init__(self) -> None:
        self.port = free_port()
        self.sock = socket.create_server(("127.0.0.1", self.port))
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.conns:
            conn.close()


@pytest.mark.slow
def test_lock_of_killed_process_is_taken_over_within_the_lease(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    url = postgres_server.create_database("crash")
    lease = 4.0
    hole = Blackhole()
    hung = MetalwireServer(
        tmp_path / "hung",
        database=url,
        env={
            "METALWIRE_NEUTRON_URL": f"http://127.0.0.1:{hole.port}",
            "METALWIRE_NEUTRON_TIMEOUT": "300",
            "METALWIRE_NEUTRON_RETRIES": "0",
            "METALWIRE_CONDUCTOR_NODE_LOCK_LEASE": str(lease),
        },
    )
    survivor = MetalwireServer(
        tmp_path / "survivor",
        database=url,
        env={
            "METALWIRE_NEUTRON_URL": f"http://127.0.0.1:{hole.port}",
            "METALWIRE_CONDUCTOR_NODE_LOCK_LEASE": str(lease),
            "METALWIRE_CONDUCTOR_NODE_LOCK_WAIT": "30",
        },
    )
    try:
        with hung, survivor, httpx.Client(timeout=60) as client:
            resp = client.post(
                f"{hung.url}/v1/nodes",
                headers=HEADERS,
                json={"driver": "fake-hardware", "name": "crashy", "network_interface": "neutron"},
            )
            assert resp.status_code == 201, resp.text
            client.post(
                f"{hung.url}/v1/ports",
                headers=HEADERS,
                json={"node_uuid": resp.json()["uuid"], "address": "52:54:00:cc:00:01"},
            )
            threading.Thread(
                target=lambda: httpx.post(
                    f"{hung.url}/v1/nodes/crashy/vifs",
                    json={"id": "stuck-vif"},
                    headers=HEADERS,
                    timeout=300,
                ),
                daemon=True,
            ).start()
            deadline = time.monotonic() + 20
            while (
                client.get(f"{survivor.url}/v1/nodes/crashy", headers=HEADERS).json()["reservation"]
                is None
            ):
                assert time.monotonic() < deadline, "the attach never took the node lock"
                time.sleep(0.05)
            hung.kill()
            killed = time.monotonic()
            resp = client.patch(
                f"{survivor.url}/v1/nodes/crashy",
                headers=HEADERS,
                json=[{"op": "add", "path": "/extra/after_crash", "value": True}],
            )
            took_over = time.monotonic() - killed
            assert resp.status_code == 200, resp.text
            node = client.get(f"{survivor.url}/v1/nodes/crashy", headers=HEADERS).json()
            vifs = client.get(f"{survivor.url}/v1/nodes/crashy/vifs", headers=HEADERS).json()
    finally:
        hole.close()
    print(f"\nnode lock of the killed process taken over after {took_over:.2f} s (lease {lease} s)")
    assert took_over <= lease + 1.0
    assert node["extra"] == {"after_crash": True}
    assert node["reservation"] is None
    assert vifs == {"vifs": []}
