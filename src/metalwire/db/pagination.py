"""Marker-based (keyset) paging shared by every list query.

Every list is ordered by its sort column, then by ``id`` in the same direction, so rows with
equal sort values keep a stable order and a marker names one exact position. NULLs sort first
in ascending order and last in descending order -- the default of SQLite and MariaDB -- and
the SQL says so explicitly with an ``IS NULL`` sort term, so PostgreSQL (whose default is the
opposite) orders the same way. The marker condition follows the same rule, so a walk by
``next`` links sees each row exactly once whatever NULLs and ties the column holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, and_, literal, or_, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from metalwire.errors import InvalidParameterValue, NotFound

T = TypeVar("T")


@dataclass(frozen=True)
class Page:
    limit: int
    marker: str | None = None
    sort_key: str = "id"
    sort_dir: str = "asc"


# A sort key that is not a column of its own: what to order by, and whether it may be NULL.
SortExpression = tuple[ColumnElement[Any], bool]
SortColumn = InstrumentedAttribute[Any] | ColumnElement[Any]


def paginate(
    session: Session,
    query: Select[Any],
    model: Any,
    page: Page,
    sortable: set[str],
    missing: Callable[[str], NotFound],
    computed: Mapping[str, SortExpression] | None = None,
    marker_column: InstrumentedAttribute[str] | None = None,
) -> list[T]:
    """Apply sorting, the marker and the limit.

    ``sortable`` names the columns a list may be sorted by, ``computed`` the other sort keys
    (a value kept inside a JSON column). The marker names a row by ``marker_column`` (by
    default its UUID). Raises InvalidParameterValue for a bad sort key or direction, and
    ``missing(marker)`` when no row has the marker.
    """
    if page.sort_dir not in ("asc", "desc"):
        raise InvalidParameterValue(
            f"Invalid sort direction: {page.sort_dir}. Acceptable values are 'asc' or 'desc'"
        )
    column, nullable = _sort_column(model, page.sort_key, sortable, computed or {})
    ident: InstrumentedAttribute[int] = model.id
    ascending = page.sort_dir == "asc"
    if page.marker is not None:
        found = session.execute(
            select(column, ident).where(
                (model.uuid if marker_column is None else marker_column) == page.marker
            )
        ).one_or_none()
        if found is None:
            raise missing(page.marker)
        value, marker_id = found
        query = query.where(_after(column, ident, value, marker_id, ascending, nullable))
    ordered = query.order_by(*_order(column, ident, ascending, nullable))
    return list(session.scalars(ordered.limit(page.limit)))


def _sort_column(
    model: Any, key: str, sortable: set[str], computed: Mapping[str, SortExpression]
) -> tuple[SortColumn, bool]:
    if key in computed:
        return computed[key]
    if key not in sortable:
        raise InvalidParameterValue(f"The sort_key value {key} is an invalid field for sorting")
    return getattr(model, key), bool(model.__table__.c[key].nullable)


def _order(
    column: SortColumn,
    ident: InstrumentedAttribute[int],
    ascending: bool,
    nullable: bool,
) -> list[ColumnElement[Any]]:
    """ORDER BY terms: NULLs first when ascending, last when descending; then id."""
    terms: list[ColumnElement[Any]] = []
    if nullable:
        is_null = column.is_(None)
        terms.append(is_null.desc() if ascending else is_null.asc())
    if ascending:
        return [*terms, column.asc(), ident.asc()]
    return [*terms, column.desc(), ident.desc()]


def _after(
    column: SortColumn,
    ident: InstrumentedAttribute[int],
    value: Any,
    marker_id: int,
    ascending: bool,
    nullable: bool,
) -> ColumnElement[bool]:
    """Rows that come after the marker row (sort value ``value``, id ``marker_id``)."""
    if value is None:
        # The marker is among the NULLs: the rest of them, then (ascending) every value.
        rest_of_nulls = and_(
            column.is_(None), ident > marker_id if ascending else ident < marker_id
        )
        return or_(rest_of_nulls, column.is_not(None)) if ascending else rest_of_nulls
    # A literal of the column's type: SQLAlchemy refuses ``>`` against a bare True/False.
    bound = literal(value, column.type)
    if ascending:
        return or_(column > bound, and_(column == bound, ident > marker_id))
    later = or_(column < bound, and_(column == bound, ident < marker_id))
    return or_(later, column.is_(None)) if nullable else later
