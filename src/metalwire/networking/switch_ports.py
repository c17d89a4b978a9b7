"""Switch port changes of the ``ironic-networking`` interface: locked per switch, all or nothing.

One state change (a deploy step, an undeploy, a port's new switchport) sets several switch
ports. :func:`apply_changes` runs the changes of each switch in turn under that switch's lock
(a file lock, so two metalwire processes sharing the data directory never interleave
commands on one switch; networking-generic-switch locks nothing without a coordination
backend) and the switches in parallel. If one change fails, it and every change already made
are put back to the configuration they replaced (a change is several device calls: the ones
that went through before the failure are undone too), and the failure is raised as a
NetworkError naming the switch, the port and what the switch answered. Any other exception
of a device (a connection dropped, an unexpected answer) is logged with its traceback and
handled as a NetworkError, so the undo runs.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from metalwire.errors import NetworkError
from metalwire.networking.bonds import Bond
from metalwire.networking.switch_file import SwitchDefinition
from metalwire.networking.switchport import SwitchportConfig, describe_switchport
from metalwire.redact import MASK

__all__ = [
    "PartlyApplied",
    "SwitchChange",
    "SwitchDevice",
    "apply_changes",
    "switch_lock",
    "unexpected_error",
]


class PartlyApplied(NetworkError):
    """A port change that failed after some of its device calls went through."""


class NameRefused(NetworkError):
    """A port change refused before anything was sent: a name in it is no switch interface
    name (:mod:`metalwire.networking.port_ids`). A 400: the port's data must change."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 400)


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
        where it is not ``bond``. Raise NetworkError: PartlyApplied once some of the
        change went through."""


DeviceFactory = Callable[[SwitchDefinition], SwitchDevice]

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class SwitchChange:
    """One switch port (or ``bond``) to set: ``previous`` is what it is set to now, for the
    undo; ``previous_bond`` the bond its ports were members of, if that is another;
    ``bond_made``: ``bond`` is made by this change of ports that were members of no bond
    (``previous`` is what they were set to)."""

    switch: SwitchDefinition
    port_id: str
    config: SwitchportConfig | None
    previous: SwitchportConfig | None
    bond: Bond | None = None
    previous_bond: Bond | None = None
    bond_made: bool = False

    def reverse(self) -> list[SwitchChange]:
        """The changes that put back what this one changed, in order: the previous bond made
        again; a bond this change made taken apart, each member set back to ``previous``
        (the first takes the bond apart, the others find it so)."""
        if self.previous_bond is not None:
            name, config, previous = self.previous_bond.name, self.previous, self.config
            return [
                SwitchChange(self.switch, name, config, previous, self.previous_bond, self.bond)
            ]
        if self.bond is not None and self.bond_made:
            return [
                SwitchChange(
                    self.switch, member, self.previous, self.config, previous_bond=self.bond
                )
                for member in self.bond.members
            ]
        return [SwitchChange(self.switch, self.port_id, self.previous, self.config, self.bond)]

    def describe(self) -> str:
        """What the change set, for the node's history: the switch, the port (or the bond
        and its members), the VLANs set and those it replaced."""
        where = f"port {self.port_id}"
        if self.bond is not None:
            where = f"bond {self.bond.name} ({', '.join(self.bond.members)})"
        left = ""
        if self.previous_bond is not None and self.previous_bond != self.bond:
            left = f", bond {self.previous_bond.name} taken apart"
        return (
            f"Switch {self.switch.name} {where} set to {describe_switchport(self.config)} "
            f"(was {describe_switchport(self.previous)}{left})"
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


def unexpected_error(switch: SwitchDefinition, what: str, exc: Exception) -> NetworkError:
    """The NetworkError that stands for an exception a device was not meant to raise, logged
    with its traceback (the message masks the switch's secrets)."""
    LOG.error("Switch %s: unexpected error %s", switch.name, what, exc_info=exc)
    message = f"{type(exc).__name__}: {exc}"
    for secret in (switch.password, switch.enable_secret):
        if secret:
            message = message.replace(secret, MASK)
    return NetworkError(f"unexpected error: {message}")


@contextlib.contextmanager
def network_errors(switch: SwitchDefinition, what: str, named: bool = False) -> Iterator[None]:
    """Raise whatever the block raises as a NetworkError (:func:`unexpected_error` for any
    other exception), its message led by the switch's name if ``named``."""
    try:
        yield
    except NetworkError:
        raise
    except Exception as exc:
        error = unexpected_error(switch, what, exc)
        raise (NetworkError(f"Switch {switch.name}: {error}") if named else error) from exc


def _send(device: SwitchDevice, change: SwitchChange, what: str) -> None:
    """Send ``change``; raises NetworkError, whatever the device raised."""
    with network_errors(change.switch, f"{what} port {change.port_id}"):
        change.send(device)


def _undo(device: SwitchDevice, done: Sequence[SwitchChange]) -> list[str]:
    """Put the changes back, last first; what could not be put back.

    ``done`` may end with the change that failed (:func:`_undo_failed`): the calls it made
    before failing are undone with the rest."""
    failures = []
    for change in reversed(done):
        try:
            for undo in change.reverse():
                _send(device, undo, "putting back")
        except NetworkError as exc:
            failures.append(f"{change.switch.name} port {change.port_id}: {exc}")
    return failures


def _undo_failed(change: SwitchChange, error: NetworkError) -> bool:
    """Whether the change that failed with ``error`` is put back with the others: when some
    of its device calls went through (PartlyApplied), or when its first call failed (it may
    have run some commands) and putting it back is harmless whatever it did: a port of its
    own whose previous configuration metalwire set (the undo sets it whole, a trunk cleared
    first). A port metalwire never set is left as the switch has it, as is a bond whose
    first call (one Open vSwitch transaction) failed."""
    if isinstance(error, PartlyApplied):
        return True
    if isinstance(error, NameRefused):  # nothing was sent
        return False
    return change.previous is not None and change.bond is None and change.previous_bond is None


def _apply_on_switch(
    factory: DeviceFactory, lock_dir: Path, changes: Sequence[SwitchChange]
) -> Callable[[], list[str]]:
    """Apply one switch's changes; the undo of what was applied. Raises NetworkError after
    putting back what it did."""
    switch = changes[0].switch
    with network_errors(switch, "making its device", named=True):
        device = factory(switch)
    done: list[SwitchChange] = []
    with switch_lock(lock_dir, switch.name):
        for change in changes:
            try:
                _send(device, change, "setting")
            except NetworkError as exc:
                left = _undo(device, [*done, change] if _undo_failed(change, exc) else done)
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
        for future, group in zip(futures, by_switch.values(), strict=True):
            try:
                # the lock, say, failing: the other switches are still undone
                with network_errors(group[0].switch, "applying changes", named=True):
                    undos.append(future.result())
            except NetworkError as exc:
                errors.append(exc)
        if not errors:
            return
        left = [item for undone in pool.map(lambda undo: undo(), undos) for item in undone]
    note = f"; not put back: {'; '.join(left)}" if left else ""
    raise NetworkError(f"{errors[0]}{note}", errors[0].code)
