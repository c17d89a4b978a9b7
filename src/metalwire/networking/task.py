"""A task: one operation on one node, with the node's lock held.

Network interfaces read the node's inventory from the task (``task.ports``,
``task.portgroups``, ``task.attachments``) and write through repositories bound to the task's
node and transaction: ``task.attachments.record(...)``, ``task.history.add(...)``,
``task.inventory.update_port(...)``. None of them hands out a connection or a session.

When the node's interface calls no external service, the conductor runs the whole operation
in one database transaction (lock, reads, writes, history, unlock: one commit) and every write
goes into it. Otherwise the lock is a committed lease and each write is a short transaction of
its own, so that no database transaction stays open across a network call; ``task.atomic()``
groups several writes into one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from typing import Any, overload

from metalwire.config import Config
from metalwire.context import RequestContext
from metalwire.db.engine import Database
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node, NodeHistory, Port, Portgroup, VifAttachment
from metalwire.db.node_inventory import LoadedInventory
from metalwire.db.work import Work
from metalwire.errors import NodeNotFound, VifAlreadyAttached
from metalwire.networking.tbn.rules import RuleSet


@dataclass
class Task:
    db: InitVar[Database]
    config: Config
    context: RequestContext
    node: Node
    conductor: str
    shared: bool = False
    # The open transaction of a single-transaction task, or None.
    work: InitVar[Work | None] = None
    # How the VIFs this task attaches are recorded: "api", or "legacy" for an attach made
    # through a port's or portgroup's extra/vif_port_id (set by the conductor).
    vif_source: str = "api"
    # The trait-based networking rules in force (None: the feature is off), read once per
    # task so a reload never changes them half-way through an operation.
    tbn_rules: RuleSet | None = None
    # What an interrupted operation had left on the node and opening this task undid
    # (conductor/stuck_states.py): the transient provision state failed (``deploying``,
    # ...) or ``power change``; None when nothing was.
    recovered: str | None = None
    # Run first in each write transaction of a task that holds its node by a lease: renews
    # the lease, or raises NodeLockLost when another operation took the node meanwhile.
    keep_lease: Callable[[Work], None] | None = field(default=None, repr=False)
    _atomic: Work | None = field(default=None, repr=False)
    _ports: list[Port] | None = field(default=None, repr=False)
    _portgroups: list[Portgroup] | None = field(default=None, repr=False)
    _attachments: list[VifAttachment] | None = field(default=None, repr=False)
    # What the inventory read with the lock said of one VIF: (its id, on another node).
    _vif_elsewhere: tuple[str, bool] | None = field(default=None, repr=False)

    def __post_init__(self, db: Database, work: Work | None) -> None:
        self._db = db
        self._work = work
        self.attachments = NodeAttachments(self)
        self.history = NodeHistoryLog(self)
        self.inventory = NodeInventory(self)

    # -- transactions --------------------------------------------------------------------

    @property
    def in_one_transaction(self) -> bool:
        """Whether the task's writes are one transaction, committed when the task ends (a
        node whose interface calls no external service); otherwise each commits at once."""
        return self._work is not None

    @contextlib.contextmanager
    def atomic(self, *others: Task) -> Iterator[None]:
        """Make the block's writes (of this task and of ``others``) one transaction.

        A single-transaction task is one already; otherwise a write transaction is opened
        for the block and commits when it ends.
        """
        tasks = (self, *others)
        if any(t._work is not None or t._atomic is not None for t in tasks):
            yield
            return
        with self._db.writing() as work:
            for task in sorted(tasks, key=lambda t: t.node.id):  # rows locked in one order
                if task.keep_lease is not None:
                    task.keep_lease(work)
                task._atomic = work
            try:
                yield
            finally:
                for task in tasks:
                    task._atomic = None

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        """Undo the block's writes if it raises, keeping the task's transaction usable."""
        if self._work is None:
            yield
            return
        with self._work.savepoint():
            yield

    @contextlib.contextmanager
    def writing(self) -> Iterator[Work]:
        """The task's open transaction, or a new short one (for the repositories)."""
        open_work = self._work or self._atomic
        if open_work is not None:
            yield open_work
        else:
            with self._db.writing() as work:
                if self.keep_lease is not None:
                    self.keep_lease(work)
                yield work

    @contextlib.contextmanager
    def reading(self) -> Iterator[Work]:
        open_work = self._work or self._atomic
        if open_work is not None:
            yield open_work
        else:
            with self._db.reading() as work:
                yield work

    # -- the node's inventory, loaded on first use --------------------------------------

    @property
    def ports(self) -> list[Port]:
        if self._ports is None:
            with self.reading() as work:
                self._ports = work.ports.for_node(self.node.id)
        return self._ports

    @property
    def portgroups(self) -> list[Portgroup]:
        if self._portgroups is None:
            with self.reading() as work:
                self._portgroups = work.portgroups.for_node(self.node.id)
        return self._portgroups

    def _loaded_attachments(self) -> list[VifAttachment]:
        if self._attachments is None:
            with self.reading() as work:
                self._attachments = work.attachments.for_node(self.node.id)
        return self._attachments

    def reload(self) -> None:
        """Forget the loaded inventory after the task changed it; it loads again on use."""
        with self.reading() as work:
            node = work.nodes.find(self.node.id)
        if node is None:
            raise NodeNotFound(self.node.uuid)
        self.node = node
        self._ports = self._portgroups = self._attachments = self._vif_elsewhere = None

    def forget_inventory(self) -> None:
        """Read the ports and portgroups again on next use (the task changed them)."""
        self._ports = self._portgroups = None

    def note_loaded(self, attachments: list[VifAttachment]) -> None:
        """Use attachments already read with the node instead of reading them again."""
        self._attachments = attachments

    def note_inventory(self, inventory: LoadedInventory) -> None:
        """Use the inventory read with the node's lock instead of reading it again."""
        self._attachments = inventory.attachments
        self._ports = inventory.ports
        self._portgroups = inventory.portgroups
        if inventory.vif_id is not None:
            self._vif_elsewhere = (inventory.vif_id, inventory.vif_elsewhere)

    def attachment_of(self, vif_id: str) -> VifAttachment | None:
        """The node's attachment of a VIF, if it has it."""
        return next((a for a in self.attachments if a.vif_id == vif_id), None)

    def vif_on(self, target: Port | Portgroup) -> str | None:
        """The VIF recorded on a port or portgroup, if any."""
        for attachment in self.attachments:
            if isinstance(target, Port) and attachment.port_id == target.id:
                return attachment.vif_id
            if isinstance(target, Portgroup) and attachment.portgroup_id == target.id:
                return attachment.vif_id
        return None

    def members(self, portgroup: Portgroup) -> list[Port]:
        return [port for port in self.ports if port.portgroup_id == portgroup.id]

    def find_target(self, vif_id: str) -> Port | Portgroup | None:
        """The port or portgroup a VIF of this node sits on."""
        attachment = self.attachment_of(vif_id)
        return None if attachment is None else self.target_of(attachment)

    def target_of(self, attachment: VifAttachment) -> Port | Portgroup | None:
        """The port or portgroup of one of this node's attachments."""
        if attachment.port_id is not None:
            return next((p for p in self.ports if p.id == attachment.port_id), None)
        return self.portgroup_by_id(attachment.portgroup_id)

    def portgroup_by_id(self, portgroup_id: int | None) -> Portgroup | None:
        """The node's portgroup with this id (a port's ``portgroup_id``), or None."""
        if portgroup_id is None:
            return None
        return next((g for g in self.portgroups if g.id == portgroup_id), None)


