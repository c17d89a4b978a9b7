"""The rules of ``conductor/background.py``: when the caller gets control back, which errors
reach it, and what a stop waits for."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import pytest

from metalwire.conductor.background import BackgroundOperations
from metalwire.errors import InvalidStateRequested, NoFreeConductorWorker


def test_the_caller_returns_once_accepted_and_the_operation_goes_on() -> None:
    operations = BackgroundOperations()
    proceed, finished = threading.Event(), threading.Event()

    def operation(accepted: Callable[[], None]) -> None:
        accepted()
        proceed.wait(10)
        finished.set()

    operations.start("deploy of n1", operation)
    assert operations.running() == ["deploy of n1"]
    assert not finished.is_set()
    proceed.set()
    assert operations.wait(10) == []
    assert finished.is_set() and operations.running() == []


def test_an_operation_that_ends_without_accepting_returns_when_done() -> None:
    operations = BackgroundOperations()
    done: list[str] = []
    operations.start("manage of n1", lambda _accepted: done.append("steps"))
    assert done == ["steps"]
    assert operations.running() == []


def test_an_error_before_acceptance_is_raised_to_the_caller() -> None:
    def refuse(_accepted: Callable[[], None]) -> None:
        raise InvalidStateRequested("not from state 'active'")

    with pytest.raises(InvalidStateRequested, match="not from state 'active'"):
        BackgroundOperations().start("deploy of n1", refuse)


def test_an_error_after_acceptance_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    operations = BackgroundOperations()

    def fail_later(accepted: Callable[[], None]) -> None:
        accepted()
        raise RuntimeError("database gone")

    with caplog.at_level(logging.ERROR, logger="metalwire.conductor.background"):
        operations.start("deploy of n1", fail_later)
        assert operations.wait(10) == []
    assert "deploy of n1 failed after it was accepted" in caplog.text
    assert "database gone" in caplog.text


def test_a_stop_waits_its_timeout_and_names_what_is_still_running(
    caplog: pytest.LogCaptureFixture,
) -> None:
    operations = BackgroundOperations()
    release = threading.Event()

    def hang(accepted: Callable[[], None]) -> None:
        accepted()
        release.wait(10)

    operations.start("deploy of n1", hang)
    with caplog.at_level(logging.WARNING, logger="metalwire.conductor.background"):
        assert operations.wait(0.2) == ["deploy of n1"]
    assert "Still under way after 0.2 s, cut short: deploy of n1" in caplog.text
    release.set()
    assert operations.wait(0) == []  # 0: until they end


def test_an_operation_whose_thread_cannot_start_is_refused_and_not_waited_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_thread(_self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    operations = BackgroundOperations()
    monkeypatch.setattr(threading.Thread, "start", no_thread)
    with pytest.raises(NoFreeConductorWorker, match=r"no thread could be started for it \(can't"):
        operations.start("deploy of n1", lambda accepted: accepted())
    monkeypatch.undo()
    assert operations.running() == []
    assert operations.wait(1) == []  # a stop has nothing to wait for


def test_operations_beyond_the_limit_are_refused_until_one_ends() -> None:
    operations = BackgroundOperations(limit=2)
    release = threading.Event()

    def hang(accepted: Callable[[], None]) -> None:
        accepted()
        release.wait(10)

    operations.start("deploy of n1", hang)
    operations.start("deploy of n2", hang)
    ran: list[str] = []
    with pytest.raises(NoFreeConductorWorker, match="already runs 2 operations"):
        operations.start("deploy of n3", lambda accepted: ran.append("n3"))
    assert ran == [] and operations.running() == ["deploy of n1", "deploy of n2"]
    release.set()
    assert operations.wait(10) == []
    operations.start("deploy of n3", lambda accepted: ran.append("n3"))
    assert ran == ["n3"]


def test_a_pause_ends_early_when_the_process_stops_and_says_so() -> None:
    """A wait step's pause sleeps in its operation's thread: a stop does not wait for it to
    run out (it would hold the shutdown up to the longest pause allowed)."""
    operations = BackgroundOperations()
    paused: list[bool] = []

    def wait_step(accepted: Callable[[], None]) -> None:
        accepted()
        paused.append(operations.pause(60))

    operations.start("clean of n1", wait_step)
    began = time.monotonic()
    assert operations.wait(10) == []
    assert time.monotonic() - began < 5
    assert paused == [False]  # cut short: the steps after it do not go on


def test_a_pause_the_process_lets_run_out_returns_true() -> None:
    assert BackgroundOperations().pause(0.01) is True
