"""The database work metalwire keeps on its VIF path, done by the reference server's stack.

``bench/baseline_app.py --work kept`` answers the VIF routes with this instead of its one
statement per request: what the correctness properties of #24 cost the database and its
driver, with no service around them (no policy, validation, conductor, logging or metrics).
A write is one transaction that locks the node's row (on SQLite, the file's write lock),
reads the node's VIF records and ports, writes the VIF record (whose keys hold one VIF per
port and one node per VIF), marks the port, writes a history row and commits; on
PostgreSQL the reads go out in one round trip and the writes with the COMMIT in a second, as
metalwire sends them. A list is one read of the node joined to its VIF records.

The server's cycles against the minimal one's are the ceiling the database work leaves for
any implementation on this stack; metalwire's against these are what its own code costs.

On MariaDB the statements go one at a time, each a round trip, on a worker thread with a
PyMySQL connection (``bench/mariadb_pool.py``), as metalwire sends them there.

``--work kept-function`` (PostgreSQL only) does the same work in one round trip a write: a
PL/pgSQL function per operation, called as one autocommit statement. It is the least any
client can ask of PostgreSQL for that work, at the price of the interface's choice of a port
moving into the database.
"""

from __future__ import annotations

import abc
import datetime
import sqlite3
from collections.abc import Sequence
from typing import Any

SCHEMA = {
    "sqlite": [
        "CREATE TABLE IF NOT EXISTS vif_attachments (vif TEXT PRIMARY KEY,"
        " node TEXT NOT NULL REFERENCES nodes (uuid), port TEXT NOT NULL UNIQUE"
        " REFERENCES ports (uuid), created_at TIMESTAMP NOT NULL)",
        "CREATE TABLE IF NOT EXISTS node_history (id INTEGER PRIMARY KEY,"
        " node TEXT NOT NULL, event TEXT NOT NULL, created_at TIMESTAMP NOT NULL)",
    ],
    "postgresql": [
        "CREATE TABLE IF NOT EXISTS vif_attachments (vif TEXT PRIMARY KEY,"
        " node TEXT NOT NULL REFERENCES nodes (uuid), port TEXT NOT NULL UNIQUE"
        " REFERENCES ports (uuid), created_at TIMESTAMPTZ NOT NULL)",
        "CREATE TABLE IF NOT EXISTS node_history (id BIGSERIAL PRIMARY KEY,"
        " node TEXT NOT NULL, event TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL)",
    ],
    "mariadb": [
        "CREATE TABLE IF NOT EXISTS vif_attachments (vif VARCHAR(255) PRIMARY KEY,"
        " node VARCHAR(36) NOT NULL REFERENCES nodes (uuid), port VARCHAR(36) NOT NULL UNIQUE"
        " REFERENCES ports (uuid), created_at DATETIME(6) NOT NULL) ENGINE=InnoDB",
        "CREATE TABLE IF NOT EXISTS node_history (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
        " node VARCHAR(36) NOT NULL, event VARCHAR(255) NOT NULL,"
        " created_at DATETIME(6) NOT NULL) ENGINE=InnoDB",
    ],
}
INDEXES = [
    "CREATE INDEX IF NOT EXISTS vif_attachments_node ON vif_attachments (node)",
    "CREATE INDEX IF NOT EXISTS node_history_node ON node_history (node)",
]

LOCK = "SELECT uuid FROM nodes WHERE uuid = ?"
HELD = "SELECT vif, node, port FROM vif_attachments WHERE node = ? OR vif = ?"
PORTS = "SELECT uuid FROM ports WHERE node = ? ORDER BY pxe DESC, uuid"
ONE = "SELECT port FROM vif_attachments WHERE node = ? AND vif = ?"
INSERT = "INSERT INTO vif_attachments VALUES (?, ?, ?, ?)"
MARK = "UPDATE ports SET vif = ? WHERE uuid = ?"
DELETE = "DELETE FROM vif_attachments WHERE vif = ?"
HISTORY = "INSERT INTO node_history (node, event, created_at) VALUES (?, ?, ?)"
LIST = (
    "SELECT n.uuid, a.vif FROM nodes n LEFT JOIN vif_attachments a ON a.node = n.uuid"
    " WHERE n.uuid = ?"
)


