"""Two metalwire processes on one database move ports in opposite directions at once."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.integration.invariants import HEADERS
from tests.integration.test_concurrency import make_node
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

ROUNDS = 6


def _database_url(database: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if database == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    return str(request.getfixturevalue(f"{database}_url"))


def _ports(client: httpx.Client, node: str) -> set[str]:
    resp = client.get(f"/v1/nodes/{node}/ports", headers=HEADERS)
    assert resp.status_code == 200, resp.text
    return {p["uuid"] for p in resp.json()["ports"]}


def test_opposite_moves_from_two_processes_neither_deadlock_nor_corrupt(
    database: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = _database_url(database, tmp_path, request)
    if database != "sqlite":
        request.getfixturevalue("config")  # empties the shared test database
    servers = [MetalwireServer(tmp_path / f"s{i}", database=url) for i in range(2)]
    for server in servers:
        server.start()
    try:
        with httpx.Client(base_url=servers[0].url, timeout=30) as client:
            a, b = make_node(client, 3, prefix=0xD1), make_node(client, 3, prefix=0xD2)
            homes = {port: a for port in _ports(client, a)} | {p: b for p in _ports(client, b)}
        statuses: Counter[int] = Counter()
        lock = threading.Lock()
        for _ in range(ROUNDS):
            barrier = threading.Barrier(len(homes))

            def move(item: tuple[int, str], barrier: threading.Barrier = barrier) -> None:
                i, port = item
                to = b if homes[port] == a else a
                with httpx.Client(base_url=servers[i % 2].url, timeout=60) as own:
                    own.get("/", headers=HEADERS)
                    barrier.wait()
                    resp = own.patch(
                        f"/v1/ports/{port}",
                        json=[{"op": "replace", "path": "/node_uuid", "value": to}],
                        headers=HEADERS,
                    )
                with lock:
                    statuses[resp.status_code] += 1
                    if resp.status_code == 200:
                        homes[port] = to

            with ThreadPoolExecutor(len(homes)) as pool:
                list(pool.map(move, enumerate(sorted(homes))))
        with httpx.Client(base_url=servers[1].url, timeout=30) as client:
            on_a, on_b = _ports(client, a), _ports(client, b)
    finally:
        for server in servers:
            server.stop()
    print(f"\nopposite moves on {database}, 2 processes, {ROUNDS} rounds: {dict(statuses)}")
    assert statuses == Counter({200: ROUNDS * len(homes)})
    assert on_a == {p for p, node in homes.items() if node == a}
    assert on_b == {p for p, node in homes.items() if node == b}
