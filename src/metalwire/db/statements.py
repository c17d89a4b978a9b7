"""Plain SQL on the DBAPI connection, for the statements every VIF request runs.

Through the ORM a single-row statement costs about 300 µs on a small machine and an attach
needs eight of them; on the DBAPI connection the same statement costs about 25 µs. So the
VIF, node-lock and history statements run here, inside the transaction of a SQLAlchemy
:class:`~sqlalchemy.engine.Connection` (or of a session's connection), while the schema is
still declared once, in :mod:`metalwire.db.models`: column names, types, defaults, and how
each database stores a value (JSON, booleans, dates) all come from there.

Rows come back as detached model instances (no session), filled the way the ORM's own
loader fills them.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import JSON, DateTime
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.orm import Session, configure_mappers
from sqlalchemy.orm.attributes import manager_of_class

from metalwire.db.models import Base

M = TypeVar("M", bound=Base)
Processor = Callable[[Any], Any] | None


@dataclass(frozen=True)
class _Table:
    """What writing and reading one table's rows takes on one database."""

    name: str
    columns: tuple[str, ...]
    select_list: str
    types: tuple[Any, ...]
    writers: Mapping[str, Processor]
    defaults: Mapping[str, Callable[[], Any]]


@dataclass(frozen=True)
class _Reader:
    """Makes detached instances of a model from rows holding all its columns, in order."""

    new: Callable[[], Any]
    columns: tuple[str, ...]
    converted: tuple[tuple[str, Callable[[Any], Any]], ...]

    def __call__(self, row: Iterable[Any]) -> Any:
        values = dict(zip(self.columns, row, strict=True))
        for name, convert in self.converted:
            value = values[name]
            if value is not None:
                values[name] = convert(value)
        obj = self.new()
        obj.__dict__.update(values)
        return obj


def _default_of(column: Any) -> Callable[[], Any] | None:
    default = column.default
    if default is None:
        return None
    if default.is_callable:
        return functools.partial(default.arg, None)
    value = default.arg
    return lambda: value


_EMPTY_JSON = {"{}": dict, "[]": list}


def _quicker(kind: Any, convert: Processor) -> Processor:
    """A driver value converter with shortcuts for the values rows repeat most.

    Most JSON columns hold an empty object, and the same rows (so the same timestamps) are
    read again and again; parsing each anew was a tenth of a VIF request's time.
    """
    if convert is None:
        return None
    if isinstance(kind, JSON):
        parse = convert

        def from_json(value: Any) -> Any:
            empty = _EMPTY_JSON.get(value) if isinstance(value, str) else None
            return empty() if empty is not None else parse(value)

        return from_json
    if isinstance(kind, DateTime):
        return functools.lru_cache(maxsize=4096)(convert)  # datetimes are immutable
    return convert


@functools.cache
def _reader(model: type[Base], dialect: Dialect, type_codes: tuple[Any, ...]) -> _Reader:
    """How to turn the driver's rows into instances, given the driver's column types."""
    table = _table(model, dialect)
    converted = []
    for name, kind, code in zip(table.columns, table.types, type_codes, strict=True):
        convert = _quicker(kind, kind.result_processor(dialect, code))
        if convert is not None:
            converted.append((name, convert))
    return _Reader(manager_of_class(model).new_instance, table.columns, tuple(converted))


@functools.cache
def _table(model: type[Base], dialect: Dialect) -> _Table:
    # Instances are made without a query, which is what would otherwise set the mappers up.
    configure_mappers()
    table = model.metadata.tables[model.__tablename__]
    quote = dialect.identifier_preparer.quote
    types, writers, defaults = [], {}, {}
    for column in table.columns:
        impl = column.type.dialect_impl(dialect)
        types.append(impl)
        writers[column.name] = impl.bind_processor(dialect)
        default = _default_of(column)
        if default is not None:
            defaults[column.name] = default
    names = tuple(c.name for c in table.columns)
    name = quote(table.name)
    return _Table(
        name=name,
        columns=names,
        select_list=", ".join(f"{name}.{quote(n)}" for n in names),
        types=tuple(types),
        writers=writers,
        defaults=defaults,
    )


