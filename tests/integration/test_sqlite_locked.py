"""Another process holding the SQLite file's write lock under a running ``metalwire serve``.

A second server, ``--workers N``, ``metalwire db upgrade`` or a backup tool on the same
file takes SQLite's write lock; a write whose turn does not come in time answers 503 naming
the cause, with ``Retry-After``, and is counted and logged as one warning, with nothing
stored.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from metalwire.config import SQLITE_FILE
from tests.support.server import MetalwireServer

pytestmark = [pytest.mark.server]

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.115"}
WRITE_WAIT = 2  # [database] sqlite_write_wait, well below [conductor] node_lock_wait
NODE_LOCK_WAIT = 10


@contextmanager
def write_lock_held(path: Path) -> Iterator[None]:
    """Another process's writer, as a backup tool or ``metalwire db upgrade`` is: the file's
    write lock held by a connection of this test's process, not the server's."""
    other = sqlite3.connect(path, isolation_level=None, timeout=5)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield
        other.execute("ROLLBACK")
    finally:
        other.close()


def _busy_count(client: httpx.Client) -> float:
    text = client.get("/metrics").text
    found = re.search(r'^metalwire_database_errors_total\{reason="busy"\} (\S+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


def _fault(resp: httpx.Response) -> str:
    return str(json.loads(resp.json()["error_message"])["faultstring"])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[MetalwireServer]:
    config = tmp_path / "metalwire.conf"
    config.write_text(
        f"[conductor]\nnode_lock_wait = {NODE_LOCK_WAIT}\n"
        f"[database]\nsqlite_write_wait = {WRITE_WAIT}\n"
    )
    with MetalwireServer(tmp_path / "data", config=config) as running:
        yield running


def test_a_write_behind_another_process_answers_503_naming_the_write_lock(
    server: MetalwireServer,
) -> None:
    patch = [{"op": "add", "path": "/extra/x", "value": "1"}]
    with httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client:
        created = client.post("/v1/nodes", json={"driver": "fake-hardware", "name": "noop-1"})
        assert created.status_code == 201, created.text
        busy_before = _busy_count(client)
        with write_lock_held(server.data_dir / SQLITE_FILE):
            started = time.monotonic()
            refused = client.patch("/v1/nodes/noop-1", json=patch)
            waited = time.monotonic() - started
            # Reads go on meanwhile (WAL): a reader does not wait for a writer.
            read = client.get("/v1/nodes/noop-1")
            # A VIF attach tried on the event loop gives way to a worker thread, which
            # waits its turn like any write, then answers the same 503.
            attach = client.post("/v1/nodes/noop-1/vifs", json={"id": "vif-1"})
        assert refused.status_code == 503, refused.text
        assert refused.headers["retry-after"] == "2"
        assert _fault(refused) == (
            f"No write turn on the SQLite database within {WRITE_WAIT} s: another process "
            "holds its write lock; retry in 2 seconds."
        )
        assert WRITE_WAIT - 0.5 < waited < NODE_LOCK_WAIT, waited
        assert read.status_code == 200, read.text
        assert read.json()["extra"] == {}  # nothing of the refused write stored
        assert attach.status_code == 503, attach.text
        assert "another process holds its write lock" in _fault(attach)
        assert _busy_count(client) == busy_before + 2
        # The lock released, the same write goes through.
        done = client.patch("/v1/nodes/noop-1", json=patch)
        assert done.status_code == 200, done.text
        assert done.json()["extra"] == {"x": "1"}
    log = server.log()
    assert "another process holds its write lock" in log
    assert re.search(r"WARNING metalwire\.db\.outage database busy: ", log), log
    assert "Traceback" not in log and "unhandled error" not in log, log
