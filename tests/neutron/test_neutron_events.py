"""Neutron's ironic notifier aimed at a real ``metalwire serve``: a Neutron of its own (on
the session's PostgreSQL) with ``[ironic] enable_notifications`` and, instead of Keystone,
``auth_type = none`` and ``endpoint_override`` naming metalwire, as docs/network-interfaces.md
tells operators. A bare-metal VIF deleted in Neutron reaches metalwire as
``network.delete_port``, logged naming the node the VIF is attached to, counted, and put in
that node's history; the attachment stays (the drift audit repairs it)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.neutron.clients import Metalwire, Neutron, link, neutron_with
from tests.support.helpers import free_port
from tests.support.neutron import NeutronServer
from tests.support.server import MetalwireServer

NETWORKS = {"ev-tenant": "physnet1"}
# Neutron batches its events and sends them every send_events_interval (at least 1 s).
ARRIVAL_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Pair:
    neutron: Neutron
    neutron_server: NeutronServer
    metalwire: MetalwireServer


@pytest.fixture(scope="module")
def pair(neutron_server: NeutronServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    # The notifier discovers metalwire's API version when Neutron starts (a Neutron worker
    # that cannot reach it fails to boot): metalwire first, told where Neutron will listen.
    neutron_port = free_port()
    env = {
        "METALWIRE_NEUTRON_URL": f"http://127.0.0.1:{neutron_port}",
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
    }
    with MetalwireServer(tmp_path_factory.mktemp("neutron-events"), env=env) as metalwire:
        notifying = {
            "DEFAULT": {"send_events_interval": "1"},
            "ironic": {
                "enable_notifications": "true",
                "auth_type": "none",
                "endpoint_override": metalwire.url,
            },
        }
        with (
            NeutronServer(
                neutron_server.postgres,
                database="neutron_events",
                port=neutron_port,
                config={"neutron.conf": notifying},
            ) as notifier,
            neutron_with(notifier.endpoint, NETWORKS) as neutron,
        ):
            yield Pair(neutron, notifier, metalwire)


def _eventually(found: Callable[[], bool], what: str, logs: Callable[[], str]) -> None:
    deadline = time.monotonic() + ARRIVAL_TIMEOUT_S
    while not found():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {ARRIVAL_TIMEOUT_S:.0f} s:\n{logs()[-4000:]}")
        time.sleep(0.2)


def test_a_baremetal_vif_deleted_in_neutron_reaches_metalwire_as_delete_port(
    pair: Pair,
) -> None:
    api = Metalwire(pair.metalwire.url)
    node = api.node("ev-node")
    api.port(node, "52:54:00:e8:00:01", link("Ethernet8/1"))
    vif = pair.neutron.vif("ev-tenant", **{"binding:vnic_type": "baremetal"})
    assert api.attach("ev-node", vif["id"]).status_code == 204
    assert pair.neutron.port(vif["id"])["mac_address"] == "52:54:00:e8:00:01"

    assert pair.neutron.http.delete(f"/ports/{vif['id']}").status_code == 204

    expected = (
        f"Network event network.delete_port for Neutron port {vif['id']} (MAC "
        f"52:54:00:e8:00:01, status DELETED): a VIF of node {node['uuid']} (ev-node)"
    )
    _eventually(
        lambda: expected in pair.metalwire.log(),
        "metalwire logged no network.delete_port naming the node",
        lambda: pair.metalwire.log() + pair.neutron_server.log_text(),
    )
    metrics = httpx.get(f"{pair.metalwire.url}/metrics").text
    assert 'metalwire_network_events_total{event="network.delete_port"} 1.0' in metrics
    history = api.get("/v1/nodes/ev-node/history?detail=true")["history"]
    received = [e for e in history if e["event_type"] == "network"]
    assert received[-1]["event"].startswith(f"network.delete_port for Neutron port {vif['id']}")
    assert api.vifs("ev-node") == [vif["id"]]  # an event changes no attachment
    assert "Error encountered posting the event to ironic" not in pair.neutron_server.log_text()
    api.close()
