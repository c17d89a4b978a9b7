"""Neutron unreachable in the middle of a test: a second server reaches Neutron through a
relay the test can cut (connections refused, or accepted and never answered)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.neutron.clients import UNKNOWN_SWITCH, Metalwire, Neutron, assert_unbound, link
from tests.neutron.interface_fixtures import fixture_neutron  # noqa: F401  (the networks)
from tests.neutron.relay import Relay, server_env_through
from tests.support.helpers import AGENT_RAMDISK, fault, settled_node, wait_for
from tests.support.server import MetalwireServer


@pytest.fixture(scope="module")
def relay(neutron_endpoint: str) -> Iterator[Relay]:
    running = Relay(neutron_endpoint)
    running.forward()
    yield running
    running.close()


@pytest.fixture(scope="module")
def cut_api(relay: Relay, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Metalwire]:
    """A second server, reaching Neutron through the relay with short timeouts."""
    env = server_env_through(relay)
    data_dir: Path = tmp_path_factory.mktemp("neutron-cut")
    with MetalwireServer(data_dir, env=env) as running:
        client = Metalwire(running.url)
        yield client
        client.close()


def test_neutron_unreachable_mid_test(cut_api: Metalwire, relay: Relay, neutron: Neutron) -> None:
    api = cut_api
    api.node("cut")
    api.port(api.get("/v1/nodes/cut"), "52:54:00:34:00:01", link("Ethernet26/1"))
    noop = api.node("bystander", "noop")
    api.port(noop, "52:54:00:34:00:09", link("Ethernet26/9"))
    vif, other = neutron.vif("mw-tenant-p1"), neutron.vif("mw-tenant-p1")
    assert api.attach("cut", vif["id"]).status_code == 204
    assert neutron.port(vif["id"])["mac_address"] == "52:54:00:34:00:01"

    # Connections refused: a clear 503 at once, naming the call; the VIF stays attached.
    relay.refuse()
    began = time.monotonic()
    response = api.detach("cut", vif["id"])
    assert response.status_code == 503, response.text
    message = fault(response)
    assert f"Neutron GET /v2.0/ports/{vif['id']}" in message
    assert f"Neutron at {relay.url}/v2.0 is unreachable" in message
    assert "detach can be retried" in message
    assert time.monotonic() - began < 10
    assert api.vifs("cut") == [vif["id"]]

    # No answer at all: the attach fails after the timeouts, and other nodes do not wait.
    relay.swallow()
    result: dict[str, Any] = {}

    def attach_other() -> None:
        started = time.monotonic()
        result["response"] = api.attach("cut", other["id"])
        result["seconds"] = time.monotonic() - started

    attaching = threading.Thread(target=attach_other)
    swallowed = relay.swallowed
    attaching.start()
    assert wait_for(lambda: relay.swallowed > swallowed), "the attach never reached Neutron"
    for step in (
        lambda: api.attach("bystander", "noop-vif"),
        lambda: api.vifs("bystander"),
        lambda: api.get("/v1/nodes/bystander"),
        lambda: api.get("/v1/nodes/cut/vifs"),
        lambda: api.detach("bystander", "noop-vif"),
    ):
        started = time.monotonic()
        step()
        assert time.monotonic() - started < 1.5
    assert attaching.is_alive(), "the other nodes' calls should finish while Neutron hangs"
    attaching.join(60)
    response = result["response"]
    assert response.status_code == 503, response.text
    message = fault(response)
    assert f"Attaching VIF {other['id']} to node" in message
    assert "nothing was changed" in message
    assert f"Neutron GET /v2.0/ports/{other['id']}" in message
    assert "no answer within 4 s (ReadTimeout)" in message
    assert result["seconds"] >= 4
    assert api.vifs("cut") == [vif["id"]]

    # Neutron back: the detach goes through and the MAC is restored.
    relay.forward()
    response = api.detach("cut", vif["id"])
    assert response.status_code == 204, response.text
    assert api.vifs("cut") == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])
    assert neutron.port(other["id"])["mac_address"] == other["mac_address"]


def test_a_failed_tear_down_leaves_the_node_in_error_without_its_instance(
    cut_api: Metalwire, relay: Relay, neutron: Neutron
) -> None:
    """Neutron unreachable while a deployed node is undeployed: as Ironic's, the node lands
    in ``error`` naming the failure, and its instance and VIF records are gone all the same,
    so that whoever deletes the instance is done; the operator fixes the node."""
    api = cut_api
    node = api.node("torn")
    api.port(node, "52:54:00:34:01:01", link("Ethernet26/11"))
    vif = neutron.vif("mw-tenant-p1")
    api.provision("torn", "manage", "provide")
    assert api.attach("torn", vif["id"]).status_code == 204
    instance = {"instance_uuid": str(uuid.uuid4()), "instance_name": "vm-torn"}
    patch = [{"op": "add", "path": f"/{k}", "value": v} for k, v in instance.items()]
    patch.append({"op": "add", "path": "/instance_info/image_source", "value": "img"})
    headers = {"X-OpenStack-Ironic-API-Version": "1.104"}
    patched = api.http.patch("/v1/nodes/torn", json=patch, headers=headers)
    assert patched.status_code == 200, patched.text
    assert api.provision("torn", "active")["provision_state"] == "active"

    relay.refuse()
    try:
        response = api.http.put("/v1/nodes/torn/states/provision", json={"target": "deleted"})
        assert response.status_code == 202, response.text
        shown = settled_node(lambda: api.get("/v1/nodes/torn"))
    finally:
        relay.forward()
    shown = api.http.get("/v1/nodes/torn", headers=headers).json()
    assert shown["provision_state"] == "error"
    assert (shown["instance_uuid"], shown["instance_name"]) == (None, None)
    assert shown["instance_info"] == {}
    assert shown["last_error"].startswith("Failed to tear down: Unbinding the VIFs of node")
    assert f"Neutron at {relay.url}/v2.0 is unreachable" in shown["last_error"]
    assert api.vifs("torn") == []
    history = api.get("/v1/nodes/torn/history?detail=true")["history"]
    failures = [e["event"] for e in history if e["severity"] == "ERROR"]
    assert failures == [f"deleted failed: {shown['last_error']}"]
    assert any(vif["id"] in e["event"] and "failed tear-down" in e["event"] for e in history)

    # Neutron back, the operator undeploys the node again: it is available.
    assert api.provision("torn", "deleted")["provision_state"] == "available"


def test_validate_reports_a_rescue_check_neutron_cannot_answer(
    cut_api: Metalwire, relay: Relay
) -> None:
    """The agent rescue's check asks Neutron for the rescuing network: unreachable, the
    rescue is reported as not validated, naming why, and the other interfaces still are."""
    api = cut_api
    api.node("rescue-check", rescue_interface="agent", driver_info={"rescuing_network": "mw-x"})

    relay.refuse()
    try:
        response = api.http.get("/v1/nodes/rescue-check/validate")
    finally:
        relay.forward()

    assert response.status_code == 200, response.text
    shown = response.json()
    assert shown["rescue"]["result"] is False
    assert f"Neutron at {relay.url}/v2.0 is unreachable" in shown["rescue"]["reason"]
    assert shown["power"] == {"result": True}


def test_an_inspection_aborted_while_neutron_is_unreachable_keeps_its_port_for_the_next(
    cut_api: Metalwire, relay: Relay, neutron: Neutron
) -> None:
    """Neutron unreachable when an agent inspection is aborted: the node is ``inspect
    failed`` all the same, ``last_error`` saying its inspection port could not be removed;
    that port stays recorded, and the next inspection deletes it before it makes its own."""
    api = cut_api
    mac = "52:54:00:34:02:01"
    # a switch Neutron does not know, which it answers at once (no switch to log in to);
    # its binding failing is not fatal here
    info = {
        **AGENT_RAMDISK,
        "inspection_network": "mw-tenant-p2",
        "fail_on_binding_failure": False,
    }
    node = api.node("insp-cut", inspect_interface="agent", boot_interface="pxe", driver_info=info)
    api.port(node, mac, UNKNOWN_SWITCH)
    api.provision("insp-cut", "manage")
    inspect, abort = {"target": "inspect"}, {"target": "abort"}
    assert api.http.put("/v1/nodes/insp-cut/states/provision", json=inspect).status_code == 202
    shown = settled_node(lambda: api.get("/v1/nodes/insp-cut"))
    assert (shown["provision_state"], shown["last_error"]) == ("inspect wait", None)
    [left] = neutron.ports_on("mw-tenant-p2", mac)

    relay.refuse()
    try:
        response = api.http.put("/v1/nodes/insp-cut/states/provision", json=abort)
        assert response.status_code == 202, response.text
        shown = settled_node(lambda: api.get("/v1/nodes/insp-cut"))
    finally:
        relay.forward()

    assert shown["provision_state"] == "inspect failed"
    assert shown["last_error"].startswith(
        "Inspection was aborted by request.; undoing its network failed: Removing node "
        f"{node['uuid']} from the inspection network failed"
    )
    assert f"Neutron at {relay.url}/v2.0 is unreachable" in shown["last_error"]
    [port] = api.get("/v1/nodes/insp-cut/ports/detail")["ports"]
    assert port["internal_info"]["inspection_vif_port_id"] == left["id"]

    assert api.http.put("/v1/nodes/insp-cut/states/provision", json=inspect).status_code == 202
    assert settled_node(lambda: api.get("/v1/nodes/insp-cut"))["provision_state"] == "inspect wait"
    [made] = neutron.ports_on("mw-tenant-p2", mac)
    assert made["id"] != left["id"]
    assert api.http.put("/v1/nodes/insp-cut/states/provision", json=abort).status_code == 202
    assert neutron.ports_on("mw-tenant-p2", mac) == []
