"""The supervisor's rule for a failed start, with real worker processes that do no serving.

A worker fails to start when it ends before it says it serves, however long that took: on a
loaded machine importing and setting up a worker can take longer than ``START_GRACE``."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from metalwire.cli import workers

GRACE = 0.3


def fail_after_the_grace(*_args: Any) -> None:
    """A worker whose start fails later than the supervisor's grace."""
    time.sleep(GRACE * 3)
    sys.exit(2)


def serve_then_end(*args: Any) -> None:
    """A worker that says it serves, serves past the grace, and ends."""
    tell_ready: Connection = args[-1]
    tell_ready.send_bytes(b"serving")
    tell_ready.close()
    time.sleep(GRACE * 3)
    sys.exit(1)


def supervisor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: Any) -> workers.Supervisor:
    monkeypatch.setattr(workers, "START_GRACE", GRACE)
    monkeypatch.setattr(workers, "RESTART_DELAY", 0.05)
    monkeypatch.setattr(workers, "run_worker", target)
    conf = SimpleNamespace(
        api=SimpleNamespace(api_workers=2),
        default=SimpleNamespace(graceful_shutdown_timeout=60.0),
    )
    return workers.Supervisor(argparse.Namespace(), conf, tmp_path)  # type: ignore[arg-type]


def run_until(chosen: workers.Supervisor, done: Callable[[], bool], seconds: float) -> int | None:
    """The supervisor's exit status: its own, or 0 if it still ran once ``done()`` (it is then
    asked to stop)."""
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(chosen.run()))
    thread.start()
    deadline = time.monotonic() + seconds
    try:
        while thread.is_alive() and not done():
            assert time.monotonic() < deadline, "neither ended nor done"
            time.sleep(0.05)
    finally:
        chosen.stopping = True
        thread.join(30)
    return result[0] if result else None


def test_a_worker_that_fails_to_start_slowly_still_counts_as_a_failed_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, "metalwire")
    chosen = supervisor(tmp_path, monkeypatch, fail_after_the_grace)
    assert run_until(chosen, lambda: False, 60) == 2
    assert "every worker failed 3 starts in a row: stopping" in caplog.text
    assert [w.failed_starts for w in chosen.workers] == [3, 3]


def test_a_worker_that_served_past_the_grace_is_started_again_without_counting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, "metalwire")
    chosen = supervisor(tmp_path, monkeypatch, serve_then_end)
    # Both ended four times, one more than a failing worker is given.
    ended = lambda: caplog.text.count("ended with status 1") >= 8  # noqa: E731
    assert run_until(chosen, ended, 120) == 0
    assert "every worker failed" not in caplog.text
    assert all(w.process is None or w.process.exitcode is not None for w in chosen.workers)


def test_a_worker_killed_before_it_serves_counts_as_a_failed_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = supervisor(tmp_path, monkeypatch, fail_after_the_grace)
    thread = threading.Thread(target=chosen.run)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not all(w.process is not None and w.process.pid for w in chosen.workers):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        first = chosen.workers[0].process
        assert first is not None and first.pid is not None
        os.kill(first.pid, signal.SIGKILL)
        while chosen.workers[0].failed_starts == 0:
            assert time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        chosen.stopping = True
        thread.join(30)
