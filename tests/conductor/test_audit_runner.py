"""The periodic drift audit's loop and the latest findings it keeps."""

from __future__ import annotations

import threading
from pathlib import Path

from metalwire.conductor.audit import AuditReport, Finding, NotChecked
from metalwire.conductor.audit_runner import LatestAudit
from metalwire.conductor.periodic import Periodic


def finding(kind: str, vif: str) -> Finding:
    return Finding(kind, "node-uuid", None, vif, None, None, None, f"{kind} of {vif}")


def test_latest_audit_counts_the_findings_of_the_last_report() -> None:
    latest = LatestAudit()
    assert latest.findings_count() == 0 and latest.report() is None
    latest.record(AuditReport([finding("mac_mismatch", "a"), finding("orphan_port", "b")], 2))
    latest.record(AuditReport([finding("orphan_port", "c"), finding("orphan_port", "d")], 2))
    assert latest.findings_count() == 2
    assert latest.findings_count("orphan_port") == 2
    assert latest.findings_count("mac_mismatch") == 0
    assert latest.counts_by_kind() == {"orphan_port": 2}


def test_periodic_audit_goes_on_after_a_failing_run_and_stops() -> None:
    runs = 0
    third = threading.Event()

    def run_once() -> None:
        nonlocal runs
        runs += 1
        if runs == 3:
            third.set()
        if runs == 1:
            raise RuntimeError("Neutron is down")

    periodic = Periodic(0.01, run_once, "drift audit", "metalwire-audit")
    periodic.start()
    assert third.wait(10), "the loop died after the failing run"
    periodic.stop(timeout=10)
    assert not periodic.running


def test_stop_waits_for_a_hung_audit_no_longer_than_its_timeout() -> None:
    started, release = threading.Event(), threading.Event()

    def run_once() -> None:
        started.set()
        release.wait(30)

    periodic = Periodic(0.01, run_once, "drift audit", "metalwire-audit")
    periodic.start()
    assert started.wait(10)
    (thread,) = [t for t in threading.enumerate() if t.name == "metalwire-audit"]
    periodic.stop(timeout=0.05)
    assert thread.is_alive(), "stop() returned while the audit is still under way"
    release.set()
    thread.join(10)
    assert not thread.is_alive()


def test_a_shared_latest_audit_is_seen_by_every_process_that_names_its_file(
    tmp_path: Path,
) -> None:
    shared = tmp_path / "latest-audit.json"
    one, other = LatestAudit(shared), LatestAudit(shared)
    assert other.report() is None
    missing = NotChecked("node-uuid", "n1", "port-uuid", "switch tor-1 port swp1", "timed out")
    found = Finding("mac_mismatch", "node-uuid", "n1", "vif", "port", "aa", {"b": [1]}, "m", "x")
    one.record(AuditReport([found], 3, not_checked=[missing]))
    seen = other.report()
    assert seen is not None
    assert seen.as_json() == one.report().as_json()  # type: ignore[union-attr]
    assert (seen.findings, seen.not_checked) == ([found], [missing])
    assert other.counts_by_kind() == {"mac_mismatch": 1}
    other.record(AuditReport([], 0))
    assert one.findings_count() == 0 and one.report().nodes_checked == 0  # type: ignore[union-attr]
    assert [p.name for p in tmp_path.iterdir()] == ["latest-audit.json"]  # no partial file left
