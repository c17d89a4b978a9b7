"""The drift audit's cost in Neutron requests, against the real Neutron: bulk list calls, not
one per node or per VIF. Every HTTP request the app's Neutron client sends is counted at its
transport (``httpx.HTTPTransport``; the in-process test client has a transport of its own)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.auth.conftest import make_config, open_client
from tests.neutron.clients import Neutron, link
from tests.support.neutron import ADMIN_HEADERS

Json = dict[str, Any]
AUDIT = "/v1/metalwire/audit"
NETWORK = "audit-requests-p1"
# More VIFs and node UUIDs than one list call holds (75 and 54), so the calls are split.
NODES = 80
PORTS_PER_NODE = 1


class NeutronRequests:
    """Counts the requests sent to one Neutron endpoint, by method and path."""

    def __init__(self, endpoint: str) -> None:
        self.netloc = httpx.URL(endpoint).netloc
        self.seen: Counter[tuple[str, str]] = Counter()

    def note(self, request: httpx.Request) -> None:
        if request.url.netloc == self.netloc:
            self.seen[(request.method, request.url.path)] += 1

    def total(self) -> int:
        return sum(self.seen.values())


@pytest.fixture
def neutron_requests(neutron_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> NeutronRequests:
    counter = NeutronRequests(neutron_endpoint)
    send = httpx.HTTPTransport.handle_request

    def counting(transport: httpx.HTTPTransport, request: httpx.Request) -> httpx.Response:
        counter.note(request)
        return send(transport, request)

    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", counting)
    return counter


@pytest.fixture
def neutron(neutron_endpoint: str) -> Iterator[Neutron]:
    with httpx.Client(
        base_url=f"{neutron_endpoint}/v2.0", headers=dict(ADMIN_HEADERS), timeout=120.0
    ) as http:
        api = Neutron(http)
        api.create_network(NETWORK, "physnet1")
        try:
            yield api
        finally:
            api.cleanup()


@pytest.fixture
def client(tmp_path: Path, migrated_template: Path, neutron_endpoint: str) -> Iterator[TestClient]:
    config = make_config(tmp_path, migrated_template, neutron__endpoint_override=neutron_endpoint)
    yield from open_client(config)


def created(response: httpx.Response) -> Json:
    assert response.status_code == 201, response.text
    body: Json = response.json()
    return body


def vif_ports(neutron: Neutron, count: int) -> list[Json]:
    """``count`` tenant ports, made by Neutron's bulk create."""
    network = neutron.networks[NETWORK]["id"]
    body = {"ports": [{"network_id": network, "project_id": "audit"} for _ in range(count)]}
    response = neutron.http.post("/ports", json=body)
    assert response.status_code == 201, response.text
    ports: list[Json] = response.json()["ports"]
    return ports


def test_auditing_80_attachments_takes_a_few_neutron_list_calls(
    client: TestClient, neutron: Neutron, neutron_requests: NeutronRequests
) -> None:
    vifs = iter(vif_ports(neutron, NODES * PORTS_PER_NODE))
    attached: list[tuple[Json, Json]] = []  # (metalwire port, VIF)
    for n in range(NODES):
        node = created(
            client.post(
                "/v1/nodes",
                json={
                    "name": f"many-{n}",
                    "driver": "fake-hardware",
                    "network_interface": "neutron",
                },
            )
        )
        for p in range(PORTS_PER_NODE):
            port = created(
                client.post(
                    "/v1/ports",
                    json={
                        "node_uuid": node["uuid"],
                        "address": f"52:54:01:{n >> 8:02x}:{n & 255:02x}:{p:02x}",
                        "local_link_connection": link(f"Ethernet{n}/{p}"),
                        "physical_network": "physnet1",
                    },
                )
            )
            vif = next(vifs)
            response = client.post(
                f"/v1/nodes/{node['uuid']}/vifs", json={"id": vif["id"], "port_uuid": port["uuid"]}
            )
            assert response.status_code == 204, response.text
            attached.append((port, vif))
    gone = attached[7][1]["id"]
    assert neutron.http.delete(f"/ports/{gone}").status_code == 204
    moved_port, moved = attached[63]
    response = neutron.http.put(
        f"/ports/{moved['id']}", json={"port": {"mac_address": "52:54:01:ff:ff:ff"}}
    )
    assert response.status_code == 200, response.text

    neutron_requests.seen.clear()
    response = client.post(AUDIT, json={})
    assert response.status_code == 200, response.text
    report = response.json()

    assert report["nodes_checked"] == NODES
    assert {f["vif_id"]: f["kind"] for f in report["findings"]} == {
        gone: "vif_port_missing",
        moved["id"]: "mac_mismatch",
    }
    assert report["findings"][1]["expected"] == moved_port["address"]
    # 80 VIF ids in 2 lists (as many as fit a query string), 80 node UUIDs in 2.
    assert set(neutron_requests.seen) == {("GET", "/v2.0/ports")}, neutron_requests.seen
    assert neutron_requests.total() <= 4, neutron_requests.seen
