"""The latest findings of the drift audit (periodic, ``[conductor] audit_interval``, or asked for).

:class:`LatestAudit` holds the report of the last audit of every node (periodic or asked for
through the API) for operators to read; :meth:`LatestAudit.findings_count` is what a metrics
endpoint exports. The periodic audit runs as a :class:`metalwire.conductor.periodic.Periodic`.

The worker processes of one ``metalwire serve`` (``[api] api_workers``) answer on one port,
so they share the latest report through a file: each report recorded is written there
(whole, by rename), and each process reads it again when it has changed.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from pathlib import Path

from metalwire.conductor.audit import AuditReport


class LatestAudit:
    """The report of the latest audit of every node; thread-safe. With ``shared``, the
    report is kept in that file too, for the other processes that name it."""

    def __init__(self, shared: Path | None = None) -> None:
        self._lock = threading.Lock()
        self._report: AuditReport | None = None
        self._shared = shared
        self._read_stamp: tuple[int, int] | None = None  # the shared file's, when last read

    def record(self, report: AuditReport) -> None:
        with self._lock:
            self._report = report
            if self._shared is not None:
                partial = self._shared.with_name(f".{self._shared.name}.{os.getpid()}")
                partial.write_text(json.dumps(report.as_json()))
                os.replace(partial, self._shared)
                self._read_stamp = _stamp(self._shared)

    def report(self) -> AuditReport | None:
        """The latest report, or None before the first audit."""
        with self._lock:
            if self._shared is not None:
                stamp = _stamp(self._shared)
                if stamp is not None and stamp != self._read_stamp:
                    self._report = AuditReport.from_json(json.loads(self._shared.read_text()))
                    self._read_stamp = stamp
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


def _stamp(path: Path) -> tuple[int, int] | None:
    """What tells one version of the file from the next (its inode changes with each rename)."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return status.st_ino, status.st_mtime_ns
