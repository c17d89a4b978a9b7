"""All-or-nothing switch changes and the per-switch lock, with an in-memory device."""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.synchronize
import time
from pathlib import Path
from typing import Any

import pytest

from metalwire.errors import NetworkError
from metalwire.networking import generic_switch_workers
from metalwire.networking.bonds import Bond
from metalwire.networking.generic_switch import GenericSwitchDevice
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


def test_the_undo_of_a_change_that_made_a_bond_takes_it_apart(tmp_path: Path) -> None:
    switches = FakeSwitches(fail_on=("tor-1", "swp9"))
    tor, bond = _switch("tor-1"), Bond("pg", ("swp1", "swp2"))
    switches.ports = {("tor-1", "swp1"): _access(999), ("tor-1", "swp2"): _access(999)}
    changes = [
        SwitchChange(tor, "pg", _access(200), _access(999), bond, bond_made=True),
        SwitchChange(tor, "swp9", _access(200), None),
    ]

    with pytest.raises(NetworkError, match="Switch tor-1 port swp9"):
        apply_changes(changes, switches.device, tmp_path)

    # forward: the bond made; back: taken apart, each member on its old VLAN again
    assert switches.bonds == [("pg", "pg", None), ("swp1", None, "pg"), ("swp2", None, "pg")]
    assert switches.ports[("tor-1", "swp1")] == _access(999)
    assert switches.ports[("tor-1", "swp2")] == _access(999)


def test_the_undo_of_a_change_of_a_bond_already_made_keeps_it(tmp_path: Path) -> None:
    switches = FakeSwitches(fail_on=("tor-1", "swp9"))
    tor, bond = _switch("tor-1"), Bond("pg", ("swp1", "swp2"))
    changes = [
        SwitchChange(tor, "pg", _access(200), _access(999), bond),
        SwitchChange(tor, "swp9", _access(200), None),
    ]

    with pytest.raises(NetworkError, match="Switch tor-1 port swp9"):
        apply_changes(changes, switches.device, tmp_path)

    assert switches.bonds == [("pg", "pg", None), ("pg", "pg", None)]
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


class OvsPorts:
    """The VLAN settings of Open vSwitch ports as networking-generic-switch's OVS device
    sets them, driven through ``generic_switch_workers.call``; call number ``fail_at``
    (from 1) fails as a dropped session does, after nothing ran."""

    def __init__(self, fail_at: int, error: Exception | None = None) -> None:
        self.ports: dict[str, tuple[int | None, str | None, tuple[int, ...]]] = {}
        self.sent: list[tuple[str, list[Any], dict[str, Any]]] = []
        self.fail_at = fail_at
        self.error = error or NetworkError(
            "plug failed: the operation's process ended without an answer"
        )

    def call(self, python: str, what: str, request: dict[str, Any], timeout: float) -> Any:
        method, args, kwargs = request["method"], request["args"], request["kwargs"]
        self.sent.append((method, args, kwargs))
        if len(self.sent) == self.fail_at:
            raise self.error
        port, vlan = args
        tag, mode, trunks = self.ports.get(port, (None, None, ()))
        details = kwargs.get("trunk_details")
        if method == "delete_port":  # clear tag, trunks, vlan_mode (then remove: no-ops)
            tag, mode, trunks = None, None, ()
        elif details:  # set the native VLAN, add it and each sub-port to the trunks
            added = {vlan, *(sub["segmentation_id"] for sub in details["sub_ports"])}
            tag, mode, trunks = vlan, "native-untagged", tuple(sorted({*trunks, *added}))
        else:  # set vlan_mode=access and the tag only
            tag, mode = vlan, "access"
        self.ports[port] = (tag, mode, trunks)
        return {"output": ""}


def test_a_change_that_fails_half_way_is_put_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ovs = OvsPorts(fail_at=2)
    ovs.ports["swp1"] = (200, "native-untagged", (200, 210))
    monkeypatch.setattr(generic_switch_workers, "call", ovs.call)
    trunk, idle = SwitchportConfig("trunk", 200, (200, 210)), _access(999)
    change = SwitchChange(_switch("tor-1"), "swp1", idle, trunk)

    with pytest.raises(NetworkError, match="Switch tor-1 port swp1: plug failed") as raised:
        apply_changes([change], lambda switch: GenericSwitchDevice(switch, "python"), tmp_path)

    assert "not put back" not in str(raised.value)
    trunk_details = {"sub_ports": [{"segmentation_id": 210}]}
    assert ovs.sent == [
        ("delete_port", ["swp1", 200], {"trunk_details": trunk_details}),
        ("plug_port_to_network", ["swp1", 999], {"trunk_details": None}),  # failed
        ("plug_port_to_network", ["swp1", 200], {"trunk_details": trunk_details}),  # undo
    ]
    assert ovs.ports["swp1"] == (200, "native-untagged", (200, 210))