class NodeAttachments(Sequence[VifAttachment]):
    """The node's VIF attachments (pending ones included), and the writes that change them.

    Each write goes into the task's transaction (or a short one of its own) and keeps the
    loaded list in step.
    """

    def __init__(self, task: Task) -> None:
        self._task = task

    @overload
    def __getitem__(self, index: int) -> VifAttachment: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[VifAttachment]: ...
    def __getitem__(self, index: int | slice) -> VifAttachment | Sequence[VifAttachment]:
        return self._task._loaded_attachments()[index]

    def __len__(self) -> int:
        return len(self._task._loaded_attachments())

    def __iter__(self) -> Iterator[VifAttachment]:
        return iter(list(self._task._loaded_attachments()))

    def anywhere(self, vif_id: str) -> VifAttachment | None:
        """The VIF's attachment on whichever node has it, or None."""
        with self._task.reading() as work:
            return work.attachments.find(vif_id)

    def check_free(self, vif_id: str) -> None:
        """Raise VifAlreadyAttached if the VIF is on any node, naming the node only to a
        requester who may see it (another project's node is "another node").

        The node's attachments come with the check, in one statement, when not loaded yet.
        """
        task = self._task
        if task._vif_elsewhere == (vif_id, False) and task.attachment_of(vif_id) is None:
            return  # read with the lock: on no other node, and not on this one
        with task.reading() as work:
            if task._attachments is None:
                found = work.attachments.for_node_or_vif(task.node.id, vif_id)
                task.note_loaded([a for a in found if a.node_id == task.node.id])
                # the holder's node is read only when there is one: a refusal
                taken = any(a.vif_id == vif_id for a in found)
                holder = work.attachments.holder(vif_id) if taken else None
            else:
                holder = work.attachments.holder(vif_id)
        if holder is None:
            return
        where = (
            f"node {holder.label}"
            if task.context.sees_node(holder.owner, holder.lessee)
            else "another node"
        )
        raise VifAlreadyAttached(
            f"Unable to attach VIF {vif_id}: it is already attached to {where}."
        )

    def record(
        self,
        vif_id: str,
        target: Port | Portgroup,
        info: Mapping[str, Any],
        *,
        pending: bool = False,
        source: str | None = None,
    ) -> VifAttachment:
        """Record the VIF on the target; the keys refuse a busy target or a VIF elsewhere.

        ``pending`` reserves both while an external service is told (see ``confirm``).
        ``source`` defaults to the task's ``vif_source``.
        """
        with self._task.writing() as work:
            attachment = work.attachments.record(
                self._task.node.id,
                vif_id,
                target,
                info,
                source=source or self._task.vif_source,
                pending=pending,
            )
        self._task._attachments = [*self._task._loaded_attachments(), attachment]
        return attachment

    def confirm(self, vif_id: str) -> None:
        """Mark a pending attachment as done."""
        with self._task.writing() as work:
            work.attachments.confirm(vif_id)
        for attachment in self._task._loaded_attachments():
            if attachment.vif_id == vif_id:
                attachment.pending = False

    def update_info(self, vif_id: str, info: Mapping[str, Any]) -> None:
        """Replace what is kept about an attachment (``info``)."""
        with self._task.writing() as work:
            work.attachments.update_info(vif_id, info)
        for attachment in self._task._loaded_attachments():
            if attachment.vif_id == vif_id:
                attachment.info = dict(info)

    def reopen(self, vif_id: str, info: Mapping[str, Any]) -> None:
        """Make a done attachment pending again, keeping ``info`` (see ``confirm``)."""
        with self._task.writing() as work:
            work.attachments.reopen(vif_id, info)
        for attachment in self._task._loaded_attachments():
            if attachment.vif_id == vif_id:
                attachment.info, attachment.pending = dict(info), True

    def remove(self, vif_id: str) -> None:
        """Forget the attachment (and, for one made through extra, that key)."""
        attachment = self._task.attachment_of(vif_id)
        with self._task.writing() as work:
            work.attachments.remove(vif_id, attachment)
        if attachment is not None and attachment.portgroup_id is not None:
            self._task.forget_inventory()  # a dynamic portgroup goes with its VIF
        self._task._attachments = [
            a for a in self._task._loaded_attachments() if a.vif_id != vif_id
        ]


