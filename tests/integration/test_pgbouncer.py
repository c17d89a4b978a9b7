"""metalwire behind PgBouncer in transaction mode, the way many PostgreSQL sites pool
connections: each transaction gets whichever of a few server connections is free, so a
statement one transaction prepared is not on the connection the next one gets.
``[database] prepared_statements = false`` is what makes it work; with the default, one
connection's first prepared statement meets another's on the server connection they share
(``prepared statement "mw_1" already exists``, a 500), and the log says what to set."""

from __future__ import annotations

import collections
import concurrent.futures
import uuid
from pathlib import Path

import httpx
import pytest

from tests.conftest import _unavailable
from tests.support.pgbouncer import PgBouncer, find_pgbouncer
from tests.support.postgres import PostgresServer
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.postgresql

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
NODES = 6
CYCLES = 10


def _cycles(url: str, node: str) -> collections.Counter[int]:
    """Attach, list and detach ``CYCLES`` times on ``node``; the answers' statuses."""
    seen: collections.Counter[int] = collections.Counter()
    with httpx.Client(base_url=url, headers=HEADERS, timeout=30) as client:
        for _ in range(CYCLES):
            vif = str(uuid.uuid4())
            attach = client.post(f"/v1/nodes/{node}/vifs", json={"id": vif})
            listed = client.get(f"/v1/nodes/{node}/vifs")
            detach = client.delete(f"/v1/nodes/{node}/vifs/{vif}")
            seen.update(r.status_code for r in (attach, listed, detach))
            if attach.status_code == 204 and listed.status_code == 200:
                assert {"id": vif} in listed.json()["vifs"]
    return seen


@pytest.fixture
def database(postgres_server: PostgresServer) -> str:
    """A new database on the session's cluster, for PgBouncer to serve."""
    if find_pgbouncer() is None:
        _unavailable("pgbouncer is not installed (scripts/install-pgbouncer)")
    name = f"bouncer_{uuid.uuid4().hex[:8]}"
    postgres_server.create_database(name)
    return name


def test_vif_operations_through_pgbouncer_in_transaction_mode(
    postgres_server: PostgresServer, database: str, tmp_path: Path
) -> None:
    env = {
        "METALWIRE_API_API_WORKERS": "2",
        "METALWIRE_DATABASE_PREPARED_STATEMENTS": "false",
    }
    # Three server connections for two workers, each keeping a write and a read connection
    # open: the workers' transactions share the server connections.
    with (
        PgBouncer(postgres_server, database, pool_mode="transaction", pool_size=3) as bouncer,
        MetalwireServer(tmp_path, database=bouncer.url(), env=env) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
    ):
        nodes = []
        for i in range(NODES):
            node = client.post(
                "/v1/nodes", json={"driver": "fake-hardware", "network_interface": "flat"}
            )
            assert node.status_code == 201, node.text
            port = client.post(
                "/v1/ports",
                json={"node_uuid": node.json()["uuid"], "address": f"52:54:00:b0:00:{i:02x}"},
            )
            assert port.status_code == 201, port.text
            nodes.append(node.json()["uuid"])
        with concurrent.futures.ThreadPoolExecutor(NODES) as pool:
            seen = sum(pool.map(lambda n: _cycles(server.url, n), nodes), collections.Counter())
        assert seen == {204: 2 * NODES * CYCLES, 200: NODES * CYCLES}, seen
        for node in nodes:
            assert client.get(f"/v1/nodes/{node}/vifs").json() == {"vifs": []}
            events = client.get(f"/v1/nodes/{node}/history?detail=true").json()["history"]
            vif_events = [e for e in events if e["event_type"] == "vif"]
            assert len(vif_events) == 2 * CYCLES, events[-3:]
        log = server.log()
    assert "Traceback" not in log and "prepared statement" not in log, log[-3000:]


def test_with_prepared_statements_the_log_names_the_option(
    postgres_server: PostgresServer, database: str, tmp_path: Path
) -> None:
    # One server connection for the process's write and read connections: the second of
    # them to prepare a statement meets the first one's.
    with (
        PgBouncer(postgres_server, database, pool_mode="transaction", pool_size=1) as bouncer,
        MetalwireServer(tmp_path, database=bouncer.url()) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
    ):
        node = client.post("/v1/nodes", json={"driver": "fake-hardware"})
        assert node.status_code in (201, 500), node.text
        statuses = collections.Counter[int]()
        if node.status_code == 201:
            statuses = _cycles(server.url, node.json()["uuid"])
        log = server.log()
    assert 500 in statuses or node.status_code == 500, statuses
    hint = "Set [database] prepared_statements = false."
    assert log.count(hint) == 1, log[-3000:]
    assert 'prepared statement "mw_' in log
