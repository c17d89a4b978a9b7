"""A node whose network interface was taken out of ``enabled_network_interfaces``: what
needs the interface refuses, but the node can still be moved to an enabled interface, put
in and out of maintenance and deleted, as the docs promise (and Ironic allows)."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from metalwire.api.app import create_app
from metalwire.config import Config
from metalwire.services import build_services
from tests.support.app_client import AppClient

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.115"}


@pytest.fixture
def without_neutron(config: Config, client: TestClient) -> Iterator[tuple[TestClient, str]]:
    """A node on ``neutron`` made by ``client``, and a second server on the same database
    whose configuration no longer enables ``neutron``."""
    made = client.post(
        "/v1/nodes",
        json={"driver": "fake-hardware", "name": "n1", "network_interface": "neutron"},
        headers=HEADERS,
    )
    assert made.status_code == 201, made.text
    port = {
        "node_uuid": made.json()["uuid"],
        "address": "52:54:00:12:34:56",
        "local_link_connection": {"switch_id": "00:00:5e:00:53:01", "port_id": "swp1"},
    }
    assert client.post("/v1/ports", json=port, headers=HEADERS).status_code == 201
    narrower = copy.deepcopy(config)
    narrower.default.enabled_network_interfaces = ["noop", "flat"]
    services, locks = build_services(narrower, upgrade_schema=False)
    with AppClient(create_app(narrower, services)) as other:
        yield other, made.json()["uuid"]
    locks.release_all()
    services.db.dispose()


def test_what_needs_the_interface_refuses_naming_it(
    without_neutron: tuple[TestClient, str],
) -> None:
    client, node = without_neutron
    refused = client.post(f"/v1/nodes/{node}/vifs", json={"id": "vif-1"}, headers=HEADERS)
    assert refused.status_code == 400
    assert "Network interface 'neutron' is not enabled" in refused.text


def test_the_node_can_be_moved_to_an_enabled_interface(
    without_neutron: tuple[TestClient, str],
) -> None:
    client, node = without_neutron
    patch = [{"op": "replace", "path": "/network_interface", "value": "flat"}]
    moved = client.patch(f"/v1/nodes/{node}", json=patch, headers=HEADERS)
    assert moved.status_code == 200, moved.text
    assert moved.json()["network_interface"] == "flat"
    listed = client.get(f"/v1/nodes/{node}/vifs", headers=HEADERS)
    assert listed.status_code == 200 and listed.json() == {"vifs": []}


def test_the_node_can_go_into_maintenance_and_be_deleted(
    without_neutron: tuple[TestClient, str],
) -> None:
    client, node = without_neutron
    (port,) = client.get(f"/v1/nodes/{node}/ports", headers=HEADERS).json()["ports"]
    gone = client.delete(f"/v1/ports/{port['uuid']}", headers=HEADERS)
    assert gone.status_code == 204, gone.text
    into = client.put(f"/v1/nodes/{node}/maintenance", json={"reason": "moving"}, headers=HEADERS)
    assert into.status_code == 202, into.text
    out = client.delete(f"/v1/nodes/{node}/maintenance", headers=HEADERS)
    assert out.status_code == 202, out.text
    deleted = client.delete(f"/v1/nodes/{node}", headers=HEADERS)
    assert deleted.status_code == 204, deleted.text
    assert client.get(f"/v1/nodes/{node}", headers=HEADERS).status_code == 404
