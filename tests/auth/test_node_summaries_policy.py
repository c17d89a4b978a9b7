"""``/v1/metalwire/node_summaries`` under the secure-RBAC defaults, with the real Keystone's
tokens: the page and the search show what ``GET /v1/nodes`` shows, and nothing of the rest."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.auth.conftest import Cloud, make_config, open_client

SUMMARIES = "/v1/metalwire/node_summaries"


@pytest.fixture(scope="module")
def keystone_client(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, cloud: Cloud
) -> Iterator[TestClient]:
    config = make_config(tmp_path_factory.mktemp("summaries"), migrated_template, **cloud.options())
    yield from open_client(config)


@pytest.fixture(scope="module")
def nodes(
    keystone_client: TestClient, cloud: Cloud, persona_tokens: dict[str, str]
) -> dict[str, str]:
    """A node of owner-project with a port and a VIF, and a node of nobody's: their UUIDs."""
    admin = {"X-Auth-Token": persona_tokens["system_admin"]}

    def post(path: str, body: dict[str, Any]) -> Any:
        resp = keystone_client.post(path, json=body, headers=admin)
        assert resp.status_code in (201, 204), resp.text
        return resp.json() if resp.status_code == 201 else None

    owned = post(
        "/v1/nodes",
        {
            "driver": "fake-hardware",
            "name": "owned-1",
            "network_interface": "flat",
            "owner": cloud.projects["owner-project"],
        },
    )["uuid"]
    post("/v1/ports", {"node_uuid": owned, "address": "52:54:00:5e:00:01"})
    post(f"/v1/nodes/{owned}/vifs", {"id": "owned-vif"})
    unowned = post("/v1/nodes", {"driver": "fake-hardware", "name": "unowned-1"})["uuid"]
    return {"owned": owned, "unowned": unowned}


def _listed(client: TestClient, token: str, query: str = "") -> list[str]:
    resp = client.get(f"{SUMMARIES}{query}", headers={"X-Auth-Token": token})
    assert resp.status_code == 200, resp.text
    return [row["uuid"] for row in resp.json()["nodes"]]


def test_a_project_member_sees_only_the_nodes_of_its_project(
    keystone_client: TestClient, nodes: dict[str, str], persona_tokens: dict[str, str]
) -> None:
    token = persona_tokens["owner_member"]
    assert _listed(keystone_client, token) == [nodes["owned"]]
    assert _listed(keystone_client, token, "?q=unowned") == []
    assert _listed(keystone_client, token, "?q=owned-vif") == [nodes["owned"]]


def test_an_unrelated_project_finds_no_node_by_name_uuid_mac_or_vif(
    keystone_client: TestClient, nodes: dict[str, str], persona_tokens: dict[str, str]
) -> None:
    token = persona_tokens["unrelated_member"]
    assert _listed(keystone_client, token) == []
    for query in ("owned-1", nodes["owned"], "52:54:00:5e:00:01", "owned-vif"):
        assert _listed(keystone_client, token, f"?q={query}") == [], query


def test_a_system_reader_sees_every_node(
    keystone_client: TestClient, nodes: dict[str, str], persona_tokens: dict[str, str]
) -> None:
    listed = _listed(keystone_client, persona_tokens["system_reader"])
    assert {nodes["owned"], nodes["unowned"]} <= set(listed)


@pytest.mark.parametrize("path", ["/v1/metalwire", SUMMARIES])
def test_without_a_token_nothing_is_answered(keystone_client: TestClient, path: str) -> None:
    assert keystone_client.get(path).status_code == 401
