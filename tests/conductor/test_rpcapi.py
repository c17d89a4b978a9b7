"""Where the local RPC API runs a VIF call: at once on the event loop, or in a worker thread.

On SQLite and PostgreSQL a call on a node that calls no external service runs on the event
loop unless something would make it wait; everything else goes to a worker thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest
from sqlalchemy import make_url

from metalwire.conductor import vifs
from metalwire.conductor.rpcapi import LocalConductorAPI
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.models import NodeHistory
from metalwire.errors import NoFreePhysicalPort
from tests.conductor.conftest import NewNode
from tests.support.postgres import PostgresServer

CONTEXT = RequestContext()


@pytest.fixture
def ran_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The threads each VIF operation started on, in order ("loop" or "worker")."""
    seen: list[str] = []
    loop_thread: list[threading.Thread] = []

    def spy(operation: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            on_loop = bool(loop_thread) and threading.current_thread() is loop_thread[0]
            seen.append("loop" if on_loop else "worker")
            return operation(*args)

        return run

    for name in ("vif_attach", "vif_detach", "vif_list"):
        monkeypatch.setattr(vifs, name, spy(getattr(vifs, name)))
    loop_thread.append(threading.current_thread())  # anyio.run runs the loop on this thread
    yield seen


def _event_loop_path(conductor: Conductor) -> None:
    if conductor.db.kind not in ("sqlite", "postgresql"):
        pytest.skip("the event-loop path is SQLite's and PostgreSQL's")


def test_a_free_local_node_is_served_on_the_event_loop(
    conductor: Conductor, new_node: NewNode, ran_on: list[str]
) -> None:
    _event_loop_path(conductor)
    node = new_node("inline")
    api = LocalConductorAPI(conductor)
    assert anyio.run(api.vif_list, CONTEXT, node.uuid) == []
    anyio.run(api.vif_attach, CONTEXT, node.uuid, {"id": "vif-1"})
    assert ran_on == ["loop", "loop"]


def test_off_the_event_loop_path_every_call_goes_to_a_thread(
    conductor: Conductor, new_node: NewNode, ran_on: list[str]
) -> None:
    """On SQLite and PostgreSQL with ``event_loop_vif_calls`` off; on MariaDB always."""
    conductor.config.conductor.event_loop_vif_calls = False
    node = new_node("threaded")
    anyio.run(LocalConductorAPI(conductor).vif_list, CONTEXT, node.uuid)
    assert ran_on == ["worker"]


def test_a_node_held_by_another_thread_is_handed_to_a_worker_that_waits_its_turn(
    conductor: Conductor, new_node: NewNode, ran_on: list[str]
) -> None:
    _event_loop_path(conductor)
    node = new_node("busy")
    api = LocalConductorAPI(conductor)
    anyio.run(api.vif_list, CONTEXT, node.uuid)  # remembered as local now
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with conductor.exclusive_task(node.uuid, CONTEXT):
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(10)
    releaser = threading.Timer(0.1, release.set)
    releaser.start()
    try:
        anyio.run(api.vif_attach, CONTEXT, node.uuid, {"id": "vif-2"})
    finally:
        releaser.cancel()
        release.set()
        releaser.join()
        holder.join()
    assert ran_on == ["loop", "loop", "worker"]  # the list; the attach refused, then run


def test_a_node_known_to_call_out_goes_straight_to_a_thread(
    conductor: Conductor, new_node: NewNode, ran_on: list[str]
) -> None:
    node = new_node("remote", interface="neutron")
    with conductor.exclusive_task(node.uuid, CONTEXT):
        pass  # remembered: its interface calls an external service
    anyio.run(LocalConductorAPI(conductor).vif_list, CONTEXT, node.uuid)
    assert ran_on == ["worker"]


def test_a_failure_on_the_event_loop_is_recorded_by_a_worker(
    conductor: Conductor, new_node: NewNode, ran_on: list[str]
) -> None:
    _event_loop_path(conductor)
    node = new_node("portless", interface="flat")  # no Neutron: flat runs locally
    api = LocalConductorAPI(conductor)
    with pytest.raises(NoFreePhysicalPort):
        anyio.run(api.vif_attach, CONTEXT, node.uuid, {"id": "vif-3"})
    assert ran_on == ["loop"]
    with conductor.db.read() as session:
        [entry] = session.query(NodeHistory).filter_by(node_id=node.id).all()
    assert entry.severity == "ERROR"
    assert entry.event.startswith("Attaching VIF vif-3 failed: No free port")


def test_a_node_row_another_transaction_holds_is_waited_for_by_a_worker_not_the_loop(
    conductor: Conductor,
    new_node: NewNode,
    ran_on: list[str],
    request: pytest.FixtureRequest,
) -> None:
    """PostgreSQL: the event loop never waits for a node's row lock (NOWAIT); the call goes
    to a worker thread, which waits for the other transaction's commit, and the loop serves
    on meanwhile."""
    if conductor.db.kind != "postgresql":
        pytest.skip("PostgreSQL's row lock")
    postgres_server: PostgresServer = request.getfixturevalue("postgres_server")
    node = new_node("row-held")
    api = LocalConductorAPI(conductor)
    anyio.run(api.vif_list, CONTEXT, node.uuid)  # remembered as local now
    url = make_url(conductor.db.url)
    holder = postgres_server.connect(str(url.database))
    holder.autocommit = False
    holder.execute("SELECT id FROM nodes WHERE id = %s FOR UPDATE", (node.id,))
    ticks: list[float] = []

    async def attach_while_the_loop_ticks() -> None:
        async def tick() -> None:
            while True:
                ticks.append(time.monotonic())
                await anyio.sleep(0.01)

        async with anyio.create_task_group() as group:
            group.start_soon(tick)
            await api.vif_attach(CONTEXT, node.uuid, {"id": "vif-row"})
            group.cancel_scope.cancel()

    started = time.monotonic()  # before the timer, which may fire 0.3 s after it started
    rollback = threading.Timer(0.3, holder.rollback)
    rollback.start()
    try:
        anyio.run(attach_while_the_loop_ticks)
    finally:  # a test ended early: no rollback of a connection closed meanwhile
        rollback.cancel()
        rollback.join()
        holder.close()
    assert time.monotonic() - started >= 0.3  # it waited for the other transaction
    assert ran_on == ["loop", "loop", "worker"]  # the list; the attach refused, then run
    assert len([t for t in ticks if t - started < 0.3]) >= 10  # the loop went on meanwhile
    with conductor.db.read() as session:
        [entry] = session.query(NodeHistory).filter_by(node_id=node.id).all()
    assert entry.event.startswith("VIF vif-row attached")
