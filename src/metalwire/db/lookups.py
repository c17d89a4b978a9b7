"""Small lookups shared by the repositories and the views."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from metalwire.db.models import Node, Portgroup


def uuids_by_id(
    session: Session, model: type[Node] | type[Portgroup], ids: Iterable[int | None]
) -> dict[int, str]:
    """The UUID of each row id given (None and repeats ignored), in one query."""
    wanted = sorted({i for i in ids if i is not None})
    if not wanted:
        return {}
    rows = session.execute(select(model.id, model.uuid).where(model.id.in_(wanted)))
    return {row_id: uuid for row_id, uuid in rows}
