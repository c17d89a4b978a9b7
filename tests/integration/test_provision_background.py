"""A provision verb on a node whose network interface calls an external service is answered
once accepted, and its steps go on in the background: a real ``metalwire serve``, the node on
the ``neutron`` interface, Neutron the suite's HangingNeutron, which holds the deploy's first change
of the node's VIF until the test lets it go.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from metalwire.client import Client, ProvisionStateError
from tests.api.test_metrics import scrape, value
from tests.integration.neutron_deploys import (
    NODE,
    STOPPED,
    Setup,
    call,
    cli,
    node,
    provision,
    settled,
)

pytestmark = pytest.mark.server


def test_a_deploy_is_answered_once_accepted_and_ends_in_active(deploys: Setup) -> None:
    server = deploys.server()
    deploys.available_node_with_a_vif(server)
    deploys.deploy_held_by_neutron(server)

    shown = node(server)
    assert (shown["provision_state"], shown["target_provision_state"]) == ("deploying", "active")
    assert shown["reservation"] is not None  # the background steps hold the node
    # Another change of the node waits for the lock, then says who holds it.
    resp = call(server, "PATCH", NODE, json=[{"op": "add", "path": "/extra/a", "value": 1}])
    assert resp.status_code == 409, resp.text
    assert "locked" in resp.text.lower(), resp.text

    with Client(server.url) as client:
        with pytest.raises(ProvisionStateError, match=r"still 'deploying' after 0\.3 s"):
            client.wait_for_provision_state("bg", "active", timeout=0.3, interval=0.1)
        deploys.neutron.release.set()
        states = client.wait_for_provision_state("bg", "active", timeout=30, interval=0.1)
    assert (states["target_provision_state"], states["last_error"]) == (None, None)
    assert node(server)["reservation"] is None
    events = [e["event"] for e in call(server, "GET", f"{NODE}/history").json()["history"]]
    assert events[-1] == "active done: active"
    # counted when the steps ended, timed from the acceptance (Neutron held them > 1 s)
    with httpx.Client(base_url=server.url) as http:
        samples = scrape(http)
    ended = {"verb": "active", "network_interface": "neutron"}
    assert value(samples, "metalwire_provision_operations_total", state="active", **ended) == 1
    assert value(samples, "metalwire_provision_duration_seconds_count", **ended) == 1
    assert value(samples, "metalwire_provision_duration_seconds_sum", **ended) > 1.0


def test_a_step_failing_after_the_answer_leaves_deploy_failed(deploys: Setup) -> None:
    deploys.neutron.answer_on_release = False
    server = deploys.server()
    deploys.available_node_with_a_vif(server)
    resp = provision(server, "active")
    assert resp.status_code == 202, resp.text
    assert deploys.neutron.put_seen.wait(30)
    assert node(server)["provision_state"] == "deploying"

    deploys.neutron.release.set()  # the held change's connection closed unanswered
    with Client(server.url) as client, pytest.raises(ProvisionStateError) as caught:
        client.wait_for_provision_state("bg", "active", timeout=30, interval=0.1)
    assert caught.value.state == "deploy failed"
    assert caught.value.last_error is not None
    assert "neutron" in caught.value.last_error.lower(), caught.value.last_error
    assert f"ended in 'deploy failed', not 'active': {caught.value.last_error}" in str(caught.value)
    shown = node(server)
    assert (shown["target_provision_state"], shown["reservation"]) == ("active", None)
    with httpx.Client(base_url=server.url) as http:
        samples = scrape(http)
    labels = {"verb": "active", "network_interface": "neutron", "state": "deploy failed"}
    assert value(samples, "metalwire_provision_operations_total", **labels) == 1


def test_baremetal_node_deploy_wait_returns_once_the_steps_are_done(
    deploys: Setup, tmp_path: Path
) -> None:
    server = deploys.server()
    deploys.available_node_with_a_vif(server)

    def release_once_held() -> None:
        if deploys.neutron.put_seen.wait(30):
            time.sleep(1.0)  # the CLI polls the node in 'deploying' meanwhile
        deploys.neutron.release.set()

    releasing = threading.Thread(target=release_once_held)
    releasing.start()
    result = cli(server, tmp_path).run("node", "deploy", "bg", "--wait", "60")
    releasing.join()
    assert result.returncode == 0, result.describe()
    assert result.seconds > 1.0, result.describe()
    assert node(server)["provision_state"] == "active"


def test_baremetal_node_deploy_wait_reports_a_deploy_that_failed_after_its_answer(
    deploys: Setup, tmp_path: Path
) -> None:
    deploys.neutron.answer_on_release = False  # the held change's connection closed unanswered
    server = deploys.server()
    deploys.available_node_with_a_vif(server)

    releasing = threading.Thread(
        target=lambda: deploys.neutron.put_seen.wait(30) and deploys.neutron.release.set()
    )
    releasing.start()
    result = cli(server, tmp_path).run("node", "deploy", "bg", "--wait", "60")
    releasing.join()
    deploys.neutron.release.set()
    assert result.returncode == 1, result.describe()
    shown = node(server)
    assert shown["provision_state"] == "deploy failed"
    assert "deploy failed" in result.stderr, result.describe()
    assert shown["last_error"] in result.stderr, result.describe()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stopping_server_finishes_the_deploy_first(deploys: Setup, workers: int) -> None:
    """One process, or a supervisor whose worker running the deploy waits for it."""
    server = deploys.server(["--workers", str(workers)])
    deploys.available_node_with_a_vif(server)
    deploys.deploy_held_by_neutron(server)
    assert server.process is not None

    os.killpg(server.process.pid, signal.SIGTERM)
    time.sleep(1.0)
    assert server.process.poll() is None, "the server stopped with its deploy under way"
    deploys.neutron.release.set()
    assert server.process.wait(30) in STOPPED, server.log()

    after = deploys.server()
    shown = node(after)
    assert (shown["provision_state"], shown["last_error"]) == ("active", None)
    assert shown["reservation"] is None


def test_a_deploy_outliving_the_graceful_shutdown_timeout_is_failed(deploys: Setup) -> None:
    """Cut short, its lease is left to run out: no other process takes the node before."""
    lease = {"METALWIRE_CONDUCTOR_NODE_LOCK_LEASE": "10"}
    server = deploys.server(METALWIRE_GRACEFUL_SHUTDOWN_TIMEOUT="1", **lease)
    deploys.available_node_with_a_vif(server)
    deploys.deploy_held_by_neutron(server)
    assert server.process is not None

    holder = node(server)["reservation"]
    stopped = time.monotonic()
    os.killpg(server.process.pid, signal.SIGTERM)
    assert server.process.wait(30) in STOPPED
    assert time.monotonic() - stopped < 15
    assert "cut short: provision active of node bg" in server.log(), server.log()

    after = deploys.server(**lease)
    shown = node(after)
    assert (shown["provision_state"], shown["reservation"]) == ("deploying", holder), shown
    shown = settled(after)
    assert shown["provision_state"] == "deploy failed", shown
    assert "'deploying' was cut short" in shown["last_error"]


def test_a_verb_beyond_workers_pool_size_is_refused_before_anything_is_done(
    deploys: Setup,
) -> None:
    server = deploys.server(METALWIRE_CONDUCTOR_WORKERS_POOL_SIZE="1")
    deploys.available_node_with_a_vif(server)
    deploys.deploy_held_by_neutron(server)  # the one operation this process may run
    body = {"driver": "fake-hardware", "name": "other"}
    assert call(server, "POST", "/v1/nodes", json=body).status_code == 201

    target = {"target": "manage"}
    resp = call(server, "PUT", "/v1/nodes/other/states/provision", json=target)
    assert resp.status_code == 503, resp.text
    assert resp.headers["retry-after"] == "5"
    fault = resp.json()["error_message"]
    assert "provision manage of node" in fault and "[conductor] workers_pool_size" in fault, fault
    shown = call(server, "GET", "/v1/nodes/other").json()
    assert (shown["provision_state"], shown["target_provision_state"]) == ("enroll", None)
    assert shown["reservation"] is None

    deploys.neutron.release.set()
    assert settled(server)["provision_state"] == "active"
    resp = call(server, "PUT", "/v1/nodes/other/states/provision", json=target)
    assert resp.status_code == 202, resp.text
