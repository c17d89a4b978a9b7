"""PyMySQL connections for the reference server on MariaDB, used on worker threads.

The minimal app and the kept work reach MariaDB as metalwire does: PyMySQL, a blocking
driver, each call on a worker thread of the event loop's default pool, with connections
kept open and handed out one call at a time.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio.to_thread
import pymysql

T = TypeVar("T")


class MariaDBPool:
    """``size`` PyMySQL connections to ``url`` (``mysql://user[:pw]@host:port/db``)."""

    def __init__(self, url: str, size: int, autocommit: bool = True) -> None:
        parts = urlsplit(url)
        options: dict[str, Any] = {
            "host": parts.hostname or "127.0.0.1",
            "port": parts.port or 3306,
            "user": parts.username or "root",
            "password": parts.password or "",
            "database": parts.path.lstrip("/"),
            "autocommit": autocommit,
            "ssl_disabled": True,  # loopback: no TLS context to load per connection
        }
        self.free: queue.SimpleQueue[pymysql.Connection[Any]] = queue.SimpleQueue()
        for _ in range(size):
            self.free.put(pymysql.connect(**options))

    def prepare(self, statements: Sequence[str]) -> None:
        """Run ``statements`` (a schema) now, on this thread."""

        def each(conn: pymysql.Connection[Any]) -> None:
            with conn.cursor() as cursor:
                for sql in statements:
                    cursor.execute(sql)

        self._with_connection(each)

    async def run(self, work: Callable[[pymysql.Connection[Any]], T]) -> T:
        """``work`` with a connection of the pool, on a worker thread."""
        return await anyio.to_thread.run_sync(self._with_connection, work)

    def _with_connection(self, work: Callable[[pymysql.Connection[Any]], T]) -> T:
        conn = self.free.get()
        try:
            return work(conn)
        finally:
            self.free.put(conn)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """One autocommitted statement (``?`` placeholders), its rows."""

        def statement(conn: pymysql.Connection[Any]) -> list[tuple[Any, ...]]:
            with conn.cursor() as cursor:
                cursor.execute(sql.replace("?", "%s"), tuple(params))
                return list(cursor.fetchall())

        return await self.run(statement)

    def close(self) -> None:
        while not self.free.empty():
            self.free.get().close()
