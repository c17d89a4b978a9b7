"""Marker-based paging shared by every list query."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Select, and_, or_
from sqlalchemy.orm import InstrumentedAttribute, Session

from metalwire.errors import InvalidParameterValue

T = TypeVar("T")


@dataclass(frozen=True)
class Page:
    limit: int
    marker: str | None = None
    sort_key: str = "id"
    sort_dir: str = "asc"


def paginate(
    session: Session, query: Select[Any], model: Any, page: Page, sortable: set[str]
) -> list[T]:
    """Apply sorting, the marker and the limit; raise Invalid for a bad key or marker."""
    if page.sort_dir not in ("asc", "desc"):
        raise InvalidParameterValue(
            f"Invalid sort direction: {page.sort_dir}. Acceptable values are 'asc' or 'desc'"
        )
    if page.sort_key not in sortable:
        raise InvalidParameterValue(
            f"The sort_key value {page.sort_key} is an invalid field for sorting"
        )
    column: InstrumentedAttribute[Any] = getattr(model, page.sort_key)
    ident: InstrumentedAttribute[int] = model.id
    if page.marker is not None:
        row = session.query(model).filter(model.uuid == page.marker).one_or_none()
        if row is None:
            raise InvalidParameterValue(f"The marker {page.marker} could not be found.")
        value = getattr(row, page.sort_key)
        after = column > value if page.sort_dir == "asc" else column < value
        tie = ident > row.id if page.sort_dir == "asc" else ident < row.id
        query = query.where(or_(after, and_(column == value, tie)))
    order = (column.asc(), ident.asc()) if page.sort_dir == "asc" else (column.desc(), ident.desc())
    return list(session.scalars(query.order_by(*order).limit(page.limit)))
