"""A cleaning's or a servicing's timed ``wait`` step: the node shows ``clean wait`` /
``service wait`` and its lock is given back while this verb's background thread sleeps; the
steps after it then go on under the lock, unless the node left that wait meanwhile.

The wait's end is kept on the node with its step (``kept_steps.WAIT_RECORD``: its length,
when it ends, the conductor waiting). A conductor that stops during the pause (a clean stop
cuts it short; SIGKILL or a lost host ends it) leaves the node in its wait state. A conductor
that starts goes on with the waits its host recorded, and, then and at each provision check,
with those of a conductor no longer alive (:func:`interrupted`): each waits for the time left
only (none if its end has passed), then the steps after it run as they would have. Should two
conductors go on with one wait (a host taken over as it comes back), the first to take the
node's lock after the end runs the steps; the other finds the node no longer waiting at that
record and leaves it.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable

from metalwire.conductor import step_runner
from metalwire.conductor.kept_steps import RUNNING
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
    further: the node stays in its wait state, for the next start of a conductor to go on
    with (:func:`interrupted`). ``timed`` may be a wait such a conductor goes on with: the
    pause lasts the time left until its recorded end."""
    while timed is not None:
        accepted()
        if not pause(remaining(timed)):
            LOG.info("node %s: stopping; its wait step goes on at the next start", ident)
            return
        timed = _after_timed_wait(conductor, context, ident, timed)


def remaining(waited: Stopped, now: dt.datetime | None = None) -> float:
    """The seconds left of a timed wait until its recorded end, none once that has passed;
    never more than its length (a clock set back does not make it longer)."""
    assert waited.resume_after is not None
    if waited.ends_at is None:
        return waited.resume_after
    left = dt.datetime.fromisoformat(waited.ends_at) - (now or dt.datetime.now(dt.UTC))
    return min(max(0.0, left.total_seconds()), waited.resume_after)


def interrupted(conductor: Conductor, at_start: bool) -> list[tuple[str, Stopped]]:
    """The nodes (UUID, the wait as recorded) waiting at a timed ``wait`` step that no
    running conductor goes on with: those another conductor recorded that is no longer alive
    (stopped, or its heartbeat older than ``[conductor] heartbeat_timeout``), and
    ``at_start`` those of this conductor's own host, whose earlier process waited."""
    host = conductor.config.default.host
    now = dt.datetime.now(dt.UTC)
    with conductor.db.reading() as work:
        nodes = [node for state in step_runner.WAIT.values() for node in work.nodes.in_state(state)]
        alive = work.conductors.alive(now, conductor.config.conductor.heartbeat_timeout)
    found = []
    for node in nodes:
        waited = step_runner.waiting_at(node)
        if waited is None:
            continue
        ours = waited.conductor == host
        if (ours and at_start) or (not ours and waited.conductor not in alive):
            LOG.info(
                "node %s: its wait step %d, left by conductor %s, goes on: %.1f s left",
                node.uuid,
                waited.index + 1,
                waited.conductor,
                remaining(waited, now),
            )
            found.append((node.uuid, waited))
    return found


def _after_timed_wait(
    conductor: Conductor, context: RequestContext, ident: str, waited: Stopped
) -> Stopped | None:
    with conductor.exclusive_task(ident, context) as task:
        kind = step_runner.kind_of(task.node.provision_state)
        if kind is None or step_runner.waiting_at(task.node) != waited:
            LOG.info("node %s left its wait meanwhile; its steps do not go on", task.node.uuid)
            return None
        event = f"{kind} goes on after its wait of {waited.resume_after:g} s"
        conductor.record_history(task, HistoryEntry("provisioning", event))
        set_state(task, provision_state=RUNNING[kind])
        _state, timed = run_steps(
            conductor, task, kind, TRANSITIONS[kind], ProvisionOptions(), waited.state
        )
    return timed
