"""The baremetal command's spellings of options that metalwire's commands take too
(``node list --chassis``, ``--shards``, ``--unsharded``, ``node show --instance``, ``node set
--reset-KIND-interface`` and ``--target-raid-config``, ``port set --pxe-disabled``,
``allocation create --wait``), against the session's real server."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import mac, unique


def _names(cli: Run, *args: str) -> set[str]:
    result = cli(*args, "--limit", "0", "-f", "json", "-c", "Name")
    assert result.code == 0, result.stderr
    return {row["Name"] for row in json.loads(result.stdout)}


def _json(cli: Run, *args: str) -> Any:
    result = cli(*args, "-f", "json")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def test_node_list_by_chassis_and_shards(cli: Run, mw: Client) -> None:
    chassis = mw.create_chassis(description="spellings").uuid
    shard_a, shard_b = unique("shard-a"), unique("shard-b")
    in_chassis = mw.create_node("fake-hardware", name=unique("racked"), chassis_uuid=chassis)
    in_a = mw.create_node("fake-hardware", name=unique("in-a"), shard=shard_a)
    in_b = mw.create_node("fake-hardware", name=unique("in-b"), shard=shard_b)
    nowhere = mw.create_node("fake-hardware", name=unique("nowhere"))
    ours = {n.name for n in (in_chassis, in_a, in_b, nowhere)}

    assert _names(cli, "node", "list", "--chassis", chassis) == {in_chassis.name}
    assert _names(cli, "node", "list", "--chassis-uuid", chassis) == {in_chassis.name}
    assert _names(cli, "node", "list", "--shards", shard_a, shard_b) == {in_a.name, in_b.name}
    assert _names(cli, "node", "list", "--shard", f"{shard_a},{shard_b}") == {
        in_a.name,
        in_b.name,
    }
    unsharded = _names(cli, "node", "list", "--unsharded") & ours
    assert unsharded == {in_chassis.name, nowhere.name}
    assert unsharded == _names(cli, "node", "list", "--sharded", "false") & ours
    both = cli("node", "list", "--shards", shard_a, "--unsharded")
    assert both.code == 2 and "not allowed with" in both.stderr, both.stderr

    port = mw.create_port(in_a.uuid, mac())
    group = mw.create_portgroup(in_b.uuid, name=unique("bond"), address=mac())
    ports = _json(cli, "port", "list", "--shards", shard_a, shard_b, "--limit", "0")
    assert [row["UUID"] for row in ports] == [port.uuid]
    groups = _json(cli, "portgroup", "list", "--shards", shard_a, shard_b, "--limit", "0")
    assert [row["UUID"] for row in groups] == [group.uuid]
    assert _json(cli, "portgroup", "list", "--shard", shard_a, "--limit", "0") == []


def test_node_show_by_instance(cli: Run, mw: Client) -> None:
    instance = str(uuid.uuid4())
    node = mw.create_node("fake-hardware", name=unique("hosting"), instance_uuid=instance)
    shown = _json(cli, "node", "show", "--instance", instance)
    assert (shown["uuid"], shown["instance_uuid"]) == (node.uuid, instance)
    some = _json(cli, "node", "show", instance, "--instance", "--fields", "uuid", "name")
    assert some == {"uuid": node.uuid, "name": node.name}
    other = str(uuid.uuid4())
    missing = cli("node", "show", "--instance", other)
    assert missing.code == 1 and f"No node has the instance {other}" in missing.stderr


def test_port_set_pxe_disabled_and_allocation_create_wait(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("pxe"))
    port = mw.create_port(node.uuid, mac())
    assert cli("port", "set", port.uuid, "--pxe-disabled").code == 0
    assert mw.get_port(port.uuid)["pxe_enabled"] is False
    assert cli("port", "set", port.uuid, "--pxe-enabled", "true").code == 0
    assert mw.get_port(port.uuid)["pxe_enabled"] is True
    both = cli("port", "set", port.uuid, "--pxe-enabled", "true", "--pxe-disabled")
    assert both.code == 2 and "not allowed with" in both.stderr, both.stderr
    made = cli("port", "create", mac(), "--node", node.uuid, "--pxe-disabled", "-f", "json")
    assert made.code == 0 and json.loads(made.stdout)["pxe_enabled"] is False, made.stderr

    resource_class = unique("waited").upper().replace("-", "_")
    mw.update_node(node.uuid, [{"op": "add", "path": "/resource_class", "value": resource_class}])
    mw.manage(node.uuid)
    mw.provide(node.uuid)
    done = _json(cli, "allocation", "create", "--resource-class", resource_class, "--wait")
    assert (done["state"], done["node_uuid"]) == ("active", node.uuid)
    none_left = cli("allocation", "create", "--resource-class", resource_class, "--wait", "5")
    assert none_left.code == 1 and "failed" in none_left.stderr, none_left.stderr


def test_node_set_reset_interface_gives_the_drivers_default_back(cli: Run, mw: Client) -> None:
    driver = mw.get_driver("fake-hardware")
    assert driver["default_network_interface"] != "noop"  # so that the reset shows
    boot = next(
        b for b in driver["enabled_boot_interfaces"] if b != driver["default_boot_interface"]
    )
    node = mw.create_node(
        "fake-hardware", name=unique("reset"), network_interface="noop", boot_interface=boot
    )
    assert cli("node", "set", node.uuid, "--reset-boot-interface").code == 0
    shown = mw.get_node(node.uuid)
    assert (shown["boot_interface"], shown["network_interface"]) == (
        driver["default_boot_interface"],
        "noop",
    )
    assert cli("node", "set", node.uuid, "--reset-network-interface").code == 0
    assert mw.get_node(node.uuid)["network_interface"] == driver["default_network_interface"]
    both = cli("node", "set", node.uuid, "--network-interface", "noop", "--reset-network-interface")
    assert both.code == 2 and "--reset-network-interface" in both.stderr, both.stderr


def test_node_set_and_unset_target_raid_config(cli: Run, mw: Client, tmp_path: Path) -> None:
    node = mw.create_node("fake-hardware", name=unique("raid"))
    config = {"logical_disks": [{"size_gb": 100, "raid_level": "1", "is_root_volume": True}]}
    done = cli("node", "set", node.uuid, "--target-raid-config", json.dumps(config))
    assert done.code == 0, done.stderr
    assert mw.get_node(node.uuid)["target_raid_config"] == config
    document = tmp_path / "raid.yaml"
    document.write_text("logical_disks:\n  - size_gb: 50\n    raid_level: '0'\n")
    done = cli("node", "set", node.uuid, "--target-raid-config", str(document), "--name", "r2")
    assert done.code == 0, done.stderr
    shown = mw.get_node(node.uuid)
    assert shown["target_raid_config"] == {"logical_disks": [{"size_gb": 50, "raid_level": "0"}]}
    assert shown.name == "r2"
    listed = cli("node", "set", node.uuid, "--target-raid-config", "[1, 2]")
    assert listed.code == 2 and "--target-raid-config" in listed.stderr, listed.stderr
    old = cli("--api-version", "1.11", "node", "unset", node.uuid, "--target-raid-config")
    assert old.code == 1 and "1.12" in old.stderr, old.stderr
    assert cli("node", "unset", node.uuid, "--target-raid-config").code == 0
    assert mw.get_node(node.uuid)["target_raid_config"] == {}
