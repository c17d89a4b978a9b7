"""The ``generic-switch`` switch driver: networking-generic-switch's device classes.

networking-generic-switch (the ``[switch]`` extra) builds a device object from a dictionary
of settings named its own way; :func:`device_config` writes that dictionary from a switch of
the switch file, as Ironic's generic-switch driver does, so that a switch file written for
Ironic drives the same device the same way.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from metalwire.errors import NetworkError
from metalwire.networking.bonds import Bond, ovs_bond_command
from metalwire.networking.switch_file import SwitchDefinition
from metalwire.networking.switchport import SwitchportConfig
from metalwire.redact import MASK

__all__ = ["GenericSwitchDevice", "device_config", "hidden_errors"]

# run by path: the worker imports nothing of metalwire, so any interpreter with
# networking-generic-switch can run it
_WORKER = Path(__file__).with_name("generic_switch_worker.py")

# Error lines of device types whose networking-generic-switch class does not check its
# output: an operation on them "succeeds" whatever the switch answered. An error ends at the
# line's end or where the echo of the next command begins on the same line (the shell's
# error output and the terminal's echo interleave).
# Device types on which metalwire makes the bond itself (networking-generic-switch cannot)
_BOND_COMMANDS = {"netmiko_ovs_linux": ovs_bond_command}
_UNCHECKED_OUTPUT_ERRORS = {
    "netmiko_ovs_linux": re.compile(r"^ovs-vsctl: (?P<error>.+?)(?=ovs-vsctl |$)", re.MULTILINE),
}


def device_config(switch: SwitchDefinition) -> dict[str, str]:
    """networking-generic-switch's settings for ``switch`` (secrets included: never log it).

    ``persist`` becomes ``ngs_save_configuration`` (false unless the file says true, where
    networking-generic-switch alone would save after every change); ``allowed_vlans`` becomes
    ``ngs_allowed_vlans``, the VLAN IDs one by one.
    """
    config = {
        "device_type": switch.device_type,
        "ip": switch.address,
        "username": switch.username,
        "ngs_save_configuration": str(switch.persist),
    }
    optional = {
        "port": None if switch.port is None else str(switch.port),
        "password": switch.password,
        "key_file": switch.key_file,
        "secret": switch.enable_secret,
        "ngs_mac_address": switch.mac_address,
        "ngs_allowed_vlans": (
            None
            if switch.allowed_vlans is None
            else ",".join(str(vlan) for vlan in sorted(switch.allowed_vlans))
        ),
    }
    config.update({key: value for key, value in optional.items() if value is not None})
    return config


def hidden_errors(device_type: str, output: str | None) -> list[str]:
    """The errors in an operation's output that networking-generic-switch let through."""
    pattern = _UNCHECKED_OUTPUT_ERRORS.get(device_type)
    if pattern is None or not output:
        return []
    return [match.group("error").strip() for match in pattern.finditer(output)]


class GenericSwitchDevice:
    """A switch driven by networking-generic-switch's device class for its device type.

    Access ports get ``plug_port_to_network``; trunk and hybrid ports the same with the
    allowed VLANs other than the native one as ``trunk_details`` (as Ironic's generic-switch
    driver passes them); None clears the port (``delete_port``). A bond gets the
    ``plug_bond_to_network`` / ``unplug_bond_from_network`` operations on its name, after
    the command that makes it where metalwire knows one (:mod:`metalwire.networking.bonds`).
    Each operation runs in a
    process of its own (:mod:`metalwire.networking.generic_switch_worker`). Errors name the
    switch's answer, never its credentials.
    """

    def __init__(self, switch: SwitchDefinition, python: str = "", timeout: float = 120.0) -> None:
        self.switch = switch
        self.python = python or sys.executable
        self.timeout = timeout

    def set_port(
        self,
        port_id: str,
        config: SwitchportConfig | None,
        previous: SwitchportConfig | None,
        bond: Bond | None = None,
    ) -> None:
        plug, unplug = "plug_port_to_network", "delete_port"
        if bond is not None:
            plug, unplug = "plug_bond_to_network", "unplug_bond_from_network"
            make_bond = _BOND_COMMANDS.get(self.switch.device_type)
            if make_bond is not None:
                self._check(self._call("send_commands_to_device", [[make_bond(bond)]], {}))
        # an access plug sets the tag only: the VLAN list of a trunk metalwire set goes first
        from_trunk = previous is not None and previous.mode != "access"
        if config is None or (config.mode == "access" and from_trunk):
            # the OVS commands ignore the VLAN, but networking-generic-switch wants one
            vlan = previous.native_vlan if previous is not None else 1
            output = self._call(unplug, [port_id, vlan], {})
            self._check(output)
        if config is not None:
            trunk = [vlan for vlan in config.allowed_vlans if vlan != config.native_vlan]
            details = (
                {"sub_ports": [{"segmentation_id": vlan} for vlan in trunk]}
                if config.mode != "access"
                else None
            )
            output = self._call(plug, [port_id, config.native_vlan], {"trunk_details": details})
            self._check(output)

    def _check(self, output: str | None) -> None:
        errors = hidden_errors(self.switch.device_type, output)
        if errors:
            raise NetworkError(f"the switch answered: {'; '.join(errors)}")

    def _call(self, method: str, args: list[Any], kwargs: dict[str, Any]) -> str | None:
        request = {
            "device": device_config(self.switch),
            "name": self.switch.name,
            "method": method,
            "args": args,
            "kwargs": kwargs,
        }
        try:
            done = subprocess.run(
                [self.python, str(_WORKER)],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                timeout=self.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise NetworkError(f"{method} got no answer within {self.timeout:g} s") from None
        if done.returncode != 0:
            tail = self._hide_secrets(done.stderr.strip().splitlines()[-1] if done.stderr else "")
            raise NetworkError(f"{method} failed: {tail}")
        answer = json.loads(done.stdout)
        if "error" in answer:
            raise NetworkError(f"{method} failed: {self._hide_secrets(answer['error'])}")
        output = answer.get("output")
        return output if isinstance(output, str) else None

    def _hide_secrets(self, text: str) -> str:
        for secret in (self.switch.password, self.switch.enable_secret):
            if secret:
                text = text.replace(secret, MASK)
        return text
