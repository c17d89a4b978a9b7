"""``metalwire node create|set|unset`` of the hardware interfaces, the chassis, the parent
node, the instance name, retirement, protection and power-off, ``node set --driver
--reset-interfaces``, and the node list filters that go with them, against a real server."""

from __future__ import annotations

import json

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import unique


def _listed(cli: Run, *filters: str) -> set[str]:
    result = cli("node", "list", *filters, "--limit", "0", "-f", "json")
    assert result.code == 0, result.stderr
    return {row["Name"] for row in json.loads(result.stdout)}


def test_hardware_interfaces_set_created_reset_and_refused(cli: Run, mw: Client) -> None:
    name = unique("ifaces")
    created = cli(
        "node", "create", "--driver", "fake-hardware", "--name", name,
        "--boot-interface", "ipxe", "--deploy-interface", "direct",
        "--power-interface", "ipmitool", "--firmware-interface", "no-firmware",
    )  # fmt: skip
    assert created.code == 0, created.stderr
    node = mw.get_node(name)
    assert (node["boot_interface"], node["deploy_interface"]) == ("ipxe", "direct")
    assert (node["power_interface"], node["firmware_interface"]) == ("ipmitool", "no-firmware")
    assert node["console_interface"] == "fake"  # fake-hardware's default for the others

    done = cli(
        "node", "set", name, "--console-interface", "no-console", "--rescue-interface", "agent",
        "--bios-interface", "no-bios", "--storage-interface", "cinder",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    node = mw.get_node(name)
    assert (node["console_interface"], node["rescue_interface"]) == ("no-console", "agent")
    assert (node["bios_interface"], node["storage_interface"]) == ("no-bios", "cinder")

    done = cli("node", "unset", name, "--boot-interface", "--storage-interface")
    assert done.code == 0, done.stderr
    node = mw.get_node(name)
    assert (node["boot_interface"], node["storage_interface"]) == ("fake", "noop")

    refused = cli("node", "set", name, "--raid-interface", "no-such-raid", "--owner", "p1")
    assert refused.code == 1
    assert "no-such-raid" in refused.stderr and "HTTP 400" in refused.stderr, refused.stderr
    node = mw.get_node(name)
    assert (node["raid_interface"], node["owner"]) == ("fake", None)


def test_driver_change_resets_interfaces_only_when_asked(cli: Run, mw: Client) -> None:
    default = mw.create_node("fake-hardware", name=unique("default-net"))["network_interface"]
    other = "noop" if default != "noop" else "flat"
    name = unique("redriven")
    mw.create_node("fake-hardware", name=name, network_interface=other, boot_interface="pxe")

    alone = cli("node", "set", name, "--reset-interfaces")
    assert alone.code == 2 and "--reset-interfaces goes with --driver" in alone.stderr

    assert cli("node", "set", name, "--driver", "manual-management").code == 0
    node = mw.get_node(name)
    assert (node.driver, node.network_interface) == ("manual-management", other)
    assert node["boot_interface"] == "ipxe"  # pxe is not kept: the new driver's default

    done = cli("node", "set", name, "--driver", "fake-hardware", "--reset-interfaces")
    assert done.code == 0, done.stderr
    node = mw.get_node(name)
    assert (node.driver, node.network_interface) == ("fake-hardware", default)
    assert node["boot_interface"] == "fake"

    kept = cli(
        "node", "set", name, "--driver", "manual-management", "--reset-interfaces",
        "--network-interface", other,
    )  # fmt: skip
    assert kept.code == 0, kept.stderr
    assert mw.get_node(name).network_interface == other


def test_chassis_parent_and_instance_name(cli: Run, mw: Client) -> None:
    chassis = mw.create_chassis(description=unique("rack"))
    parent, child = unique("parent"), unique("child")
    created = cli(
        "node", "create", "--driver", "fake-hardware", "--name", parent,
        "--chassis-uuid", chassis.uuid, "--instance-name", "web-1",
    )  # fmt: skip
    assert created.code == 0, created.stderr
    assert cli("node", "create", "--driver", "fake-hardware", "--name", child).code == 0
    assert cli("node", "set", child, "--parent-node", parent).code == 0  # by name
    node = mw.get_node(child)
    assert node.parent_node == mw.get_node(parent).uuid
    assert mw.get_node(parent).chassis_uuid == chassis.uuid

    assert child not in _listed(cli)  # children are left out unless asked for
    assert child in _listed(cli, "--include-children")
    assert _listed(cli, "--parent-node", parent) == {child}
    assert _listed(cli, "--chassis-uuid", chassis.uuid) == {parent}
    assert _listed(cli, "--instance-name", "web-1") == {parent}
    missing = cli("node", "list", "--parent-node", unique("no-such-node"))
    assert missing.code == 1 and "could not be found" in missing.stderr, missing.stderr

    done = cli("node", "unset", child, "--parent-node")
    assert done.code == 0, done.stderr
    done = cli("node", "unset", parent, "--chassis-uuid", "--instance-name")
    assert done.code == 0, done.stderr
    node = mw.get_node(parent)
    assert (node.chassis_uuid, node["instance_name"]) == (None, None)
    assert mw.get_node(child).parent_node is None
    assert child in _listed(cli)

    refused = cli("node", "set", child, "--parent-node", child)
    assert refused.code == 1 and "parent_node" in refused.stderr, refused.stderr


def test_retired_protected_and_power_off(cli: Run, mw: Client) -> None:
    name = unique("lifecycle")
    created = cli(
        "node", "create", "--driver", "fake-hardware", "--name", name, "--disable-power-off"
    )
    assert created.code == 0, created.stderr
    assert mw.get_node(name)["disable_power_off"] is True
    assert cli("node", "set", name, "--enable-power-off").code == 0
    assert mw.get_node(name)["disable_power_off"] is False

    for verb in ("manage", "provide", "deploy"):
        done = cli("node", verb, name)
        assert done.code == 0, done.stderr
    done = cli(
        "node", "set", name, "--retired", "--retired-reason", "end of life",
        "--protected", "--protected-reason", "in production",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    node = mw.get_node(name)
    assert (node.retired, node.retired_reason) == (True, "end of life")
    assert (node.protected, node["protected_reason"]) == (True, "in production")
    assert name in _listed(cli, "--retired")
    assert name not in _listed(cli, "--no-retired")

    undeploy = cli("node", "undeploy", name)
    assert undeploy.code == 1 and "protected" in undeploy.stderr, undeploy.stderr
    assert mw.get_node(name).provision_state == "active"

    assert cli("node", "unset", name, "--protected").code == 0
    node = mw.get_node(name)
    assert (node.protected, node["protected_reason"]) == (False, None)
    undeploy = cli("node", "undeploy", name)  # a retired node is not offered again
    assert undeploy.code == 0, undeploy.stderr
    assert mw.get_node(name).provision_state == "manageable"
    provide = cli("node", "provide", name)
    assert provide.code == 1 and "retired" in provide.stderr, provide.stderr

    done = cli("node", "unset", name, "--retired")
    assert done.code == 0, done.stderr
    node = mw.get_node(name)
    assert (node.retired, node.retired_reason) == (False, None)
    assert name in _listed(cli, "--no-retired")
    assert cli("node", "provide", name).code == 0

    both = cli("node", "set", name, "--disable-power-off", "--enable-power-off")
    assert both.code == 2 and "not allowed with argument" in both.stderr, both.stderr


def test_list_by_fault_and_conductor(cli: Run, mw: Client) -> None:
    name = unique("served")
    mw.create_node("fake-hardware", name=name)
    conductor = mw.get_node(name)["conductor"]
    assert name in _listed(cli, "--conductor", conductor)
    assert _listed(cli, "--conductor", unique("no-such-host")) == set()
    assert name not in _listed(cli, "--fault", "power failure")
    bogus = cli("node", "list", "--fault", "sneezing")
    assert bogus.code == 1 and "Invalid fault 'sneezing'" in bogus.stderr, bogus.stderr
