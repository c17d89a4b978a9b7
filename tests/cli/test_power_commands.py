"""``metalwire node power on|off``, ``node reboot`` and ``node boot device set|show`` against a
real server."""

from __future__ import annotations

import json

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import unique


def _power_state(mw: Client, node: str) -> str:
    return str(mw.get_states(node)["power_state"])


def test_power_off_on_and_reboot_hard_and_soft(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("power")).name
    assert node is not None

    for argv, state in (
        (("power", "off"), "power off"),
        (("power", "on", "--power-timeout", "30"), "power on"),
        (("reboot",), "power on"),
        (("reboot", "--soft", "--power-timeout", "5"), "power on"),
        (("power", "off", "--soft"), "power off"),
    ):
        result = cli("node", *argv, node)
        assert result.code == 0, (argv, result.stderr)
        assert result.stdout == ""
        assert _power_state(mw, node) == state, argv

    for bad in ("0", "-3", "soon", "1.5"):
        refused = cli("node", "power", "on", node, "--power-timeout", bad)
        assert refused.code == 2 and "--power-timeout" in refused.stderr, refused.stderr
    assert _power_state(mw, node) == "power off"  # nothing was sent

    missing = cli("node", "power", "on", unique("no-such-node"))
    assert missing.code == 1 and "could not be found" in missing.stderr, missing.stderr
    empty = cli("node", "reboot", "")
    assert empty.code == 2 and "must not be empty" in empty.stderr, empty.stderr


def test_boot_device_set_and_shown(cli: Run, mw: Client) -> None:
    # ipmitool's management keeps what was set (fake-hardware's always answers pxe, as Ironic's)
    ipmi = {"ipmi_address": "192.0.2.10"}
    node = mw.create_node("ipmi", name=unique("boot"), driver_info=ipmi).name
    assert node is not None

    supported = cli("node", "boot", "device", "show", node, "--supported", "-f", "json")
    assert supported.code == 0, supported.stderr
    devices = json.loads(supported.stdout)["supported_boot_devices"]
    assert devices == mw.get_supported_boot_devices(node) and {"pxe", "disk"} <= set(devices)

    assert cli("node", "boot", "device", "set", node, "disk", "--persistent").code == 0
    shown = cli("node", "boot", "device", "show", node, "-f", "json")
    assert shown.code == 0, shown.stderr
    assert json.loads(shown.stdout) == {"boot_device": "disk", "persistent": True}

    assert cli("node", "boot", "device", "set", node, "pxe").code == 0
    value = cli("node", "boot", "device", "show", node, "-c", "persistent", "-f", "value")
    assert value.stdout == "False\n", value.stdout

    refused = cli("node", "boot", "device", "set", node, "floppy")
    assert refused.code == 1 and "floppy" in refused.stderr, refused.stderr
    assert mw.get_boot_device(node) == {"boot_device": "pxe", "persistent": False}


def test_console_enabled_shown_and_disabled(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("console")).name
    assert node is not None

    def shown() -> dict[str, object]:
        result = cli("node", "console", "show", node, "-f", "json")
        assert result.code == 0, result.stderr
        return dict(json.loads(result.stdout))

    assert shown() == {"console_enabled": False, "console_info": None}
    assert cli("node", "console", "enable", node).code == 0
    enabled = shown()
    assert enabled["console_enabled"] is True and enabled == mw.get_console(node)
    assert isinstance(enabled["console_info"], dict)  # fake: {}, as Ironic's fake console
    assert cli("node", "console", "disable", node).code == 0
    assert shown()["console_enabled"] is False

    missing = cli("node", "console", "enable", unique("no-such-node"))
    assert missing.code == 1 and "could not be found" in missing.stderr, missing.stderr


def test_boot_mode_secure_boot_and_nmi_reach_the_management_interface(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("modes")).name
    assert node is not None

    # fake-hardware's management cannot change the boot mode: accepted, then refused in
    # last_error, as Ironic's conductor does after answering
    assert cli("node", "boot", "mode", "set", node, "uefi").code == 0
    assert "uefi" in (mw.get_node(node).get("last_error") or ""), mw.get_node(node)
    assert cli("node", "secure", "boot", "on", node).code == 0
    assert "secure boot" in (mw.get_node(node).get("last_error") or "").lower()
    bad = cli("node", "boot", "mode", "set", node, "legacy")
    assert bad.code == 2 and "bios" in bad.stderr, bad.stderr

    refused = cli("node", "inject", "nmi", node)
    assert refused.code == 1 and "does not support inject_nmi" in refused.stderr, refused.stderr
    ipmi = {"ipmi_address": "192.0.2.11"}
    bmc = mw.create_node("ipmi", name=unique("nmi"), driver_info=ipmi).name
    assert bmc is not None
    sent = cli("node", "inject", "nmi", bmc)
    assert sent.code == 0, sent.stderr
    missing = cli("node", "inject", "nmi", unique("no-such-node"))
    assert missing.code == 1 and "could not be found" in missing.stderr, missing.stderr
