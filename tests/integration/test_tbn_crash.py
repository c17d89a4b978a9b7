"""A trait-based networking attach killed (SIGKILL) half-way through building its dynamic
portgroup: after a restart no dynamic portgroup is left and no port has moved.

Two places a kill can land:

- between creating the group and recording the VIF: one transaction. The test holds an
  EXCLUSIVE lock on ``vif_attachments`` from its own PostgreSQL session, so the attach blocks
  on the record's INSERT with the group written (uncommitted), and is killed there;
- between recording the VIF (pending, the group committed with it) and the Neutron binding
  (``neutron`` on an active node): Neutron hangs the binding (the suite's HangingNeutron)
  and the process is killed there; the restarted service clears the interrupted attach,
  which takes the group with it.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from metalwire.db.engine import Database
from tests.integration.test_tbn_attach import RULES
from tests.support.hanging_neutron import HangingNeutron
from tests.support.postgres import PostgresServer
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.111"}
LEASE_S = 3.0
MACS = ("52:54:00:7c:00:01", "52:54:00:7c:00:02")


@dataclass
class Crash:
    """A service on one database, the node ``tbn-crash`` (trait CUSTOM_DYNAMIC) with two
    groupable ports; :meth:`restart` brings a killed service back on the same database."""

    tmp_path: Path
    name: str  # of the PostgreSQL database
    url: str
    env: dict[str, str]
    server: MetalwireServer
    db: Database
    neutron: HangingNeutron
    node: str = ""

    def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.request(method, self.server.url + path, headers=HEADERS, timeout=60, **kwargs)

    def arrange(self, network_interface: str) -> None:
        body = {
            "driver": "fake-hardware",
            "name": "tbn-crash",
            "network_interface": network_interface,
        }
        resp = self.call("POST", "/v1/nodes", json=body)
        assert resp.status_code == 201, resp.text
        self.node = resp.json()["uuid"]
        traits = [{"op": "add", "path": "/instance_info", "value": {"traits": ["CUSTOM_DYNAMIC"]}}]
        assert self.call("PATCH", "/v1/nodes/tbn-crash", json=traits).status_code == 200
        for n, mac in enumerate(MACS):
            link = {"switch_id": "00:1b:21:00:00:01", "port_id": f"Ethernet7/{n}"}
            port = {"node_uuid": self.node, "address": mac, "category": "network",
                    "physical_network": "physnet1", "local_link_connection": link}  # fmt: skip
            resp = self.call("POST", "/v1/ports", json=port)
            assert resp.status_code == 201, resp.text

    def attach_in_background(self) -> None:
        def attach() -> None:
            with contextlib.suppress(httpx.TransportError):  # killed mid-request
                self.call("POST", "/v1/nodes/tbn-crash/vifs", json={"id": "vif-crash"})

        threading.Thread(target=attach, daemon=True).start()

    def groups_and_members(self) -> tuple[int, set[int | None]]:
        with self.db.reading() as work:
            node = work.nodes.get(self.node)
            groups = work.portgroups.for_node(node.id)
            return len(groups), {p.portgroup_id for p in work.ports.for_node(node.id)}

    def restart(self) -> None:
        self.server.kill()
        self.server = MetalwireServer(self.tmp_path / "after", database=self.url, env=self.env)
        self.server.start()

    def assert_nothing_left(self) -> None:
        """After the dead process's lease: no group, no port moved, no VIF; the ports group
        again (nothing holds them)."""
        time.sleep(LEASE_S)
        extra = [{"op": "add", "path": "/extra/after_crash", "value": True}]
        resp = self.call("PATCH", "/v1/nodes/tbn-crash", json=extra)  # a task clears the node
        assert resp.status_code == 200, resp.text
        assert self.groups_and_members() == (0, {None})
        assert self.call("GET", "/v1/nodes/tbn-crash/vifs").json() == {"vifs": []}
        ports = self.call("GET", "/v1/nodes/tbn-crash/ports/detail").json()["ports"]
        assert {p["portgroup_uuid"] for p in ports} == {None}
        assert all(p["internal_info"] == {} for p in ports), ports


@pytest.fixture
def crash(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Crash]:
    database = request.param
    name = f"tbn_crash_{uuid.uuid4().hex[:8]}"
    if database == "sqlite":
        url = f"sqlite:///{tmp_path / 'shared.db'}"
    else:
        fixture = "postgres_server" if database == "postgresql" else "mariadb_server"
        url = request.getfixturevalue(fixture).create_database(name)
    rules = tmp_path / "tbn.yaml"
    rules.write_text(RULES)
    neutron = HangingNeutron(answer_on_release=True)  # it answers once a test says so
    env = {
        "METALWIRE_CONDUCTOR_ENABLE_TRAIT_BASED_NETWORKING": "true",
        "METALWIRE_CONDUCTOR_TRAIT_BASED_NETWORKING_CONFIG_FILE": str(rules),
        "METALWIRE_NEUTRON_URL": neutron.url,
        "METALWIRE_NEUTRON_TIMEOUT": "300",
        "METALWIRE_NEUTRON_RETRIES": "0",
        "METALWIRE_CONDUCTOR_NODE_LOCK_LEASE": str(LEASE_S),
        "METALWIRE_CONDUCTOR_NODE_LOCK_WAIT": "30",
    }
    server = MetalwireServer(tmp_path / "before", database=url, env=env).start()
    db = Database(url)
    state = Crash(tmp_path, name, url, env, server, db, neutron)
    try:
        yield state
    finally:
        db.dispose()
        state.server.stop()
        neutron.close()
    assert "Traceback" not in state.server.log(), state.server.log()


@pytest.mark.parametrize(
    "crash",
    [
        "sqlite",
        pytest.param("postgresql", marks=pytest.mark.postgresql),
        pytest.param("mariadb", marks=pytest.mark.mariadb),
    ],
    indirect=True,
)
def test_a_kill_between_recording_and_the_neutron_binding_leaves_no_group(crash: Crash) -> None:
    crash.arrange("neutron")
    with crash.db.writing() as work:  # deployed: the neutron interface binds on attach
        work.nodes.update(work.nodes.get(crash.node).id, {"provision_state": "active"})
    crash.attach_in_background()
    assert crash.neutron.put_seen.wait(30), "the attach never reached its Neutron binding"
    # The gap is real: the group and the pending record are committed before Neutron is told.
    assert crash.groups_and_members()[0] == 1

    crash.restart()

    crash.assert_nothing_left()
    history = crash.call("GET", "/v1/nodes/tbn-crash/history").json()["history"]
    assert any("vif-crash" in e["event"] and "interrupted" in e["event"] for e in history)


@pytest.mark.postgresql
@pytest.mark.parametrize("crash", ["postgresql"], indirect=True)
@pytest.mark.parametrize("interface", ["flat", "neutron"])
def test_a_kill_between_building_the_group_and_recording_the_vif_leaves_no_group(
    crash: Crash, postgres_server: PostgresServer, interface: str
) -> None:
    crash.arrange(interface)
    blocker = postgres_server.connect(crash.name)
    blocker.autocommit = False
    watcher = postgres_server.connect(crash.name)
    try:
        with blocker.cursor() as cur:
            cur.execute("LOCK TABLE vif_attachments IN EXCLUSIVE MODE")
        crash.attach_in_background()
        held = _wait_blocked_on_vif_attachments(watcher)
        # Blocked on the record, with the group written and its ports moved, uncommitted.
        assert {"portgroups", "ports"} <= held, held
        crash.restart()  # kills the blocked process first
    finally:
        blocker.rollback()
        blocker.close()
        watcher.close()

    crash.assert_nothing_left()
    crash.neutron.release.set()  # Neutron answers again: the attach seeds the VIF's binding
    assert crash.call("POST", "/v1/nodes/tbn-crash/vifs", json={"id": "vif-2"}).status_code == 204
    assert crash.groups_and_members()[0] == 1


def _wait_blocked_on_vif_attachments(conn: Any) -> set[str]:
    """The tables the backend waiting to write ``vif_attachments`` has written to."""
    deadline = time.monotonic() + 30
    with conn.cursor() as cur:
        while time.monotonic() < deadline:
            cur.execute(
                "SELECT l.pid FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                " WHERE c.relname = 'vif_attachments' AND NOT l.granted"
            )
            row = cur.fetchone()
            if row is not None:
                cur.execute(
                    "SELECT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                    " WHERE l.pid = %s AND l.granted AND l.mode = 'RowExclusiveLock'",
                    (row[0],),
                )
                return {name for (name,) in cur.fetchall()}
            time.sleep(0.05)
    raise AssertionError("the attach never waited to record its VIF")
