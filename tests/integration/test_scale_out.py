"""Several metalwire processes on one PostgreSQL database: races and crashes."""

from __future__ import annotations

import contextlib
import random
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.integration.invariants import HEADERS, IDLE_LIMITS, vif_placement
from tests.integration.test_concurrency import make_node
from tests.support.hanging_neutron import HangingNeutron
from tests.support.postgres import PostgresServer
from tests.support.server import MetalwireServer

pytestmark = [pytest.mark.server, pytest.mark.postgresql]


def run_owned_vifs(
    urls: list[str],
    nodes: list[str],
    seconds: float,
    workers: int,
    limits: httpx.Limits = IDLE_LIMITS,
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
        clients = [httpx.Client(base_url=u, timeout=60, limits=limits) for u in urls]
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
    assert lost == [] and extra == [], f"lost {lost}, duplicated {extra}; calls {counts}"
    assert counts.get("attach 204", 0) > 30 and counts.get("detach 204", 0) > 30, counts


def _attach_in_background(url: str, node: str, vif: str) -> None:
    def attach() -> None:
        with contextlib.suppress(httpx.TransportError):  # the server is killed mid-request
            httpx.post(
                f"{url}/v1/nodes/{node}/vifs", json={"id": vif}, headers=HEADERS, timeout=300
            )

    threading.Thread(target=attach, daemon=True).start()


LEASE_S = 4.0


@contextlib.contextmanager
def _attach_killed_mid_neutron_call(
    tmp_path: Path, postgres_server: PostgresServer, database: str
) -> Iterator[tuple[MetalwireServer, httpx.Client]]:
    """Two servers on one database; the first dies while attaching ``stuck-vif`` to node
    ``crashy`` (its record pending, its lease on the node left to expire). Yields the
    survivor and a client, right after the kill."""
    url = postgres_server.create_database(database)
    neutron = HangingNeutron(answer_on_release=True)
    settings = {
        "METALWIRE_NEUTRON_URL": neutron.url,
        "METALWIRE_NEUTRON_TIMEOUT": "300",
        "METALWIRE_NEUTRON_RETRIES": "0",
        "METALWIRE_CONDUCTOR_NODE_LOCK_LEASE": str(LEASE_S),
        "METALWIRE_CONDUCTOR_NODE_LOCK_WAIT": "30",
    }
    hung = MetalwireServer(tmp_path / "hung", database=url, env=settings)
    survivor = MetalwireServer(tmp_path / "survivor", database=url, env=settings)
    try:
        with hung, survivor, httpx.Client(timeout=60, headers=HEADERS) as client:
            resp = client.post(
                f"{hung.url}/v1/nodes",
                json={"driver": "fake-hardware", "name": "crashy", "network_interface": "neutron"},
            )
            assert resp.status_code == 201, resp.text
            client.post(
                f"{hung.url}/v1/ports",
                json={
                    "node_uuid": resp.json()["uuid"],
                    "address": "52:54:00:cc:00:01",
                    "local_link_connection": SWITCH_LINK,
                },
            )
            _attach_in_background(hung.url, "crashy", "stuck-vif")
            deadline = time.monotonic() + 20
            while client.get(f"{survivor.url}/v1/nodes/crashy").json()["reservation"] is None:
                assert time.monotonic() < deadline, "the attach never took the node lock"
                time.sleep(0.05)
            assert neutron.put_seen.wait(20), "the attach never reached its Neutron update"
            hung.kill()
            neutron.release.set()  # from now on Neutron answers the survivor's changes
            yield survivor, client
    finally:
        neutron.close()


SWITCH_LINK = {"switch_id": "00:1b:21:00:00:01", "port_id": "Ethernet1/1"}


@pytest.mark.slow
def test_lock_of_killed_process_is_taken_over_within_the_lease(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    with _attach_killed_mid_neutron_call(tmp_path, postgres_server, "crash") as (survivor, client):
        killed = time.monotonic()
        resp = client.patch(
            f"{survivor.url}/v1/nodes/crashy",
            json=[{"op": "add", "path": "/extra/after_crash", "value": True}],
        )
        took_over = time.monotonic() - killed
        assert resp.status_code == 200, resp.text
        node = client.get(f"{survivor.url}/v1/nodes/crashy").json()
        vifs = client.get(f"{survivor.url}/v1/nodes/crashy/vifs").json()
        history = client.get(f"{survivor.url}/v1/nodes/crashy/history").json()["history"]
    assert took_over <= LEASE_S + 1.0, f"taken over after {took_over:.2f} s (lease {LEASE_S} s)"
    assert node["extra"] == {"after_crash": True}
    assert node["reservation"] is None
    assert vifs == {"vifs": []}
    assert any("stuck-vif" in e["event"] and "interrupted" in e["event"] for e in history)


@pytest.mark.slow
def test_vif_of_a_killed_attach_can_go_to_another_node_once_the_lease_expired(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    with _attach_killed_mid_neutron_call(tmp_path, postgres_server, "crash_elsewhere") as (
        survivor,
        client,
    ):
        killed = time.monotonic()
        resp = client.post(
            f"{survivor.url}/v1/nodes",
            json={"driver": "fake-hardware", "name": "rescuer", "network_interface": "neutron"},
        )
        assert resp.status_code == 201, resp.text
        # The MAC the stand-in Neutron reports: the attach has no MAC to change, only the
        # binding to seed.
        resp = client.post(
            f"{survivor.url}/v1/ports",
            json={
                "node_uuid": resp.json()["uuid"],
                "address": "fa:16:3e:00:00:01",
                "local_link_connection": SWITCH_LINK,
            },
        )
        assert resp.status_code == 201, resp.text
        attach = f"{survivor.url}/v1/nodes/rescuer/vifs"
        resp = client.post(attach, json={"id": "stuck-vif"})
        # The dead process's lease still runs: its attach may yet be alive.
        assert resp.status_code == 409, resp.text
        assert "crashy" in resp.text
        assert time.monotonic() - killed < LEASE_S, "too slow to see the lease still held"
        deadline = killed + LEASE_S + 5.0
        while resp.status_code == 409 and time.monotonic() < deadline:
            time.sleep(0.2)
            resp = client.post(attach, json={"id": "stuck-vif"})
        assert resp.status_code == 204, resp.text
        vifs = client.get(f"{survivor.url}/v1/nodes/rescuer/vifs").json()
        crashy = client.get(f"{survivor.url}/v1/nodes/crashy/vifs").json()
        history = client.get(f"{survivor.url}/v1/nodes/crashy/history").json()["history"]
    assert vifs == {"vifs": [{"id": "stuck-vif"}]}
    assert crashy == {"vifs": []}
    assert any("stuck-vif" in e["event"] and "interrupted" in e["event"] for e in history)
