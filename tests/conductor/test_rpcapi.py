"""Where the local RPC API runs a VIF call: at once on the event loop, or in a worker thread.

On SQLite a call on a node that calls no external service runs on the event loop unless
something would make it wait; everything else goes to a worker thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest

from metalwire.conductor import vifs
from metalwire.conductor.rpcapi import LocalConductorAPI
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.models import NodeHistory
from metalwire.errors import NoFreePhysicalPort
from tests.conductor.conftest import NewNode

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


def _sqlite_only(conductor: Conductor) -> None:
    if not conductor.db.is_sqlite:
        pytest.skip("the event-loop path is SQLite's")


def test_a_free_local_node_is_served_on_the_event_loop(
    conductor: Conductor, new_node: NewNode, ran_on: list[str]
) -> None:
    _sqlite_only(conductor)
    node = new_node("inline")
    api = LocalConductorAPI(conductor)
    assert anyio.run(api.vif_list, CONTEXT, node.uuid) == []
    anyio.run(api.vif_attach, CONTEXT, node.uuid, {"id": "vif-1"})
    assert ran_on == ["loop", "loop"]


def test_off_the_event_loop_path_every_call_goes_to_a_thread(
    conductor: Conductor, new_node: NewNode, ran_on: list[str]
) -> None:
    """On SQLite with ``event_loop_vif_calls`` off; on PostgreSQL and MariaDB always."""
    if conductor.db.is_sqlite:
        conductor.config.conductor.event_loop_vif_calls = False
    node = new_node("threaded")
    anyio.run(LocalConductorAPI(conductor).vif_list, CONTEXT, node.uuid)
    assert ran_on == ["worker"]


def test_a_node_held_by_another_thread_is_handed_to_a_worker_that_waits_its_turn(
    conductor: Conductor, new_node: NewNode, ran_on: list[str]
) -> None:
    _sqlite_only(conductor)
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
    threading.Timer(0.1, release.set).start()
    try:
        anyio.run(api.vif_attach, CONTEXT, node.uuid, {"id": "vif-2"})
    finally:
        release.set()
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
    _sqlite_only(conductor)
    node = new_node("portless", interface="flat")  # no Neutron: flat runs locally
    api = LocalConductorAPI(conductor)
    with pytest.raises(NoFreePhysicalPort):
        anyio.run(api.vif_attach, CONTEXT, node.uuid, {"id": "vif-3"})
    assert ran_on == ["loop"]
    with conductor.db.read() as session:
        [entry] = session.query(NodeHistory).filter_by(node_id=node.id).all()
    assert entry.severity == "ERROR"
    assert entry.event.startswith("Attaching VIF vif-3 failed: No free port")
