"""The flags of API 1.102-1.107 through the unmodified ``baremetal`` program and openstacksdk,
against a real server: each was refused (400) or dropped before metalwire served its version."""

from __future__ import annotations

import httpx
import pytest

from tests.compat.clients import Cli, random_mac, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def _node(baremetal: Cli, prefix: str, *args: str) -> str:
    name = unique(prefix)
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", name, *args)
    return str(baremetal.json("node", "show", name)["uuid"])


def test_port_group_physical_network(baremetal: Cli, http: httpx.Client) -> None:
    node = _node(baremetal, "pgnode")
    name = unique("bond")
    created = baremetal.json(
        "port", "group", "create", "--node", node, "--name", name, "--physical-network", "physnet1"
    )
    assert created["physical_network"] == "physnet1"
    # A member on another physical network is refused, one on it joins.
    refused = baremetal.run(
        "port",
        "create",
        random_mac(),
        "--node",
        node,
        "--port-group",
        created["uuid"],
        "--physical-network",
        "physnet2",
    )
    assert refused.returncode != 0, refused.describe()
    assert "physical network physnet1" in refused.stderr
    member = baremetal.json(
        "port",
        "create",
        random_mac(),
        "--node",
        node,
        "--port-group",
        created["uuid"],
        "--physical-network",
        "physnet1",
    )
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
