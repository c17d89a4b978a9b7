"""The ``generic-switch`` switch driver: networking-generic-switch's device classes.

networking-generic-switch (the ``[switch]`` extra) builds a device object from a dictionary
of settings named its own way; :func:`device_config` writes that dictionary from a switch of
the switch file, as Ironic's generic-switch driver does, so that a switch file written for
Ironic drives the same device the same way.
"""

from __future__ import annotations

import re

from metalwire.networking.switch_file import SwitchDefinition

__all__ = ["device_config", "hidden_errors"]

# Error lines of device types whose networking-generic-switch class does not check its
# output: an operation on them "succeeds" whatever the switch answered.
_UNCHECKED_OUTPUT_ERRORS = {
    "netmiko_ovs_linux": re.compile(r"^ovs-vsctl: (?P<error>.+)$", re.MULTILINE),
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
