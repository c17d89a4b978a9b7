"""Facts of Ironic's HTTP contract that the unmodified clients depend on, checked directly."""

from __future__ import annotations

import httpx
import pytest

from metalwire.api_versions import MAX_MINOR
from tests.compat.clients import random_mac, unique
from tests.compat.conftest import LATEST

pytestmark = pytest.mark.compat


@pytest.mark.parametrize("collection", ["nodes", "ports", "portgroups"])
def test_collection_with_trailing_slash_is_served_without_redirect(
    http: httpx.Client, collection: str
) -> None:
    """ironicclient lists with filters as ``GET /v1/ports/?node=...``; Ironic answers 200."""
    node = http.post("/v1/nodes", json={"driver": "fake-hardware", "name": unique("slash")})
    uuid = node.json()["uuid"]
    http.post("/v1/ports", json={"node_uuid": uuid, "address": random_mac()})
    http.post("/v1/portgroups", json={"node_uuid": uuid, "address": random_mac()})
    query = {"maintenance": "false"} if collection == "nodes" else {"node": uuid}

    resp = http.get(f"/v1/{collection}/", params=query, follow_redirects=False)

    assert resp.status_code == 200, resp.text
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == LATEST
    items = resp.json()[collection]
    if collection == "nodes":
        assert uuid in [n["uuid"] for n in items]
    else:
        assert len(items) == 1  # the one made on this node


def test_vifs_do_not_exist_before_1_28(http: httpx.Client) -> None:
    node = http.post("/v1/nodes", json={"driver": "fake-hardware"}).json()
    old = {"X-OpenStack-Ironic-API-Version": "1.27"}
    resp = http.get(f"/v1/nodes/{node['uuid']}/vifs", headers=old)
    assert resp.status_code == 404
    assert http.get(f"/v1/nodes/{node['uuid']}/vifs").status_code == 200


def test_unsupported_version_is_406_with_the_served_range(http: httpx.Client) -> None:
    above = f"1.{MAX_MINOR + 1}"  # the version after the newest served
    resp = http.get("/v1/nodes", headers={"X-OpenStack-Ironic-API-Version": above})
    assert resp.status_code == 406
    assert resp.headers["X-OpenStack-Ironic-API-Minimum-Version"] == "1.1"
    assert resp.headers["X-OpenStack-Ironic-API-Maximum-Version"] == LATEST
