"""Which management operations need the node's lock, as in Ironic 39's conductor: reading
or setting the boot device, reading an indicator and changing the boot mode do; the lists
of supported boot devices and of indicators do not."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from metalwire.conductor import boot_device, boot_mode, indicators
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.errors import NodeLocked
from tests.conductor.conftest import NewNode

CONTEXT = RequestContext()
ELSEWHERE = "elsewhere:7:feed"

LOCKED: list[tuple[str, Callable[[Conductor, str], Any]]] = [
    ("get boot device", lambda c, n: boot_device.get_boot_device(c, CONTEXT, n)),
    ("set boot device", lambda c, n: boot_device.set_boot_device(c, CONTEXT, n, "pxe", False)),
    ("boot mode", lambda c, n: boot_mode.change_boot_mode(c, CONTEXT, n, "uefi")),
    ("secure boot", lambda c, n: boot_mode.change_secure_boot(c, CONTEXT, n, True)),
    (
        "indicator state",
        lambda c, n: indicators.indicator_state(c, CONTEXT, n, "system", "led"),
    ),
]


def _held_elsewhere(conductor: Conductor, node_id: int) -> None:
    with conductor.db.writing() as work:  # another process holds the node
        assert work.node_locks.try_acquire(node_id, ELSEWHERE, time.time(), 600)


@pytest.mark.parametrize(("name", "operation"), LOCKED, ids=[name for name, _ in LOCKED])
def test_an_operation_that_needs_the_lock_is_refused_naming_its_holder(
    conductor: Conductor, new_node: NewNode, name: str, operation: Callable[[Conductor, str], Any]
) -> None:
    node = new_node(f"mgmt-locked-{name}")
    _held_elsewhere(conductor, node.id)
    with pytest.raises(NodeLocked) as refused:
        operation(conductor, node.uuid)
    assert ELSEWHERE in str(refused.value)


def test_the_lists_are_read_without_the_lock(conductor: Conductor, new_node: NewNode) -> None:
    node = new_node("mgmt-lists")
    _held_elsewhere(conductor, node.id)
    assert boot_device.supported_boot_devices(conductor, CONTEXT, node.uuid) == ["pxe"]
    assert set(indicators.supported_indicators(conductor, CONTEXT, node.uuid)) == {
        "chassis",
        "system",
    }
