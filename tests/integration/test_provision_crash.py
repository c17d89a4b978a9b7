"""A deploy killed (SIGKILL) half-way: the node it left in ``deploying`` is failed to ``deploy
failed`` by the restarted service's provision check once the dead process's lease runs out,
with no client touching the node.

The node uses the ``neutron`` interface, whose deploy commits each step: Neutron (the suite's
HangingNeutron) never answers the binding of the node's VIF, and the process is killed there.
"""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.hanging_neutron import HangingNeutron
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
LEASE_S = 3.0


def _call(server: MetalwireServer, method: str, path: str, **kwargs: Any) -> httpx.Response:
    return httpx.request(method, server.url + path, headers=HEADERS, timeout=60, **kwargs)


def _provision(server: MetalwireServer, target: str) -> httpx.Response:
    return _call(server, "PUT", "/v1/nodes/crash/states/provision", json={"target": target})


def _state(server: MetalwireServer) -> dict[str, Any]:
    return dict(_call(server, "GET", "/v1/nodes/crash").json())


def test_a_deploy_killed_half_way_ends_in_deploy_failed(tmp_path: Path) -> None:
    neutron = HangingNeutron(answered_puts=1)  # the attach's; the deploy's binding hangs
    env = {
        "METALWIRE_NEUTRON_URL": neutron.url,
        "METALWIRE_NEUTRON_TIMEOUT": "300",
        "METALWIRE_NEUTRON_RETRIES": "0",
        "METALWIRE_CONDUCTOR_NODE_LOCK_LEASE": str(LEASE_S),
        "METALWIRE_CONDUCTOR_CHECK_PROVISION_STATE_INTERVAL": "0.5",
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
    }
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    server = MetalwireServer(tmp_path / "before", database=url, env=env).start()
    try:
        body = {"driver": "fake-hardware", "name": "crash", "network_interface": "neutron"}
        assert _call(server, "POST", "/v1/nodes", json=body).status_code == 201
        uuid = _state(server)["uuid"]
        link = {"switch_id": "00:1b:21:00:00:01", "port_id": "Ethernet1/1"}
        port = {"node_uuid": uuid, "address": "52:54:00:7d:00:01", "local_link_connection": link}
        assert _call(server, "POST", "/v1/ports", json=port).status_code == 201
        for verb in ("manage", "provide"):
            assert _provision(server, verb).status_code == 202
        resp = _call(server, "POST", "/v1/nodes/crash/vifs", json={"id": "vif-crash"})
        assert resp.status_code == 204, resp.text
        assert _state(server)["provision_state"] == "available"

        def deploy() -> None:
            with contextlib.suppress(httpx.TransportError):  # killed mid-request
                _provision(server, "active")

        threading.Thread(target=deploy, daemon=True).start()
        assert neutron.put_seen.wait(30), "the deploy never reached its Neutron binding"
        assert _state(server)["provision_state"] == "deploying"

        server.kill()
        server = MetalwireServer(tmp_path / "after", database=url, env=env).start()
        killed = time.monotonic()
        deadline = killed + LEASE_S + 20
        shown = _state(server)
        while shown["provision_state"] == "deploying" and time.monotonic() < deadline:
            time.sleep(0.2)
            shown = _state(server)

        assert (shown["provision_state"], shown["target_provision_state"]) == (
            "deploy failed",
            None,
        )
        assert "'deploying' was cut short" in shown["last_error"]
        history = _call(server, "GET", "/v1/nodes/crash/history").json()["history"]
        assert history[-1]["severity"] == "ERROR"
        assert history[-1]["event"] == shown["last_error"]
    finally:
        server.stop()
        neutron.close()
    assert "Traceback" not in server.log(), server.log()