class Sql:
    """Statements in the current transaction of one connection.

    SQL text is written with ``?`` placeholders; they become the driver's own. An
    IntegrityError from the driver is raised as SQLAlchemy's, so callers handle one kind.
    """

    def __init__(self, connection: Connection) -> None:
        self.dialect = connection.dialect
        raw = connection.connection.dbapi_connection
        assert raw is not None
        self._cursor = raw.cursor()
        self._positional = self.dialect.paramstyle == "qmark"
        self._integrity_error = connection.dialect.loaded_dbapi.IntegrityError

    @classmethod
    def of(cls, session: Session) -> Sql:
        """Statements in a session's transaction, after its pending changes are flushed."""
        if session.new or session.dirty or session.deleted:
            session.flush()
        return cls(session.connection())

    def _text(self, sql: str) -> str:
        return sql if self._positional else _to_format(sql)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; the number of rows it changed."""
        try:
            self._cursor.execute(self._text(sql), tuple(params))
        except self._integrity_error as exc:
            raise sa_exc.IntegrityError(sql, params, exc) from None
        return int(self._cursor.rowcount)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self._cursor.execute(self._text(sql), tuple(params))
        return list(self._cursor.fetchall())

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = self.rows(sql, params)
        return rows[0][0] if rows else None

    def columns(self, model: type[Base]) -> str:
        """The model's columns, as a select list."""
        return _table(model, self.dialect).select_list

    def load(self, model: type[M], where: str, params: Sequence[Any] = ()) -> list[M]:
        """Rows of the model's table matching ``where``, as detached instances."""
        table = _table(model, self.dialect)
        rows = self.rows(f"SELECT {table.select_list} FROM {table.name} WHERE {where}", params)
        return self.instances(model, rows)

    def instances(self, model: type[M], rows: Sequence[Sequence[Any]], offset: int = 0) -> list[M]:
        """Detached instances from the rows just read, whose columns from ``offset`` on are
        the model's (all of them, in order); rows whose first such column is NULL are skipped.
        """
        width = len(_table(model, self.dialect).columns)
        codes = tuple(d[1] for d in self._cursor.description[offset : offset + width])
        make = _reader(model, self.dialect, codes)
        if offset == 0 and width == len(self._cursor.description):
            return [make(row) for row in rows]
        return [make(row[offset : offset + width]) for row in rows if row[offset] is not None]

    def insert(self, model: type[Base], values: Mapping[str, Any]) -> dict[str, Any]:
        """Insert one row with the model's defaults for missing columns; the values stored."""
        table = _table(model, self.dialect)
        stored = {**{k: make() for k, make in table.defaults.items()}, **values}
        names = tuple(c for c in table.columns if c in stored)
        self.execute(
            _insert_text(model, self.dialect, names),
            [self.bind(model, n, stored[n]) for n in names],
        )
        return stored

    def bind(self, model: type[Base], column: str, value: Any) -> Any:
        """A value as the database stores it in the model's column."""
        writer = _table(model, self.dialect).writers[column]
        return value if writer is None or value is None else writer(value)


def detached(model: type[M], values: Mapping[str, Any]) -> M:
    """A detached model instance holding the given column values (as Python values)."""
    obj: M = manager_of_class(model).new_instance()
    obj.__dict__.update(values)
    return obj


@functools.cache
def _insert_text(model: type[Base], dialect: Dialect, names: tuple[str, ...]) -> str:
    quote = dialect.identifier_preparer.quote
    return (
        f"INSERT INTO {_table(model, dialect).name} ({', '.join(quote(n) for n in names)}) "
        f"VALUES ({', '.join('?' for _ in names)})"
    )


@functools.cache
def _to_format(sql: str) -> str:
    return sql.replace("?", "%s")


# Opens an ORM session joined to a unit of work's transaction, flushed when the block ends.
SessionOpener = Callable[[], contextlib.AbstractContextManager[Session]]


class Repository:
    """One table's statements on a unit of work (:class:`metalwire.db.work.Work`): the hot
    ones on its DBAPI connection (``self._sql``), inventory writes through an ORM session
    joined to the same transaction (``self._session()``), so both commit together."""

    def __init__(self, sql: Sql, session: SessionOpener) -> None:
        self._sql = sql
        self._session = session
