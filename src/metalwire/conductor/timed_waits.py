"""A cleaning's or a servicing's timed ``wait`` step: the node shows ``clean wait`` /
``service wait`` and its lock is given back while this verb's background thread sleeps; the
steps after it then go on under the lock, unless the node left that wait meanwhile."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from metalwire.conductor import step_runner
from metalwire.conductor.node_moves import set_state
from metalwire.conductor.provision_states import TRANSITIONS, ProvisionOptions
from metalwire.conductor.step_runner import Stopped
from metalwire.conductor.tasks import Conductor
from metalwire.conductor.verb_steps import run_steps
from metalwire.context import RequestContext
from metalwire.db.history import HistoryEntry

LOG = logging.getLogger(__name__)


def sleep(seconds: float) -> bool:
    time.sleep(seconds)
    return True


def wait_and_go_on(
    conductor: Conductor,
    context: RequestContext,
    ident: str,
    timed: Stopped | None,
    accepted: Callable[[], None],
    pause: Callable[[float], bool],
) -> None:
    """After a timed ``wait`` step was committed (the node in ``clean wait`` / ``service
    wait``, its lock given back): answer the request, sleep in this background thread (no
    transaction open, the event loop free), then go on with the steps after it, as long as
    the node still waits at that step (an abort meanwhile ended the wait). Again for each
    timed wait that follows. A process that stops meanwhile cuts the pause short and goes no
    further: the node stays in its wait state (``abort``, the call-back timeout)."""
    while timed is not None:
        accepted()
        assert timed.resume_after is not None
        if not pause(timed.resume_after):
            LOG.info("node %s: stopping, its wait step is not resumed", ident)
            return
        timed = _after_timed_wait(conductor, context, ident, timed)


def _after_timed_wait(
    conductor: Conductor, context: RequestContext, ident: str, waited: Stopped
) -> Stopped | None:
    with conductor.exclusive_task(ident, context) as task:
        kind = step_runner.kind_of(task.node.provision_state)
        at = None if kind is None else step_runner.current(task, kind)
        if (
            kind is None
            or task.node.provision_state != waited.state
            or at is None
            or (at[0] != waited.index)
        ):
            LOG.info("node %s left its wait meanwhile; its steps do not go on", task.node.uuid)
            return None
        event = f"{kind} goes on after its wait of {waited.resume_after:g} s"
        conductor.record_history(task, HistoryEntry("provisioning", event))
        set_state(task, provision_state=step_runner.RUNNING[kind])
        _state, timed = run_steps(
            conductor, task, kind, TRANSITIONS[kind], ProvisionOptions(), waited.state
        )
    return timed
