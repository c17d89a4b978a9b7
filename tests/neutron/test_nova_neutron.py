"""The real Nova ironic driver spawns and destroys an instance on a node with the neutron
network interface, against the real Neutron the session starts."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import _unavailable
from tests.neutron.clients import Metalwire, Neutron, assert_unbound, link
from tests.neutron.interface_fixtures import fixture_neutron  # noqa: F401  (the networks)
from tests.neutron.relay import Relay, server_env_through
from tests.support.helpers import settled_node
from tests.support.neutron import NeutronServer
from tests.support.nova import NovaDriver, nova_python
from tests.support.server import MetalwireServer


@pytest.fixture(scope="module")
def nova_server(
    neutron: Neutron,
    neutron_endpoint: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[MetalwireServer]:
    env = {
        "METALWIRE_NEUTRON_URL": neutron_endpoint,
        "METALWIRE_NEUTRON_PROVISIONING_NETWORK": "mw-provision",
        "METALWIRE_NEUTRON_CLEANING_NETWORK": "mw-clean",
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
    }
    with MetalwireServer(tmp_path_factory.mktemp("nova-neutron"), env=env) as running:
        yield running


@pytest.fixture
def nova(nova_server: MetalwireServer, tmp_path: Path) -> Iterator[NovaDriver]:
    python = nova_python()
    if python is None:
        _unavailable("the Nova venv is missing (scripts/install-nova)")
    assert python is not None
    with NovaDriver(python, nova_server.url, "compute-1", tmp_path / "nova.log") as driver:
        yield driver


def _spawned(nova: NovaDriver, node: dict[str, Any], vifs: list[dict[str, Any]]) -> str:
    """A new instance with ``vifs`` spawned by the driver on ``node``; its UUID."""
    instance = str(uuid.uuid4())
    pairs = [[vif["id"], vif["mac_address"]] for vif in vifs]
    nova.call("new_instance", uuid=instance, node=node["uuid"], vifs=pairs)
    nova.call("prepare_for_spawn", uuid=instance)
    nova.call("spawn", uuid=instance)
    return instance


def test_nova_spawn_and_destroy_with_the_neutron_interface(
    nova_server: MetalwireServer,
    nova: NovaDriver,
    neutron: Neutron,
    neutron_server: NeutronServer,
) -> None:
    api = Metalwire(nova_server.url)
    node = api.node("nova-n")
    api.port(node, "52:54:00:70:00:01", link("Ethernet31/1"), physical_network="physnet1")
    api.port(node, "52:54:00:70:00:02", link("Ethernet31/2"), physical_network="physnet1")
    assert api.provision("nova-n", "manage", "provide")["power_state"] == "power off"
    vifs = [neutron.vif("mw-tenant-p1"), neutron.vif("mw-tenant-p1")]
    instance = _spawned(nova, node, vifs)

    shown = api.get(f"/v1/nodes/{node['uuid']}")
    assert (shown["provision_state"], shown["instance_uuid"]) == ("active", instance)
    events = [e["event"] for e in api.get("/v1/nodes/nova-n/history?detail=true")["history"]]
    steps = [e for e in events if e.startswith("neutron.") and "network" in e]
    # The deploy put the node's PXE ports on the provisioning network, then took them off.
    assert steps == [
        "neutron.add_provisioning_network done",
        "neutron.remove_provisioning_network done",
        "neutron.configure_tenant_networks done",
    ]
    assert "plug port Ethernet31/1" in " ".join(neutron_server.fake_switch_commands())
    assert neutron.ports_on("mw-provision") == []
    macs = set()
    for vif in vifs:
        port = neutron.wait_status(vif["id"], "ACTIVE")
        assert port["binding:host_id"] == node["uuid"]
        assert port["binding:vnic_type"] == "baremetal"
        macs.add(port["mac_address"])
    assert macs == {"52:54:00:70:00:01", "52:54:00:70:00:02"}

    nova.call("destroy", uuid=instance)
    shown = api.get(f"/v1/nodes/{node['uuid']}")
    assert (shown["provision_state"], shown["instance_uuid"]) == ("available", None)
    assert api.vifs("nova-n") == []
    for vif in vifs:
        assert_unbound(neutron.port(vif["id"]), vif["mac_address"])
    api.close()


def test_validate_says_why_no_port_can_carry_a_vif(nova_server: MetalwireServer) -> None:
    api = Metalwire(nova_server.url)
    node = api.node("nova-nolink")
    resp = api.http.post(
        "/v1/ports", json={"node_uuid": node["uuid"], "address": "52:54:00:70:01:01"}
    )
    assert resp.status_code == 201, resp.text
    network = api.get("/v1/nodes/nova-nolink/validate")["network"]
    assert network["result"] is False
    assert "52:54:00:70:01:01) has no local_link_connection" in network["reason"]
    api.port(node, "52:54:00:70:01:02", link("Ethernet32/1"), physical_network="physnet1")
    assert api.get("/v1/nodes/nova-nolink/validate")["network"] == {"result": True}
    api.close()


def test_an_instance_whose_nodes_cleaning_fails_is_deleted_all_the_same(
    neutron: Neutron, neutron_endpoint: str, tmp_path: Path
) -> None:
    """The undeploy is done before the cleaning starts: when the cleaning then fails (here its
    network does not exist), the node waits in ``clean failed`` for the operator without the
    instance, as Ironic's, and Nova's delete of the instance succeeds."""
    python = nova_python()
    if python is None:
        _unavailable("the Nova venv is missing (scripts/install-nova)")
    assert python is not None
    env = {
        "METALWIRE_NEUTRON_URL": neutron_endpoint,
        "METALWIRE_NEUTRON_PROVISIONING_NETWORK": "mw-provision",
        "METALWIRE_NEUTRON_CLEANING_NETWORK": "mw-no-such-network",
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "true",
    }
    with (
        MetalwireServer(tmp_path / "server", env=env) as server,
        NovaDriver(python, server.url, "compute-1", tmp_path / "nova.log") as nova,
        contextlib.closing(Metalwire(server.url)) as api,
    ):
        # Created available (API 1.10), so that no cleaning precedes the deploy.
        resp = api.http.post(
            "/v1/nodes",
            json={"name": "nova-c", "driver": "fake-hardware"},
            headers={"X-OpenStack-Ironic-API-Version": "1.10"},
        )
        assert resp.status_code == 201, resp.text
        neutron_interface = [{"op": "replace", "path": "/network_interface", "value": "neutron"}]
        resp = api.http.patch("/v1/nodes/nova-c", json=neutron_interface)
        assert resp.status_code == 200, resp.text
        node = resp.json()
        resp = api.http.put("/v1/nodes/nova-c/states/power", json={"target": "power off"})
        assert resp.status_code == 202, resp.text
        api.port(node, "52:54:00:70:02:01", link("Ethernet33/1"), physical_network="physnet1")
        vif = neutron.vif("mw-tenant-p1")
        instance = _spawned(nova, node, [vif])
        assert api.get("/v1/nodes/nova-c")["provision_state"] == "active"

        nova.call("destroy", uuid=instance)  # done once the node cleans (Nova's end states)

        shown = settled_node(lambda: api.get("/v1/nodes/nova-c"), timeout=60)
        assert (shown["provision_state"], shown["instance_uuid"]) == ("clean failed", None)
        assert "mw-no-such-network" in shown["last_error"]
        assert (shown["instance_info"], shown["power_state"]) == ({}, "power off")
        assert api.vifs("nova-c") == []
        assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_an_instance_whose_nodes_tear_down_fails_is_deleted_and_the_node_waits_in_error(
    neutron: Neutron, neutron_endpoint: str, tmp_path: Path
) -> None:
    """Neutron is unreachable when Nova deletes the instance: the tear-down fails. As Ironic's,
    the node lands in ``error`` without the instance or its VIF records, so Nova's delete
    ends (Nova finds no node for the instance any more) and the operator fixes the node."""
    python = nova_python()
    if python is None:
        _unavailable("the Nova venv is missing (scripts/install-nova)")
    assert python is not None
    relay = Relay(neutron_endpoint)
    relay.forward()
    env = server_env_through(relay)
    with (
        MetalwireServer(tmp_path / "server", env=env) as server,
        NovaDriver(python, server.url, "compute-1", tmp_path / "nova.log") as nova,
        contextlib.closing(Metalwire(server.url)) as api,
    ):
        node = api.node("nova-t")
        api.port(node, "52:54:00:70:03:01", link("Ethernet34/1"), physical_network="physnet1")
        api.provision("nova-t", "manage", "provide")
        vif = neutron.vif("mw-tenant-p1")
        instance = _spawned(nova, node, [vif])
        assert api.get("/v1/nodes/nova-t")["provision_state"] == "active"
        assert nova.call("list_instance_uuids") == [instance]

        relay.refuse()
        try:
            nova.call("destroy", uuid=instance)
        finally:
            relay.close()

        shown = api.get("/v1/nodes/nova-t")
        assert (shown["provision_state"], shown["instance_uuid"]) == ("error", None)
        assert shown["last_error"].startswith("Failed to tear down: Unbinding the VIFs")
        assert shown["instance_info"] == {}
        assert api.vifs("nova-t") == []
        assert nova.call("list_instance_uuids") == []