def test_the_undo_of_a_change_that_did_nothing_leaves_the_port_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ovs = OvsPorts(fail_at=1)
    ovs.ports["swp1"] = (200, "native-untagged", (200, 210))
    monkeypatch.setattr(generic_switch_workers, "call", ovs.call)
    old, new = SwitchportConfig("trunk", 200, (200, 210)), SwitchportConfig("hybrid", 300, (300,))
    change = SwitchChange(_switch("tor-1"), "swp1", new, old)

    with pytest.raises(NetworkError, match="Switch tor-1 port swp1"):
        apply_changes([change], lambda switch: GenericSwitchDevice(switch, "python"), tmp_path)

    assert [method for method, _, _ in ovs.sent] == [
        "delete_port",  # failed
        "delete_port",  # the undo clears what the change would have set...
        "plug_port_to_network",  # ... and sets the trunk again
    ]
    assert ovs.ports["swp1"] == (200, "native-untagged", (200, 210))


def test_a_port_metalwire_never_set_is_left_as_it_was_when_its_first_call_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ovs = OvsPorts(fail_at=1)
    ovs.ports["swp1"] = (300, "access", ())  # set on the switch by hand
    monkeypatch.setattr(generic_switch_workers, "call", ovs.call)
    change = SwitchChange(_switch("tor-1"), "swp1", _access(200), None)

    with pytest.raises(NetworkError, match="Switch tor-1 port swp1"):
        apply_changes([change], lambda switch: GenericSwitchDevice(switch, "python"), tmp_path)

    assert [method for method, _, _ in ovs.sent] == ["plug_port_to_network"]  # no undo
    assert ovs.ports["swp1"] == (300, "access", ())


def test_a_change_naming_a_port_no_switch_interface_is_refused_with_nothing_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ovs = OvsPorts(fail_at=0)
    monkeypatch.setattr(generic_switch_workers, "call", ovs.call)
    change = SwitchChange(_switch("tor-1"), "swp1 x", _access(999), _access(200))

    with pytest.raises(NetworkError, match="refused to send the switch a command") as raised:
        apply_changes([change], lambda switch: GenericSwitchDevice(switch, "python"), tmp_path)

    assert raised.value.code == 400  # the port's data must change: no retry helps
    assert "not put back" not in str(raised.value)  # nothing was sent, nothing to put back
    assert ovs.sent == []


def test_a_connection_error_after_the_first_call_is_put_back_and_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    ovs = OvsPorts(fail_at=2, error=BrokenPipeError(32, "Broken pipe"))
    ovs.ports["swp1"] = (200, "native-untagged", (200, 210))
    monkeypatch.setattr(generic_switch_workers, "call", ovs.call)
    trunk = SwitchportConfig("trunk", 200, (200, 210))
    change = SwitchChange(_switch("tor-1"), "swp1", _access(999), trunk)

    with pytest.raises(NetworkError, match="unexpected error: BrokenPipeError") as raised:
        apply_changes([change], lambda switch: GenericSwitchDevice(switch, "python"), tmp_path)

    assert "not put back" not in str(raised.value)
    assert [method for method, _, _ in ovs.sent][2:] == ["plug_port_to_network"]  # the undo
    assert ovs.ports["swp1"] == (200, "native-untagged", (200, 210))
    (logged,) = [record for record in caplog.records if record.exc_info]
    assert logged.exc_info is not None and logged.exc_info[0] is BrokenPipeError


class BrokenDevice(FakeDevice):
    """A device whose connection breaks on every port change of its switch."""

    def set_port(self, port_id: str, *args: Any, **kwargs: Any) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_an_unexpected_device_error_is_a_network_error_after_the_undo(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    switches = FakeSwitches()
    switches.ports = {("tor-1", "swp1"): _access(999), ("tor-2", "swp1"): _access(999)}

    def device(switch: SwitchDefinition) -> FakeDevice:
        kind = BrokenDevice if switch.name == "tor-2" else FakeDevice
        return kind(switches, switch.name)

    changes = [
        SwitchChange(_switch("tor-1"), "swp1", _access(200), _access(999)),
        SwitchChange(_switch("tor-2"), "swp1", _access(200), _access(999)),
    ]
    logger = "metalwire.networking.switch_ports"
    with caplog.at_level(logging.ERROR, logger=logger), pytest.raises(NetworkError) as raised:
        apply_changes(changes, device, tmp_path)

    message = str(raised.value)
    assert message.startswith("Switch tor-2 port swp1: unexpected error: BrokenPipeError")
    assert "not put back: tor-2 port swp1: unexpected error: BrokenPipeError" in message
    assert switches.ports[("tor-1", "swp1")] == _access(999)  # the other switch undone
    logged = [record for record in caplog.records if record.exc_info]
    assert logged and all(record.exc_info[0] is BrokenPipeError for record in logged)
    assert "Switch tor-2: unexpected error setting port swp1" in logged[0].getMessage()


def test_an_unexpected_error_masks_the_switch_secrets(tmp_path: Path) -> None:
    switch = SwitchDefinition(
        "tor-1", "generic-switch", "netmiko_ovs_linux", "192.0.2.1", "u", 1, password="pw-9"
    )

    def device(switch: SwitchDefinition) -> FakeDevice:
        raise ValueError("cannot log in as u with pw-9")

    with pytest.raises(NetworkError, match="Switch tor-1: unexpected error: ValueError") as raised:
        apply_changes([SwitchChange(switch, "swp1", _access(200), None)], device, tmp_path)

    assert "pw-9" not in str(raised.value) and "******" in str(raised.value)


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
