"""Reference server: the benchmark's routes on FastAPI + SQLite, nothing more.

One SQLite statement per attach or detach, no locking, no validation. It shows how
fast this stack can go on this machine, so it serves as the upper bound the real
service is measured against.

    python bench/baseline_app.py --port 8001 --data-dir /tmp/baseline
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import uuid
from typing import Any

import uvicorn
from fastapi import FastAPI, Request, Response

SCHEMA = """
CREATE TABLE IF NOT EXISTS nodes (uuid TEXT PRIMARY KEY, name TEXT UNIQUE, net TEXT);
CREATE TABLE IF NOT EXISTS ports (uuid TEXT PRIMARY KEY, node TEXT, address TEXT UNIQUE,
                                  pxe INTEGER, vif TEXT);
CREATE INDEX IF NOT EXISTS ports_node ON ports (node);
"""
VERSION = {"id": "v1", "status": "CURRENT", "min_version": "1.1", "version": "1.100", "links": []}

app = FastAPI()
db = sqlite3.connect(":memory:")


def open_db(path: str) -> None:
    global db
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(SCHEMA)


def node_json(row: tuple[Any, ...]) -> dict[str, Any]:
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
    db.execute("INSERT INTO nodes VALUES (?, ?, ?)", row)
    return node_json(row)


@app.get("/v1/nodes/{ident}")
async def get_node(ident: str, response: Response) -> dict[str, Any]:
    row = db.execute("SELECT * FROM nodes WHERE uuid = ? OR name = ?", (ident, ident)).fetchone()
    if row is None:
        response.status_code = 404
        return {"error_message": "node not found"}
    return node_json(row)


@app.delete("/v1/nodes/{ident}", status_code=204)
async def delete_node(ident: str) -> None:
    db.execute("DELETE FROM ports WHERE node = ?", (ident,))
    db.execute("DELETE FROM nodes WHERE uuid = ?", (ident,))


@app.post("/v1/ports", status_code=201)
async def create_port(request: Request) -> dict[str, Any]:
    body = await request.json()
    row = (str(uuid.uuid4()), body["node_uuid"], body["address"], body.get("pxe_enabled", True))
    db.execute("INSERT INTO ports VALUES (?, ?, ?, ?, NULL)", row)
    return {"uuid": row[0], "node_uuid": row[1], "address": row[2], "internal_info": {}}


@app.delete("/v1/ports/{ident}", status_code=204)
async def delete_port(ident: str) -> None:
    db.execute("DELETE FROM ports WHERE uuid = ?", (ident,))


@app.get("/v1/ports/detail")
async def ports_detail(node: str) -> dict[str, Any]:
    rows = db.execute("SELECT uuid, address, pxe, vif FROM ports WHERE node = ?", (node,))
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
    db.execute(
        "UPDATE ports SET vif = ? WHERE rowid ="
        " (SELECT rowid FROM ports WHERE node = ? AND vif IS NULL LIMIT 1)",
        (vif, ident),
    )


@app.get("/v1/nodes/{ident}/vifs")
async def list_vifs(ident: str) -> dict[str, Any]:
    rows = db.execute("SELECT vif FROM ports WHERE node = ? AND vif IS NOT NULL", (ident,))
    return {"vifs": [{"id": v} for (v,) in rows]}


@app.delete("/v1/nodes/{ident}/vifs/{vif}", status_code=204)
async def detach_vif(ident: str, vif: str) -> None:
    db.execute("UPDATE ports SET vif = NULL WHERE node = ? AND vif = ?", (ident, vif))


def main() -> None:
    parser = argparse.ArgumentParser(description="FastAPI + SQLite reference server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--data-dir", default=".bench/baseline-data")
    args = parser.parse_args()
    os.makedirs(args.data_dir, exist_ok=True)
    open_db(os.path.join(args.data_dir, "baseline.sqlite"))
    uvicorn.run(app, host=args.host, port=args.port, workers=1, log_level="warning")


if __name__ == "__main__":
    main()
