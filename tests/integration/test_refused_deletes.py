"""A delete the database refuses (a key, check or trigger of its own), through a real
``metalwire serve``: a 409 naming the row and the database's reason, the row kept. The
switch side (ironic-networking puts its switch port back) is in tests/switch."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from metalwire.config import SQLITE_FILE
from tests.support.server import MetalwireServer

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[MetalwireServer]:
    with MetalwireServer(tmp_path / "server") as running:
        yield running


def _refuse_deletes(server: MetalwireServer, table: str) -> None:
    with contextlib.closing(sqlite3.connect(server.data_dir / SQLITE_FILE)) as db:
        db.execute(
            f"CREATE TRIGGER keep_{table} BEFORE DELETE ON {table} "
            "BEGIN SELECT RAISE(ABORT, 'kept for the audit trail'); END"
        )
        db.commit()


def _fault(resp: httpx.Response) -> str:
    return str(json.loads(resp.json()["error_message"])["faultstring"])


@pytest.mark.server
def test_a_refused_port_or_portgroup_delete_is_a_409_naming_the_reason(
    server: MetalwireServer,
) -> None:
    with httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as http:
        node = http.post("/v1/nodes", json={"driver": "fake-hardware", "name": "kept"}).json()
        group = http.post("/v1/portgroups", json={"node_uuid": node["uuid"]}).json()
        body = {"node_uuid": node["uuid"], "address": "52:54:00:45:00:01"}
        port = http.post("/v1/ports", json=body).json()
        _refuse_deletes(server, "ports")
        _refuse_deletes(server, "portgroups")

        for kind, row in (("port", port), ("portgroup", group)):
            resp = http.delete(f"/v1/{kind}s/{row['uuid']}")
            assert resp.status_code == 409, resp.text
            assert _fault(resp) == (
                f"{kind.capitalize()} {row['uuid']} cannot be deleted: the database refused "
                "it (kept for the audit trail)."
            )
            assert http.get(f"/v1/{kind}s/{row['uuid']}").json() == row


@pytest.mark.server
def test_a_refused_node_or_volume_row_delete_is_a_409_naming_the_reason(
    server: MetalwireServer,
) -> None:
    with httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as http:
        node = http.post("/v1/nodes", json={"driver": "fake-hardware", "name": "kept"}).json()
        body = {"node_uuid": node["uuid"], "type": "iqn", "connector_id": "iqn.2026-12.kept"}
        connector = http.post("/v1/volume/connectors", json=body).json()
        for table in ("nodes", "volume_connectors"):
            _refuse_deletes(server, table)

        for path, label in (
            (f"/v1/volume/connectors/{connector['uuid']}", f"Volume connector {connector['uuid']}"),
            (f"/v1/nodes/{node['uuid']}", f"Node {node['uuid']} (kept)"),
        ):
            before = http.get(path).json()
            resp = http.delete(path)
            assert resp.status_code == 409, resp.text
            assert _fault(resp) == (
                f"{label} cannot be deleted: the database refused it (kept for the audit trail)."
            )
            assert http.get(path).json() == before
