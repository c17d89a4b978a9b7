"""A neutron node on a real ``metalwire serve`` whose deploy Neutron holds: the suite's
HangingNeutron answers the attach's changes and holds the deploy's first change of the node's
VIF until a test lets it go (or the test kills the server there). Shared by the tests of
provision steps that go on after their answer and of a deploy cut short by a crash.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import httpx

from tests.compat.clients import Cli
from tests.support.hanging_neutron import HangingNeutron
from tests.support.helpers import settled_node
from tests.support.server import MetalwireServer

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
NODE = "/v1/nodes/bg"
# How metalwire serve ends on SIGTERM: uvicorn raises the signal again once it has stopped.
STOPPED = (0, -signal.SIGTERM)


def call(server: MetalwireServer, method: str, path: str, **kwargs: Any) -> httpx.Response:
    return httpx.request(method, server.url + path, headers=HEADERS, timeout=60, **kwargs)


def provision(server: MetalwireServer, target: str) -> httpx.Response:
    return call(server, "PUT", f"{NODE}/states/provision", json={"target": target})


def node(server: MetalwireServer) -> dict[str, Any]:
    return dict(call(server, "GET", NODE).json())


def settled(server: MetalwireServer) -> dict[str, Any]:
    """The node once its provision verb's steps are done."""
    return settled_node(lambda: node(server), timeout=30)


def cli(server: MetalwireServer, home: Path) -> Cli:
    """The real ``baremetal`` program against ``server``, nothing of ours in its home."""
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), "LANG": "C.UTF-8"}
    return Cli("baremetal", server.url, env)


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
        assert call(server, "POST", "/v1/nodes", json=body).status_code == 201
        link = {"switch_id": "00:1b:21:00:00:01", "port_id": "Ethernet1/1"}
        port = {
            "node_uuid": node(server)["uuid"],
            "address": "52:54:00:7d:00:02",
            "local_link_connection": link,
        }
        assert call(server, "POST", "/v1/ports", json=port).status_code == 201
        for verb in ("manage", "provide"):
            assert provision(server, verb).status_code == 202
        resp = call(server, "POST", f"{NODE}/vifs", json={"id": "vif-bg"})
        assert resp.status_code == 204, resp.text
        assert node(server)["provision_state"] == "available"

    def deploy_held_by_neutron(self, server: MetalwireServer) -> None:
        """Start a deploy; it is answered while Neutron holds its change of the VIF."""
        resp = provision(server, "active")
        assert resp.status_code == 202, resp.text
        assert self.neutron.put_seen.wait(30), "the deploy never reached its Neutron change"
        assert not self.neutron.release.is_set()
