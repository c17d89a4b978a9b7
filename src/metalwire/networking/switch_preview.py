"""What a dry run would change on the switches: per switch, each port's change and commands.

:func:`preview` groups the switch port changes an operation would make
(:meth:`~metalwire.networking.ironic_networking.IronicNetworking.attach_switch_changes`) by
switch and asks each switch's device for the commands networking-generic-switch would send
for its device type, rendered from the device class's command templates without connecting
(one worker process per switch, no SSH). When they cannot be rendered, the switch's preview
says why instead; the changes are listed either way. Nothing is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from metalwire.db.models import Port
from metalwire.errors import NetworkError
from metalwire.networking.switch_file import SwitchDefinition
from metalwire.networking.switch_ports import SwitchChange
from metalwire.networking.switchport import SwitchportConfig, switchport_record

__all__ = ["PortPreview", "SwitchPreview", "preview"]

Json = dict[str, Any]


@runtime_checkable
class CommandRenderer(Protocol):
    def render(self, changes: Sequence[SwitchChange]) -> list[list[str]]:
        """The commands of each change; raise NetworkError."""


@dataclass(frozen=True)
class PortPreview:
    port_uuid: str
    port_id: str  # the switch interface
    previous: SwitchportConfig | None
    config: SwitchportConfig | None
    commands: list[str] | None  # None when the switch's commands are not available

    def as_json(self) -> Json:
        return {
            "port_uuid": self.port_uuid,
            "port_id": self.port_id,
            "from": switchport_record(self.previous),
            "to": switchport_record(self.config),
            "commands": self.commands,
        }


@dataclass(frozen=True)
class SwitchPreview:
    switch: str
    device_type: str
    ports: list[PortPreview]
    #: Why the commands are not listed (the ports' changes still are), or None.
    commands_unavailable: str | None

    def as_json(self) -> Json:
        return {
            "switch": self.switch,
            "device_type": self.device_type,
            "ports": [port.as_json() for port in self.ports],
            "commands_unavailable": self.commands_unavailable,
        }


def _switch_preview(
    switch: SwitchDefinition,
    planned: Sequence[tuple[Port, SwitchChange]],
    renderer: Callable[[SwitchDefinition], object],
) -> SwitchPreview:
    commands: list[list[str]] | list[None] = [None] * len(planned)
    unavailable = None
    device = renderer(switch)
    if not isinstance(device, CommandRenderer):
        unavailable = f"commands not available: switch {switch.name}'s driver renders none"
    else:
        try:
            commands = device.render([change for _, change in planned])
        except NetworkError as exc:
            unavailable = f"commands not available: {exc}"
    ports = [
        PortPreview(port.uuid, change.port_id, change.previous, change.config, listed)
        for (port, change), listed in zip(planned, commands, strict=True)
    ]
    return SwitchPreview(switch.name, switch.device_type, ports, unavailable)


def preview(
    planned: Sequence[tuple[Port, SwitchChange]],
    renderer: Callable[[SwitchDefinition], object],
) -> list[SwitchPreview]:
    """The preview of each switch the changes touch, in the order they first name it.

    ``renderer`` makes a switch's device (one without ``render`` lists no commands). The
    network interface's own problems (no networking-generic-switch to run) refuse the dry run
    before it gets here, as they refuse the attach."""
    by_switch: dict[str, list[tuple[Port, SwitchChange]]] = {}
    for port, change in planned:
        by_switch.setdefault(change.switch.name, []).append((port, change))
    return [_switch_preview(group[0][1].switch, group, renderer) for group in by_switch.values()]
