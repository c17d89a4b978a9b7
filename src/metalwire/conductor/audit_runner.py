"""The latest findings of the drift audit (periodic, ``[conductor] audit_interval``, or asked for).

:class:`LatestAudit` holds the report of the last audit of every node (periodic or asked for
through the API) for operators to read; :meth:`LatestAudit.findings_count` is what a metrics
endpoint exports. The periodic audit runs as a :class:`metalwire.conductor.periodic.Periodic`.
"""

from __future__ import annotations

import threading
from collections import Counter

from metalwire.conductor.audit import AuditReport


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
