"""Ironic's deprecated VIF path: a port's or portgroup's ``extra/vif_port_id``.

A create or update that sets, replaces or removes the key goes through the node's network
interface as ``POST`` and ``DELETE /vifs`` do, and the attachment is recorded with
``source = "legacy"``. The interface may refuse; then the row change is not stored.

For the VIF operation metrics such a change is a detach of the VIF the key named and an
attach of the one it names: :func:`noting_vif_changes` collects what a create or update
asked for, which the RPC API counts once, by the outcome of the whole change.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Port, Portgroup, VifAttachment
from metalwire.errors import Conflict, MetalwireError
from metalwire.networking.base import VifInfo
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)

R = TypeVar("R", Port, Portgroup)
Attach = Callable[[Task, VifInfo], VifAttachment | None]


@dataclass
class LegacyVifChanges:
    """The VIF operations (``detach``, ``attach``) a change of extra/vif_port_id asked for,
    and the network interface of the node they were asked of; empty if it asked none."""

    operations: tuple[str, ...] = ()
    network_interface: str = "unknown"


_NOTED: ContextVar[LegacyVifChanges | None] = ContextVar("legacy_vif_changes", default=None)


@contextmanager
def noting_vif_changes() -> Iterator[LegacyVifChanges]:
    """What the create or update run inside asks of extra/vif_port_id. An attempt run again
    after a database conflict notes its changes anew, so they are counted once."""
    noted = LegacyVifChanges()
    token = _NOTED.set(noted)
    try:
        yield noted
    finally:
        _NOTED.reset(token)


def _note(network_interface: str, old: str | None, new: str | None) -> None:
    noted = _NOTED.get()
    if noted is not None:
        asked = ("detach",) if old is not None else ()
        noted.operations = asked + (("attach",) if new is not None else ())
        noted.network_interface = network_interface


def legacy_vif(extra: dict[str, Any] | None) -> str | None:
    value = (extra or {}).get("vif_port_id")
    return str(value) if value else None


def clear_interrupted_elsewhere(
    conductor: Conductor, context: RequestContext, vif_id: str | None, node_id: int
) -> None:
    """Before taking the node's lock: free the VIF from an attach whose process died."""
    if vif_id is not None:
        conductor.clear_interrupted_attach_elsewhere(vif_id, context, node_id)


def _check_legacy_vif(
    conductor: Conductor, task: Task, target: Port | Portgroup | None, old: str | None, new: str
) -> None:
    """Refuse, before anything is stored, a VIF that extra/vif_port_id cannot attach."""
    conductor.network_interface(task.node).validate(task)
    task.attachments.check_free(new)
    busy = task.vif_on(target) if target is not None else None
    if target is not None and busy is not None and busy != old:
        raise Conflict(f"{type(target).__name__} {target.uuid} already holds VIF {busy}.")


def store_with_legacy_vif(
    conductor: Conductor,
    tasks: tuple[Task, Task],
    current: R | None,
    write: Callable[[], R],
    undo: Callable[[R], object],
    new: str | None,
) -> R:
    """Store a port or portgroup change and follow its extra/vif_port_id change.

    ``tasks`` are the task of the node the row was on and that of the node it is on after
    the change (the same task unless it moves); ``current`` is the row before the change
    (None for a create) and ``new`` the VIF the change sets in extra/vif_port_id. The VIF
    goes through the owner's network interface, as POST and DELETE /vifs do. If the
    interface calls no external service, the row and the VIF change are one transaction.
    Otherwise the row is written first (an interface attaches to a port that exists), each
    interface step commits on its own while it talks to the external service, and if one
    fails the row change is undone.
    """
    first, owner = tasks
    old = legacy_vif(current.extra) if current is not None else None
    if old == new:
        with first.atomic(owner):
            return write()
    _note(owner.node.network_interface, old, new)
    if new is not None:
        _check_legacy_vif(conductor, owner, current, old, new)
    if not conductor.network_interface(owner.node).calls_external_service():
        with first.atomic(owner):
            row = write()
            _sync_legacy_vif(conductor, owner, row, old, new, rolls_back=True)
        return row
    with first.atomic(owner):
        row = write()
    try:
        _sync_legacy_vif(conductor, owner, row, old, new, rolls_back=False)
    except BaseException:
        with first.atomic(owner):
            undo(row)
        raise
    return row


def _sync_legacy_vif(
    conductor: Conductor,
    task: Task,
    target: Port | Portgroup,
    old: str | None,
    new: str | None,
    rolls_back: bool,
) -> None:
    """Detach the VIF extra/vif_port_id named, attach the one it names now, in that order.

    ``task`` is the task of the node ``target`` (as stored now) is on. If the attach fails
    after the old VIF was detached, the old one is attached again (best effort), unless
    the writes are one transaction that ``rolls_back``.
    """
    kind = type(target).__name__.lower()
    where = f"{kind} {target.uuid}"
    iface = conductor.network_interface(task.node)
    task.reload()  # the interface must see the row as stored now
    detached = old is not None and _on(task, old, target)
    if detached:
        assert old is not None
        iface.vif_detach(task, old)
    if new is not None:
        try:
            _legacy_attach(task, iface.vif_attach, new, target)
        except BaseException:
            if detached and not rolls_back:
                assert old is not None
                _reattach(task, iface.vif_attach, old, target)
            raise
    if detached:
        assert old is not None
        event = f"VIF {old} detached from {where} (extra/vif_port_id removed; deprecated)"
        _legacy_history(task, event, old, target)
    if new is not None:
        event = f"VIF {new} attached to {where} through extra/vif_port_id (deprecated)"
        _legacy_history(task, event, new, target)


def _on(task: Task, vif_id: str, target: Port | Portgroup) -> bool:
    """Whether the node has the VIF recorded on ``target``."""
    found = task.find_target(vif_id)
    return found is not None and type(found) is type(target) and found.id == target.id


def _legacy_attach(task: Task, attach: Attach, vif_id: str, target: Port | Portgroup) -> None:
    info: VifInfo = {"id": vif_id}
    if isinstance(target, Port):
        info["port_uuid"] = target.uuid
    else:
        info["portgroup_uuid"] = target.uuid
    task.vif_source = "legacy"
    try:
        attach(task, info)
    finally:
        task.vif_source = "api"


def _reattach(task: Task, attach: Attach, vif_id: str, target: Port | Portgroup) -> None:
    try:
        _legacy_attach(task, attach, vif_id, target)
    except MetalwireError as exc:
        LOG.warning(
            "node %s: could not attach VIF %s to %s %s again after a failed change of its "
            "extra/vif_port_id: %s",
            task.node.uuid,
            vif_id,
            type(target).__name__.lower(),
            target.uuid,
            exc,
        )


def _legacy_history(task: Task, event: str, vif_id: str, target: Port | Portgroup) -> None:
    LOG.warning("node %s: %s", task.node.uuid, event)
    task.history.add(HistoryEntry("vif", event, "WARNING", vif_id, target.uuid))
