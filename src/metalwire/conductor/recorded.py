"""How a management operation that Ironic runs after answering records its outcome.

Ironic answers some management requests (virtual media, boot mode, secure boot) before its
conductor asks the interface, so an interface's refusal never reaches the client: it lands
in the node's ``last_error`` (and metalwire's history). metalwire runs them before answering,
with the same outcome for the client.
"""

from __future__ import annotations

from metalwire.conductor.power import store
from metalwire.conductor.tasks import Conductor
from metalwire.db.history import HistoryEntry
from metalwire.networking.task import Task

EVENT_TYPE = "management"


def record_outcome(
    conductor: Conductor, task: Task, done: str, failed: str, refusal: str | None
) -> None:
    """The operation's history entry; a refusal also becomes the node's ``last_error``."""
    if refusal is None:
        store(task, {"last_error": None})
        conductor.record_history(task, HistoryEntry(EVENT_TYPE, done))
        return
    error = f"{failed}: {refusal}"
    store(task, {"last_error": error})
    conductor.record_history(task, HistoryEntry.failed(EVENT_TYPE, error))
