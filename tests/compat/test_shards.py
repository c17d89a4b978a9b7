"""Shards through the unmodified ``baremetal`` program and openstacksdk, against a real server:
the flags that were silently dropped (``node list --shards``) now narrow the list."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_node_create_set_list_by_shard_and_shard_list(baremetal: Cli, http: httpx.Client) -> None:
    shard, other = unique("rack"), unique("rack")
    first, second, third = unique("sh"), unique("sh"), unique("sh")
    baremetal.run_all(
        ("node", "create", "--driver", "fake-hardware", "--name", first, "--shard", shard),
        ("node", "create", "--driver", "fake-hardware", "--name", second),
        ("node", "create", "--driver", "fake-hardware", "--name", third, "--shard", other),
    )
    baremetal.ok("node", "set", second, "--shard", shard)
    listed = baremetal.json("node", "list", "--shards", shard)
    assert sorted(n["name"] for n in listed) == sorted([first, second])
    both = baremetal.json("node", "list", "--shards", shard, other)
    assert sorted(n["name"] for n in both) == sorted([first, second, third])
    sharded = {n["name"] for n in baremetal.json("node", "list", "--sharded")}
    unsharded = {n["name"] for n in baremetal.json("node", "list", "--unsharded")}
    assert {first, second, third} <= sharded and not {first, second, third} & unsharded
    counts = {s["name"]: s["count"] for s in baremetal.json("shard", "list")}
    assert counts[shard] == 2 and counts[other] == 1
    shown = baremetal.json("node", "show", second)
    assert shown["shard"] == shard


def test_openstacksdk_lists_one_shards_nodes(sdk: Any, http: httpx.Client) -> None:
    shard = unique("rack")
    inside = sdk.create_node(driver="fake-hardware", name=unique("sdk"), shard=shard)
    sdk.create_node(driver="fake-hardware", name=unique("sdk"))
    assert inside.shard == shard
    assert [n.id for n in sdk.nodes(shard=shard)] == [inside.id]


def test_an_empty_shard_lists_no_node(baremetal: Cli) -> None:
    """``--shards ""`` sends ``?shard=``: Ironic 39 lists no node; metalwire listed every one."""
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", unique("sh"))

    listed = baremetal.json("node", "list", "--shards", "")

    assert listed == []
