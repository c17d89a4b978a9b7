"""bench/pg_counts.py --statements: each statement's cost per request, from pg_stat_statements."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import pg_counts

from tests.conftest import require_postgres_binaries
from tests.support.postgres import PostgresServer


def test_costs_are_per_request_costliest_first_and_rare_statements_left_out() -> None:
    rows = [
        # query, calls, total ms, buffers, dirtied, WAL records, WAL bytes
        ("SELECT  a\n FROM t", 200, 2.0, 600, 0, 0, 0),
        ("INSERT INTO t VALUES ($1)", 100, 5.0, 900, 10, 300, 12000),
        ("SELECT pg_stat_statements_reset()", 9, 0.9, 0, 0, 0, 0),
    ]
    costs = pg_counts.statement_costs(rows, requests=100)
    assert [c.text for c in costs] == ["INSERT INTO t VALUES ($1)", "SELECT a FROM t"]
    insert, select = costs
    assert (insert.calls, insert.exec_us, insert.buffers, insert.dirtied) == (1.0, 50.0, 9.0, 0.1)
    assert (insert.wal_records, insert.wal_bytes) == (3.0, 120)
    assert (select.calls, select.exec_us, select.exec_us_per_request) == (2.0, 10.0, 20.0)


@pytest.mark.postgresql
def test_a_foreign_keys_own_check_is_counted_with_the_insert() -> None:
    require_postgres_binaries()
    settings = {"shared_preload_libraries": "pg_stat_statements", "pg_stat_statements.track": "all"}
    with PostgresServer(settings=settings) as pg:
        pg.create_database("costs")
        pg.execute("CREATE TABLE parent (id int PRIMARY KEY)", "costs")
        pg.execute("CREATE TABLE child (id int PRIMARY KEY, parent int REFERENCES parent)", "costs")
        pg.execute("INSERT INTO parent VALUES (1)", "costs")
        stats = pg_counts.StatementStats(pg, "costs")
        stats.reset()
        conn = pg.connect("costs")
        try:
            for i in range(20):
                conn.execute("INSERT INTO child VALUES (%s, 1)", (i,))
        finally:
            conn.close()
        costs = {c.text: c for c in stats.read(requests=20)}
    insert = costs["INSERT INTO child VALUES ($1, $2)"]
    assert insert.calls == 1.0 and insert.wal_records >= 2  # the row and its primary key
    checks = [c for text, c in costs.items() if text.startswith("SELECT") and "parent" in text]
    assert len(checks) == 1 and checks[0].calls == 1.0, costs  # the key's check, per insert
