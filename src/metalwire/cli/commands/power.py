"""``metalwire node power on|off``, ``node reboot``, ``node boot device set|show``, ``node
boot mode set``, ``node secure boot on|off``, ``node inject nmi`` and ``node console
show|enable|disable``: a node's power, how it boots and its console, through its power,
management and console interfaces."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from metalwire.cli.commands.common import Handler, add_command, add_node_argument, whole_seconds
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


def register(node_actions: Any, common: argparse.ArgumentParser) -> None:
    """Add ``power on|off``, ``reboot``, ``boot device set|show``, ``boot mode set``,
    ``secure boot on|off``, ``inject nmi`` and ``console show|enable|disable`` to ``metalwire
    node``."""
    power = node_actions.add_parser("power", help="power a node on or off")
    power_actions = power.add_subparsers(dest="power_command", metavar="ACTION", required=True)
    commands = [
        add_command(power_actions, "on", common, "Power a node on", _power("power on", None)),
        add_command(
            power_actions,
            "off",
            common,
            "Power a node off",
            _power("power off", "soft power off"),
        ),
        add_command(
            node_actions, "reboot", common, "Reboot a node", _power("rebooting", "soft rebooting")
        ),
    ]
    for parser in commands:
        add_node_argument(parser)
        parser.add_argument(
            "--power-timeout",
            dest="power_timeout",
            type=whole_seconds,
            metavar="SECONDS",
            help="seconds the power change may take before it fails (API 1.27)",
        )
    for parser in commands[1:]:
        parser.add_argument(
            "--soft",
            action="store_true",
            help="ask the operating system to shut down first (API 1.27)",
        )

    boot = node_actions.add_parser("boot", help="the device a node boots from")
    boot_kinds = boot.add_subparsers(dest="boot_command", metavar="WHAT", required=True)
    device = boot_kinds.add_parser("device", help="set or show a node's boot device")
    device_actions = device.add_subparsers(
        dest="boot_device_command", metavar="ACTION", required=True
    )
    set_ = add_command(
        device_actions, "set", common, "Set the device a node boots from", _boot_device_set
    )
    add_node_argument(set_)
    set_.add_argument("device", metavar="DEVICE", help="pxe, disk, cdrom, bios, safe, ...")
    set_.add_argument(
        "--persistent",
        action="store_true",
        help="boot from it every time, not only the next",
    )
    show = add_command(
        device_actions, "show", common, "Show the device a node boots from", _boot_device_show, True
    )
    add_node_argument(show)
    show.add_argument(
        "--supported",
        action="store_true",
        help="the devices the node's management interface can boot it from",
    )

    mode = boot_kinds.add_parser("mode", help="set a node's boot mode (API 1.76)")
    mode_actions = mode.add_subparsers(dest="boot_mode_command", metavar="ACTION", required=True)
    mode_set = add_command(
        mode_actions, "set", common, "Change the mode a node boots in", _boot_mode_set
    )
    add_node_argument(mode_set)
    mode_set.add_argument("mode", choices=("bios", "uefi"), metavar="MODE", help="bios or uefi")

    secure = node_actions.add_parser("secure", help="a node's secure boot (API 1.76)")
    secure_kinds = secure.add_subparsers(dest="secure_command", metavar="WHAT", required=True)
    secure_boot = secure_kinds.add_parser("boot", help="turn a node's secure boot on or off")
    secure_actions = secure_boot.add_subparsers(
        dest="secure_boot_command", metavar="ACTION", required=True
    )
    nmi = node_actions.add_parser("inject", help="interrupt a node (API 1.29)")
    nmi_kinds = nmi.add_subparsers(dest="inject_command", metavar="WHAT", required=True)
    for parser in (
        add_command(
            secure_actions,
            "on",
            common,
            "Turn secure boot on",
            _switch(Client.set_secure_boot, True),
        ),
        add_command(
            secure_actions,
            "off",
            common,
            "Turn secure boot off",
            _switch(Client.set_secure_boot, False),
        ),
        add_command(nmi_kinds, "nmi", common, "Send a node a non-maskable interrupt", _inject_nmi),
    ):
        add_node_argument(parser)

    console = node_actions.add_parser("console", help="a node's serial console")
    console_actions = console.add_subparsers(
        dest="console_command", metavar="ACTION", required=True
    )
    for parser in (
        add_command(console_actions, "show", common, "Show a node's console", _console_show, True),
        add_command(
            console_actions,
            "enable",
            common,
            "Start a node's console",
            _switch(Client.set_console, True),
        ),
        add_command(
            console_actions,
            "disable",
            common,
            "Stop a node's console",
            _switch(Client.set_console, False),
        ),
    ):
        add_node_argument(parser)
