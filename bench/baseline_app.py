"""Reference server: the benchmark's routes on FastAPI and one database, nothing more.

One statement per attach or detach, no locking, no validation. It shows how fast this
stack can go on this machine, so it serves as the upper bound the real service is
measured against. The database is SQLite (a file in ``--data-dir``), or, with
``--postgres URL``, PostgreSQL through psycopg 3's asynchronous connection pool, or, with
``--mariadb URL``, MariaDB through PyMySQL connections on worker threads (``bench/
mariadb_pool.py``), the driver metalwire uses.

``--work kept`` answers the VIF routes with the database work metalwire keeps instead
(``bench/kept_work.py``: the node locked, its records read, the VIF record, the port and a
history row written, one commit): the ceiling that work leaves any implementation;
``--work kept-function`` the same in one PostgreSQL function call a write.

    python bench/baseline_app.py --port 8001 --data-dir /tmp/baseline
    python bench/baseline_app.py --port 8001 --postgres postgresql://u:pw@127.0.0.1:5432/db
    python bench/baseline_app.py --port 8001 --mariadb mysql://root@127.0.0.1:3306/db
    python bench/baseline_app.py --port 8001 --data-dir /tmp/kept --work kept
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol

import uvicorn
from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from kept_work import MariaDBKept, PostgresKept, PostgresKeptFunction, Refused, SqliteKept
from mariadb_pool import MariaDBPool

SCHEMA = [
    "CREATE TABLE IF NOT EXISTS nodes (uuid TEXT PRIMARY KEY, name TEXT UNIQUE, net TEXT)",
    "CREATE TABLE IF NOT EXISTS ports (uuid TEXT PRIMARY KEY, node TEXT, address TEXT UNIQUE,"
    " pxe INTEGER, vif TEXT)",
    "CREATE INDEX IF NOT EXISTS ports_node ON ports (node)",
]
# MariaDB's keys and unique columns need a length; InnoDB's row locks, as PostgreSQL's.
MARIADB_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS nodes (uuid VARCHAR(36) PRIMARY KEY, name VARCHAR(255) UNIQUE,"
    " net VARCHAR(64)) ENGINE=InnoDB",
    "CREATE TABLE IF NOT EXISTS ports (uuid VARCHAR(36) PRIMARY KEY, node VARCHAR(36),"
    " address VARCHAR(18) UNIQUE, pxe INTEGER, vif VARCHAR(255)) ENGINE=InnoDB",
    "CREATE INDEX IF NOT EXISTS ports_node ON ports (node)",
]
VERSION = {"id": "v1", "status": "CURRENT", "min_version": "1.1", "version": "1.100", "links": []}

# The one statement of an attach: the first free port of the node takes the VIF.
ATTACH = {
    "sqlite": "UPDATE ports SET vif = ? WHERE rowid ="
    " (SELECT rowid FROM ports WHERE node = ? AND vif IS NULL LIMIT 1)",
    "postgresql": "UPDATE ports SET vif = ? WHERE uuid ="
    " (SELECT uuid FROM ports WHERE node = ? AND vif IS NULL LIMIT 1 FOR UPDATE SKIP LOCKED)",
    "mariadb": "UPDATE ports SET vif = ? WHERE node = ? AND vif IS NULL LIMIT 1",
}


class Store(Protocol):
    """One statement at a time; ``?`` placeholders (PostgreSQL's store translates them)."""

    kind: str

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None: ...

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...


class SqliteStore:
    kind = "sqlite"

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        for statement in SCHEMA:
            self.db.execute(statement)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.db.execute(sql, params)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.db.execute(sql, params).fetchall()


class PostgresStore:
    """psycopg 3's AsyncConnectionPool, autocommit: each statement is its own transaction."""

    kind = "postgresql"

    def __init__(self, url: str, pool_size: int) -> None:
        from psycopg_pool import AsyncConnectionPool

        self.pool = AsyncConnectionPool(
            url,
            min_size=pool_size,
            max_size=pool_size,
            kwargs={"autocommit": True},
            open=False,
        )

    async def open(self) -> None:
        await self.pool.open(wait=True)
        for statement in SCHEMA:
            await self.execute(statement)

    async def close(self) -> None:
        await self.pool.close()

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(sql.replace("?", "%s"), params)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql.replace("?", "%s"), params)
            rows: list[tuple[Any, ...]] = await cur.fetchall()
            return rows


class MariaDBStore:
    """PyMySQL connections on worker threads, autocommit: each statement its own transaction."""

    kind = "mariadb"

    def __init__(self, url: str, pool_size: int) -> None:
        self.pool = MariaDBPool(url, pool_size)
        self.pool.prepare(MARIADB_SCHEMA)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        await self.pool.fetchall(sql, params)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return await self.pool.fetchall(sql, params)


store: Store
kept: SqliteKept | PostgresKept | MariaDBKept | None = None  # --work kept or kept-function


@asynccontextmanager
async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
    if isinstance(store, PostgresStore):
        await store.open()
        if isinstance(kept, PostgresKept):
            await kept.create_schema()
        try:
            yield
        finally:
            await store.close()
    else:
        yield


app = FastAPI(lifespan=lifespan)


@app.exception_handler(Refused)
async def refused(_request: Request, exc: Refused) -> JSONResponse:
    return JSONResponse({"error_message": str(exc)}, status_code=exc.status)


