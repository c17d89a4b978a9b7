"""A provision verb on a node whose network interface calls an external service is answered
once accepted, and its steps go on in the background: a real ``metalwire serve``, the node on
the ``neutron`` interface, Neutron the suite's HangingNeutron, which holds the deploy's binding
of the node's VIF until the test lets it go.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from metalwire.client import Client, ProvisionStateError
from tests.api.test_metrics import scrape, value
from tests.compat.clients import Cli
from tests.support.hanging_neutron import HangingNeutron
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
NODE = "/v1/nodes/bg"
# How metalwire serve ends on SIGTERM: uvicorn raises the signal again once it has stopped.
STOPPED = (0, -signal.SIGTERM)


def _call(server: MetalwireServer, method: str, path: str, **kwargs: Any) -> httpx.Response:
    return httpx.request(method, server.url + path, headers=HEADERS, timeout=60, **kwargs)


def _provision(server: MetalwireServer, target: str) -> httpx.Response:
    return _call(server, "PUT", f"{NODE}/states/provision", json={"target": target})


def _node(server: MetalwireServer) -> dict[str, Any]:
    return dict(_call(server, "GET", NODE).json())


def _settled(server: MetalwireServer, transient: str, within: float = 30.0) -> dict[str, Any]:
    """The node once it has left ``transient``."""
    deadline = time.monotonic() + within
    shown = _node(server)
    while shown["provision_state"] == transient and time.monotonic() < deadline:
        time.sleep(0.1)
        shown = _node(server)
    return shown


class Setup:
    def __init__(self, tmp_path: Path, neutron: HangingNeutron) -> None:
        self.tmp_path = tmp_path
        self.neutron = neutron
        self.database = f"sqlite:///{tmp_path / 'shared.db'}"
        self.env = {
            "METALWIRE_NEUTRON_URL": neutron.url,
            "METALWIRE_NEUTRON_TIMEOUT": "300",
            "METALWIRE_NEUTRON_RETRIES": "0",
            "METALWIRE_CONDUCTOR_NODE_LOCK_LEASE": "3",
            "METALWIRE_CONDUCTOR_NODE_LOCK_WAIT": "1",
            "METALWIRE_CONDUCTOR_CHECK_PROVISION_STATE_INTERVAL": "0.5",
            "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
        }
        self.servers: list[MetalwireServer] = []

    def server(self, args: list[str] | None = None, **env: str) -> MetalwireServer:
        name = f"server-{len(self.servers)}"
        server = MetalwireServer(
            self.tmp_path / name, database=self.database, env={**self.env, **env}, args=args
        )
        self.servers.append(server)
        return server.start()

    def available_node_with_a_vif(self, server: MetalwireServer) -> None:
        body = {"driver": "fake-hardware", "name": "bg", "network_interface": "neutron"}
        assert _call(server, "POST", "/v1/nodes", json=body).status_code == 201
        link = {"switch_id": "00:1b:21:00:00:01", "port_id": "Ethernet1/1"}
        port = {
            "node_uuid": _node(server)["uuid"],
            "address": "52:54:00:7d:00:02",
            "local_link_connection": link,
        }
        assert _call(server, "POST", "/v1/ports", json=port).status_code == 201
        for verb in ("manage", "provide"):
            assert _provision(server, verb).status_code == 202
        resp = _call(server, "POST", f"{NODE}/vifs", json={"id": "vif-bg"})
        assert resp.status_code == 204, resp.text
        assert _node(server)["provision_state"] == "available"

    def deploy_held_by_neutron(self, server: MetalwireServer) -> None:
        """Start a deploy; it is answered while Neutron holds its binding."""
        resp = _provision(server, "active")
        assert resp.status_code == 202, resp.text
        assert self.neutron.put_seen.wait(30), "the deploy never reached its Neutron binding"
        assert not self.neutron.release.is_set()


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    neutron = HangingNeutron(answered_puts=1, answer_on_release=True)  # the attach's PUT
    made = Setup(tmp_path, neutron)
    try:
        yield made
    finally:
        for server in made.servers:
            server.stop()
        neutron.close()
    for server in made.servers:
        assert "Traceback" not in server.log(), server.log()


def test_a_deploy_is_answered_once_accepted_and_ends_in_active(setup: Setup) -> None:
    server = setup.server()
    setup.available_node_with_a_vif(server)
    setup.deploy_held_by_neutron(server)

    shown = _node(server)
    assert (shown["provision_state"], shown["target_provision_state"]) == ("deploying", "active")
    assert shown["reservation"] is not None  # the background steps hold the node
    # Another change of the node waits for the lock, then says who holds it.
    resp = _call(server, "PATCH", NODE, json=[{"op": "add", "path": "/extra/a", "value": 1}])
    assert resp.status_code == 409, resp.text
    assert "locked" in resp.text.lower(), resp.text

    with Client(server.url) as client:
        with pytest.raises(ProvisionStateError, match=r"still 'deploying' after 0\.3 s"):
            client.wait_for_provision_state("bg", "active", timeout=0.3, interval=0.1)
        setup.neutron.release.set()
        states = client.wait_for_provision_state("bg", "active", timeout=30, interval=0.1)
    assert (states["target_provision_state"], states["last_error"]) == (None, None)
    assert _node(server)["reservation"] is None
    events = [e["event"] for e in _call(server, "GET", f"{NODE}/history").json()["history"]]
    assert events[-1] == "active done: active"
    # counted when the steps ended, timed from the acceptance (Neutron held them > 1 s)
    with httpx.Client(base_url=server.url) as http:
        samples = scrape(http)
    ended = {"verb": "active", "network_interface": "neutron"}
    assert value(samples, "metalwire_provision_operations_total", state="active", **ended) == 1
    assert value(samples, "metalwire_provision_duration_seconds_count", **ended) == 1
    assert value(samples, "metalwire_provision_duration_seconds_sum", **ended) > 1.0


def test_a_step_failing_after_the_answer_leaves_deploy_failed(setup: Setup) -> None:
    setup.neutron.answer_on_release = False
    server = setup.server()
    setup.available_node_with_a_vif(server)
    resp = _provision(server, "active")
    assert resp.status_code == 202, resp.text
    assert setup.neutron.put_seen.wait(30)
    assert _node(server)["provision_state"] == "deploying"

    setup.neutron.release.set()  # the binding's connection closed unanswered
    with Client(server.url) as client, pytest.raises(ProvisionStateError) as caught:
        client.wait_for_provision_state("bg", "active", timeout=30, interval=0.1)
    assert caught.value.state == "deploy failed"
    assert caught.value.last_error is not None
    assert "neutron" in caught.value.last_error.lower(), caught.value.last_error
    assert f"ended in 'deploy failed', not 'active': {caught.value.last_error}" in str(caught.value)
    shown = _node(server)
    assert (shown["target_provision_state"], shown["reservation"]) == (None, None)
    with httpx.Client(base_url=server.url) as http:
        samples = scrape(http)
    labels = {"verb": "active", "network_interface": "neutron", "state": "deploy failed"}
    assert value(samples, "metalwire_provision_operations_total", **labels) == 1


def test_baremetal_node_deploy_wait_returns_once_the_steps_are_done(
    setup: Setup, tmp_path: Path
) -> None:
    server = setup.server()
    setup.available_node_with_a_vif(server)
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    cli = Cli("baremetal", server.url, env)

    def release_once_held() -> None:
        if setup.neutron.put_seen.wait(30):
            time.sleep(1.0)  # the CLI polls the node in 'deploying' meanwhile
        setup.neutron.release.set()

    releasing = threading.Thread(target=release_once_held)
    releasing.start()
    result = cli.run("node", "deploy", "bg", "--wait", "60")
    releasing.join()
    assert result.returncode == 0, result.describe()
    assert result.seconds > 1.0, result.describe()
    assert _node(server)["provision_state"] == "active"


def test_baremetal_node_deploy_wait_reports_a_deploy_that_failed_after_its_answer(
    setup: Setup, tmp_path: Path
) -> None:
    setup.neutron.answer_on_release = False  # the binding's connection closed unanswered
    server = setup.server()
    setup.available_node_with_a_vif(server)
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path), "LANG": "C.UTF-8"}

    releasing = threading.Thread(
        target=lambda: setup.neutron.put_seen.wait(30) and setup.neutron.release.set()
    )
    releasing.start()
    result = Cli("baremetal", server.url, env).run("node", "deploy", "bg", "--wait", "60")
    releasing.join()
    setup.neutron.release.set()
    assert result.returncode == 1, result.describe()
    shown = _node(server)
    assert shown["provision_state"] == "deploy failed"
    assert "deploy failed" in result.stderr, result.describe()
    assert shown["last_error"] in result.stderr, result.describe()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stopping_server_finishes_the_deploy_first(setup: Setup, workers: int) -> None:
    """One process, or a supervisor whose worker running the deploy waits for it."""
    server = setup.server(["--workers", str(workers)])
    setup.available_node_with_a_vif(server)
    setup.deploy_held_by_neutron(server)
    assert server.process is not None

    os.killpg(server.process.pid, signal.SIGTERM)
    time.sleep(1.0)
    assert server.process.poll() is None, "the server stopped with its deploy under way"
    setup.neutron.release.set()
    assert server.process.wait(30) in STOPPED, server.log()

    after = setup.server()
    shown = _node(after)
    assert (shown["provision_state"], shown["last_error"]) == ("active", None)
    assert shown["reservation"] is None


def test_a_deploy_outliving_the_graceful_shutdown_timeout_is_failed(setup: Setup) -> None:
    """Cut short, its lease is left to run out: no other process takes the node before."""
    lease = {"METALWIRE_CONDUCTOR_NODE_LOCK_LEASE": "10"}
    server = setup.server(METALWIRE_GRACEFUL_SHUTDOWN_TIMEOUT="1", **lease)
    setup.available_node_with_a_vif(server)
    setup.deploy_held_by_neutron(server)
    assert server.process is not None

    holder = _node(server)["reservation"]
    stopped = time.monotonic()
    os.killpg(server.process.pid, signal.SIGTERM)
    assert server.process.wait(30) in STOPPED
    assert time.monotonic() - stopped < 15
    assert "cut short: provision active of node bg" in server.log(), server.log()

    after = setup.server(**lease)
    shown = _node(after)
    assert (shown["provision_state"], shown["reservation"]) == ("deploying", holder), shown
    shown = _settled(after, "deploying")
    assert shown["provision_state"] == "deploy failed", shown
    assert "'deploying' was cut short" in shown["last_error"]