class Refused(Exception):
    """An operation the node's state refuses: an HTTP status and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _node_found(node: str, found: Sequence[Any]) -> None:
    if not found:
        raise Refused(404, f"node {node} not found")


def choose_port(
    node: str, vif: str, found: Sequence[Any], held: Sequence[Sequence[Any]], ports: Sequence[Any]
) -> str:
    """The port an attach takes: the first free one, PXE ports first; refuses a VIF that is
    attached anywhere and a node that is missing or has no free port."""
    _node_found(node, found)
    for held_vif, held_node, _port in held:
        if held_vif == vif:
            raise Refused(409, f"VIF {vif} is already attached to node {held_node}")
    taken = {row[2] for row in held}
    for (port,) in ports:
        if port not in taken:
            return str(port)
    raise Refused(400, f"node {node} has no free port for VIF {vif}")


def attached_port(node: str, vif: str, found: Sequence[Any], rows: Sequence[Any]) -> str:
    """The port a detach frees; refuses a missing node and a VIF not attached to it."""
    _node_found(node, found)
    if not rows:
        raise Refused(404, f"VIF {vif} is not attached to node {node}")
    return str(rows[0][0])


def listed(node: str, rows: Sequence[Sequence[Any]]) -> list[str]:
    _node_found(node, rows)
    return [vif for _node, vif in rows if vif is not None]


class _Kept(abc.ABC):
    """Attach and detach are one write each (``_write``), a list one read (``vifs``); each
    store says how it does them."""

    @abc.abstractmethod
    async def _write(self, node: str, vif: str, attach: bool) -> None: ...

    @abc.abstractmethod
    async def vifs(self, node: str) -> list[str]: ...

    async def attach(self, node: str, vif: str) -> None:
        await self._write(node, vif, attach=True)

    async def detach(self, node: str, vif: str) -> None:
        await self._write(node, vif, attach=False)


class SqliteKept(_Kept):
    """The kept work on SQLite: a write transaction is the file's write lock."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        for statement in SCHEMA["sqlite"] + INDEXES:
            db.execute(statement)

    async def _write(self, node: str, vif: str, attach: bool) -> None:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            found = db.execute(LOCK, (node,)).fetchall()
            if attach:
                held = db.execute(HELD, (node, vif)).fetchall()
                ports = db.execute(PORTS, (node,)).fetchall()
                port = choose_port(node, vif, found, held, ports)
                db.execute(INSERT, (vif, node, port, _now().isoformat()))
                db.execute(MARK, (vif, port))
            else:
                port = attached_port(node, vif, found, db.execute(ONE, (node, vif)).fetchall())
                db.execute(DELETE, (vif,))
                db.execute(MARK, (None, port))
            db.execute(HISTORY, (node, "attach" if attach else "detach", _now().isoformat()))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    async def vifs(self, node: str) -> list[str]:
        return listed(node, self.db.execute(LIST, (node,)).fetchall())


def _percent(sql: str) -> str:
    """``?`` placeholders as ``%s``, psycopg's and PyMySQL's."""
    return sql.replace("?", "%s")


def _function(name: str, declared: str, body: str, event: str) -> str:
    """A PL/pgSQL function of one write: the node's row locked (or a 404), ``body`` (which
    returns a refusal, ``'STATUS message'``, or goes on), the history row; NULL when done."""
    return f"""CREATE OR REPLACE FUNCTION {name}(wanted_node text, wanted_vif text)
    RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
        {declared}
    BEGIN
        PERFORM 1 FROM nodes WHERE uuid = wanted_node FOR UPDATE;
        IF NOT FOUND THEN
            RETURN '404 node ' || wanted_node || ' not found';
        END IF;
        {body}
        INSERT INTO node_history (node, event, created_at) VALUES (wanted_node, '{event}', now());
        RETURN NULL;
    END $$"""


FUNCTIONS = [
    _function(
        "kept_attach",
        "holder text; free_port text;",
        """SELECT node INTO holder FROM vif_attachments WHERE vif = wanted_vif;
        IF FOUND THEN
            RETURN '409 VIF ' || wanted_vif || ' is already attached to node ' || holder;
        END IF;
        SELECT p.uuid INTO free_port FROM ports p WHERE p.node = wanted_node
            AND NOT EXISTS (SELECT 1 FROM vif_attachments a WHERE a.port = p.uuid)
            ORDER BY p.pxe DESC, p.uuid LIMIT 1;
        IF free_port IS NULL THEN
            RETURN '400 node ' || wanted_node || ' has no free port for VIF ' || wanted_vif;
        END IF;
        INSERT INTO vif_attachments VALUES (wanted_vif, wanted_node, free_port, now());
        UPDATE ports SET vif = wanted_vif WHERE uuid = free_port;""",
        "attach",
    ),
    _function(
        "kept_detach",
        "held_port text;",
        """DELETE FROM vif_attachments WHERE vif = wanted_vif AND node = wanted_node
            RETURNING port INTO held_port;
        IF held_port IS NULL THEN
            RETURN '404 VIF ' || wanted_vif || ' is not attached to node ' || wanted_node;
        END IF;
        UPDATE ports SET vif = NULL WHERE uuid = held_port;""",
        "detach",
    ),
]


