"""The ``generic-switch`` switch driver: networking-generic-switch's device classes.

networking-generic-switch (the ``[switch]`` extra) builds a device object from a dictionary
of settings named its own way; :func:`device_config` writes that dictionary from a switch of
the switch file, as Ironic's generic-switch driver does, so that a switch file written for
Ironic drives the same device the same way.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

from metalwire.config_switch import SWITCH_LOGIN_TIMEOUT
from metalwire.errors import NetworkError
from metalwire.networking import generic_switch_workers
from metalwire.networking.bonds import Bond, ovs_bond_command, ovs_unbond_command
from metalwire.networking.port_ids import port_id_problem
from metalwire.networking.switch_file import SwitchDefinition
from metalwire.networking.switch_ports import (
    NameRefused,
    PartlyApplied,
    SwitchChange,
    unexpected_error,
)
from metalwire.networking.switchport import SwitchportConfig
from metalwire.redact import MASK

__all__ = [
    "GenericSwitchDevice",
    "device_config",
    "hidden_errors",
    "operations",
    "read_command",
    "takes_bonds_apart",
]

# Error lines of device types whose networking-generic-switch class does not check its
# output: an operation on them "succeeds" whatever the switch answered. An error ends at the
# line's end or where the echo of the next command begins on the same line (the shell's
# error output and the terminal's echo interleave).
_UNCHECKED_OUTPUT_ERRORS = {
    "netmiko_ovs_linux": re.compile(r"^ovs-vsctl: (?P<error>.+?)(?=ovs-vsctl |$)", re.MULTILINE),
}


# Device types on which metalwire makes the bond itself (networking-generic-switch cannot)
_BOND_COMMANDS = {"netmiko_ovs_linux": ovs_bond_command}
# ... and takes it apart
_UNBOND_COMMANDS = {"netmiko_ovs_linux": ovs_unbond_command}


def takes_bonds_apart(device_type: str) -> bool:
    """Whether metalwire makes and takes apart bonds on switches of ``device_type`` (on the
    others a port-channel is the operator's)."""
    return device_type in _UNBOND_COMMANDS


#: How long reading ports back (the drift audit) tries to log in, at most: a switch that
#: refuses the login holds its lock, and the changes waiting for it, only this long.
READ_LOGIN_TIMEOUT = 10
#: How long an operation may take past its login, for its commands.
COMMANDS_TIMEOUT = 60.0


def login_settings(timeout: int) -> dict[str, str]:
    """networking-generic-switch's settings that try to log in for ``timeout`` seconds: every
    10 s (its default), or every fifth of ``timeout`` when that is shorter."""
    interval = max(1, min(10, timeout // 5))
    return {"ngs_ssh_connect_timeout": str(timeout), "ngs_ssh_connect_interval": str(interval)}


#: The command that reads one port's VLAN configuration back, per device type that has one.
_READ_PORT_COMMANDS = {
    "netmiko_ovs_linux": "ovs-vsctl get port {port} tag vlan_mode trunks",
}

Operation = tuple[str, list[Any], dict[str, Any]]


def read_command(device_type: str) -> str | None:
    """The template (``{port}``) of the command that reads a port back, or None."""
    return _READ_PORT_COMMANDS.get(device_type)


def operations(
    port_id: str,
    config: SwitchportConfig | None,
    previous: SwitchportConfig | None,
    bond: Bond | None = None,
    device_type: str = "",
    previous_bond: Bond | None = None,
) -> list[Operation]:
    """The device method calls that put ``port_id`` on ``config`` from ``previous``.

    Access ports get ``plug_port_to_network``; trunk and hybrid ports the same with the
    allowed VLANs other than the native one as ``trunk_details`` (as Ironic's generic-switch
    driver passes them); None clears the port (``delete_port``). A port that was a trunk or
    hybrid is cleared first whenever its configuration changes, with the old allowed VLANs as
    ``trunk_details`` (so every device type removes them, not only those whose
    ``delete_port`` clears the whole list): a plug only adds VLANs to a trunk (on Open vSwitch
    ``add port trunks``), so the old list would stay. This holds for an undo
    (:meth:`SwitchChange.reverse`) as for the change. A bond gets
    ``plug_bond_to_network`` / ``unplug_bond_from_network`` on its name, after the command
    that makes it on a ``device_type`` where metalwire knows one
    (:mod:`metalwire.networking.bonds`); a ``previous_bond`` other than ``bond`` is taken
    apart before anything else, where metalwire knows how. Raises NetworkError for a port
    or bond name that is no switch interface name (nothing is built, nor sent).
    """
    _check_names([port_id], bond, previous_bond)
    calls: list[Operation] = []
    take_apart = _UNBOND_COMMANDS.get(device_type)
    if previous_bond is not None and previous_bond != bond and take_apart is not None:
        calls.append(("send_commands_to_device", [[take_apart(previous_bond)]], {}))
    plug, unplug = "plug_port_to_network", "delete_port"
    if bond is not None:
        plug, unplug = "plug_bond_to_network", "unplug_bond_from_network"
        make_bond = _BOND_COMMANDS.get(device_type)
        if make_bond is not None:
            calls.append(("send_commands_to_device", [[make_bond(bond)]], {}))
    from_trunk = previous is not None and previous.mode != "access"
    if config is None or (from_trunk and config != previous):
        # the OVS commands ignore the VLAN, but networking-generic-switch wants one
        vlan = previous.native_vlan if previous is not None else 1
        kwargs = {"trunk_details": _trunk_details(previous)} if from_trunk else {}
        calls.append((unplug, [port_id, vlan], kwargs))
    if config is not None:
        calls.append(
            (plug, [port_id, config.native_vlan], {"trunk_details": _trunk_details(config)})
        )
    return calls


def _check_names(port_ids: Sequence[str], *bonds: Bond | None) -> None:
    """Raise NetworkError, before any command is built, for a port or bond name that is no
    switch interface name (:mod:`metalwire.networking.port_ids`): the device classes put
    names into the switch's commands as they are."""
    names = list(port_ids)
    for bond in bonds:
        if bond is not None:
            names += [bond.name, *bond.members]
    for name in names:
        problem = port_id_problem(name)
        if problem is not None:
            raise NameRefused(f"refused to send the switch a command: {problem}")


def _trunk_details(config: SwitchportConfig | None) -> dict[str, Any] | None:
    """networking-generic-switch's ``trunk_details`` of a trunk or hybrid ``config``: its
    allowed VLANs other than the native one (None for access or no configuration)."""
    if config is None or config.mode == "access":
        return None
    trunk = [vlan for vlan in config.allowed_vlans if vlan != config.native_vlan]
    return {"sub_ports": [{"segmentation_id": vlan} for vlan in trunk]}


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

    A port is set by the calls of :func:`operations`. Each operation runs in a
    process of its own, forked by the interpreter's worker server
    (:mod:`metalwire.networking.generic_switch_workers`). Errors name the switch's answer,
    never its credentials.
    """

    def __init__(
        self,
        switch: SwitchDefinition,
        python: str = "",
        timeout: float | None = None,
        login_timeout: int = SWITCH_LOGIN_TIMEOUT,
    ) -> None:
        """``login_timeout``: how long a change tries to log in; ``timeout``: how long any
        operation may take in all (default: the login's and :data:`COMMANDS_TIMEOUT`)."""
        self.switch = switch
        self.python = python or sys.executable
        self.login = login_settings(login_timeout)
        self.read_login = login_settings(min(READ_LOGIN_TIMEOUT, login_timeout))
        self.timeout = login_timeout + COMMANDS_TIMEOUT if timeout is None else timeout

    def set_port(
        self,
        port_id: str,
        config: SwitchportConfig | None,
        previous: SwitchportConfig | None,
        bond: Bond | None = None,
        previous_bond: Bond | None = None,
    ) -> None:
        """Each call of :func:`operations` in turn; a failure after the first call raises
        PartlyApplied (an unexpected exception logged with its traceback)."""
        calls = operations(port_id, config, previous, bond, self.switch.device_type, previous_bond)
        for number, (method, args, kwargs) in enumerate(calls):
            try:
                answer = self._call(method, {"method": method, "args": args, "kwargs": kwargs})
                output = answer.get("output")
                self._check(output if isinstance(output, str) else None)
            except Exception as exc:
                if number == 0:
                    raise
                if not isinstance(exc, NetworkError):
                    exc = unexpected_error(self.switch, f"setting port {port_id}", exc)
                raise PartlyApplied(str(exc), exc.code) from exc

    def render(
        self,
        changes: Sequence[SwitchChange],
    ) -> list[list[str]]:
        """The commands :meth:`set_port` would send for each change, rendered by
        networking-generic-switch's device class without connecting (one process for them
        all). Raises NetworkError when the device class cannot render them."""
        kind = self.switch.device_type
        per_change = [
            operations(c.port_id, c.config, c.previous, c.bond, kind, c.previous_bond)
            for c in changes
        ]
        calls = [
            {"method": method, "args": args, "kwargs": kwargs}
            for change_operations in per_change
            for method, args, kwargs in change_operations
        ]
        rendered = iter(self._call("render commands", {"render": calls})["commands"])
        return [
            [command for _ in change_operations for command in next(rendered)]
            for change_operations in per_change
        ]

    def read_ports(self, port_ids: Sequence[str]) -> dict[str, str]:
        """What the switch answers to the read command of each port, over one SSH login.

        Raises NetworkError when the device type has no read command
        (:func:`read_command`), a port's name is no switch interface name (nothing is sent)
        or the switch cannot be read."""
        template = read_command(self.switch.device_type)
        if template is None:
            raise NetworkError(f"device type {self.switch.device_type} cannot be read back")
        _check_names(port_ids)
        commands = [template.format(port=port_id) for port_id in port_ids]
        outputs = self._call("read ports", {"show": commands}, self.read_login)["outputs"]
        return dict(zip(port_ids, (str(output) for output in outputs), strict=True))

    def _check(self, output: str | None) -> None:
        errors = hidden_errors(self.switch.device_type, output)
        if errors:
            raise NetworkError(f"the switch answered: {'; '.join(errors)}")

    def _call(
        self, what: str, operation: dict[str, Any], login: dict[str, str] | None = None
    ) -> dict[str, Any]:
        device = {**device_config(self.switch), **(login or self.login)}
        request = {"device": device, "name": self.switch.name, **operation}
        try:
            answer = generic_switch_workers.call(self.python, what, request, self.timeout)
        except NetworkError as error:
            raise NetworkError(self._hide_secrets(str(error))) from None
        if "error" in answer:
            raise NetworkError(f"{what} failed: {self._hide_secrets(answer['error'])}")
        return dict(answer)

    def _hide_secrets(self, text: str) -> str:
        for secret in (self.switch.password, self.switch.enable_secret):
            if secret:
                text = text.replace(secret, MASK)
        return text
