"""What a stopping server does with its leases when a periodic run outlasts the stop: it
leaves them to run out, as it does for a provision step cut short, since the run's thread
may still write until the process ends."""

from __future__ import annotations

import threading

import pytest
from starlette.testclient import TestClient

from metalwire.api import app as app_module
from metalwire.api.app import create_app
from metalwire.conductor.locks import Deadline
from metalwire.conductor.rpcapi import LocalConductorAPI
from metalwire.config import Config
from metalwire.services import Services


@pytest.mark.parametrize("outlasts", [True, False])
def test_a_periodic_run_cut_short_at_shutdown_leaves_the_leases_to_run_out(
    config: Config, monkeypatch: pytest.MonkeyPatch, outlasts: bool
) -> None:
    monkeypatch.setattr(app_module, "STOP_WAIT", 0.3)
    config.conductor.check_provision_state_interval = 0.05
    in_run, go_on = threading.Event(), threading.Event()
    node_id: list[int] = []
    run_threads: list[threading.Thread] = []

    def hold_a_node(services: Services) -> None:
        """A provision check that took a node's lease and is still at work."""
        if in_run.is_set():
            return
        assert isinstance(services.rpcapi, LocalConductorAPI)
        locks = services.rpcapi.conductor.locks
        with locks.lease(node_id[0], "n1", Deadline(5)):
            run_threads.append(threading.current_thread())
            in_run.set()
            go_on.wait(0 if not outlasts else 10)

    monkeypatch.setattr(Services, "_check_provision_states", hold_a_node)
    app = create_app(config)
    with TestClient(app) as client:
        created = client.post(
            "/v1/nodes",
            json={"driver": "fake-hardware", "name": "n1"},
            headers={"X-OpenStack-Ironic-API-Version": "1.115"},
        )
        assert created.status_code == 201
        with app.state.services.db.reading() as work:
            node = work.nodes.find("n1")
        assert node is not None
        node_id.append(node.id)
        assert in_run.wait(10)
    with app.state.services.db.reading() as work:
        node = work.nodes.find("n1")
    go_on.set()
    _wait_for_the_writers(app.state.services, run_threads)
    app.state.services.db.dispose()  # what the run's end opened after the shutdown
    assert node is not None
    if outlasts:  # the run's thread may still write: no other process may take the node
        assert node.reservation is not None
    else:
        assert node.reservation is None


def _wait_for_the_writers(services: Services, run_threads: list[threading.Thread]) -> None:
    """Wait until nothing the test started can write any more (the run's thread, which
    releases its lease, then ends as the periodic job was asked to stop; the lease renewer),
    so that no connection is opened after the final dispose."""
    [run_thread] = run_threads
    run_thread.join(10)
    assert not run_thread.is_alive()
    assert isinstance(services.rpcapi, LocalConductorAPI)
    services.rpcapi.conductor.locks.stop_renewing()  # waits for a renewal under way
