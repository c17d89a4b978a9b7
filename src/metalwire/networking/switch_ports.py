"""Switch port changes of the ``ironic-networking`` interface: locked per switch, all or nothing.

One state change (a deploy step, an undeploy, a port's new switchport) sets several switch
ports. :func:`apply_changes` runs the changes of each switch in turn under that switch's lock
(a file lock, so two metalwire processes sharing the data directory never interleave
commands on one switch; networking-generic-switch locks nothing without a coordination
backend) and the switches in parallel. If one change fails, every change already made is put
back to the configuration it replaced, and the failure is raised as a NetworkError naming the
switch, the port and what the switch answered.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from metalwire.errors import NetworkError
from metalwire.networking.bonds import Bond
from metalwire.networking.switch_file import SwitchDefinition
from metalwire.networking.switchport import SwitchportConfig

__all__ = ["SwitchChange", "SwitchDevice", "apply_changes", "switch_lock"]


class SwitchDevice(Protocol):
    def set_port(
        self,
        port_id: str,
        config: SwitchportConfig | None,
        previous: SwitchportConfig | None,
        bond: Bond | None = None,
        previous_bond: Bond | None = None,
    ) -> None:
        """Put ``port_id`` on ``config`` (None: no VLAN configuration) from ``previous``;
        ``bond``: ``port_id`` is that bond of member ports; ``previous_bond``: the bond
        ``port_id`` (or ``bond``'s members) were made part of before, taken apart first
        where it is not ``bond``. Raise NetworkError."""


DeviceFactory = Callable[[SwitchDefinition], SwitchDevice]


@dataclass(frozen=True)
class SwitchChange:
    """One switch port (or ``bond``) to set: ``previous`` is what it is set to now, for the
    undo; ``previous_bond`` the bond its ports were members of, if that is another."""

    switch: SwitchDefinition
    port_id: str
    config: SwitchportConfig | None
    previous: SwitchportConfig | None
    bond: Bond | None = None
    previous_bond: Bond | None = None

    def reverse(self) -> SwitchChange:
        """The change that puts back what this one changed (the previous bond made again)."""
        if self.previous_bond is None:
            return SwitchChange(self.switch, self.port_id, self.previous, self.config, self.bond)
        return SwitchChange(
            self.switch,
            self.previous_bond.name,
            self.previous,
            self.config,
            self.previous_bond,
            self.bond,
        )

    def send(self, device: SwitchDevice) -> None:
        device.set_port(self.port_id, self.config, self.previous, self.bond, self.previous_bond)


@contextlib.contextmanager
def switch_lock(lock_dir: Path, switch: str) -> Iterator[None]:
    """The exclusive lock of one switch, held by this process for the block."""
    lock_dir.mkdir(parents=True, exist_ok=True)
    with (lock_dir / f"{switch}.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _undo(device: SwitchDevice, done: Sequence[SwitchChange]) -> list[str]:
    """Put the changes back, last first; what could not be put back."""
    failures = []
    for change in reversed(done):
        try:
            change.reverse().send(device)
        except NetworkError as exc:
            failures.append(f"{change.switch.name} port {change.port_id}: {exc}")
    return failures


def _apply_on_switch(
    factory: DeviceFactory, lock_dir: Path, changes: Sequence[SwitchChange]
) -> Callable[[], list[str]]:
    """Apply one switch's changes; the undo of what was applied. Raises NetworkError after
    putting back what it did."""
    switch = changes[0].switch
    device = factory(switch)
    done: list[SwitchChange] = []
    with switch_lock(lock_dir, switch.name):
        for change in changes:
            try:
                change.send(device)
            except NetworkError as exc:
                left = _undo(device, done)
                note = f"; not put back: {'; '.join(left)}" if left else ""
                raise NetworkError(
                    f"Switch {switch.name} port {change.port_id}: {exc}{note}", exc.code
                ) from None
            done.append(change)

    def undo() -> list[str]:
        with switch_lock(lock_dir, switch.name):
            return _undo(device, done)

    return undo


def apply_changes(changes: Sequence[SwitchChange], factory: DeviceFactory, lock_dir: Path) -> None:
    """Apply every change, or none: raises NetworkError after undoing the others."""
    by_switch: dict[str, list[SwitchChange]] = {}
    for change in changes:
        by_switch.setdefault(change.switch.name, []).append(change)
    if not by_switch:
        return
    with ThreadPoolExecutor(max_workers=len(by_switch)) as pool:
        futures = [
            pool.submit(_apply_on_switch, factory, lock_dir, group) for group in by_switch.values()
        ]
        undos, errors = [], []
        for future in futures:
            try:
                undos.append(future.result())
            except NetworkError as exc:
                errors.append(exc)
        if not errors:
            return
        left = [item for undone in pool.map(lambda undo: undo(), undos) for item in undone]
    note = f"; not put back: {'; '.join(left)}" if left else ""
    raise NetworkError(f"{errors[0]}{note}", errors[0].code)
