"""The unit of work (db/work.py): one transaction across the ORM and the DBAPI statements."""

from __future__ import annotations

import pytest

from metalwire.db.engine import Database
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node
from metalwire.errors import Conflict, Invalid, NodeNotFound

NODE = {
    "uuid": "44444444-0000-4000-8000-000000000001",
    "name": "worked",
    "driver": "fake-hardware",
    "network_interface": "noop",
    "provision_state": "enroll",
}


def _names(db: Database) -> list[str | None]:
    with db.read() as session:
        return [n.name for n in session.query(Node).order_by(Node.id)]


def test_the_orm_and_the_statements_commit_together(db: Database) -> None:
    with db.writing() as work:
        node = work.nodes.create(NODE)
        work.history.add(
            HistoryEntry("test", "created", node_id=node.id)
        )  # DBAPI, same transaction
        assert work.nodes.find(node.uuid) is not None  # seen inside before the commit
    with db.reading() as work:
        found = work.nodes.find("worked")
        assert found is not None and found.uuid == NODE["uuid"]
    with db.read() as session:
        assert session.query(Node).count() == 1


def test_a_failing_block_rolls_back_both_kinds_of_write(db: Database) -> None:
    with pytest.raises(Invalid), db.writing() as work:
        node = work.nodes.create(NODE)
        work.history.add(HistoryEntry("test", "created", node_id=node.id))
        raise Invalid("the operation failed")
    assert _names(db) == []
    with db.reading() as work:
        assert work.nodes.find(NODE["uuid"]) is None


def test_a_savepoint_undoes_its_block_only(db: Database) -> None:
    with db.writing() as work:
        work.nodes.create(NODE)
        with pytest.raises(Conflict), work.savepoint():
            work.nodes.create({**NODE, "uuid": "44444444-0000-4000-8000-000000000002"})
        work.nodes.create({**NODE, "uuid": "44444444-0000-4000-8000-000000000003", "name": "b"})
    assert _names(db) == ["worked", "b"]


def test_a_savepoint_keeps_the_writes_of_a_block_that_ends_well(db: Database) -> None:
    """Writes through the repositories' sessions inside a savepoint are the transaction's,
    as outside one (a provision verb's steps run in one)."""
    with db.writing() as work:
        node = work.nodes.create(NODE)
        with work.savepoint():
            work.nodes.update(node.id, {"extra": {"set": "in the savepoint"}})
            work.nodes.create({**NODE, "uuid": "44444444-0000-4000-8000-000000000005", "name": "b"})
    with db.reading() as work:
        assert work.nodes.get(node.uuid).extra == {"set": "in the savepoint"}
    assert _names(db) == ["worked", "b"]


def test_repositories_raise_the_catalogs_errors(db: Database) -> None:
    with db.reading() as work, pytest.raises(NodeNotFound, match="no-such-node"):
        work.nodes.get("no-such-node")
    with db.writing() as work:
        work.nodes.create(NODE)
    with pytest.raises(Conflict, match="worked"), db.writing() as work:
        work.nodes.create({**NODE, "uuid": "44444444-0000-4000-8000-000000000004"})


def test_updates_set_api_fields_whether_columns_or_attributes(db: Database) -> None:
    with db.writing() as work:
        node = work.nodes.create(NODE)
        work.nodes.update(node.id, {"extra": {"a": 1}, "boot_interface": "pxe"})
    with db.reading() as work:
        stored = work.nodes.find(node.id)
    assert stored is not None
    assert stored.extra == {"a": 1} and stored.attrs.get("boot_interface") == "pxe"
