"""The repository of what inspections stored: every statement on ``inspection_data``.

A node has at most one row, its last inspection's; storing another replaces it. The row is
deleted with its node by the database (``ON DELETE CASCADE``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select

from metalwire.db.models import InspectionData, utcnow
from metalwire.db.statements import Repository


class InspectionRecords(Repository):
    """The ``inspection_data`` table, bound to a unit of work."""

    def store(self, node_id: int, inventory: dict[str, Any], plugin_data: dict[str, Any]) -> None:
        """Keep ``inventory`` and ``plugin_data`` as the node's, replacing what it had."""
        with self._session() as session:
            session.execute(delete(InspectionData).where(InspectionData.node_id == node_id))
            session.add(
                InspectionData(
                    node_id=node_id,
                    inventory=inventory,
                    plugin_data=plugin_data,
                    created_at=utcnow(),
                )
            )

    def of_node(self, node_id: int) -> InspectionData | None:
        """The node's stored inspection data, if an inspection stored any."""
        with self._session() as session:
            return session.scalars(
                select(InspectionData).where(InspectionData.node_id == node_id)
            ).one_or_none()
