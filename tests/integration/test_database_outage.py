"""A real PostgreSQL stopped under a running ``metalwire serve``, mid-load, and started again.

The test runs a cluster of its own, so stopping it stops nobody else's database.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.compat.clients import Cli
from tests.conftest import require_postgres_binaries
from tests.integration.invariants import HEADERS, all_pages, vif_placement
from tests.integration.test_concurrency import make_node
from tests.support.helpers import wait_for
from tests.support.postgres import PostgresServer
from tests.support.server import MetalwireServer

pytestmark = [pytest.mark.server, pytest.mark.postgresql]


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    require_postgres_binaries()
    with PostgresServer() as pg:
        yield pg


def _baremetal(server: MetalwireServer, home: Path, *options: str) -> Cli:
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), "LANG": "C.UTF-8"}
    return Cli("baremetal", server.url, env, options=options)


def _refused_lists(server: MetalwireServer) -> int:
    """Node lists answered 503: the test's own, the impatient CLI's, the patient one's."""
    return len(re.findall(r"GET /v1/nodes\S* 503", server.log()))


class Load:
    """Clients writing while the database comes and goes: each port created and each VIF
    attached that the server acknowledged is remembered, with every status seen."""

    def __init__(self, url: str, nodes: list[str], workers: int = 4) -> None:
        self.url = url
        self.nodes = nodes
        self.created: set[str] = set()
        self.attached: dict[str, str] = {}
        self.statuses: dict[int, int] = {}
        self.retry_after: set[str] = set()
        self.faults: set[str] = set()
        self.errors: list[str] = []  # what ended a worker early: the test reports it
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(i,)) for i in range(workers)]

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(60)

    def _note(self, resp: httpx.Response) -> None:
        with self._lock:
            self.statuses[resp.status_code] = self.statuses.get(resp.status_code, 0) + 1
            if resp.status_code == 503:
                self.retry_after.add(resp.headers.get("retry-after", ""))
                self.faults.add(json.loads(resp.json()["error_message"])["faultstring"])

    def _run(self, worker: int) -> None:
        try:
            self._send(worker)
        except Exception as exc:
            with self._lock:
                self.errors.append(f"worker {worker}: {type(exc).__name__}: {exc}")

    def _send(self, worker: int) -> None:
        node = self.nodes[worker % len(self.nodes)]
        sequence = 0
        with httpx.Client(base_url=self.url, timeout=30, headers=HEADERS) as client:
            while not self._stop.is_set():
                sequence += 1
                mac = f"52:54:{0xD0 + worker:02x}:{sequence // 65536 % 256:02x}:"
                mac += f"{sequence // 256 % 256:02x}:{sequence % 256:02x}"
                resp = client.post("/v1/ports", json={"node_uuid": node, "address": mac})
                self._note(resp)
                if resp.status_code == 201:
                    with self._lock:
                        self.created.add(resp.json()["uuid"])
                    vif = str(uuid.uuid4())
                    resp = client.post(f"/v1/nodes/{node}/vifs", json={"id": vif})
                    self._note(resp)
                    if resp.status_code == 204:
                        with self._lock:
                            self.attached[vif] = node
                time.sleep(0.01)


def test_database_outage_answers_503_logs_little_and_loses_nothing(
    tmp_path: Path, own_postgres: PostgresServer
) -> None:
    url = own_postgres.create_database("metalwire")
    server = MetalwireServer(tmp_path, database=url)
    with server, httpx.Client(base_url=server.url, timeout=30, headers=HEADERS) as client:
        nodes = [make_node(client, 1, prefix=0xB0 + i) for i in range(2)]
        with Load(server.url, nodes) as load:
            assert wait_for(lambda: len(load.attached) >= 5, timeout=30)
            own_postgres.pause()
            outage_started = time.monotonic()
            # While the database is down, every request that needs it is a 503 that
            # says so, and the health check says so too.
            down = client.get("/v1/nodes")
            head = client.head("/healthcheck")
            health = client.get("/healthcheck")
            # The OpenStack CLI: without retries it says why; with its retries (every 2 s)
            # it gets its answer once the database is back.
            impatient = _baremetal(server, tmp_path, "--max-retries", "0").run("node", "list")
            with ThreadPoolExecutor(1) as pool:
                patient = pool.submit(_baremetal(server, tmp_path).run, "node", "list")
                assert wait_for(lambda: _refused_lists(server) >= 3, timeout=30)
                own_postgres.resume()
                patient_result = patient.result()
            assert wait_for(lambda: client.get("/healthcheck").status_code == 200, timeout=30), (
                server.log()[-3000:]
            )
            outage_seconds = time.monotonic() - outage_started
            attached_before = len(load.attached)
            # It recovers by itself: the clients' writes succeed again.
            assert wait_for(lambda: len(load.attached) > attached_before + 3, timeout=30)
        metrics = client.get("/metrics").text
        ports = {p["uuid"] for p in all_pages(client, "/v1/ports", "ports")}
        placement = vif_placement(client)
    assert impatient.returncode != 0, impatient.describe()
    assert "The database is unavailable" in impatient.stderr, impatient.describe()
    assert "internal error" not in impatient.stderr
    assert patient_result.returncode == 0, patient_result.describe()
    assert down.status_code == 503, down.text
    assert down.headers["retry-after"] == "2"
    fault = json.loads(down.json()["error_message"])
    assert fault["faultcode"] == "Server"
    assert "The database is unavailable" in fault["faultstring"]
    assert (head.status_code, head.content) == (503, b"")
    assert (health.status_code, health.text) == (503, "The database is unavailable")
    assert health.headers["content-type"].startswith("text/plain")

    assert load.errors == [], load.errors
    assert set(load.statuses) <= {201, 204, 503}, load.statuses
    assert load.statuses.get(503, 0) > 0, load.statuses
    assert load.retry_after <= {"2", "1"}
    assert all("database" in f for f in load.faults), load.faults

    # Nothing acknowledged was lost: every port created and every VIF attached is there.
    assert load.created - ports == set()
    assert {v: [n] for v, n in load.attached.items()} == {
        v: nodes for v, nodes in placement.items() if v in load.attached
    }

    log = server.log()
    assert "Traceback" not in log, log[-4000:]
    warnings = [line for line in log.splitlines() if "database unavailable" in line]
    print(
        f"\noutage of {outage_seconds:.1f} s under load: statuses {load.statuses}, "
        f"{len(warnings)} warning lines, e.g. {warnings[-1:]}"
    )
    # One line per failure at most once a second (it says how many it did not repeat).
    assert 1 <= len(warnings) <= outage_seconds + 3, warnings
    assert all(" WARNING " in line for line in warnings), warnings
    counted = re.search(r'metalwire_database_errors_total\{reason="unavailable"\} (\S+)', metrics)
    assert counted is not None and float(counted.group(1)) >= load.statuses[503], metrics