class NodeHistoryLog:
    """The node's history, written in the task's transaction with who did it."""

    def __init__(self, task: Task) -> None:
        self._task = task

    def add(self, entry: HistoryEntry) -> NodeHistory:
        """Write the entry on the task's node, by this conductor, for the request's user."""
        task = self._task
        bound = entry.by(
            task.node.id, task.config.default.host, task.context.user, task.context.project
        ).at_state(task.node)
        with task.writing() as work:
            return work.history.add(bound)


class NodeInventory:
    """Writes to the node, its ports and portgroups, in the task's transaction.

    The caller holds the lock of every node a write touches; a port or portgroup may be
    written with another node's task only when both are locked (a move).
    """

    def __init__(self, task: Task) -> None:
        self._task = task

    def update_node(self, changes: Mapping[str, Any]) -> Node:
        """Set the node's fields. A node whose instance is removed (a PATCH, a tear-down)
        gives up its allocation too, in the same transaction, as Ironic's."""
        with self._task.writing() as work:
            allocation = self._task.node.attrs.get("allocation_uuid")
            if allocation and "instance_uuid" in changes and changes["instance_uuid"] is None:
                work.allocations.delete(allocation, missing_ok=True)
                changes = {**changes, "allocation_uuid": None}
            return work.nodes.update(self._task.node.id, changes)

    def delete_node(self) -> None:
        with self._task.writing() as work:
            work.nodes.delete(self._task.node.id)

    def port(self, uuid: str) -> Port:
        with self._task.reading() as work:
            return work.ports.get(uuid)

    def port_by_address(self, address: str) -> Port | None:
        with self._task.reading() as work:
            return work.ports.find_by_address(address)

    def ports_mentioning_switch_port(self, port_id: str) -> list[Port]:
        """Ports of any node whose ``local_link_connection`` holds ``port_id`` (read
        without their nodes' locks; check the link itself)."""
        with self._task.reading() as work:
            return work.ports.mentioning_switch_port(port_id)

    def create_port(self, values: Mapping[str, Any]) -> Port:
        with self._task.writing() as work:
            return work.ports.create(values)

    def update_port(self, uuid: str, changes: Mapping[str, Any]) -> Port:
        with self._task.writing() as work:
            return work.ports.update(uuid, changes)

    def delete_port(self, uuid: str) -> None:
        with self._task.writing() as work:
            work.ports.delete(uuid)

    def create_portgroup(self, values: Mapping[str, Any]) -> Portgroup:
        with self._task.writing() as work:
            return work.portgroups.create(values)

    def create_dynamic_portgroup(
        self, values: Mapping[str, Any], members: Sequence[Port]
    ) -> Portgroup:
        """A dynamic portgroup of the node holding ``members`` (Conflict if one was taken)."""
        with self._task.writing() as work:
            return work.portgroups.create_dynamic(values, members, self._task.node.id)

    def remove_dynamic_portgroup(self, portgroup_id: int) -> bool:
        """Delete a dynamic portgroup and free its ports; False if it is not dynamic."""
        with self._task.writing() as work:
            removed = work.portgroups.remove_dynamic(portgroup_id)
        self._task.forget_inventory()
        return removed

    def update_portgroup(self, portgroup_id: int, changes: Mapping[str, Any]) -> Portgroup:
        with self._task.writing() as work:
            return work.portgroups.update(portgroup_id, changes)

    def delete_portgroup(self, portgroup_id: int) -> None:
        with self._task.writing() as work:
            work.portgroups.delete(portgroup_id)
