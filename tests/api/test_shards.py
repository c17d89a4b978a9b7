"""Node shards (1.82) and the shard filters of nodes, ports (1.82) and portgroups (1.106),
each gate at the version below and at its own, as Ironic 39 answers."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.api import microversion as mv
from metalwire.client import versions as client_versions
from tests.conftest import Api, fault

NOT_ACCEPTABLE = "Request not acceptable. The minimal required API version should be 1.{}"

# (request, the version that introduced it), from Ironic 39's version list and its
# api/controllers/v1/utils.py gates: below the version each answers 406 with that text.
FILTER_GATES = [
    ("/v1/nodes?shard=rack7", 82),
    ("/v1/nodes?sharded=true", 82),
    ("/v1/nodes/detail?shard=rack7", 82),
    ("/v1/ports?shard=rack7", 82),
    ("/v1/ports/detail?shard=rack7", 82),
    ("/v1/portgroups?shard=rack7", 106),
]


def _names(api: Api, url: str, key: str = "nodes") -> list[str]:
    resp = api.get(url)
    assert resp.status_code == 200, resp.text
    return sorted(item["name"] for item in resp.json()[key])


def test_the_clients_latest_version_is_the_servers() -> None:
    assert client_versions.LATEST_VERSION.minor == mv.MAX_VERSION.minor


@pytest.mark.parametrize(("url", "since"), FILTER_GATES)
def test_a_shard_filter_below_its_version_is_406_as_ironic_answers(
    api: Api, url: str, since: int
) -> None:
    if since > mv.MAX_VERSION.minor:
        pytest.skip(f"1.{since} is not served yet")
    below = api.get(url, version=f"1.{since - 1}")
    assert below.status_code == 406, below.text
    assert fault(below) == NOT_ACCEPTABLE.format(since)
    assert api.get(url, version=f"1.{since}").status_code == 200


def test_node_shard_is_set_on_create_and_patch_and_filtered(api: Api) -> None:
    api.node(name="s-a", shard="rack7")
    b = api.node(name="s-b")
    api.node(name="s-c", shard="rack8")
    assert (
        api.patch(
            f"/v1/nodes/{b['uuid']}", [{"op": "add", "path": "/shard", "value": "rack7"}]
        ).json()["shard"]
        == "rack7"
    )
    assert _names(api, "/v1/nodes?shard=rack7") == ["s-a", "s-b"]
    assert _names(api, "/v1/nodes?shard=rack7,rack8") == ["s-a", "s-b", "s-c"]
    assert _names(api, "/v1/nodes?shard=nowhere") == []
    api.node(name="s-none")
    assert _names(api, "/v1/nodes?sharded=false") == ["s-none"]
    assert _names(api, "/v1/nodes?sharded=true") == ["s-a", "s-b", "s-c"]


def test_node_shard_is_hidden_and_refused_below_1_82(api: Api) -> None:
    node = api.node(name="old-shard")
    assert "shard" not in api.get(f"/v1/nodes/{node['uuid']}", version="1.81").json()
    assert "shard" in api.get(f"/v1/nodes/{node['uuid']}").json()
    create = api.post("/v1/nodes", {"driver": "fake-hardware", "shard": "x"}, version="1.81")
    assert create.status_code == 406
    patch = [{"op": "add", "path": "/shard", "value": "x"}]
    assert api.patch(f"/v1/nodes/{node['uuid']}", patch, version="1.81").status_code == 406


def test_shards_are_listed_with_counts_largest_first(api: Api) -> None:
    for i in range(3):
        api.node(name=f"r7-{i}", shard="rack7")
    api.node(name="r8-0", shard="rack8")
    api.node(name="unsharded")
    resp = api.get("/v1/shards")
    assert resp.status_code == 200, resp.text
    # As Ironic: the nodes without a shard count under "None"; ties keep no order.
    shards = resp.json()["shards"]
    assert shards[0] == {"name": "rack7", "count": 3}
    assert sorted(s["name"] for s in shards[1:]) == ["None", "rack8"]


def test_shards_do_not_exist_below_1_82(api: Api) -> None:
    resp = api.get("/v1/shards", version="1.81")
    assert resp.status_code == 404
    # Ironic 39's shards handler refuses the version: an object's error (fault body)
    assert fault(resp).endswith("at API version 1.81; it exists from 1.82.")


def _port_addresses(api: Api, url: str) -> list[str]:
    resp = api.get(url)
    assert resp.status_code == 200, resp.text
    return sorted(p["address"] for p in resp.json()["ports"])


def test_ports_and_portgroups_are_filtered_by_their_nodes_shard(api: Api) -> None:
    in_shard = api.node(name="pn-7", shard="rack7")
    other = api.node(name="pn-8", shard="rack8")
    api.port(in_shard, "52:54:00:00:07:01")
    api.port(other, "52:54:00:00:08:01")
    api.portgroup(in_shard, name="pg-7")
    api.portgroup(other, name="pg-8")
    assert _port_addresses(api, "/v1/ports?shard=rack7") == ["52:54:00:00:07:01"]
    assert _port_addresses(api, "/v1/ports?shard=rack7,rack8") == [
        "52:54:00:00:07:01",
        "52:54:00:00:08:01",
    ]
    if mv.MAX_VERSION.at_least(mv.PORTGROUP_SHARD):
        assert _names(api, "/v1/portgroups?shard=rack8", "portgroups") == ["pg-8"]


def test_a_shard_filter_with_a_node_filter_is_refused_as_ironic_does(api: Api) -> None:
    node = api.node(name="both", shard="rack7")
    resp: Any = api.get(f"/v1/ports?shard=rack7&node={node['uuid']}")
    assert resp.status_code == 403
    assert fault(resp) == (
        "Operation not permitted: a port list is narrowed by one of node, portgroup and shard "
        "at a time; this request gives node and shard."
    )
    resp = api.get(f"/v1/nodes/{node['uuid']}/ports?shard=rack7")
    assert resp.status_code == 403
