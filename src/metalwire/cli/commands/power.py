"""``metalwire node power on|off``, ``node reboot``, ``node boot device set|show``, ``node
boot mode set``, ``node secure boot on|off``, ``node inject nmi`` and ``node console
show|enable|disable``: a node's power, how it boots and its console, through its power,
management and console interfaces."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from metalwire.cli.commands.common import Handler, add_node_command, whole_seconds
from metalwire.cli.output import print_record
from metalwire.client import Client
from metalwire.client.client import PowerTarget


def _power(hard: PowerTarget, soft: PowerTarget | None) -> Handler:
    def run(client: Client, args: argparse.Namespace) -> int:
        target = soft if soft is not None and args.soft else hard
        client.set_power_state(args.node, target, args.power_timeout)
        return 0

    return run


def _boot_device_set(client: Client, args: argparse.Namespace) -> int:
    client.set_boot_device(args.node, args.device, args.persistent)
    return 0


def _boot_device_show(client: Client, args: argparse.Namespace) -> int:
    if args.supported:
        record = {"supported_boot_devices": client.get_supported_boot_devices(args.node)}
    else:
        record = client.get_boot_device(args.node)
    print_record(record, args.format, sys.stdout, args.columns)
    return 0


def _boot_mode_set(client: Client, args: argparse.Namespace) -> int:
    client.set_boot_mode(args.node, args.mode)
    return 0


def _switch(turn: Callable[[Client, str, bool], None], on: bool) -> Handler:
    """The handler of a command that turns something of the node on or off: ``turn`` is the
    client's method (``Client.set_console``, ``Client.set_secure_boot``)."""

    def run(client: Client, args: argparse.Namespace) -> int:
        turn(client, args.node, on)
        return 0

    return run


def _inject_nmi(client: Client, args: argparse.Namespace) -> int:
    client.inject_nmi(args.node)
    return 0


def _console_show(client: Client, args: argparse.Namespace) -> int:
    print_record(client.get_console(args.node), args.format, sys.stdout, args.columns)
    return 0


def _actions(parent: Any, name: str, help: str, dest: str, metavar: str = "ACTION") -> Any:
    """``parent``'s command ``name``, whose own commands (``metavar``) follow it."""
    group = parent.add_parser(name, help=help)
    return group.add_subparsers(dest=dest, metavar=metavar, required=True)


def register(node_actions: Any, common: argparse.ArgumentParser) -> None:
    """Add ``power on|off``, ``reboot``, ``boot device set|show``, ``boot mode set``,
    ``secure boot on|off``, ``inject nmi`` and ``console show|enable|disable`` to ``metalwire
    node``."""
    power_actions = _actions(node_actions, "power", "power a node on or off", "power_command")
    hard = add_node_command(
        power_actions, "on", common, "Power a node on", _power("power on", None)
    )
    soft = [
        add_node_command(
            power_actions, "off", common, "Power a node off", _power("power off", "soft power off")
        ),
        add_node_command(
            node_actions, "reboot", common, "Reboot a node", _power("rebooting", "soft rebooting")
        ),
    ]
    for parser in (hard, *soft):
        parser.add_argument(
            "--power-timeout",
            dest="power_timeout",
            type=whole_seconds,
            metavar="SECONDS",
            help="seconds the power change may take before it fails (API 1.27)",
        )
    for parser in soft:
        parser.add_argument(
            "--soft",
            action="store_true",
            help="ask the operating system to shut down first (API 1.27)",
        )

    boot_kinds = _actions(
        node_actions, "boot", "the device a node boots from", "boot_command", "WHAT"
    )
    device_actions = _actions(
        boot_kinds, "device", "set or show a node's boot device", "boot_device_command"
    )
    set_ = add_node_command(
        device_actions, "set", common, "Set the device a node boots from", _boot_device_set
    )
    set_.add_argument("device", metavar="DEVICE", help="pxe, disk, cdrom, bios, safe, ...")
    set_.add_argument(
        "--persistent", action="store_true", help="boot from it every time, not only the next"
    )
    show = add_node_command(
        device_actions, "show", common, "Show the device a node boots from", _boot_device_show, True
    )
    show.add_argument(
        "--supported",
        action="store_true",
        help="the devices the node's management interface can boot it from",
    )

    mode_actions = _actions(
        boot_kinds, "mode", "set a node's boot mode (API 1.76)", "boot_mode_command"
    )
    mode_set = add_node_command(
        mode_actions, "set", common, "Change the mode a node boots in", _boot_mode_set
    )
    mode_set.add_argument("mode", choices=("bios", "uefi"), metavar="MODE", help="bios or uefi")

    secure_kinds = _actions(
        node_actions, "secure", "a node's secure boot (API 1.76)", "secure_command", "WHAT"
    )
    secure_actions = _actions(
        secure_kinds, "boot", "turn a node's secure boot on or off", "secure_boot_command"
    )
    add_node_command(
        secure_actions, "on", common, "Turn secure boot on", _switch(Client.set_secure_boot, True)
    )
    add_node_command(
        secure_actions,
        "off",
        common,
        "Turn secure boot off",
        _switch(Client.set_secure_boot, False),
    )
    nmi_kinds = _actions(
        node_actions, "inject", "interrupt a node (API 1.29)", "inject_command", "WHAT"
    )
    add_node_command(nmi_kinds, "nmi", common, "Send a node a non-maskable interrupt", _inject_nmi)

    console_actions = _actions(
        node_actions, "console", "a node's serial console", "console_command"
    )
    add_node_command(console_actions, "show", common, "Show a node's console", _console_show, True)
    add_node_command(
        console_actions,
        "enable",
        common,
        "Start a node's console",
        _switch(Client.set_console, True),
    )
    add_node_command(
        console_actions,
        "disable",
        common,
        "Stop a node's console",
        _switch(Client.set_console, False),
    )
