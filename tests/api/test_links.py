"""Links in responses: their base is ``[api] public_endpoint`` when set, whatever the Host."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest

from metalwire.api.app import build_services, create_app
from metalwire.config import Config
from tests.conftest import Api
from tests.support.app_client import AppClient

PUBLIC = "https://metal.example.org:6385"
HOSTILE = {"Host": "attacker.example"}


@pytest.fixture
def public_api(config: Config) -> Iterator[Api]:
    public = dataclasses.replace(
        config, api=dataclasses.replace(config.api, public_endpoint=PUBLIC)
    )
    services, locks = build_services(public, upgrade_schema=False)
    try:
        with AppClient(create_app(public, services)) as client:
            yield Api(client)
    finally:
        locks.release_all()
        services.db.dispose()


def _hrefs(document: Any) -> list[str]:
    """Every link of a response document (``href`` values and ``next``)."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("href", "next") and isinstance(item, str):
                    found.append(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(document)
    return found


def test_a_hostile_host_header_does_not_reach_the_links(public_api: Api) -> None:
    node = public_api.node(name="linked")
    public_api.port(node, "52:54:00:50:00:01")
    public_api.port(node, "52:54:00:50:00:02")
    headers = {**public_api.headers(), **HOSTILE}
    created = public_api.client.post(
        "/v1/ports",
        json={"node_uuid": node["uuid"], "address": "52:54:00:50:00:03"},
        headers=headers,
    )
    assert created.status_code == 201, created.text
    assert created.headers["Location"].startswith(f"{PUBLIC}/v1/ports/")
    links: list[str] = _hrefs(created.json())
    for path in ("/", "/v1/", "/v1/nodes/linked", "/v1/ports?limit=1", "/v1/nodes/linked/history"):
        resp = public_api.client.get(path, headers=headers)
        assert resp.status_code == 200, resp.text
        links += _hrefs(resp.json())
    assert any("limit=1" in link for link in links)  # the next link of the list
    own = [link for link in links if not link.startswith("https://docs.openstack.org/")]
    assert own and all(link.startswith(f"{PUBLIC}/") for link in own), own
    assert "attacker.example" not in json.dumps(links)


def test_a_history_entry_links_only_itself_as_ironic_does(api: Api) -> None:
    node = api.node()
    url = f"/v1/nodes/{node['uuid']}"
    assert api.put(f"{url}/states/provision", {"target": "manage"}).status_code == 202
    for detail in ("", "?detail=true"):
        entries = api.get(f"{url}/history{detail}").json()["history"]
        assert entries
        for entry in entries:
            href = f"http://testserver{url}/history/{entry['uuid']}"
            assert entry["links"] == [{"href": href, "rel": "self"}]
    first = entries[0]
    shown = api.get(first["links"][0]["href"].removeprefix("http://testserver")).json()
    assert shown["links"] == first["links"] and shown["uuid"] == first["uuid"]
