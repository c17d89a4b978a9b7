"""A node's target RAID configuration (``PUT /v1/nodes/{node}/states/raid``).

metalwire builds no RAID volumes: it records the target, as Ironic's conductor does before a
cleaning step applies it, after the node's RAID interface has checked it. Every RAID interface
but ``no-raid`` checks it by the rules of Ironic's generic RAID interface (below); ``no-raid``
takes no configuration (404, Ironic's status here: RAID is an interface a hardware type may
lack). An empty configuration unsets the target whatever the interface.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from metalwire.conductor import hardware
from metalwire.conductor.power import store
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.models import Node
from metalwire.errors import InvalidParameterValue, RaidNotSupported, UnsupportedDriverExtension

RAID_LEVELS = ("JBOD", "0", "1", "2", "5", "6", "1+0", "5+0", "6+0")
DISK_TYPES = ("hdd", "ssd")
INTERFACE_TYPES = ("sata", "scsi", "sas")
SIZE_MAX = "MAX"

# (value, where it is in the configuration); raises InvalidParameterValue
Check = Callable[[Any, str], None]


def set_target_raid_config(
    conductor: Conductor, context: RequestContext, ident: str, config: dict[str, Any]
) -> None:
    """Record ``config`` as the node's target under its lock, once its RAID interface took
    it; ``{}`` clears the target."""
    with conductor.exclusive_task(ident, context) as task:
        if config:
            check_raid_interface(task.node)
            check_target_raid_config(config)
        store(task, {"target_raid_config": config})


def check_raid_interface(node: Node) -> None:
    try:
        hardware.check_interface(node, "raid")
    except UnsupportedDriverExtension:
        raise RaidNotSupported(node.driver) from None


def check_target_raid_config(config: dict[str, Any]) -> None:
    """Refuse (400, naming the disk and key) what Ironic's generic RAID interface refuses."""
    unexpected = sorted(set(config) - {"logical_disks"})
    if unexpected:
        _refuse("", f"unexpected {', '.join(unexpected)}; it holds logical_disks only")
    if "logical_disks" not in config:
        _refuse("", "logical_disks missing")
    disks = config["logical_disks"]
    if not isinstance(disks, list) or not disks:
        _refuse("logical_disks", "must be a list of at least one logical disk")
    for index, disk in enumerate(disks):
        _check_disk(disk, f"logical_disks[{index}]")
    roots = sum(1 for disk in disks if disk.get("is_root_volume") is True)
    if roots > 1:
        _refuse("logical_disks", f"{roots} root volumes given; at most one may be the root")


def _check_disk(disk: Any, where: str) -> None:
    if not isinstance(disk, dict):
        _refuse(where, "is not an object")
    unexpected = sorted(set(disk) - set(_DISK_CHECKS))
    if unexpected:
        _refuse(where, f"unexpected {', '.join(unexpected)}; known: {', '.join(_DISK_CHECKS)}")
    missing = [key for key in ("raid_level", "size_gb") if key not in disk]
    if missing:
        _refuse(where, f"{', '.join(missing)} missing")
    if "physical_disks" in disk and "controller" not in disk:
        _refuse(where, "physical_disks given without the controller they are on")
    for key, value in disk.items():
        _DISK_CHECKS[key](value, f"{where}.{key}")


def _one_of(choices: tuple[str, ...]) -> Check:
    def check(value: Any, where: str) -> None:
        if value not in choices:
            _refuse(where, f"{value!r} is not one of {', '.join(choices)}")

    return check


def _whole_number(value: Any) -> bool:
    """An integer as JSON gives it: not a boolean, and not 2.0 (the schema's draft 4)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _size(value: Any, where: str) -> None:
    if value != SIZE_MAX and not (_whole_number(value) and value >= 0):
        _refuse(where, f"{value!r} is neither a size in GiB (an integer from 0) nor {SIZE_MAX!r}")


def _count(value: Any, where: str) -> None:
    if not (_whole_number(value) and value > 0):
        _refuse(where, f"{value!r} is not a number of disks (an integer from 1)")


def _typed(kind: type, noun: str) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, kind):
            _refuse(where, f"{value!r} is not {noun}")

    return check


def _physical_disks(value: Any, where: str) -> None:
    """Disk names, or (at least two) objects describing the disks."""
    names = isinstance(value, list) and all(isinstance(item, str) for item in value)
    described = (
        isinstance(value, list)
        and len(value) >= 2
        and all(isinstance(item, dict) for item in value)
    )
    if not (names or described):
        _refuse(where, "must be a list of disk names, or of at least two disk objects")


_DISK_CHECKS: Mapping[str, Check] = {
    "raid_level": _one_of(RAID_LEVELS),
    "size_gb": _size,
    "volume_name": _typed(str, "a string"),
    "is_root_volume": _typed(bool, "true or false"),
    "share_physical_disks": _typed(bool, "true or false"),
    "disk_type": _one_of(DISK_TYPES),
    "interface_type": _one_of(INTERFACE_TYPES),
    "number_of_physical_disks": _count,
    "controller": _typed(str, "a string"),
    "physical_disks": _physical_disks,
}


def _refuse(where: str, what: str) -> NoReturn:
    prefix = f"{where}: " if where else ""
    raise InvalidParameterValue(f"RAID config validation error: {prefix}{what}.")
