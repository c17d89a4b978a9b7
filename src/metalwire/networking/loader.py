"""Loads the enabled network interfaces from the ``metalwire.network_interfaces`` entry points."""

from __future__ import annotations

import functools
import os
import sys
from importlib.metadata import EntryPoint, entry_points

from metalwire import hardware_types
from metalwire.config import Config
from metalwire.errors import Invalid, InvalidParameterValue
from metalwire.networking.base import NetworkInterface

GROUP = "metalwire.network_interfaces"


class NetworkInterfaces:
    """The enabled interfaces by name, and the default one."""

    def __init__(self, config: Config) -> None:
        self.options = config.default
        enabled = hardware_types.enabled_names(config.default, hardware_types.NETWORK)
        available = installed(GROUP)
        self.by_name: dict[str, NetworkInterface] = {}
        for name in enabled:
            if name not in available:
                known = ", ".join(sorted(available)) or "none"
                raise Invalid(
                    f"enabled_network_interfaces names {name!r}, which is not installed "
                    f"(installed: {known})"
                )
            cls = available[name].load()
            if not (isinstance(cls, type) and issubclass(cls, NetworkInterface)):
                raise Invalid(f"network interface {name!r} is not a NetworkInterface subclass")
            self.by_name[name] = cls(config)
        # hardware_types.check_configuration refused a start without a default enabled
        self.default = hardware_types.default_network_interface(config.default)

    def get(self, name: str) -> NetworkInterface:
        """The interface ``name``; InvalidParameterValue if it is not enabled."""
        found = self.enabled(name)
        if found is None:
            hardware_types.check_enabled(self.options, hardware_types.NETWORK, name)
            raise InvalidParameterValue(f"Network interface {name!r} is not loaded.")
        return found

    def enabled(self, name: str) -> NetworkInterface | None:
        """The interface ``name``, None if it is not enabled (a node may still name one
        that was enabled when it was set)."""
        return self.by_name.get(name)


def installed(group: str) -> dict[str, EntryPoint]:
    """The entry points of ``group`` installed on the module path, by name.

    Finding them reads every installed distribution's metadata (about 30 ms with a hundred
    installed); what was found is kept until a directory of the module path changes, as an
    install or removal there changes it."""
    return dict(_found(group, _module_path_state()))


def _module_path_state() -> tuple[tuple[str, int], ...]:
    state = []
    for entry in sys.path:
        try:
            state.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            state.append((entry, -1))
    return tuple(state)


@functools.lru_cache(maxsize=4)
def _found(group: str, _path_state: tuple[tuple[str, int], ...]) -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=group)}
