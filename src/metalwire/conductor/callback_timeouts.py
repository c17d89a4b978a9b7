"""Fails the nodes that waited too long for an agent's call-back (Ironic's periodic check).

A ``direct`` deploy waits in ``wait call-back``, a manual cleaning in ``clean wait`` and an
``agent`` inspection in ``inspect wait`` (``verb_steps.py``, ``clean_and_service.py``); a
``wait`` step without seconds leaves a cleaning in ``clean wait``, a servicing in ``service
wait``. Past ``[conductor] deploy_callback_timeout``, ``clean_callback_timeout``,
``service_callback_timeout`` or ``inspect_wait_timeout`` (0: never) the wait ends as an abort
does, with Ironic's ``last_error`` for it ("Timeout reached while waiting for callback for
node ...", for an inspection "Timeout reached while inspecting the node. ...", for a
servicing "Timeout reached while servicing the node. ..."); a wait at a user step fails as a
failed step does (``aborts.abort_wait``), a servicing's in ``service failed``. As
Ironic's, the check skips a node in maintenance: its wait goes on, and times out at the first
check after the maintenance ends.
"""

from __future__ import annotations

import datetime as dt
import logging

from metalwire.conductor.aborts import abort_wait
from metalwire.conductor.provision_states import CLEAN_WAIT, DEPLOY_WAIT, INSPECT_WAIT, SERVICE_WAIT
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.models import utcnow
from metalwire.errors import InvalidStateRequested, NodeLocked, NodeNotFound

LOG = logging.getLogger(__name__)


def _timeouts(conductor: Conductor) -> dict[str, float]:
    options = conductor.config.conductor
    return {
        DEPLOY_WAIT: options.deploy_callback_timeout,
        CLEAN_WAIT: options.clean_callback_timeout,
        SERVICE_WAIT: options.service_callback_timeout,
        INSPECT_WAIT: options.inspect_wait_timeout,
    }


def _reason(state: str, uuid: str) -> str:
    if state == INSPECT_WAIT:
        return (
            "Timeout reached while inspecting the node. Please check if the ramdisk "
            "responsible for the inspection is running on the node."
        )
    if state == SERVICE_WAIT:
        return (
            "Timeout reached while servicing the node. Please check if the ramdisk "
            "responsible for the servicing is running on the node."
        )
    return f"Timeout reached while waiting for callback for node {uuid}"


def fail_expired_waits(
    conductor: Conductor, context: RequestContext, now: dt.datetime | None = None
) -> list[str]:
    """End every wait older than its timeout, except a node's in maintenance; the UUIDs of
    the nodes failed."""
    now = now or utcnow()
    failed = []
    for state, timeout in _timeouts(conductor).items():
        if timeout <= 0:
            continue
        with conductor.db.reading() as work:
            expired = work.nodes.in_state_before(state, now - dt.timedelta(seconds=timeout))
        for uuid in expired:
            reason = _reason(state, uuid)
            try:
                abort_wait(conductor, context, uuid, reason)
            except (InvalidStateRequested, NodeLocked, NodeNotFound) as exc:
                # it left the wait, or is busy or gone: the next check sees it again if needed
                LOG.info("Node %s: callback timeout not applied: %s", uuid, exc)
                continue
            failed.append(uuid)
    return failed
