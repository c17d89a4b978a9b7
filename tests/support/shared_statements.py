"""One compiled-statement cache for every engine a test process opens on the same database.

SQLAlchemy compiles a statement once per engine and keeps it in the engine's cache, keyed
by the engine's dialect object. A server opens one engine and compiles each statement once
in its life; an in-process test opens a fresh engine (a fresh SQLite file, or the shared
server emptied) and so compiled every statement it ran again: about a quarter of the CPU of
tests/api. :func:`install` makes each engine :func:`metalwire.db.engine.make_engine` builds
compile and look up its statements through the dialect and the cache of the first engine
built for the same driver, database and transaction mode that has connected: a statement is
compiled once per test process.

What stays the engine's own: its pool, its connections and the dialect that opens them, and
every event :mod:`metalwire.db.engine` attaches to it, so that each test's connections are
made and configured as a server's are. Only an engine whose dialect has read its server
(SQLAlchemy's first connect) is shared: SQLAlchemy compiles by what it read.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, event

from metalwire.db import engine as db_engine

_shared: dict[tuple[Any, ...], tuple[Any, Any]] = {}  # key -> (dialect, compiled cache)


def _key(engine: Engine, autocommit: bool) -> tuple[Any, ...]:
    """Engines on one database of one server in one transaction mode (the dialect keeps the
    database's default schema, which MariaDB names after the database); SQLite files are all
    alike."""
    url = engine.url
    database = None if url.get_backend_name() == "sqlite" else url.database
    return (url.drivername, url.host, url.port, database, autocommit)


def _sharing(engine: Engine, autocommit: bool) -> Engine:
    key = _key(engine, autocommit)
    found = _shared.get(key)
    if found is not None:
        engine.dialect, engine._compiled_cache = found
        return engine
    own = (engine.dialect, engine._compiled_cache)

    def _read_its_server(_dbapi_connection: Any, _record: Any) -> None:
        # "connect" runs after the first connect's dialect.initialize has returned; the
        # first engine of its key to get there wins (setdefault is one step under the GIL)
        _shared.setdefault(key, own)

    event.listen(engine, "connect", _read_its_server, once=True)
    return engine


def install() -> None:
    """From now on, the engines this process builds share compiled statements as above."""
    build = db_engine._make_engine

    def shared_make_engine(
        url: str, pool_size: int, autocommit: bool, *rest: Any, **named: Any
    ) -> Engine:
        return _sharing(build(url, pool_size, autocommit, *rest, **named), autocommit)

    db_engine._make_engine = shared_make_engine
