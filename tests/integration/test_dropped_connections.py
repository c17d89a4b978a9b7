"""PostgreSQL ends a running ``metalwire serve``'s connections (a restart, a failover, an idle
timeout, an operator's ``pg_terminate_backend``): the server opens new ones by itself.

A connection that rested is checked before it is used, so no request fails; one dropped while
in use fails that request only, and the next gets a new connection. The VIF path's kept
connections (db/engine.py) are held outside SQLAlchemy's pool and must be checked and replaced
as the pool's are: before, a VIF list answered 503 for as long as the server ran.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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


@dataclass
class Served:
    server: MetalwireServer
    client: httpx.Client
    vifs: str  # the VIF list of a node with two ports
    vif: str  # attached to it


@contextlib.contextmanager
def _node_with_a_vif(url: str, tmp_path: Path, prefix: int) -> Iterator[Served]:
    """A server on ``url`` with a node of two ports and one VIF attached."""
    with (
        MetalwireServer(tmp_path, database=url) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
    ):
        vifs = f"/v1/nodes/{make_node(client, 2, prefix=prefix)}/vifs"
        vif = str(uuid.uuid4())
        assert client.post(vifs, json={"id": vif}).status_code == 204
        yield Served(server, client, vifs, vif)


def _rest() -> None:
    """Let the server's connections rest long enough to be checked before their next use."""
    time.sleep(PING_AFTER_REST + 0.2)


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
    with _node_with_a_vif(url, tmp_path, prefix=0xD7) as served:
        client, vifs, first = served.client, served.vifs, served.vif

        # Ended while they rested: every request is answered as before.
        for _ in range(2):
            postgres_server.end_connections(database)
            _rest()
            listed = client.get(vifs)
            assert listed.status_code == 200, listed.text
            assert listed.json()["vifs"] == [{"id": first}]
            second = str(uuid.uuid4())
            assert client.post(vifs, json={"id": second}).status_code == 204
            assert client.delete(f"{vifs}/{second}").status_code == 204
            assert client.get(vifs.removesuffix("/vifs")).status_code == 200

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
        log = served.server.log()
    assert "Traceback" not in log, log[-3000:]


def test_a_postgresql_restart_while_the_server_rests_fails_no_request(tmp_path: Path) -> None:
    """A restart (fast shutdown: PostgreSQL ends every session) between two requests."""
    require_postgres_binaries()
    with PostgresServer() as own:
        url = own.create_database("metalwire")
        with _node_with_a_vif(url, tmp_path, prefix=0xD8) as served:
            client, vifs = served.client, served.vifs
            assert client.get(vifs).status_code == 200
            own.pause()
            own.resume()
            _rest()
            # Before, the kept read connection was never replaced: 503 for every VIF list.
            lists = [client.get(vifs) for _ in range(3)]
            assert [r.status_code for r in lists] == [200] * 3, lists[0].text
            assert lists[-1].json()["vifs"] == [{"id": served.vif}]
            assert client.delete(f"{vifs}/{served.vif}").status_code == 204
