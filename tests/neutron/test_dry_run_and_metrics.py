"""The dry-run attach and the Neutron metrics of a real server talking to the real Neutron.

The VIF's physical networks come from its Neutron network's segments, read as the attach
reads them; the dry run leaves the Neutron port as it was.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.neutron.clients import SW2, Json, Metalwire, Neutron, link, neutron_with
from tests.support.server import MetalwireServer

DRY = {"X-Metalwire-Dry-Run": "true"}


@pytest.fixture(scope="module")
def neutron(neutron_endpoint: str) -> Iterator[Neutron]:
    with neutron_with(neutron_endpoint, {"mw-dry-p1": "physnet1", "mw-dry-p2": "physnet2"}) as api:
        yield api


@pytest.fixture(scope="module")
def api(
    neutron: Neutron, neutron_endpoint: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Metalwire]:
    env = {"METALWIRE_NEUTRON_URL": neutron_endpoint}
    with MetalwireServer(tmp_path_factory.mktemp("neutron-dry-run"), env=env) as server:
        client = Metalwire(server.url)
        yield client
        client.close()


def neutron_calls(api: Metalwire, operation: str) -> float:
    text = api.http.get("/metrics").text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if (
                sample.name == "metalwire_neutron_request_duration_seconds_count"
                and sample.labels == {"operation": operation}
            ):
                return float(sample.value)
    return 0.0


def test_dry_run_reads_the_vif_physical_networks_from_neutron(
    api: Metalwire, neutron: Neutron
) -> None:
    node = api.node("dry-phys")
    on_p1 = api.port(node, "52:54:00:68:00:01", link("Ethernet30/1"), physical_network="physnet1")
    on_p2 = api.port(
        node,
        "52:54:00:68:00:02",
        link("Ethernet30/2", SW2.name, SW2.mac_address),
        physical_network="physnet2",
    )
    no_link = api.port(node, "52:54:00:68:00:03", {}, physical_network="physnet2")
    vif = neutron.vif("mw-dry-p2")
    history_before = api.get(f"/v1/nodes/{node['uuid']}/history")["history"]
    ports_read = neutron_calls(api, "GET /ports/{id}")
    networks_read = neutron_calls(api, "GET /networks/{id}")

    response = api.http.post("/v1/nodes/dry-phys/vifs", json={"id": vif["id"]}, headers=DRY)

    assert response.status_code == 200, response.text
    answer: Json = response.json()
    assert answer["network_interface"] == "neutron"
    assert answer["physical_networks"] == ["physnet2"]
    assert answer["target"]["uuid"] == on_p2["uuid"]
    reasons = {r["uuid"]: r for r in answer["refused"]}
    assert reasons[on_p1["uuid"]]["reason"] == "physical_network"
    assert (
        "is on physical network physnet1, the VIF needs physnet2"
        in (reasons[on_p1["uuid"]]["message"])
    )
    assert reasons[no_link["uuid"]]["reason"] == "unusable"
    assert "has no local_link_connection" in reasons[no_link["uuid"]]["message"]
    # Read as an attach reads it, and nothing changed, in Neutron or in metalwire.
    assert neutron_calls(api, "GET /ports/{id}") == ports_read + 1
    assert neutron_calls(api, "GET /networks/{id}") == networks_read + 1
    assert neutron.port(vif["id"])["mac_address"] == vif["mac_address"]
    assert neutron.port(vif["id"])["binding:host_id"] == ""
    assert api.vifs("dry-phys") == []
    assert api.get(f"/v1/nodes/{node['uuid']}/history")["history"] == history_before

    # A VIF on a network no port of the node is on: nothing can take it, and the error is
    # the attach's own.
    elsewhere = neutron.vif("mw-dry-p1")
    api.http.delete(f"/v1/ports/{on_p1['uuid']}")
    refused = api.http.post("/v1/nodes/dry-phys/vifs", json={"id": elsewhere["id"]}, headers=DRY)
    assert refused.status_code == 200, refused.text
    body: Json = refused.json()
    assert body["target"] is None
    assert body["error"]["type"] == "NoFreePhysicalPort"
    assert {r["reason"] for r in body["refused"]} == {"physical_network", "unusable"}


def test_dry_run_of_a_vif_neutron_does_not_have_is_the_attach_error(api: Metalwire) -> None:
    node = api.node("dry-ghost")
    api.port(node, "52:54:00:69:00:01", link("Ethernet31/1"))
    ghost = "5b0f8a1e-0000-4000-8000-00000000dead"
    response = api.http.post("/v1/nodes/dry-ghost/vifs", json={"id": ghost}, headers=DRY)
    assert response.status_code == 400, response.text
    assert f"Neutron has no port {ghost}" in response.text