class PostgresKept(_Kept):
    """The kept work on PostgreSQL through psycopg 3's asynchronous pool, in two round trips
    a write (libpq's pipeline mode): the node's row locked with the reads, then the writes
    with the COMMIT."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    async def create_schema(self) -> None:
        async with self.pool.connection() as conn:
            for statement in SCHEMA["postgresql"] + INDEXES:
                await conn.execute(statement)

    async def _write(self, node: str, vif: str, attach: bool) -> None:
        async with self.pool.connection() as conn, conn.pipeline() as pipeline:
            await conn.execute("BEGIN")
            lock = await conn.execute(_percent(LOCK + " FOR UPDATE"), (node,))
            if attach:
                held = await conn.execute(_percent(HELD), (node, vif))
                ports = await conn.execute(_percent(PORTS), (node,))
            else:
                one = await conn.execute(_percent(ONE), (node, vif))
            await pipeline.sync()
            try:
                found = await lock.fetchall()
                if attach:
                    port = choose_port(
                        node, vif, found, await held.fetchall(), await ports.fetchall()
                    )
                else:
                    port = attached_port(node, vif, found, await one.fetchall())
            except Refused:
                await conn.execute("ROLLBACK")
                raise
            if attach:
                await conn.execute(_percent(INSERT), (vif, node, port, _now()))
                await conn.execute(_percent(MARK), (vif, port))
            else:
                await conn.execute(_percent(DELETE), (vif,))
                await conn.execute(_percent(MARK), (None, port))
            event = "attach" if attach else "detach"
            await conn.execute(_percent(HISTORY), (node, event, _now()))
            await conn.execute("COMMIT")

    async def vifs(self, node: str) -> list[str]:
        async with self.pool.connection() as conn:
            cursor = await conn.execute(_percent(LIST), (node,))
            return listed(node, await cursor.fetchall())


class PostgresKeptFunction(PostgresKept):
    """The same work in one round trip a write: a server-side function per operation."""

    async def create_schema(self) -> None:
        await super().create_schema()
        async with self.pool.connection() as conn:
            for statement in FUNCTIONS:
                await conn.execute(statement)

    async def _write(self, node: str, vif: str, attach: bool) -> None:
        call = "SELECT kept_attach(%s, %s)" if attach else "SELECT kept_detach(%s, %s)"
        async with self.pool.connection() as conn:
            row = await (await conn.execute(call, (node, vif))).fetchone()
        refusal = row[0] if row else "500 the function returned no row"
        if refusal is not None:
            status, message = refusal.split(" ", 1)
            raise Refused(int(status), message)


class MariaDBKept(_Kept):
    """The kept work on MariaDB: PyMySQL on a worker thread, the node's row locked by
    ``SELECT ... FOR UPDATE``, each statement a round trip."""

    def __init__(self, pool: Any) -> None:  # bench/mariadb_pool.py's MariaDBPool
        self.pool = pool
        pool.prepare(SCHEMA["mariadb"] + INDEXES)

    async def _write(self, node: str, vif: str, attach: bool) -> None:
        def transaction(conn: Any) -> None:
            with conn.cursor() as cursor:
                conn.begin()
                try:
                    cursor.execute(_percent(LOCK + " FOR UPDATE"), (node,))
                    found = cursor.fetchall()
                    if attach:
                        cursor.execute(_percent(HELD), (node, vif))
                        held = cursor.fetchall()
                        cursor.execute(_percent(PORTS), (node,))
                        port = choose_port(node, vif, found, held, cursor.fetchall())
                        cursor.execute(_percent(INSERT), (vif, node, port, _naive_now()))
                        cursor.execute(_percent(MARK), (vif, port))
                    else:
                        cursor.execute(_percent(ONE), (node, vif))
                        port = attached_port(node, vif, found, cursor.fetchall())
                        cursor.execute(_percent(DELETE), (vif,))
                        cursor.execute(_percent(MARK), (None, port))
                    event = "attach" if attach else "detach"
                    cursor.execute(_percent(HISTORY), (node, event, _naive_now()))
                    conn.commit()
                except BaseException:
                    conn.rollback()
                    raise

        await self.pool.run(transaction)

    async def vifs(self, node: str) -> list[str]:
        return listed(node, await self.pool.fetchall(LIST, (node,)))


def _naive_now() -> datetime.datetime:
    """UTC without its zone: MariaDB's DATETIME keeps none."""
    return _now().replace(tzinfo=None)
