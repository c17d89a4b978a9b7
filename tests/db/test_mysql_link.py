"""MariaDB through PyMySQL in fewer round trips (db/mysql_link.py), on a real MariaDB.

A VIF attach or detach is two round trips (the lease with the node's reads, then the writes
with the lease cleared and the COMMIT), a VIF list one; no COMMIT or ROLLBACK goes out with
no transaction open, and nothing after a failed statement of a group runs.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pymysql
import pytest
from sqlalchemy import exc as sa_exc

from metalwire.db import mysql_link
from metalwire.db.engine import Database
from metalwire.db.statements import Sql
from tests.conftest import Api
from tests.db.conftest import Sent

pytestmark = pytest.mark.mariadb


@pytest.mark.parametrize("database", [pytest.param("mariadb", marks=pytest.mark.mariadb)])
def test_a_vif_attach_and_detach_are_two_round_trips_and_a_list_one(api: Api, sent: Sent) -> None:
    node = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "trips"}).json()
    for i in range(2):
        port = {"node_uuid": node["uuid"], "address": f"52:54:00:00:0a:0{i}"}
        assert api.post("/v1/ports", port).status_code == 201
    path = f"/v1/nodes/{node['uuid']}/vifs"
    vif = str(uuid.uuid4())
    assert api.post(path, {"id": str(uuid.uuid4())}).status_code == 204  # warm

    seen: dict[str, list[str]] = {}
    sent.take()
    assert api.post(path, {"id": vif}).status_code == 204
    seen["attach"] = sent.take()
    assert {"id": vif} in api.get(path).json()["vifs"]
    seen["list"] = sent.take()
    assert api.delete(f"{path}/{vif}").status_code == 204
    seen["detach"] = sent.take()

    for name, write in (("attach", "INSERT INTO vif_attachments"), ("detach", "DELETE FROM")):
        *_, lease_and_reads, writes = seen[name]
        assert len(seen[name]) == 2, seen
        assert lease_and_reads.startswith("UPDATE nodes SET reservation = "), seen
        assert lease_and_reads.count(";\nSELECT ") == 4  # the node, VIFs, ports, portgroups
        assert writes.startswith(write) and writes.endswith(";\nCOMMIT"), seen
        assert "UPDATE nodes SET reservation = NULL" in writes, seen  # the lease cleared
    assert len(seen["list"]) == 1, seen  # no ROLLBACK after the read


@pytest.fixture
def db(mariadb_url: str) -> Iterator[Database]:
    database = Database(mariadb_url)
    with database.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE IF EXISTS link_probe")
        conn.exec_driver_sql("CREATE TABLE link_probe (id INTEGER PRIMARY KEY, value INTEGER)")
        conn.exec_driver_sql("INSERT INTO link_probe VALUES (1, 0)")
    yield database
    with database.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE link_probe")
    database.dispose()


def _values(db: Database) -> dict[int, int]:
    with db.connection() as conn:
        rows = conn.exec_driver_sql("SELECT id, value FROM link_probe").all()
    return {int(i): int(v) for i, v in rows}


def test_a_group_stops_at_its_failed_statement_and_commits_nothing(db: Database) -> None:
    with pytest.raises(sa_exc.IntegrityError), db.write_connection() as conn:
        sql = Sql(conn)
        sql.defer("UPDATE link_probe SET value = ? WHERE id = ?", (5, 1))
        sql.defer("INSERT INTO link_probe VALUES (?, ?)", (1, 9))  # the key is taken
        sql.defer("INSERT INTO link_probe VALUES (?, ?)", (2, 9))
        sql.send_with_commit()

    assert _values(db) == {1: 0}  # the first write undone, the third never run


def test_a_group_with_its_commit_is_one_query_and_commits_once(db: Database, sent: Sent) -> None:
    with db.write_connection() as conn:
        sql = Sql(conn)
        sql.defer("UPDATE link_probe SET value = ? WHERE id = ?", (5, 1))
        sql.defer("INSERT INTO link_probe VALUES (?, ?)", (2, 7))
        sql.send_with_commit()

    assert sent.take() == [
        "UPDATE link_probe SET value = 5 WHERE id = 1;\n"
        "INSERT INTO link_probe VALUES (2, 7);\nCOMMIT"
    ]
    assert _values(db) == {1: 5, 2: 7}


def _lock_free(db: Database) -> bool:
    """Whether another connection can lock row 1 at once."""
    url = db.engine.url
    other = pymysql.connect(
        host=url.host, port=url.port, user=url.username, database=url.database,
        ssl_disabled=True, autocommit=False,
    )  # fmt: skip
    try:
        with other.cursor() as cursor:
            cursor.execute("SET SESSION innodb_lock_wait_timeout = 1")
            try:
                cursor.execute("SELECT id FROM link_probe WHERE id = 1 FOR UPDATE")
            except pymysql.err.OperationalError:  # 1205: lock wait timeout
                return False
        return True
    finally:
        other.rollback()
        other.close()


def test_a_failed_statement_that_opened_a_transaction_is_rolled_back(db: Database) -> None:
    raw = db.engine.raw_connection()
    try:
        link = raw.dbapi_connection
        assert isinstance(link, mysql_link.Connection)
        link.autocommit(False)
        with link.cursor() as cursor, pytest.raises(pymysql.err.IntegrityError):
            # The first statement of a transaction fails, and its duplicate key check keeps
            # a lock on the row; the error reply does not say a transaction is open.
            cursor.execute("INSERT INTO link_probe VALUES (1, 1)")
        assert not _lock_free(db)
        link.rollback()
        assert _lock_free(db)
        link.rollback()  # nothing open now
    finally:
        raw.close()
