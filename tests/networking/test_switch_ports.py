"""All-or-nothing switch changes and the per-switch lock, with an in-memory device."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import time
from pathlib import Path

import pytest

from metalwire.errors import NetworkError
from metalwire.networking.bonds import Bond
from metalwire.networking.switch_file import SwitchDefinition
from metalwire.networking.switch_ports import SwitchChange, apply_changes, switch_lock
from metalwire.networking.switchport import SwitchportConfig


def _switch(name: str) -> SwitchDefinition:
    return SwitchDefinition(name, "generic-switch", "netmiko_ovs_linux", "192.0.2.1", "u", 1)


def _access(vlan: int) -> SwitchportConfig:
    return SwitchportConfig("access", vlan)


class FakeSwitches:
    """Ports by (switch, port); ``fail_on`` makes a set of that port raise."""

    def __init__(self, fail_on: tuple[str, str] | None = None) -> None:
        self.ports: dict[tuple[str, str], SwitchportConfig | None] = {}
        self.fail_on = fail_on
        self.bonds: list[tuple[str, str | None, str | None]] = []  # port, bond, previous

    def device(self, switch: SwitchDefinition) -> FakeDevice:
        return FakeDevice(self, switch.name)


class FakeDevice:
    def __init__(self, switches: FakeSwitches, name: str) -> None:
        self.switches, self.name = switches, name

    def set_port(
        self,
        port_id: str,
        config: SwitchportConfig | None,
        previous: SwitchportConfig | None,
        bond: Bond | None = None,
        previous_bond: Bond | None = None,
    ) -> None:
        if (self.name, port_id) == self.switches.fail_on and config != previous:
            self.switches.fail_on = None  # fails once
            raise NetworkError("the switch answered: no such port")
        self.switches.ports[(self.name, port_id)] = config
        if bond is not None or previous_bond is not None:
            names = (b.name if b is not None else None for b in (bond, previous_bond))
            self.switches.bonds.append((port_id, *names))


def test_a_failure_between_two_commands_puts_the_first_back(tmp_path: Path) -> None:
    switches = FakeSwitches(fail_on=("tor-1", "swp2"))
    tor = _switch("tor-1")
    switches.ports = {("tor-1", "swp1"): _access(999), ("tor-1", "swp2"): _access(999)}
    changes = [
        SwitchChange(tor, "swp1", _access(200), _access(999)),
        SwitchChange(tor, "swp2", _access(200), _access(999)),
    ]

    with pytest.raises(NetworkError, match="Switch tor-1 port swp2: the switch answered"):
        apply_changes(changes, switches.device, tmp_path)

    assert switches.ports == {("tor-1", "swp1"): _access(999), ("tor-1", "swp2"): _access(999)}


def test_the_undo_of_a_change_that_took_a_bond_apart_makes_the_bond_again(
    tmp_path: Path,
) -> None:
    switches = FakeSwitches(fail_on=("tor-1", "swp9"))
    tor, bond = _switch("tor-1"), Bond("pg", ("swp1", "swp2"))
    changes = [
        SwitchChange(tor, "swp1", _access(200), _access(999), previous_bond=bond),
        SwitchChange(tor, "swp9", _access(200), None),
    ]

    with pytest.raises(NetworkError, match="Switch tor-1 port swp9"):
        apply_changes(changes, switches.device, tmp_path)

    # forward: swp1 with the bond taken apart; back: the bond made again on its old VLAN
    assert switches.bonds == [("swp1", None, "pg"), ("pg", "pg", None)]
    assert switches.ports[("tor-1", "pg")] == _access(999)


def test_a_failure_on_one_switch_undoes_the_other_switch(tmp_path: Path) -> None:
    switches = FakeSwitches(fail_on=("tor-2", "swp1"))
    changes = [
        SwitchChange(_switch("tor-1"), "swp1", _access(200), None),
        SwitchChange(_switch("tor-2"), "swp1", _access(200), None),
    ]

    with pytest.raises(NetworkError, match="Switch tor-2 port swp1"):
        apply_changes(changes, switches.device, tmp_path)

    assert switches.ports.get(("tor-1", "swp1")) is None


def _hold(lock_dir: Path, held: multiprocessing.synchronize.Event) -> None:
    with switch_lock(lock_dir, "tor-1"):
        held.set()
        time.sleep(1.0)


def test_two_processes_never_hold_one_switch_at_once(tmp_path: Path) -> None:
    held = multiprocessing.get_context("spawn").Event()
    other = multiprocessing.get_context("spawn").Process(target=_hold, args=(tmp_path, held))
    other.start()
    try:
        assert held.wait(30)
        started = time.monotonic()
        with switch_lock(tmp_path, "tor-2"):  # another switch is free meanwhile
            free = time.monotonic() - started
        with switch_lock(tmp_path, "tor-1"):
            waited = time.monotonic() - started
    finally:
        other.join(30)
    assert free < 0.5 < waited
