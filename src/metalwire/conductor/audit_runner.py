"""The periodic drift audit (``[conductor] audit_interval``) and the latest findings it keeps.

:class:`LatestAudit` holds the report of the last audit of every node (periodic or asked for
through the API) for operators to read; :meth:`LatestAudit.findings_count` is what a metrics
endpoint exports. :class:`PeriodicAudit` runs an audit every ``interval`` seconds in a
thread of the server process, from the application's start until its shutdown.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable

from metalwire.conductor.audit import AuditReport

LOG = logging.getLogger(__name__)


class LatestAudit:
    """The report of the latest audit of every node; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._report: AuditReport | None = None

    def record(self, report: AuditReport) -> None:
        with self._lock:
            self._report = report

    def report(self) -> AuditReport | None:
        """The latest report, or None before the first audit."""
        with self._lock:
            return self._report

    def findings_count(self, kind: str | None = None) -> int:
        """How many findings the latest audit had (of ``kind``, if given); 0 before any."""
        report = self.report()
        if report is None:
            return 0
        return sum(1 for f in report.findings if kind is None or f.kind == kind)

    def counts_by_kind(self) -> dict[str, int]:
        """The latest audit's findings per kind (kinds without findings are left out)."""
        report = self.report()
        return dict(Counter(f.kind for f in report.findings)) if report else {}


#: Seconds a shutdown waits for an audit under way.
STOP_WAIT = 10.0


class PeriodicAudit:
    """Calls ``run_once`` every ``interval`` seconds in a daemon thread until :meth:`stop`.

    A failing audit is logged and tried again at the next interval; the thread never dies of
    it. ``run_once`` records its report itself.
    """

    def __init__(
        self,
        interval: float,
        run_once: Callable[[], object],
        name: str = "drift audit",
        thread_name: str = "metalwire-audit",
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

    def stop(self, timeout: float | None = None) -> None:
        """Ask the loop to end and wait for it, at most ``timeout`` seconds (an audit under
        way finishes first; one still running then is left to end with the process)."""
        self._stopping.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                LOG.warning("The %s under way did not end within %g s", self.name, timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _loop(self) -> None:
        while not self._stopping.wait(self.interval):
            try:
                self._run_once()
            except Exception:
                LOG.exception("The %s failed; trying again in %g s", self.name, self.interval)
