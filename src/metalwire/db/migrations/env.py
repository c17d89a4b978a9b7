from __future__ import annotations

import contextlib
from collections.abc import Iterator

from alembic import context
from sqlalchemy import Connection, Engine

from metalwire.db.models import Base


@contextlib.contextmanager
def _sqlite_keys_off(connection: Connection) -> Iterator[None]:
    """Turn SQLite's foreign keys off while batch mode copies, drops and renames tables.

    With them on, dropping the old copy of a table would cascade its deletes into the
    tables that refer to it. The pragma only takes effect outside a transaction; the keys
    are checked once the copies are in place.
    """
    raw = connection.connection.dbapi_connection
    assert raw is not None
    raw.execute("PRAGMA foreign_keys=OFF")
    try:
        yield
    finally:
        raw.execute("PRAGMA foreign_keys=ON")


def _check_sqlite_keys(connection: Connection) -> None:
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        raise RuntimeError(f"foreign keys broken by the migration: {broken}")


engine: Engine = context.config.attributes["engine"]
sqlite = engine.dialect.name == "sqlite"
with (
    engine.connect() as connection,
    _sqlite_keys_off(connection) if sqlite else contextlib.nullcontext(),
):
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=sqlite,
    )
    with context.begin_transaction():
        context.run_migrations()
        if sqlite:
            _check_sqlite_keys(connection)
    connection.commit()
