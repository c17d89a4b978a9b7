"""bench/kept_work.py: the reference server's "kept" work does what metalwire's VIF path keeps
(one VIF per port, one node per VIF, a history row per write, refusals that leave nothing
behind), on a real SQLite file and a real PostgreSQL, so that its figures measure that work."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tests.support.postgres import PostgresServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import baseline_app
import kept_work
from procs import LOOPBACK, Process, free_port

NODE = "node-1"
PORTS = ("port-a", "port-b")


class _OneConnectionPool:
    """What PostgresKept asks of psycopg_pool's pool (a connection lent as a context), over
    one autocommit connection: the bench's extra is not the tests'."""

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.conn = conn

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        yield self.conn


def _sqlite_schema(db: sqlite3.Connection) -> None:
    for statement in baseline_app.SCHEMA:
        db.execute(statement)


@contextlib.contextmanager
def _sqlite(tmp_path: Path) -> Iterator[tuple[Any, Callable[[str], list[tuple[Any, ...]]]]]:
    db = sqlite3.connect(tmp_path / "kept.sqlite", isolation_level=None)
    _sqlite_schema(db)
    kept = kept_work.SqliteKept(db)
    db.execute("INSERT INTO nodes VALUES (?, ?, ?)", (NODE, "n1", "flat"))
    for port in PORTS:
        db.execute("INSERT INTO ports VALUES (?, ?, ?, 1, NULL)", (port, NODE, port + "-mac"))
    yield kept, lambda sql: db.execute(sql).fetchall()
    db.close()


def _flow(run: Callable[[Any], Any], kept: Any, rows: Callable[[str], list[Any]]) -> None:
    """Attach, refuse, list, detach; what is stored after each."""
    run(kept.attach(NODE, "vif-1"))
    assert rows("SELECT vif, node FROM vif_attachments") == [("vif-1", NODE)]
    with pytest.raises(kept_work.Refused) as again:
        run(kept.attach(NODE, "vif-1"))
    assert (again.value.status, str(again.value)) == (
        409,
        f"VIF vif-1 is already attached to node {NODE}",
    )
    run(kept.attach(NODE, "vif-2"))
    with pytest.raises(kept_work.Refused) as full:
        run(kept.attach(NODE, "vif-3"))
    assert full.value.status == 400
    assert sorted(run(kept.vifs(NODE))) == ["vif-1", "vif-2"]
    ports = rows("SELECT vif FROM ports ORDER BY uuid")
    assert sorted(vif for (vif,) in ports) == ["vif-1", "vif-2"]  # one VIF per port
    with pytest.raises(kept_work.Refused) as missing:
        run(kept.vifs("no-such-node"))
    assert missing.value.status == 404
    with pytest.raises(kept_work.Refused) as other:
        run(kept.attach("no-such-node", "vif-9"))
    assert other.value.status == 404
    run(kept.detach(NODE, "vif-1"))
    with pytest.raises(kept_work.Refused) as gone:
        run(kept.detach(NODE, "vif-1"))
    assert (gone.value.status, str(gone.value)) == (
        404,
        f"VIF vif-1 is not attached to node {NODE}",
    )
    assert run(kept.vifs(NODE)) == ["vif-2"]
    assert sorted(vif for (vif,) in rows("SELECT vif FROM ports") if vif) == ["vif-2"]
    # A history row for each write that was done, none for the refused ones.
    events = rows("SELECT node, event FROM node_history ORDER BY id")
    assert events == [(NODE, "attach"), (NODE, "attach"), (NODE, "detach")]


def test_the_kept_work_on_sqlite(tmp_path: Path) -> None:
    with _sqlite(tmp_path) as (kept, rows):
        _flow(asyncio.run, kept, rows)


@pytest.mark.postgresql
@pytest.mark.parametrize("kind", [kept_work.PostgresKept, kept_work.PostgresKeptFunction])
def test_the_kept_work_on_postgresql(
    postgres_server: PostgresServer, kind: type[kept_work.PostgresKept]
) -> None:
    """In two round trips a write, and in one function call a write."""
    name = "kept_" + uuid.uuid4().hex[:8]
    url = postgres_server.create_database(name, driver="")
    loop = asyncio.new_event_loop()
    try:
        conn = loop.run_until_complete(psycopg.AsyncConnection.connect(url, autocommit=True))
        kept = kind(_OneConnectionPool(conn))

        async def schema() -> None:
            for statement in baseline_app.SCHEMA:
                await conn.execute(statement)
            await kept.create_schema()
            await conn.execute("INSERT INTO nodes VALUES (%s, %s, %s)", (NODE, "n1", "flat"))
            for port in PORTS:
                await conn.execute(
                    "INSERT INTO ports VALUES (%s, %s, %s, 1, NULL)", (port, NODE, port + "-mac")
                )

        async def fetch(sql: str) -> list[Any]:
            return await (await conn.execute(sql)).fetchall()

        loop.run_until_complete(schema())
        _flow(loop.run_until_complete, kept, lambda sql: loop.run_until_complete(fetch(sql)))
        loop.run_until_complete(conn.close())
    finally:
        loop.close()
        postgres_server.drop_database(name)


def test_the_kept_server_answers_the_bench_over_http(tmp_path: Path) -> None:
    """``baseline_app.py --work kept`` as compare.py starts it: the routes bench/run.py calls,
    the refusals as their status codes with a message."""
    port = free_port()
    script = Path(baseline_app.__file__)
    argv = [sys.executable, str(script), "--host", LOOPBACK, "--port", str(port)]
    argv += ["--data-dir", str(tmp_path / "data"), "--work", "kept"]
    server = Process(
        name="kept", argv=argv, log_path=tmp_path / "kept.log", url=f"http://{LOOPBACK}:{port}"
    )
    server.start()
    try:
        server.wait_ready(timeout=30)
        with httpx.Client(base_url=server.url, timeout=10) as http:
            node = http.post("/v1/nodes", json={"name": "n1"}).json()["uuid"]
            made = http.post("/v1/ports", json={"node_uuid": node, "address": "02:00:00:00:00:01"})
            assert made.status_code == 201
            vifs = f"/v1/nodes/{node}/vifs"
            assert http.post(vifs, json={"id": "vif-1"}).status_code == 204
            again = http.post(vifs, json={"id": "vif-1"})
            assert again.status_code == 409
            assert again.json() == {
                "error_message": f"VIF vif-1 is already attached to node {node}"
            }
            assert http.post(vifs, json={"id": "vif-2"}).status_code == 400  # no free port
            assert http.get(vifs).json() == {"vifs": [{"id": "vif-1"}]}
            ports = http.get("/v1/ports/detail", params={"node": node}).json()["ports"]
            assert [p["internal_info"] for p in ports] == [{"tenant_vif_port_id": "vif-1"}]
            assert http.delete(f"{vifs}/vif-1").status_code == 204
            assert http.delete(f"{vifs}/vif-1").status_code == 404
            assert http.get("/v1/nodes/no-such-node/vifs").status_code == 404
            assert http.get(vifs).json() == {"vifs": []}
    finally:
        server.stop()
