"""Small lookups shared by the repositories and the views."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from metalwire.db.models import Allocation, DeployTemplate, Node, Portgroup, Runbook
from metalwire.errors import NotFound
from metalwire.identifiers import is_uuid_like

#: The rows named by their UUID or, failing that, by their name.
Named = TypeVar("Named", Allocation, DeployTemplate, Runbook)


def uuids_by_id(
    session: Session, model: type[Node] | type[Portgroup], ids: Iterable[int | None]
) -> dict[int, str]:
    """The UUID of each row id given (None and repeats ignored), in one query."""
    wanted = sorted({i for i in ids if i is not None})
    if not wanted:
        return {}
    rows = session.execute(select(model.id, model.uuid).where(model.id.in_(wanted)))
    return {row_id: uuid for row_id, uuid in rows}


def by_uuid_or_name(
    session: Session,
    model: type[Named],
    missing: Callable[[str], NotFound],
    ident: str,
    *,
    locked: bool = False,
) -> Named:
    """The row of this UUID, or else of this name (``locked``: locked until the transaction
    ends); raises ``missing(ident)`` (404)."""
    column = model.uuid if is_uuid_like(ident) else model.name
    query = select(model).where(column == ident)
    row = session.scalars(query.with_for_update() if locked else query).one_or_none()
    if row is None:
        raise missing(ident)
    return row
