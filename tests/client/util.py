"""Helpers shared by the client, CLI and compute tests: unique names and MAC addresses."""

from __future__ import annotations

import contextlib
import itertools
import os
import sqlite3
import time
import uuid
from collections.abc import Callable
from pathlib import Path

_counter = itertools.count(1)
# One prefix per test process, so reruns against a kept server never collide.
_PREFIX = os.urandom(2)


def unique(prefix: str) -> str:
    """A node or portgroup name unique in the test session."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def mac() -> str:
    """A locally administered MAC address unique in the test session."""
    n = next(_counter)
    octets = [0x02, _PREFIX[0], _PREFIX[1], (n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF]
    return ":".join(f"{o:02x}" for o in octets)


def hold_node_lock(data_dir: Path, node_uuid: str, seconds: float, holder: str) -> None:
    """Make the node look locked by another conductor for ``seconds`` (its lease runs out).

    Writes the lease columns of the node's row in the server's SQLite database, as a
    conductor in another process would.
    """
    with contextlib.closing(sqlite3.connect(data_dir / "metalwire.db", timeout=10)) as db, db:
        changed = db.execute(
            "UPDATE nodes SET reservation = ?, lock_expires_at = ? WHERE uuid = ?",
            (holder, time.time() + seconds, node_uuid),
        ).rowcount
    assert changed == 1, f"node {node_uuid} not found in the database"


def vif_namer() -> Callable[[str], str]:
    """``v = vif_namer(); v("vif-a")``: VIF ids unique to the calling test module.

    A VIF may sit on one node only in the whole inventory, and the modules share a server.
    """
    tag = uuid.uuid4().hex[:8]
    return lambda name: f"{name}-{tag}"
