"""The plain-statement layer (db/statements.py) on every database, and its no-wait writes."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import IntegrityError

from metalwire.config import Config
from metalwire.db import node_inventory
from metalwire.db import nodes as node_db
from metalwire.db import ports as port_db
from metalwire.db.busy import WriterBusy
from metalwire.db.engine import Database
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node, NodeHistory, Port, VifAttachment
from metalwire.db.statements import Sql
from metalwire.errors import Conflict
from tests.conftest import Api


def _node(db: Database, name: str) -> tuple[Node, list[Port]]:
    with db.write() as session:
        node = node_db.create(
            session,
            {
                "uuid": f"00000000-0000-4000-8000-0000000000{len(name):02d}",
                "name": name,
                "driver": "fake-hardware",
                "network_interface": "flat",
                "provision_state": "available",
                "properties": {"cpus": 8, "nested": {"a": [1, 2]}},
                "maintenance": True,
            },
        )
        ports = [
            port_db.create(
                session,
                {
                    "uuid": f"00000000-0000-4000-9000-0000000000{i:02d}",
                    "node_id": node.id,
                    "address": f"52:54:00:00:00:{i:02x}",
                    "pxe_enabled": i == 0,
                    "local_link_connection": {"switch_id": "aa:bb", "port_id": f"Eth{i}"},
                },
            )
            for i in range(2)
        ]
    return node, ports


def test_rows_load_as_the_orm_loads_them(db: Database) -> None:
    node, _ = _node(db, "stmt")
    with db.connection() as connection:
        sql = Sql(connection)
        [loaded] = sql.load(Node, "uuid = ?", (node.uuid,))
    with db.reading() as work:
        loaded_ports = work.ports.for_node(node.id)
    with db.read() as session:
        orm_node = node_db.get(session, node.uuid)
        orm_ports = [session.get(Port, p.id) for p in loaded_ports]
    assert isinstance(loaded, Node)
    for column in Node.__table__.columns:
        assert getattr(loaded, column.name) == getattr(orm_node, column.name), column.name
    for port, orm_port in zip(loaded_ports, orm_ports, strict=True):
        for column in Port.__table__.columns:
            assert getattr(port, column.name) == getattr(orm_port, column.name), column.name
    assert loaded.properties == {"cpus": 8, "nested": {"a": [1, 2]}}
    assert loaded.maintenance is True
    assert [p.pxe_enabled for p in loaded_ports] == [True, False]
    assert loaded_ports[1].local_link_connection == {"switch_id": "aa:bb", "port_id": "Eth1"}


def test_insert_applies_model_defaults_and_keys_still_hold(db: Database) -> None:
    node, ports = _node(db, "keys")
    with db.writing() as work:
        work.attachments.record(node.id, "vif-a", ports[0], {"k": "v"})
        work.attachments.record(node.id, "vif-b", ports[1], {}, pending=True)
    # Each failure aborts its transaction (PostgreSQL ignores anything after it).
    taken = pytest.raises(Conflict, match="taken by another request")
    with taken, db.writing() as work:
        work.attachments.record(node.id, "vif-c", ports[0], {})  # the port is taken
    with pytest.raises(IntegrityError), db.write_connection() as connection:
        sql = Sql(connection)
        sql.insert(VifAttachment, {"vif_id": "vif-a", "node_id": node.id, "port_id": ports[1].id})
        sql.flush()  # an insert is sent with the next statement, or here
    with db.reading() as work:
        attachments = work.attachments.for_node(node.id)
        holder = work.attachments.holder("vif-a")
        assert holder is not None and (holder.node_uuid, holder.label) == (
            node.uuid,
            f"{node.uuid} (keys)",
        )
        assert work.attachments.holder("vif-free") is None
    assert [(a.vif_id, a.info, a.pending, a.source) for a in attachments] == [
        ("vif-a", {"k": "v"}, False, "api"),
        ("vif-b", {}, True, "api"),
    ]
    assert all(a.created_at is not None for a in attachments)


def test_node_with_attachments_reads_both_in_one_statement(db: Database) -> None:
    node, ports = _node(db, "joined")
    with db.reading() as work:
        assert work.attachments.with_node("joined")[1] == []
    with db.writing() as work:
        work.attachments.record(node.id, "second", ports[1], {})
        work.attachments.record(node.id, "first", ports[0], {})
    with db.reading() as work:
        loaded, attachments = work.attachments.with_node(node.uuid)
    assert loaded.name == "joined" and loaded.properties["cpus"] == 8
    assert [a.vif_id for a in attachments] == ["first", "second"]  # by port, not by insert


def test_history_rows_are_written_with_a_reserved_column_name(db: Database) -> None:
    node, _ = _node(db, "hist")
    with db.writing() as work:
        work.history.add(
            HistoryEntry("vif", "something", result=None, node_id=node.id, user="alice")
        )
    with db.connection() as connection:
        [entry] = Sql(connection).load(NodeHistory, "node_id = ?", (node.id,))
    assert (entry.user, entry.event, entry.severity) == ("alice", "something", "INFO")


@pytest.mark.parametrize("database", ["sqlite"])
def test_a_write_that_must_not_wait_gives_way_at_once(db: Database) -> None:
    """Another process's writer or another thread's write turn: WriterBusy, nothing done."""
    other = db.engine.raw_connection()
    try:
        other.cursor().execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        with pytest.raises(WriterBusy), db.write_connection(wait=False):
            pytest.fail("the transaction opened although another process was writing")
        assert time.monotonic() - started < 1.0
    finally:
        other.rollback()
        other.close()
    held, release = threading.Event(), threading.Event()

    def hold_turn() -> None:
        with db.write_connection():
            held.set()
            release.wait(5)

    holder = threading.Thread(target=hold_turn)
    holder.start()
    held.wait(5)
    try:
        with pytest.raises(WriterBusy), db.write_connection(wait=False):
            pytest.fail("the transaction opened although another thread had the write turn")
    finally:
        release.set()
        holder.join()
    with db.write_connection(wait=False) as connection:  # free again
        assert Sql(connection).scalar("SELECT 1") == 1


@pytest.mark.parametrize("database", ["sqlite"])
def test_attach_on_a_node_leased_elsewhere_waits_in_a_thread(api: Api, config: Config) -> None:
    """The event loop does not wait for another process's lease: the call goes to a worker
    thread, which waits for the lease to run out and then attaches."""
    node = api.node(name="leased")
    api.port(node, "52:54:00:aa:00:01")
    db = Database(config.database_url())
    try:
        with db.write_connection() as connection:
            Sql(connection).execute(
                "UPDATE nodes SET reservation = ?, lock_expires_at = ? WHERE uuid = ?",
                ("elsewhere:1:abc", time.time() + 1.0, node["uuid"]),
            )
        started = time.monotonic()
        resp = api.post(f"/v1/nodes/{node['uuid']}/vifs", {"id": "after-lease"})
        waited = time.monotonic() - started
    finally:
        db.dispose()
    assert resp.status_code == 204, resp.text
    assert 0.5 < waited < 10
    assert api.get(f"/v1/nodes/{node['uuid']}/vifs").json() == {"vifs": [{"id": "after-lease"}]}


@pytest.mark.parametrize("database", ["sqlite"])
def test_write_ahead_log_is_checkpointed_in_the_background(config: Config) -> None:
    """Commits leave their pages in the log; the checkpointer thread moves them into the
    database file soon after, without any commit doing it."""
    db = Database(config.database_url())
    path = Path(db.engine.url.database or "")
    try:
        with db.connection() as connection:
            assert Sql(connection).scalar("PRAGMA wal_autocheckpoint") == 25_000
        node, _ = _node(db, "wal")
        size_before = path.stat().st_size
        for i in range(300):
            with db.writing() as work:
                entry = HistoryEntry("vif", f"event {i} " + "x" * 200, node_id=node.id)
                work.history.add(entry)
        deadline = time.monotonic() + 5
        while path.stat().st_size <= size_before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert path.stat().st_size > size_before  # the pages reached the database file
    finally:
        db.dispose()
    with Database(config.database_url()).connection() as connection:
        count = Sql(connection).scalar(
            "SELECT COUNT(*) FROM node_history WHERE node_id = ?", (node.id,)
        )
    assert count == 300


def test_held_back_writes_are_seen_by_the_next_read_and_stored_with_the_commit(
    db: Database,
) -> None:
    node, ports = _node(db, "held")
    with db.writing() as work:
        work.attachments.record(node.id, "vif-held", ports[0], {})
        # the insert waits for the next statement: this read sees it
        assert [a.vif_id for a in work.attachments.for_node(node.id)] == ["vif-held"]
        work.history.add(HistoryEntry("vif", "held back", node_id=node.id))
    with db.reading() as work:
        assert work.attachments.find("vif-held") is not None
    with db.read() as session:
        assert [e.event for e in session.query(NodeHistory).filter_by(node_id=node.id)] == [
            "held back"
        ]


def test_a_held_back_write_that_breaks_a_key_fails_the_commit_with_its_own_error(
    db: Database,
) -> None:
    node, ports = _node(db, "late")
    with db.writing() as work:
        work.attachments.record(node.id, "vif-first", ports[0], {})
    refused = pytest.raises(Conflict, match=r"vif-second to port .*taken by another request")
    with refused, db.writing() as work:
        work.history.add(HistoryEntry("vif", "written before", node_id=node.id))
        work.attachments.record(node.id, "vif-second", ports[0], {})  # port 0 is taken
        work.history.add(HistoryEntry("vif", "written after", node_id=node.id))
    with db.read() as session:
        assert session.query(NodeHistory).filter_by(node_id=node.id).count() == 0
    with db.reading() as work:  # the connection is usable again
        assert [a.vif_id for a in work.attachments.for_node(node.id)] == ["vif-first"]


def test_held_back_writes_of_a_savepoint_that_failed_are_not_sent(db: Database) -> None:
    node, ports = _node(db, "undone")
    with db.writing() as work:
        with pytest.raises(RuntimeError), work.savepoint():
            work.attachments.record(node.id, "vif-undone", ports[0], {})
            raise RuntimeError("the block fails before anything is sent")
        work.attachments.record(node.id, "vif-kept", ports[1], {})
    with db.reading() as work:
        assert [a.vif_id for a in work.attachments.for_node(node.id)] == ["vif-kept"]


def test_on_postgresql_the_writes_and_the_commit_are_one_pipeline(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The inventory's reads go out together, and the writes with the COMMIT: on
    PostgreSQL each group is one pipeline (one round trip, pg_exchange.exchange)."""
    if db.kind != "postgresql":
        pytest.skip("psycopg's pipeline mode")
    from metalwire.db import pg_exchange

    node, ports = _node(db, "piped")
    sent: list[tuple[list[str], bool]] = []
    real_exchange = pg_exchange.exchange

    def exchange(connection: Any, statements: Any, commit: bool = False) -> Any:
        sent.append(([sql.split()[0] for sql, _ in statements], commit))
        return real_exchange(connection, statements, commit)

    monkeypatch.setattr(pg_exchange, "exchange", exchange)
    with db.writing() as work:
        wanted = node_inventory.Wanted("vif-piped")
        locked, _ = work.node_locks.lock_row(node.id, node_inventory.reads(node.id, wanted))
        assert locked is not None
        work.attachments.record(node.id, "vif-piped", ports[0], {})
        work.history.add(HistoryEntry("vif", "piped", node_id=node.id))
    assert sent == [(["SELECT"] * 4, False), (["INSERT", "UPDATE", "INSERT"], True)]
    with db.reading() as work:
        assert work.attachments.find("vif-piped") is not None
