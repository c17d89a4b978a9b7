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
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

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


_EMPTY_JSON: dict[str | bytes, Callable[[], Any]] = {
    "{}": dict,
    "[]": list,
    b"{}": dict,
    b"[]": list,
}


def json_loads(text: str | bytes) -> Any:
    """``json.loads``, with the values JSON columns hold most (empty objects) made without
    parsing: the driver's JSON parser for PostgreSQL (``engine.py``)."""
    empty = _EMPTY_JSON.get(text)
    return empty() if empty is not None else json.loads(text)


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
            empty = _EMPTY_JSON.get(value) if isinstance(value, str | bytes) else None
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


class Read(NamedTuple, Generic[M]):
    """A read of the model's rows matching ``where`` (with ``?`` placeholders)."""

    model: type[M]
    where: str
    params: tuple[Any, ...]


@dataclass(frozen=True)
class _Write:
    """A write held back until the next statement or the commit."""

    text: str
    params: tuple[Any, ...]
    conflict: Callable[[], Exception] | None


class Sql:
    """Statements in the current transaction of one connection.

    SQL text is written with ``?`` placeholders; they become the driver's own. An
    IntegrityError from the driver is raised as SQLAlchemy's, so callers handle one kind.

    Writes whose result nobody reads (:meth:`defer`, :meth:`insert`) are held back and sent
    with the next statement, or with the commit (:meth:`send_with_commit`); reads that do not
    depend on each other go out together (:meth:`batch`). With psycopg 3 such a group is one
    round trip to the server (its pipeline mode), with PyMySQL one multi-statement query
    (``db/mysql_link.py``); SQLite runs the same statements one after the other. Either way
    they run in the order they were given, in one transaction.
    """

    def __init__(self, connection: Connection) -> None:
        self.dialect = connection.dialect
        raw = connection.connection.dbapi_connection
        assert raw is not None
        self._raw: Any = raw
        self._integrity_error = connection.dialect.loaded_dbapi.IntegrityError
        self._pipelines = connection.dialect.driver == "psycopg"
        self._multi = connection.dialect.driver == "pymysql" and _multi_statements(raw)
        # pg_exchange numbers the ``?`` itself; other drivers take ``?`` or ``%s``
        self._keeps_marks = self._pipelines or self.dialect.paramstyle == "qmark"
        self._cursor = None if self._pipelines else raw.cursor()
        self._writes: list[_Write] = []

    def _text(self, sql: str) -> str:
        return sql if self._keeps_marks else _to_format(sql)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement now; the number of rows it changed."""
        return int(self._run([(sql, params)])[0].rowcount)

    def defer(
        self,
        sql: str,
        params: Sequence[Any] = (),
        conflict: Callable[[], Exception] | None = None,
    ) -> None:
        """Run a write with the next statement or the commit, whichever comes first.

        ``conflict`` makes the error raised if the write breaks a unique or foreign key (by
        default SQLAlchemy's IntegrityError), since the caller is gone by then.
        """
        self._writes.append(_Write(sql, tuple(params), conflict))

    def flush(self) -> None:
        """Send the writes held back, now."""
        if self._writes:
            self._run([])

    def discard(self) -> None:
        """Forget the writes held back (their block is being undone)."""
        self._writes.clear()

    def send_with_commit(self) -> None:
        """Send the writes held back with the transaction's COMMIT, as one round trip, where
        the driver can; elsewhere send them, and the transaction commits as usual."""
        if (self._pipelines or self._multi) and self._writes:
            self._run([], commit=True)
        else:
            self.flush()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self._run([(sql, params)])[0].fetchall())

    def batch(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
        """Run reads that do not depend on each other together; a cursor per statement, its
        rows still to fetch."""
        return self._run(statements)

    def _run(
        self, statements: Sequence[tuple[str, Sequence[Any]]], commit: bool = False
    ) -> list[Any]:
        """The held-back writes, then ``statements`` (then the COMMIT): the cursors of
        ``statements``."""
        writes, self._writes = self._writes, []
        todo = [(self._text(w.text), w.params) for w in writes]
        todo += [(self._text(sql), tuple(params)) for sql, params in statements]
        key = self._integrity_error
        try:
            if self._pipelines:
                results: list[Any] = _send_pipeline(self._raw, todo, commit, key)
            elif self._multi and (commit or len(todo) > 1):
                results = _send_multi(self._raw, todo, commit, key)
            elif len(todo) == 1:
                results = _send_each([self._cursor], todo, key)
            else:
                results = _send_each([self._raw.cursor() for _ in todo], todo, key)
        except _Failed as failed:
            index = min(failed.index, len(todo) - 1)
            write = writes[index] if index < len(writes) else None
            if write is not None and write.conflict is not None:
                raise write.conflict() from None
            raise sa_exc.IntegrityError(*todo[index], failed.error) from None
        return results[len(writes) :]

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = self.rows(sql, params)
        return rows[0][0] if rows else None

    def columns(self, model: type[Base]) -> str:
        """The model's columns, as a select list."""
        return _table(model, self.dialect).select_list

    def select(self, model: type[M], where: str) -> str:
        """The statement reading the model's rows matching ``where``."""
        table = _table(model, self.dialect)
        return f"SELECT {table.select_list} FROM {table.name} WHERE {where}"

    def load(self, model: type[M], where: str, params: Sequence[Any] = ()) -> list[M]:
        """Rows of the model's table matching ``where``, as detached instances."""
        sql = self.select(model, where)
        return self.instances(model, sql, self._run([(sql, params)])[0])

    def load_batch(self, reads: Sequence[Read[Any]]) -> list[list[Any]]:
        """Several :meth:`load` reads sent together (see :meth:`batch`); a list per read."""
        statements = [(self.select(read.model, read.where), read.params) for read in reads]
        cursors = self._run(statements)
        return [
            self.instances(read.model, sql, cursor)
            for read, (sql, _), cursor in zip(reads, statements, cursors, strict=True)
        ]

    def write_then_load(
        self, sql: str, params: Sequence[Any], reads: Sequence[Read[Any]]
    ) -> tuple[int, list[list[Any]]]:
        """A write and, made once it ran, the reads (sent together, see :meth:`batch`): the
        number of rows the write changed, and a list per read."""
        statements = [(self.select(read.model, read.where), read.params) for read in reads]
        written, *cursors = self._run([(sql, params), *statements])
        return int(written.rowcount), [
            self.instances(read.model, text, cursor)
            for read, (text, _), cursor in zip(reads, statements, cursors, strict=True)
        ]

    def instances(
        self,
        model: type[M],
        sql: str,
        cursor: Any,
        rows: Sequence[Sequence[Any]] | None = None,
        offset: int = 0,
    ) -> list[M]:
        """Detached instances from the rows of ``sql`` (fetched from ``cursor`` unless given),
        whose columns from ``offset`` on are the model's (all of them, in order); rows whose
        first such column is NULL are skipped."""
        if rows is None:
            rows = cursor.fetchall()
        if not rows:
            return []
        width = len(_table(model, self.dialect).columns)
        make = self._reader(model, sql, cursor, offset, width)
        if offset == 0 and len(rows[0]) == width:
            return [make(row) for row in rows]
        return [make(row[offset : offset + width]) for row in rows if row[offset] is not None]

    def _reader(self, model: type[Base], sql: str, cursor: Any, offset: int, width: int) -> Any:
        # A statement's columns have the same types every time: the cursor's description,
        # costly to build with some drivers, is read once per statement.
        key = (model, self.dialect, sql, offset)
        make = _READERS.get(key)
        if make is None:
            codes = tuple(d[1] for d in cursor.description[offset : offset + width])
            make = _READERS[key] = _reader(model, self.dialect, codes)
        return make

    def insert(
        self,
        model: type[Base],
        values: Mapping[str, Any],
        conflict: Callable[[], Exception] | None = None,
    ) -> dict[str, Any]:
        """Insert one row with the model's defaults for missing columns; the values stored.

        The row is written with the next statement or the commit (:meth:`defer`, which says
        what ``conflict`` is).
        """
        table = _table(model, self.dialect)
        stored = {**{k: make() for k, make in table.defaults.items()}, **values}
        names = tuple(c for c in table.columns if c in stored)
        self.defer(
            _insert_text(model, self.dialect, names),
            [self.bind(model, n, stored[n]) for n in names],
            conflict,
        )
        return stored

    def bind(self, model: type[Base], column: str, value: Any) -> Any:
        """A value as the database stores it in the model's column."""
        writer = _table(model, self.dialect).writers[column]
        return value if writer is None or value is None else writer(value)


# (model, dialect, statement, offset) -> how its rows become instances
_READERS: dict[tuple[Any, ...], Any] = {}


class _Failed(Exception):
    """The statement at ``index`` broke a key (``error``, the driver's IntegrityError)."""

    def __init__(self, index: int, error: Exception) -> None:
        super().__init__(index, error)
        self.index = index
        self.error = error


Statements = Sequence[tuple[str, tuple[Any, ...]]]


def _send_each(cursors: Sequence[Any], todo: Statements, key: type[Exception]) -> list[Any]:
    """Each statement in turn, on its cursor; the cursors. ``key``: the driver's
    IntegrityError."""
    for index, (cursor, (sql, params)) in enumerate(zip(cursors, todo, strict=True)):
        try:
            cursor.execute(sql, params)
        except key as exc:
            raise _Failed(index, exc) from None
    return list(cursors)


def _send_pipeline(raw: Any, todo: Statements, commit: bool, key: type[Exception]) -> list[Any]:
    """The statements (and the COMMIT) in one round trip to PostgreSQL."""
    from metalwire.db import pg_exchange  # psycopg is installed only for PostgreSQL

    try:
        return pg_exchange.exchange(raw, todo, commit)
    except pg_exchange.StatementFailed as failed:
        if isinstance(failed.error, key):
            raise _Failed(failed.index, failed.error) from None
        raise failed.error from None


def _multi_statements(raw: Any) -> bool:
    """Whether the PyMySQL connection is metalwire's and sends groups as one query."""
    from metalwire.db import mysql_link  # PyMySQL is installed only for MariaDB and MySQL

    return isinstance(raw, mysql_link.Connection) and raw.sends_groups()


def _send_multi(raw: Any, todo: Statements, commit: bool, key: type[Exception]) -> list[Any]:
    """The statements (and the COMMIT) in one round trip to MariaDB or MySQL."""
    from metalwire.db import mysql_link

    try:
        return list(mysql_link.exchange(raw, todo, commit))
    except mysql_link.StatementFailed as failed:
        if isinstance(failed.error, key):
            raise _Failed(failed.index, failed.error) from None
        raise failed.error from None


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
