"""The flags of API 1.83-1.101 through the unmodified ``baremetal`` program and openstacksdk,
against a real server: each was refused (400) or dropped before metalwire served its version."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.compat.clients import Cli, random_mac, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_port_create_with_name_description_vendor_category(
    baremetal: Cli, http: httpx.Client
) -> None:
    node = unique("pnode")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    uuid = baremetal.json("node", "show", node)["uuid"]
    name = unique("p")
    created = baremetal.json(
        "port",
        "create",
        random_mac(),
        "--node",
        uuid,
        "--name",
        name,
        "--description",
        "uplink",
        "--vendor",
        "acme",
        "--category",
        "nic",
    )
    shown = baremetal.json("port", "show", name)  # a name is a port ident (1.88)
    assert shown["uuid"] == created["uuid"]
    fields = ("name", "description", "vendor", "category")
    assert tuple(shown[f] for f in fields) == (name, "uplink", "acme", "nic")
    baremetal.ok("port", "set", name, "--description", "downlink")
    assert baremetal.json("port", "show", name)["description"] == "downlink"
    baremetal.ok("port", "delete", name)


def test_node_parent_children_firmware_and_disable_power_off(baremetal: Cli) -> None:
    parent, child = unique("parent"), unique("child")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", parent)
    made = baremetal.json(
        "node",
        "create",
        "--driver",
        "fake-hardware",
        "--name",
        child,
        "--parent-node",
        parent,
        "--firmware-interface",
        "no-firmware",
        "--disable-power-off",
    )
    assert made["firmware_interface"] == "no-firmware"
    assert made["disable_power_off"] is True
    parent_uuid = baremetal.json("node", "show", parent)["uuid"]
    assert made["parent_node"] == parent_uuid
    listed = {n["name"] for n in baremetal.json("node", "list")}
    assert parent in listed and child not in listed
    every = {n["name"] for n in baremetal.json("node", "list", "--include-children")}
    assert child in every
    children = baremetal.json("node", "list", "--parent-node", parent_uuid)
    assert [n["name"] for n in children] == [child]
    result = baremetal.ok("node", "children", "list", parent, "-f", "json")
    assert made["uuid"] in json.dumps(json.loads(result.stdout))


def test_node_service_runs_on_the_fake_machine(baremetal: Cli) -> None:
    name = unique("svc")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", name)
    baremetal.ok("node", "manage", name)
    baremetal.ok("node", "provide", name)
    baremetal.ok("node", "deploy", name)
    steps = json.dumps([{"interface": "vendor", "step": "log_passthrough"}])
    baremetal.ok("node", "service", name, "--service-steps", steps)
    assert baremetal.json("node", "show", name)["provision_state"] == "active"


def test_node_service_with_disable_ramdisk(baremetal: Cli) -> None:
    """1.108: the CLI sends disable_ramdisk at the version it negotiated (406 below)."""
    name = unique("svcr")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", name)
    for verb in ("manage", "provide", "deploy"):
        baremetal.ok("node", verb, name)
    steps = json.dumps([{"interface": "vendor", "step": "log_passthrough"}])
    baremetal.ok("node", "service", name, "--service-steps", steps, "--disable-ramdisk")
    shown = baremetal.json("node", "show", name)
    assert shown["provision_state"] == "active"
    assert "health" in shown and shown["health"] is None  # 1.109: fake-hardware reports none


def test_openstacksdk_port_fields_and_conductor_groups(sdk: Any) -> None:
    group = unique("cg")
    node = sdk.create_node(driver="fake-hardware", conductor_group=group)
    other = sdk.create_node(driver="fake-hardware")
    port = sdk.create_port(node_id=node.id, address=random_mac(), name=unique("sdkp"))
    sdk.create_port(node_id=other.id, address=random_mac())
    assert sdk.get_port(port.name).id == port.id
    assert [p.id for p in sdk.ports(conductor_groups=[group])] == [port.id]
