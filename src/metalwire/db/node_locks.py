"""SQL for the node lock: a lease held in the node's own row, or the row's own lock.

A conditional UPDATE takes the lease only if it is free or its lease ran out. That is atomic
on every database metalwire supports, SQLite included, without SELECT ... FOR UPDATE. On
PostgreSQL a transaction that does all its work inside itself locks the row instead
(``lock_row``): one statement, no row written, nothing to give back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metalwire.db import outage
from metalwire.db.busy import WriterBusy
from metalwire.db.models import Node
from metalwire.db.statements import Read, Repository

_TAKE = (
    "UPDATE nodes SET reservation = ?, lock_expires_at = ?"
    " WHERE id = ? AND (reservation IS NULL OR lock_expires_at < ?)"
)


class NodeLockRows(Repository):
    """The lease in the node's own row."""

    def try_acquire(self, node_id: int, holder: str, now: float, lease: float) -> bool:
        return self._sql.execute(_TAKE, (holder, now + lease, node_id, now)) > 0

    def take_lease(
        self, node_id: int, holder: str, now: float, lease: float, then: Sequence[Read[Any]] = ()
    ) -> tuple[bool, Node | None, list[list[Any]]]:
        """Take the lease in the caller's transaction (as :meth:`try_acquire`), and read the
        node's row and ``then`` once the lease's statement ran, all sent together: whether
        the lease is the holder's, the row (None if there is none), the reads' results. The
        row says who holds the node when the lease was not free."""
        changed, (found, *results) = self._sql.write_then_load(
            _TAKE, (holder, now + lease, node_id, now), [Read(Node, "id = ?", (node_id,)), *then]
        )
        return changed > 0, (found[0] if found else None), results

    def lock_row(
        self, node_id: int, then: Sequence[Read[Any]] = (), wait: bool = True
    ) -> tuple[Node | None, list[list[Any]]]:
        """The node's row, locked until the transaction ends (None if there is none), and
        the results of the reads ``then``, made once the lock is held (sent together).

        Waits while another transaction holds the row, unless ``wait`` is False: then it
        raises WriterBusy at once (and the transaction can only be rolled back). The lease
        columns it returns say whether an operation outside any transaction holds the node.
        """
        lock = Read(Node, "id = ? FOR UPDATE" if wait else "id = ? FOR UPDATE NOWAIT", (node_id,))
        try:
            found, *results = self._sql.load_batch([lock, *then])
        except Exception as exc:
            if outage.lock_not_available(exc):
                raise WriterBusy(f"another transaction holds node {node_id}") from None
            raise
        return (found[0] if found else None), results

    def release(self, node_id: int, holder: str) -> None:
        """Clear the holder's lease, with the transaction's commit (or the next statement)."""
        self._sql.defer(
            "UPDATE nodes SET reservation = NULL, lock_expires_at = NULL"
            " WHERE id = ? AND reservation = ?",
            (node_id, holder),
        )

    def extend(self, node_id: int, holder: str, now: float, lease: float) -> bool:
        """Renew the holder's lease on one node, in the caller's transaction; False if the
        holder no longer has it. Locks the row until the transaction ends, so no other
        process takes the node between this check and the transaction's writes."""
        changed = self._sql.execute(
            "UPDATE nodes SET lock_expires_at = ? WHERE id = ? AND reservation = ?",
            (now + lease, node_id, holder),
        )
        return changed > 0

    def renew(self, node_ids: list[int], holder: str, now: float, lease: float) -> None:
        marks = ", ".join("?" for _ in node_ids)
        self._sql.execute(
            f"UPDATE nodes SET lock_expires_at = ? WHERE id IN ({marks}) AND reservation = ?",
            (now + lease, *node_ids, holder),
        )


def live_holder(node: Node, now: float) -> str | None:
    """Who holds a live lease on the node, or None."""
    if node.reservation is None:
        return None
    if node.lock_expires_at is not None and node.lock_expires_at < now:
        return None
    return node.reservation
