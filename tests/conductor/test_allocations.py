"""Two allocations racing for one node, made by two conductors (two processes' node locks)
on one database: exactly one gets the node, the other fails, on each database."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from metalwire.conductor import allocations
from metalwire.conductor.locks import NodeLocks
from metalwire.conductor.tasks import Conductor
from metalwire.config import Config
from metalwire.context import RequestContext
from metalwire.db.allocations import Allocations
from metalwire.db.engine import Database
from metalwire.db.models import Allocation, Node
from metalwire.networking.loader import NetworkInterfaces

RC = "baremetal"


@pytest.fixture
def other_conductor(config: Config) -> Iterator[Conductor]:
    """A second conductor with a database engine and node locks of its own, as another
    ``metalwire serve`` process has."""
    db = Database(config.database_url())
    locks = NodeLocks(db, "other-host:2:beef", lease=2.0, wait=5.0)
    yield Conductor(db=db, config=config, interfaces=NetworkInterfaces(config), locks=locks)
    locks.release_all()
    db.dispose()


def test_two_allocations_racing_for_one_node_never_both_get_it(
    conductor: Conductor, other_conductor: Conductor, monkeypatch: pytest.MonkeyPatch
) -> None:
    conductor.config.conductor.node_lock_wait = 5.0
    with conductor.db.writing() as work:
        node = work.nodes.create(
            {
                "uuid": "52525252-0000-4000-8000-000000000001",
                "name": "only",
                "driver": "fake-hardware",
                "network_interface": "noop",
                "provision_state": "available",
                "power_state": "power off",
                "resource_class": RC,
            }
        )
    # Both requests find the node free before either takes it: the race the locks decide.
    both_searched = threading.Barrier(2, timeout=10)
    search = Allocations.candidates

    def candidates_then_wait(self: Allocations, *args: object) -> list[Node]:
        found = search(self, *args)  # type: ignore[arg-type]
        both_searched.wait()
        return found

    monkeypatch.setattr(Allocations, "candidates", candidates_then_wait)
    results: list[Allocation | BaseException] = []

    def allocate(on: Conductor, name: str) -> None:
        try:
            results.append(
                allocations.create(on, RequestContext(), {"name": name, "resource_class": RC})
            )
        except BaseException as exc:  # the test reads it
            results.append(exc)

    threads = [
        threading.Thread(target=allocate, args=(on, name))
        for on, name in ((conductor, "a"), (other_conductor, "b"))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert all(isinstance(r, Allocation) for r in results), results
    done = sorted((r for r in results if isinstance(r, Allocation)), key=lambda r: r.state)
    assert [r.state for r in done] == ["active", "error"]
    winner, loser = done
    assert winner.node_id == node.id and loser.node_id is None
    assert loser.last_error in (
        f"Failed to process allocation {loser.uuid}: all nodes were filtered out during "
        "reservation.",
        f"Failed to process allocation {loser.uuid}: could not reserve any of 1 suitable nodes.",
    )
    with conductor.db.reading() as work:
        stored = work.nodes.find(node.id)
    assert stored is not None
    assert stored.instance_uuid == winner.uuid
    assert stored.attrs["allocation_uuid"] == winner.uuid