def node_json(row: Sequence[Any]) -> dict[str, Any]:
    return {"uuid": row[0], "name": row[1], "driver": "fake-hardware", "network_interface": row[2]}


@app.get("/")
async def root() -> dict[str, Any]:
    return {"name": "baseline", "default_version": VERSION, "versions": [VERSION]}


@app.get("/v1/")
async def v1() -> dict[str, Any]:
    return VERSION


@app.post("/v1/nodes", status_code=201)
async def create_node(request: Request) -> dict[str, Any]:
    body = await request.json()
    row = (str(uuid.uuid4()), body.get("name"), body.get("network_interface", "flat"))
    await store.execute("INSERT INTO nodes VALUES (?, ?, ?)", row)
    return node_json(row)


@app.get("/v1/nodes/{ident}")
async def get_node(ident: str, response: Response) -> dict[str, Any]:
    rows = await store.fetchall("SELECT * FROM nodes WHERE uuid = ? OR name = ?", (ident, ident))
    if not rows:
        response.status_code = 404
        return {"error_message": "node not found"}
    return node_json(rows[0])


@app.delete("/v1/nodes/{ident}", status_code=204)
async def delete_node(ident: str) -> None:
    await store.execute("DELETE FROM ports WHERE node = ?", (ident,))
    await store.execute("DELETE FROM nodes WHERE uuid = ?", (ident,))


@app.post("/v1/ports", status_code=201)
async def create_port(request: Request) -> dict[str, Any]:
    body = await request.json()
    row = (
        str(uuid.uuid4()),
        body["node_uuid"],
        body["address"],
        int(bool(body.get("pxe_enabled", True))),
    )
    await store.execute("INSERT INTO ports VALUES (?, ?, ?, ?, NULL)", row)
    return {"uuid": row[0], "node_uuid": row[1], "address": row[2], "internal_info": {}}


@app.delete("/v1/ports/{ident}", status_code=204)
async def delete_port(ident: str) -> None:
    await store.execute("DELETE FROM ports WHERE uuid = ?", (ident,))


@app.get("/v1/ports/detail")
async def ports_detail(node: str) -> dict[str, Any]:
    rows = await store.fetchall("SELECT uuid, address, pxe, vif FROM ports WHERE node = ?", (node,))
    return {
        "ports": [
            {"uuid": u, "node_uuid": node, "address": a, "pxe_enabled": bool(p),
             "internal_info": {"tenant_vif_port_id": v} if v else {}}
            for u, a, p, v in rows
        ]
    }  # fmt: skip


@app.post("/v1/nodes/{ident}/vifs", status_code=204)
async def attach_vif(ident: str, request: Request) -> None:
    vif = (await request.json())["id"]
    if kept is not None:
        await kept.attach(ident, vif)
        return
    await store.execute(ATTACH[store.kind], (vif, ident))


@app.get("/v1/nodes/{ident}/vifs")
async def list_vifs(ident: str) -> dict[str, Any]:
    if kept is not None:
        return {"vifs": [{"id": v} for v in await kept.vifs(ident)]}
    rows = await store.fetchall(
        "SELECT vif FROM ports WHERE node = ? AND vif IS NOT NULL", (ident,)
    )
    return {"vifs": [{"id": v} for (v,) in rows]}


@app.delete("/v1/nodes/{ident}/vifs/{vif}", status_code=204)
async def detach_vif(ident: str, vif: str) -> None:
    if kept is not None:
        await kept.detach(ident, vif)
        return
    await store.execute("UPDATE ports SET vif = NULL WHERE node = ? AND vif = ?", (ident, vif))


def main() -> None:
    global store, kept
    parser = argparse.ArgumentParser(description="FastAPI + SQLite/PostgreSQL reference server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--data-dir", default=".bench/baseline-data")
    parser.add_argument("--postgres", metavar="URL", help="PostgreSQL (libpq URL) not SQLite")
    parser.add_argument(
        "--mariadb", metavar="URL", help="MariaDB (mysql://user@host:port/db) not SQLite"
    )
    parser.add_argument(
        "--pool-size", type=int, default=10, help="PostgreSQL or MariaDB connections"
    )
    parser.add_argument(
        "--work",
        choices=("minimal", "kept", "kept-function"),
        default="minimal",
        help="one statement per VIF request, or the database work metalwire keeps (in a"
        " PostgreSQL function per write: kept-function)",
    )
    args = parser.parse_args()
    if args.postgres:
        store = PostgresStore(args.postgres, args.pool_size)
        if args.work == "kept":
            kept = PostgresKept(store.pool)
        elif args.work == "kept-function":
            kept = PostgresKeptFunction(store.pool)
    elif args.mariadb:
        if args.work == "kept-function":
            parser.error("--work kept-function needs --postgres")
        mariadb = MariaDBStore(args.mariadb, args.pool_size)
        store = mariadb
        if args.work == "kept":
            kept = MariaDBKept(mariadb.pool)
    else:
        os.makedirs(args.data_dir, exist_ok=True)
        store = SqliteStore(os.path.join(args.data_dir, "baseline.sqlite"))
        if args.work == "kept-function":
            parser.error("--work kept-function needs --postgres")
        if args.work == "kept":
            kept = SqliteKept(store.db)
    uvicorn.run(app, host=args.host, port=args.port, workers=1, log_level="warning")


if __name__ == "__main__":
    main()
