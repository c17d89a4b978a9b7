"""PostgreSQL ends a running ``metalwire serve``'s connections (a restart, a failover, an idle
timeout, an operator's ``pg_terminate_backend``): the server opens new ones by itself.

A connection that rested is checked before it is used, so no request fails; one dropped while
in use fails that request only, and the next gets a new connection. The VIF path's kept
connections (db/engine.py) are held outside SQLAlchemy's pool and must be checked and replaced
as the pool's are: before, a VIF list answered 503 for as long as the server ran.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from metalwire.db.engine import PING_AFTER_REST
from tests.conftest import require_postgres_binaries
from tests.integration.invariants import HEADERS
from tests.integration.test_concurrency import make_node
from tests.support.postgres import PostgresServer
from tests.support.server import MetalwireServer

pytestmark = [pytest.mark.server, pytest.mark.postgresql]


def _statuses(send: Callable[[], httpx.Response], until: int) -> list[int]:
    """Statuses of ``send`` repeated until it answers ``until`` (five tries at most)."""
    seen: list[int] = []
    while len(seen) < 5 and until not in seen:
        seen.append(send().status_code)
    return seen


def test_connections_the_database_ended_are_replaced_without_a_restart(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    database = f"dropped_{uuid.uuid4().hex[:8]}"
    url = postgres_server.create_database(database)
    with (
        MetalwireServer(tmp_path, database=url) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
    ):
        node = make_node(client, 2, prefix=0xD7)
        vifs = f"/v1/nodes/{node}/vifs"
        first = str(uuid.uuid4())
        assert client.post(vifs, json={"id": first}).status_code == 204

        # Ended while they rested: every request is answered as before.
        for _ in range(2):
            postgres_server.end_connections(database)
            time.sleep(PING_AFTER_REST + 0.2)
            listed = client.get(vifs)
            assert listed.status_code == 200, listed.text
            assert listed.json()["vifs"] == [{"id": first}]
            second = str(uuid.uuid4())
            assert client.post(vifs, json={"id": second}).status_code == 204
            assert client.delete(f"{vifs}/{second}").status_code == 204
            assert client.get(f"/v1/nodes/{node}").status_code == 200

        # Ended while in use (no rest): the request that finds its connection dropped may
        # fail (503, safe to retry: nothing was done), the next one does not.
        postgres_server.end_connections(database)
        reads = _statuses(lambda: client.get(vifs), until=200)
        second = str(uuid.uuid4())
        writes = _statuses(lambda: client.post(vifs, json={"id": second}), until=204)
        assert reads in ([200], [503, 200]), reads
        assert writes in ([204], [503, 204]), writes
        for _ in range(3):
            assert client.get(vifs).json()["vifs"] == [{"id": first}, {"id": second}]
        log = server.log()
    assert "Traceback" not in log, log[-3000:]


def test_a_postgresql_restart_while_the_server_rests_fails_no_request(tmp_path: Path) -> None:
    """A restart (fast shutdown: PostgreSQL ends every session) between two requests."""
    require_postgres_binaries()
    with PostgresServer() as own:
        url = own.create_database("metalwire")
        with (
            MetalwireServer(tmp_path, database=url) as server,
            httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
        ):
            node = make_node(client, 2, prefix=0xD8)
            vifs = f"/v1/nodes/{node}/vifs"
            vif = str(uuid.uuid4())
            assert client.post(vifs, json={"id": vif}).status_code == 204
            assert client.get(vifs).status_code == 200
            own.pause()
            own.resume()
            time.sleep(PING_AFTER_REST + 0.2)
            # Before, the kept read connection was never replaced: 503 for every VIF list.
            lists = [client.get(vifs) for _ in range(3)]
            assert [r.status_code for r in lists] == [200] * 3, lists[0].text
            assert lists[-1].json()["vifs"] == [{"id": vif}]
            assert client.delete(f"{vifs}/{vif}").status_code == 204
