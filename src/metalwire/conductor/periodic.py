"""A job a server process runs every ``interval`` seconds in a thread of its own, from the
application's start until its shutdown: the drift audit (``[conductor] audit_interval``) and
the call-back timeout check (``[conductor] check_provision_state_interval``)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

LOG = logging.getLogger(__name__)


#: Seconds a shutdown waits for a run under way.
STOP_WAIT = 10.0


class Periodic:
    """Calls ``run_once`` every ``interval`` seconds in a daemon thread until :meth:`stop`.

    A failing run is logged and tried again at the next interval; the thread never dies of
    it. ``name`` (what the log lines call it) and ``thread_name`` tell the jobs apart.
    """

    def __init__(
        self,
        interval: float,
        run_once: Callable[[], object],
        name: str,
        thread_name: str,
    ) -> None:
        self.interval = interval
        self.name = name
        self.thread_name = thread_name
        self._run_once = run_once
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name=self.thread_name, daemon=True)
        self._thread.start()
        LOG.info("The %s runs every %g s", self.name, self.interval)

    def ask_to_stop(self) -> None:
        """Start no run after the one under way (if any); :meth:`stop` waits for it."""
        self._stopping.set()

    def stop(self, timeout: float | None = None) -> bool:
        """Ask the loop to end and wait for it, at most ``timeout`` seconds (an audit under
        way finishes first; one still running then is left to end with the process).
        Whether it ended."""
        self._stopping.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                LOG.warning("The %s under way did not end within %g s", self.name, timeout)
                return False
        return True

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _loop(self) -> None:
        while not self._stopping.wait(self.interval):
            try:
                self._run_once()
            except Exception:
                LOG.exception("The %s failed; trying again in %g s", self.name, self.interval)
