"""``metalwire node inventory save``, ``node children list`` and ``shard list`` against the
session's real server, checked against what its API answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import mac, unique
from tests.support import inspection
from tests.support.helpers import AGENT_RAMDISK
from tests.support.server import MetalwireServer

VERSION = {"X-OpenStack-Ironic-API-Version": "1.115"}


def _json(cli: Run, *args: str) -> Any:
    result = cli(*args, "-f", "json")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def test_shards_and_children_listed(cli: Run, mw: Client, server: MetalwireServer) -> None:
    shard = unique("shard")
    parent = mw.create_node("fake-hardware", name=unique("parent"), shard=shard)
    children = sorted(
        mw.create_node("fake-hardware", name=unique("child"), parent_node=parent.uuid).uuid
        for _ in range(2)
    )
    served = httpx.get(f"{server.url}/v1/shards", headers=VERSION).json()["shards"]
    listed = _json(cli, "shard", "list")
    assert listed == [{"Name": s["name"], "Count": s["count"]} for s in served]
    assert {"Name": shard, "Count": 1} in listed

    rows = _json(cli, "node", "children", "list", parent.name or "")
    assert sorted(row["Child Nodes"] for row in rows) == children
    assert _json(cli, "node", "children", "list", children[0]) == []
    old = cli("--api-version", "1.82", "node", "children", "list", parent.uuid)
    assert old.code == 1 and "1.83" in old.stderr, old.stderr


def test_inventory_saved_after_an_agent_inspection(
    cli: Run, mw: Client, server: MetalwireServer, tmp_path: Path
) -> None:
    node = mw.create_node("fake-hardware", name=unique("inspected"))
    address = mac()
    mw.create_port(node.uuid, address)
    never = cli("node", "inventory", "save", node.uuid)
    assert never.code == 1 and node.uuid in never.stderr, never.stderr

    ramdisk = [("--driver-info", f"{key}={value}") for key, value in AGENT_RAMDISK.items()]
    setting = [arg for pair in ramdisk for arg in pair]
    done = cli(
        *("node", "set", node.uuid, "--inspect-interface", "agent", "--boot-interface", "ipxe"),
        *("--network-interface", "noop", *setting),
    )
    assert done.code == 0, done.stderr
    assert cli("node", "manage", node.uuid, "--wait", "60").code == 0
    assert cli("node", "inspect", node.uuid).code == 0
    body = inspection.report(
        interfaces=[inspection.interface("eth0", address, "192.0.2.17")],
        boot={"pxe_interface": address},
        bmc_address=None,
        bmc_v6address=None,
    )
    answer = httpx.post(f"{server.url}/v1/continue_inspection", json=body, headers=VERSION)
    assert answer.status_code == 202, answer.text

    saved = cli("node", "inventory", "save", node.uuid)
    assert saved.code == 0, saved.stderr
    stored = json.loads(saved.stdout)
    assert stored == mw.node_inventory(node.uuid)
    assert stored["inventory"] == body["inventory"]
    to_file = tmp_path / "inventory.json"
    assert cli("node", "inventory", "save", node.uuid, "--file", str(to_file)).code == 0
    assert json.loads(to_file.read_text()) == stored
    nowhere = cli("node", "inventory", "save", node.uuid, "--file", str(tmp_path / "no" / "x"))
    assert nowhere.code == 1 and "cannot write" in nowhere.stderr, nowhere.stderr
