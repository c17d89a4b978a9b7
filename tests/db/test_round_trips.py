"""What a VIF request costs PostgreSQL, counted by PostgreSQL itself (pg_stat_database).

An attach or a detach is one transaction and one commit, with the node's row locked by
``SELECT ... FOR UPDATE`` (no lease written and cleared); a read is no transaction at all
(autocommit: no BEGIN, no ROLLBACK); no request pings its connection first.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import httpx
import pytest

from metalwire.db.engine import PING_AFTER_REST
from tests.support.postgres import PostgresServer
from tests.support.server import MetalwireServer

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.67"}
COUNTERS = ("xact_commit", "xact_rollback", "tup_updated")
# Each window also holds what does not come from its requests: the server's connections,
# ended so that PostgreSQL publishes their counters, are checked and opened again by its
# pool; a periodic check of the server. 50 requests keep those under 0.2 commits per
# request on a loaded machine (10 reached 0.8).
REQUESTS = 50
QUIET_REGISTRY = {"METALWIRE_CONDUCTOR_HEARTBEAT_INTERVAL": "3600"}


@pytest.mark.xdist_group("round_trips")
def test_a_vif_request_is_one_commit_and_a_read_is_none(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    database = f"round_trips_{uuid.uuid4().hex[:8]}"
    url = postgres_server.create_database(database)
    with (
        # the conductor heartbeat (a row update every 10 s) is no request's: not counted
        MetalwireServer(tmp_path, database=url, env=QUIET_REGISTRY) as server,
        httpx.Client(base_url=server.url, headers=HEADERS) as client,
    ):
        nodes = []
        for i in range(REQUESTS):
            node = client.post("/v1/nodes", json={"driver": "fake-hardware", "name": f"rt-{i}"})
            node.raise_for_status()
            port = {"node_uuid": node.json()["uuid"], "address": f"52:54:00:00:01:{i:02x}"}
            client.post("/v1/ports", json=port).raise_for_status()
            nodes.append(node.json()["uuid"])
        vifs = [str(uuid.uuid4()) for _ in nodes]
        steps = {
            "attach": lambda n, v: client.post(f"/v1/nodes/{n}/vifs", json={"id": v}),
            "list": lambda n, v: client.get(f"/v1/nodes/{n}/vifs"),
            "detach": lambda n, v: client.delete(f"/v1/nodes/{n}/vifs/{v}"),
        }
        seen = {}

        def counters() -> dict[str, int]:
            # The server's connections are ended so that their backends publish what they
            # counted; resting past PING_AFTER_REST, they are checked before their next use,
            # and the server's pool opens new ones.
            read = postgres_server.activity(database, end_connections=True)
            time.sleep(PING_AFTER_REST + 0.2)
            return read

        # one reading of the counters ends a step's window and begins the next's
        before = counters()
        for name, send in steps.items():
            for node_uuid, vif in zip(nodes, vifs, strict=True):
                answer = send(node_uuid, vif)
                assert answer.status_code < 300, (name, answer.text)
            after = counters()
            seen[name] = {k: (after[k] - before[k]) / REQUESTS for k in COUNTERS}
            seen[name]["xact_commit"] -= 1 / REQUESTS  # reading the counters is a commit
            before = after
    # Before: an attach was 5 commits and a rollback (pings, a read transaction, the lease
    # written and cleared: 3 row updates), a list a commit and a rollback. Now: the write
    # transaction, the API's read of the node (an autocommit statement counts as a commit),
    # and now and then a ping of a connection that rested while this test waited.
    for name in ("attach", "detach"):
        assert seen[name]["xact_rollback"] == 0 and seen[name]["tup_updated"] == 1, seen
        assert seen[name]["xact_commit"] <= 2.5, seen
    assert seen["list"]["xact_rollback"] == 0 and seen["list"]["tup_updated"] == 0, seen
    assert seen["list"]["xact_commit"] <= 1.5, seen
