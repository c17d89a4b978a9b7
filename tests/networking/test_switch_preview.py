"""The dry run's per-switch preview (``metalwire/networking/switch_preview.py``): each port's
change is listed whether or not the switch's commands can be rendered, and when they cannot,
``commands_unavailable`` says why. (The switch tests render through the real worker.)"""

from __future__ import annotations

from collections.abc import Sequence

from metalwire.db.models import Port
from metalwire.errors import NetworkError
from metalwire.networking.switch_file import SwitchDefinition
from metalwire.networking.switch_ports import SwitchChange
from metalwire.networking.switch_preview import SwitchPreview, preview
from metalwire.networking.switchport import SwitchportConfig

TOR1 = SwitchDefinition("tor-1", "generic-switch", "netmiko_ovs_linux", "192.0.2.1", "u", 1)
TOR2 = SwitchDefinition("tor-2", "generic-switch", "netmiko_ovs_linux", "192.0.2.2", "u", 2)
IDLE, TENANT = SwitchportConfig("access", 999), SwitchportConfig("access", 200)


def _planned() -> list[tuple[Port, SwitchChange]]:
    return [
        (Port(uuid=f"port-{n}"), SwitchChange(switch, f"swp{n}", TENANT, IDLE))
        for n, switch in ((1, TOR1), (2, TOR2), (3, TOR1))
    ]


class _Renderer:
    """Renders one command per change, or fails as a worker that cannot run does."""

    def __init__(self, failure: str | None = None) -> None:
        self.failure = failure
        self.asked: list[list[str]] = []

    def render(self, changes: Sequence[SwitchChange]) -> list[list[str]]:
        self.asked.append([change.port_id for change in changes])
        if self.failure is not None:
            raise NetworkError(self.failure)
        return [[f"set {c.port_id} {c.config.native_vlan if c.config else '-'}"] for c in changes]


def _summary(previews: list[SwitchPreview]) -> list[tuple[str, list[object], str | None]]:
    return [
        (p.switch, [(port.port_uuid, port.commands) for port in p.ports], p.commands_unavailable)
        for p in previews
    ]


def test_each_switch_lists_its_ports_and_their_commands_in_the_order_first_named() -> None:
    renderer = _Renderer()
    assert _summary(preview(_planned(), lambda switch: renderer)) == [
        ("tor-1", [("port-1", ["set swp1 200"]), ("port-3", ["set swp3 200"])], None),
        ("tor-2", [("port-2", ["set swp2 200"])], None),
    ]
    assert renderer.asked == [["swp1", "swp3"], ["swp2"]]  # one rendering per switch


def test_a_driver_that_renders_nothing_and_a_failed_rendering_are_named_per_switch() -> None:
    failing = _Renderer("render commands failed: the switch worker ended at its start")
    devices = {"tor-1": object(), "tor-2": failing}
    previews = preview(_planned(), lambda switch: devices[switch.name])
    assert _summary(previews) == [
        (
            "tor-1",
            [("port-1", None), ("port-3", None)],
            "commands not available: switch tor-1's driver renders none",
        ),
        (
            "tor-2",
            [("port-2", None)],
            "commands not available: render commands failed: the switch worker ended at its start",
        ),
    ]
    # the changes themselves are listed whatever the commands
    assert [(p.previous, p.config) for p in previews[1].ports] == [(IDLE, TENANT)]
