"""``[database] multi_statement_queries = false``: for a proxy in front of MariaDB that does
not pass multi-statement queries, every statement goes on its own, and the VIF operations
work as with them (a real MariaDB)."""

from __future__ import annotations

import uuid

import pymysql
import pytest

from metalwire.config import Config
from metalwire.db import mysql_link
from metalwire.db.engine import Database
from tests.conftest import Api
from tests.db.conftest import Sent

pytestmark = pytest.mark.mariadb


@pytest.fixture
def config(config: Config, database: str) -> Config:
    config.database.multi_statement_queries = False
    return config


@pytest.mark.parametrize("database", [pytest.param("mariadb", marks=pytest.mark.mariadb)])
def test_each_statement_of_a_vif_attach_goes_on_its_own(api: Api, sent: Sent) -> None:
    node = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "single"}).json()
    port = {"node_uuid": node["uuid"], "address": "52:54:00:00:0b:01"}
    assert api.post("/v1/ports", port).status_code == 201
    path = f"/v1/nodes/{node['uuid']}/vifs"
    vif = str(uuid.uuid4())

    sent.take()
    assert api.post(path, {"id": vif}).status_code == 204
    attach = sent.take()
    assert api.get(path).json()["vifs"] == [{"id": vif}]
    assert api.delete(f"{path}/{vif}").status_code == 204
    assert api.get(path).json()["vifs"] == []

    assert len(attach) > 2, attach  # the lease, the reads and the writes: several round trips
    assert not any(";\n" in query for query in attach), attach


def test_the_connections_ask_for_no_multi_statement_queries(mariadb_url: str) -> None:
    db = Database(mariadb_url, multi_statements=False)
    try:
        with db.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            assert isinstance(raw, mysql_link.Connection) and not raw.sends_groups()
            with pytest.raises(pymysql.err.ProgrammingError):  # the server refuses them
                raw.query("SELECT 1; SELECT 2")
    finally:
        db.dispose()
    grouped = Database(mariadb_url)
    try:
        with grouped.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            assert isinstance(raw, mysql_link.Connection) and raw.sends_groups()
    finally:
        grouped.dispose()
