"""The flags of API 1.102-1.107 through the unmodified ``baremetal`` program and openstacksdk,
against a real server: each was refused (400) or dropped before metalwire served its version."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.compat.clients import Cli, CliResult, random_mac, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def _node(baremetal: Cli, prefix: str, *args: str) -> str:
    name = unique(prefix)
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", name, *args)
    return str(baremetal.json("node", "show", name)["uuid"])


def _member(baremetal: Cli, node: str, group: str, physnet: str) -> CliResult:
    return baremetal.run(
        "port", "create", random_mac(), "--node", node, "--port-group", group,
        "--physical-network", physnet, "-f", "json",
    )  # fmt: skip


def test_port_group_physical_network(baremetal: Cli, http: httpx.Client) -> None:
    node = _node(baremetal, "pgnode")
    name = unique("bond")
    created = baremetal.json(
        "port", "group", "create", "--node", node, "--name", name, "--physical-network", "physnet1"
    )
    assert created["physical_network"] == "physnet1"
    # A member on another physical network is refused, one on it joins.
    refused = _member(baremetal, node, created["uuid"], "physnet2")
    assert refused.returncode != 0, refused.describe()
    assert "physical network physnet1" in refused.stderr
    member = _member(baremetal, node, created["uuid"], "physnet1").json()
    baremetal.ok("port", "group", "set", name, "--physical-network", "physnet3")
    assert baremetal.json("port", "group", "show", name)["physical_network"] == "physnet3"
    assert baremetal.json("port", "show", member["uuid"])["physical_network"] == "physnet3"
    listed = baremetal.json("port", "group", "list", "--node", node, "--long")
    assert [g.get("Physical Network", g.get("physical_network")) for g in listed] == ["physnet3"], (
        listed
    )
    shown = http.get(f"/v1/portgroups/{name}", params={"fields": "physical_network"}).json()
    assert shown["physical_network"] == "physnet3"


def test_port_group_category(baremetal: Cli) -> None:
    node = _node(baremetal, "pgcat")
    name = unique("bond")
    created = baremetal.json(
        "port", "group", "create", "--node", node, "--name", name, "--category", "uplink"
    )
    assert created["category"] == "uplink"
    baremetal.ok("port", "group", "set", name, "--category", "storage")
    assert baremetal.json("port", "group", "show", name)["category"] == "storage"
    baremetal.ok("port", "group", "unset", name, "--category")
    assert baremetal.json("port", "group", "show", name)["category"] is None
    # An older client version still takes it and does not show it, as Ironic 39 does.
    old = baremetal.at("1.102").json("port", "group", "show", name)
    assert "category" not in old


def test_node_instance_name_and_its_filter(baremetal: Cli) -> None:
    instance = unique("vm")
    node = _node(baremetal, "inode", "--instance-name", instance)
    _node(baremetal, "inode-other")
    assert baremetal.json("node", "show", node)["instance_name"] == instance
    listed = baremetal.json("node", "list", "--instance-name", instance)
    assert [n["uuid"] for n in listed] == [node]
    renamed = unique("vm")
    baremetal.ok("node", "set", node, "--instance-name", renamed)
    assert baremetal.json("node", "list", "--instance-name", instance) == []
    assert [n["uuid"] for n in baremetal.json("node", "list", "--instance-name", renamed)] == [node]
    # Pinned below 1.104 the filter is refused, not dropped (it would list every node).
    old = baremetal.at("1.103").run("node", "list", "--instance-name", renamed)
    assert old.returncode != 0, old.describe()
    # (ironicclient words any 406 as an unsupported version)
    assert "Requested API version 1.103 is not supported" in old.stderr


def test_openstacksdk_node_instance_name(sdk: Any) -> None:
    instance = unique("sdkvm")
    node = sdk.create_node(driver="fake-hardware", instance_name=instance)
    sdk.create_node(driver="fake-hardware")
    assert sdk.get_node(node.id).instance_name == instance
    assert [n.id for n in sdk.nodes(instance_name=instance)] == [node.id]
    sdk.update_node(node, instance_name=None)
    assert sdk.get_node(node.id).instance_name is None
    assert list(sdk.nodes(instance_name=instance)) == []


def test_port_group_list_by_shard(baremetal: Cli) -> None:
    shard = unique("rack")
    inside = _node(baremetal, "pgshard", "--shard", shard)
    outside = _node(baremetal, "pgnoshard")
    group = baremetal.json("port", "group", "create", "--node", inside, "--name", unique("bond"))
    baremetal.json("port", "group", "create", "--node", outside, "--name", unique("bond"))
    listed = baremetal.json("port", "group", "list", "--shards", shard)
    assert [g["uuid"] for g in listed] == [group["uuid"]]
    # Pinned below 1.106 the filter is refused, not dropped (it would list every group).
    old = baremetal.at("1.105").run("port", "group", "list", "--shards", shard)
    assert old.returncode != 0, old.describe()
    assert "Requested API version 1.105 is not supported" in old.stderr
