"""An operation whose node lease another process took while it waited on Neutron: a real
``metalwire serve`` on a SQLite file, a ``neutron`` node whose attach Neutron holds (the
suite's HangingNeutron), and the lease taken over by a second connection to the database,
as another process does once a lease has run out.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import servers_and_neutron
from tests.integration.neutron_deploys import NODE, Setup, call, node, provision
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

THIEF = "other-host:4242:0badc0de"
ORIGINAL_MAC = "fa:16:3e:00:00:01"  # the stand-in's answer for every port
SEED = {"binding:vnic_type": "baremetal", "binding:profile": {}}
UNBOUND = {"binding:host_id": "", "binding:profile": {}}


def node_uuid(server: MetalwireServer) -> str:
    return str(node(server)["uuid"])


@pytest.fixture
def held_attach(tmp_path: Path) -> Iterator[Setup]:
    """Every change Neutron is asked for is held until the test releases it."""
    with servers_and_neutron(tmp_path, answered_puts=0) as made:
        yield made


def _rows(database: Path) -> dict[str, Any]:
    with sqlite3.connect(database) as db:
        return {
            "node": db.execute(
                "SELECT provision_state, reservation FROM nodes WHERE name = 'bg'"
            ).fetchone(),
            "ports": db.execute("SELECT uuid, internal_info, extra FROM ports").fetchall(),
            "vifs": db.execute("SELECT vif_id, pending FROM vif_attachments").fetchall(),
        }


def _take_lease(database: Path, holder: str | None) -> None:
    """What another process does to a node whose lease ran out: it writes its own."""
    with sqlite3.connect(database, timeout=30) as db:
        expires = None if holder is None else time.time() + 300
        db.execute(
            "UPDATE nodes SET reservation = ?, lock_expires_at = ? WHERE name = 'bg'",
            (holder, expires),
        )


def _available_node(server: MetalwireServer) -> None:
    body = {"driver": "fake-hardware", "name": "bg", "network_interface": "neutron"}
    assert call(server, "POST", "/v1/nodes", json=body).status_code == 201
    link = {"switch_id": "00:1b:21:00:00:01", "port_id": "Ethernet1/1"}
    port = {
        "node_uuid": node(server)["uuid"],
        "address": "52:54:00:7d:00:09",
        "local_link_connection": link,
    }
    assert call(server, "POST", "/v1/ports", json=port).status_code == 201
    for verb in ("manage", "provide"):
        assert provision(server, verb).status_code == 202


def test_an_attach_whose_lease_was_taken_is_a_409_and_leaves_nothing_changed(
    held_attach: Setup, tmp_path: Path
) -> None:
    """The attach answered 409 NodeLockLost, as it should (python-ironicclient and
    openstacksdk send a 409 again), but left the VIF's Neutron port with the node's MAC and
    bound to the node, with no record of it: its confirmation failed outside the steps
    that undo Neutron's changes."""
    server = held_attach.server()
    database = tmp_path / "shared.db"
    _available_node(server)
    before = _rows(database)
    answers: list[httpx.Response] = []
    attaching = threading.Thread(
        target=lambda: answers.append(call(server, "POST", f"{NODE}/vifs", json={"id": "vif-x"}))
    )
    attaching.start()
    assert held_attach.neutron.put_seen.wait(30), "the attach never reached Neutron"

    _take_lease(database, THIEF)
    held_attach.neutron.release.set()
    attaching.join(60)

    (answer,) = answers
    assert answer.status_code == 409, answer.text
    message = answer.json()["error_message"]
    assert "was taken from this operation" in message and THIEF in message, message
    after = _rows(database)
    assert after["node"] == ("available", THIEF)
    assert after["ports"] == before["ports"]
    assert after["ports"] == before["ports"]
    # Neutron is left as it was: what the attach changed is undone, newest first
    made, undone = held_attach.neutron.changes[:2], held_attach.neutron.changes[2:]
    assert made == [
        ("vif-x", {"mac_address": "52:54:00:7d:00:09"}),
        ("vif-x", {**SEED, "binding:host_id": node_uuid(server)}),
    ]
    assert [change for _, change in undone] == [UNBOUND, {"mac_address": ORIGINAL_MAC}]
    # the record of the attach stays pending (it reserves the VIF; no one sees it) until
    # the next operation on the node, which holds the lock, drops it
    assert after["vifs"] == [("vif-x", 1)]
    _take_lease(database, None)  # the other holder lets go
    assert call(server, "GET", f"{NODE}/vifs").json() == {"vifs": []}
    resp = call(server, "POST", f"{NODE}/vifs", json={"id": "vif-x"})
    assert resp.status_code == 204, resp.text
    assert _rows(database)["vifs"] == [("vif-x", 0)]
    events = [e["event"] for e in call(server, "GET", f"{NODE}/history").json()["history"]]
    assert events[-2] == (
        "Attach of VIF vif-x was interrupted (its process stopped, or lost the node's lock); "
        "its record was removed"
    )
    assert "Traceback" not in server.log()
