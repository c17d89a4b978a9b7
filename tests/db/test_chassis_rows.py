"""The chassis repository (db/chassis.py): a node written into a chassis and the chassis's
delete, racing, leave no node naming a chassis that is gone, on each database."""

from __future__ import annotations

import threading

import pytest

from metalwire.db.engine import Database
from metalwire.errors import ChassisNotEmpty, ChassisNotFound, UnknownChassis

CHASSIS = "55555555-0000-4000-8000-000000000001"
NODE = {
    "uuid": "55555555-0000-4000-8000-000000000002",
    "name": "racked",
    "driver": "fake-hardware",
    "network_interface": "noop",
    "provision_state": "enroll",
    "chassis_uuid": CHASSIS,
}


def _delete_in_thread(db: Database) -> tuple[threading.Thread, list[BaseException | None]]:
    outcome: list[BaseException | None] = []

    def delete() -> None:
        try:
            with db.writing() as work:
                work.chassis.delete(CHASSIS)
        except BaseException as exc:  # the test reads it
            outcome.append(exc)
        else:
            outcome.append(None)

    thread = threading.Thread(target=delete)
    thread.start()
    return thread, outcome


def test_a_delete_waits_for_a_node_being_written_into_the_chassis(
    db: Database, database: str
) -> None:
    if database == "sqlite":
        pytest.skip("SQLite has one writer at a time: the two cannot overlap")
    with db.writing() as work:
        work.chassis.create({"uuid": CHASSIS})
    with db.writing() as work:
        work.chassis.require(CHASSIS)
        work.nodes.create(NODE)
        thread, outcome = _delete_in_thread(db)
        thread.join(0.5)
        assert thread.is_alive(), "the delete did not wait for the node's write"
    thread.join(10)
    assert isinstance(outcome[0], ChassisNotEmpty), outcome
    with db.reading() as work:
        assert work.chassis.get(CHASSIS).uuid == CHASSIS


def test_a_node_waits_for_a_delete_of_its_chassis(db: Database, database: str) -> None:
    if database == "sqlite":
        pytest.skip("SQLite has one writer at a time: the two cannot overlap")
    with db.writing() as work:
        work.chassis.create({"uuid": CHASSIS})
    outcome: list[BaseException | None] = []
    with db.writing() as work:
        work.chassis.delete(CHASSIS)

        def create() -> None:
            try:
                with db.writing() as other:
                    other.chassis.require(CHASSIS)
                    other.nodes.create(NODE)
            except BaseException as exc:  # the test reads it
                outcome.append(exc)
            else:
                outcome.append(None)

        thread = threading.Thread(target=create)
        thread.start()
        thread.join(0.5)
        assert thread.is_alive(), "the node's write did not wait for the delete"
    thread.join(10)
    assert isinstance(outcome[0], UnknownChassis), outcome
    with db.reading() as work, pytest.raises(ChassisNotFound):
        work.chassis.get(CHASSIS)
