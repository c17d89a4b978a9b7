"""A conductor on the test's database, without HTTP, and nodes stored straight into it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from metalwire.conductor.locks import NodeLocks
from metalwire.conductor.tasks import Conductor
from metalwire.config import Config
from metalwire.db import history as history_db
from metalwire.db.engine import Database
from metalwire.db.models import Node
from metalwire.db.pagination import Page
from metalwire.networking.loader import NetworkInterfaces

HOLDER = "test-host:1:abcd"
NewNode = Callable[..., Node]


@pytest.fixture
def conductor(config: Config) -> Iterator[Conductor]:
    config.conductor.node_lock_wait = 0.5  # how long an operation waits for a node's lock
    db = Database(config.database_url())
    locks = NodeLocks(db, HOLDER, lease=2.0, wait=0.5)
    yield Conductor(db=db, config=config, interfaces=NetworkInterfaces(config), locks=locks)
    locks.release_all()
    db.dispose()


@pytest.fixture
def new_node(conductor: Conductor) -> NewNode:
    """Store a node: ``new_node(name, interface="noop")``."""

    def create(name: str, interface: str = "noop") -> Node:
        with conductor.db.writing() as work:
            return work.nodes.create(
                {
                    "uuid": f"00000000-0000-4000-8000-{abs(hash(name)) % 10**12:012d}",
                    "name": name,
                    "driver": "fake-hardware",
                    "network_interface": interface,
                    "provision_state": "manageable",
                }
            )

    return create


def history_of(conductor: Conductor, node: Node) -> list[str]:
    """The events of the node's history, oldest first."""
    with conductor.db.read() as session:
        return [h.event for h in history_db.for_node(session, node.id, Page(limit=100))]
