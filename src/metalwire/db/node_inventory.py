"""A node's inventory read in one go: its VIF records, ports and portgroups.

A VIF operation reads all three once it holds the node's lock (and, for an attach, whether
the VIF is recorded on any node). Sent together they cost one round trip to a database
server (:meth:`metalwire.db.statements.Sql.load_batch`); on PostgreSQL the statement that
locks the node's row goes with them (:meth:`metalwire.db.node_locks.NodeLockRows.lock_row`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from metalwire.db import portgroups, ports, vifs
from metalwire.db.models import Port, Portgroup, VifAttachment
from metalwire.db.statements import Read, Repository


@dataclass(frozen=True)
class Wanted:
    """What an operation will read of its node: the inventory, and whether ``vif_id`` (if
    given) is recorded on any node."""

    vif_id: str | None = None


@dataclass(frozen=True)
class LoadedInventory:
    attachments: list[VifAttachment]  # the node's, ports first
    ports: list[Port]
    portgroups: list[Portgroup]
    vif_id: str | None
    vif_elsewhere: bool  # whether vif_id is recorded on another node


def reads(node_id: int, wanted: Wanted) -> list[Read[Any]]:
    """The statements that read the inventory (for :func:`loaded`)."""
    first = (
        vifs.of_node(node_id)
        if wanted.vif_id is None
        else vifs.of_node_or_vif(node_id, wanted.vif_id)
    )
    return [first, ports.of_node(node_id), portgroups.of_node(node_id)]


def loaded(node_id: int, wanted: Wanted, results: Sequence[list[Any]]) -> LoadedInventory:
    """The inventory from the results of :func:`reads`."""
    found, port_rows, group_rows = results
    return LoadedInventory(
        attachments=vifs.ports_first(a for a in found if a.node_id == node_id),
        ports=port_rows,
        portgroups=group_rows,
        vif_id=wanted.vif_id,
        vif_elsewhere=any(a.vif_id == wanted.vif_id and a.node_id != node_id for a in found),
    )


class NodeInventories(Repository):
    def load(self, node_id: int, wanted: Wanted) -> LoadedInventory:
        """The node's inventory, its statements sent together."""
        return loaded(node_id, wanted, self._sql.load_batch(reads(node_id, wanted)))
