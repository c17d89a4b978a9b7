"""A node's boot device, boot mode and secure boot through the unmodified ``baremetal``
program, with every flag its commands offer, and through openstacksdk, against a real
server: all were 404."""

from __future__ import annotations

from typing import Any

import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

REDFISH_INFO = "redfish_address=https://192.0.2.50"


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def redfish_node(baremetal: Cli, prefix: str) -> str:
    name = unique(prefix)
    baremetal.ok(
        "node", "create", "--driver", "redfish", "--name", name, "--driver-info", REDFISH_INFO
    )
    return name


def test_boot_device_set_and_show_with_every_flag(baremetal: Cli) -> None:
    first, second = redfish_node(baremetal, "bd"), redfish_node(baremetal, "bd")
    shown = baremetal.json("node", "boot", "device", "show", first)
    assert shown == {"boot_device": None, "persistent": None}
    baremetal.ok("node", "boot", "device", "set", first, second, "cdrom")
    for node in (first, second):
        shown = baremetal.json("node", "boot", "device", "show", node)
        assert shown == {"boot_device": "cdrom", "persistent": False}
    baremetal.ok("node", "boot", "device", "set", "--persistent", first, "disk")
    shown = baremetal.json("node", "boot", "device", "show", first)
    assert shown == {"boot_device": "disk", "persistent": True}
    supported = baremetal.json("node", "boot", "device", "show", "--supported", first)
    assert supported == {"supported_boot_devices": "pxe, disk, cdrom, bios, uefihttp"}


def test_boot_device_a_fake_node_does_not_offer_is_an_error_naming_it(baremetal: Cli) -> None:
    node = unique("bdf")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    refused = baremetal.run("node", "boot", "device", "set", node, "disk")
    assert refused.returncode != 0 and "Invalid boot device 'disk'" in refused.stderr, (
        refused.describe()
    )
    shown = baremetal.json("node", "boot", "device", "show", node)
    assert shown == {"boot_device": "pxe", "persistent": False}


def test_boot_mode_set_and_secure_boot_on_and_off(baremetal: Cli) -> None:
    first, second = redfish_node(baremetal, "bm"), redfish_node(baremetal, "bm")
    baremetal.ok("node", "boot", "mode", "set", first, second, "uefi")
    baremetal.ok("node", "secure", "boot", "on", first, second)
    for node in (first, second):
        shown = baremetal.json("node", "show", node, "--fields", "boot_mode", "secure_boot")
        assert shown == {"boot_mode": "uefi", "secure_boot": True}
    baremetal.ok("node", "secure", "boot", "off", first)
    shown = baremetal.json("node", "show", first, "--fields", "secure_boot")
    assert shown == {"secure_boot": False}
    baremetal.ok("node", "boot", "mode", "set", first, "bios")
    assert baremetal.json("node", "show", first, "--fields", "boot_mode") == {"boot_mode": "bios"}


def test_boot_mode_of_a_fake_node_is_refused_in_last_error(baremetal: Cli) -> None:
    node = unique("bmf")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    baremetal.ok("node", "boot", "mode", "set", node, "uefi")
    error = baremetal.json("node", "show", node, "--fields", "last_error")["last_error"]
    assert "does not support set_boot_mode" in error


def test_sdk_sets_and_reads_the_boot_device_mode_and_secure_boot(sdk: Any) -> None:
    node = sdk.create_node(
        driver="ipmi", name=unique("sdk-bd"), driver_info={"ipmi_address": "192.0.2.51"}
    )
    supported = sdk.get_node_supported_boot_devices(node)
    assert supported == {"supported_boot_devices": ["pxe", "disk", "cdrom", "bios", "safe"]}
    sdk.set_node_boot_device(node, "bios", persistent=True)
    assert sdk.get_node_boot_device(node) == {"boot_device": "bios", "persistent": True}

    redfish = sdk.create_node(
        driver="redfish", name=unique("sdk-bm"), driver_info={"redfish_address": "192.0.2.52"}
    )
    sdk.set_node_boot_mode(redfish, "uefi")
    sdk.set_node_secure_boot(redfish, True)
    shown = sdk.get_node(redfish.id)
    assert (shown.boot_mode, shown.is_secure_boot) == ("uefi", True)


def test_bios_setting_list_with_every_flag_and_show(baremetal: Cli) -> None:
    node = unique("bios")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    assert baremetal.json("node", "bios", "setting", "list", node) == []
    assert baremetal.json("node", "bios", "setting", "list", "--long", node) == []
    listed = baremetal.json("node", "bios", "setting", "list", node, "--fields", "name", "value")
    assert listed == []
    missing = baremetal.run("node", "bios", "setting", "show", node, "ProcVirtualization")
    assert missing.returncode != 0 and "has no BIOS setting 'ProcVirtualization'" in (
        missing.stderr
    ), missing.describe()
