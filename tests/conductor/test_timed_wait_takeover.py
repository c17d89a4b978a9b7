"""Which conductor goes on with a timed ``wait`` step whose thread is gone: at its start, the
conductor whose host recorded the wait; at start and at each provision check, any conductor
for a wait recorded by one no longer alive; never one that a live conductor waits for. The
conductor runs on the test's database without HTTP; the waits are stored as a conductor
stopped during them would have left them."""

from __future__ import annotations

import datetime as dt
import time

from metalwire.conductor.rpcapi import LocalConductorAPI
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.models import Node
from tests.conductor.conftest import NewNode, history_of

CONTEXT = RequestContext()
WAIT = {"interface": "deploy", "step": "wait", "args": {"seconds": 1}}
POWER_OFF = {"interface": "power", "step": "power_off"}


def _left_waiting(conductor: Conductor, new_node: NewNode, name: str, host: str) -> Node:
    """A node in ``clean wait`` at its first step, a 1 s wait that ``host`` recorded and
    whose end has passed, with a power-off after it."""
    node = new_node(name)
    ended = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
    internal = {
        "clean_steps": [WAIT, POWER_OFF],
        "clean_step_index": 0,
        "cleaning_disable_ramdisk": True,
        "metalwire_clean_wait": {"seconds": 1, "ends_at": ended.isoformat(), "conductor": host},
    }
    with conductor.db.writing() as work:
        return work.nodes.update(
            node.id,
            {
                "provision_state": "clean wait",
                "target_provision_state": "manageable",
                "power_state": "power on",
                "clean_step": WAIT,
                "driver_internal_info": internal,
            },
        )


def _until_left(conductor: Conductor, node: Node, state: str, limit: float = 10) -> Node:
    deadline = time.monotonic() + limit
    while True:
        with conductor.db.reading() as work:
            found = work.nodes.find(node.id)
        assert found is not None
        if found.provision_state != state or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_a_wait_of_a_conductor_no_longer_alive_is_taken_over_and_its_steps_run(
    conductor: Conductor, new_node: NewNode
) -> None:
    gone = _left_waiting(conductor, new_node, "gone", "gone-host")
    api = LocalConductorAPI(conductor)

    assert api.resume_timed_waits(CONTEXT, at_start=False) == [gone.uuid]

    done = _until_left(conductor, gone, "clean wait")
    assert (done.provision_state, done.power_state) == ("manageable", "power off")
    assert done.attrs.get("clean_step") in (None, {})
    assert "metalwire_clean_wait" not in done.driver_internal_info
    assert "clean goes on after its wait of 1 s" in history_of(conductor, done)
    assert api.wait_for_background(10) == []


def test_a_wait_of_a_live_conductor_is_left_to_it(conductor: Conductor, new_node: NewNode) -> None:
    with conductor.db.writing() as work:
        work.conductors.register("live-host", ["fake-hardware"], "", dt.datetime.now(dt.UTC))
    live = _left_waiting(conductor, new_node, "live", "live-host")
    api = LocalConductorAPI(conductor)

    assert api.resume_timed_waits(CONTEXT, at_start=True) == []
    assert api.resume_timed_waits(CONTEXT, at_start=False) == []
    with conductor.db.reading() as work:
        found = work.nodes.find(live.id)
    assert found is not None and found.provision_state == "clean wait"


def test_a_wait_this_host_recorded_goes_on_at_its_start_only(
    conductor: Conductor, new_node: NewNode
) -> None:
    """The conductor is registered and alive: at a provision check its own waits are its own
    threads'; at its start, no thread of it waits for them any more."""
    host = conductor.config.default.host
    with conductor.db.writing() as work:
        work.conductors.register(host, ["fake-hardware"], "", dt.datetime.now(dt.UTC))
    own = _left_waiting(conductor, new_node, "own", host)
    api = LocalConductorAPI(conductor)

    assert api.resume_timed_waits(CONTEXT, at_start=False) == []
    assert api.resume_timed_waits(CONTEXT, at_start=True) == [own.uuid]
    assert _until_left(conductor, own, "clean wait").provision_state == "manageable"
    assert api.wait_for_background(10) == []
