"""A pytest plugin that writes the CPU each test's phases cost, to find what makes the suite slow.

The suite is bound by CPU, not by waiting (its servers and clients share the machine's cores),
so the wall-clock durations of ``--durations`` rank a test that sleeps beside one that computes.
Load it with ``-p tests.support.cpu_report`` and name the file with
``METALWIRE_TEST_CPU_REPORT``; each worker appends one JSON line per test phase::

    {"test": "tests/api/test_vifs.py::test_x[sqlite]", "phase": "call", "wall": 0.41,
     "cpu": 0.12, "children": 0.30}

``cpu`` is the pytest process's own; ``children`` is what the processes it started used in
the meantime, those still running and those that ended (a process that ends is counted by the
one that waits for it: the prefork server's runs, a server a fixture stops). Servers that
detach themselves (PostgreSQL, MariaDB) are not counted. Reading every descendant's counters
costs a few milliseconds a phase: the report is for finding costs, not for a CI run.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Generator
from typing import Any

import psutil
import pytest


def _children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = usage.ru_utime + usage.ru_stime
    for process in psutil.Process().children(recursive=True):
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue  # ended meanwhile: its waiter counts it
        total += times.user + times.system + times.children_user + times.children_system
    return total


def _measured(item: pytest.Item, phase: str) -> Generator[None, Any, Any]:
    path = os.environ.get("METALWIRE_TEST_CPU_REPORT")
    if not path:
        return (yield)
    wall, cpu, children = time.monotonic(), time.process_time(), _children()
    result = yield
    line = {
        "test": item.nodeid,
        "phase": phase,
        "wall": round(time.monotonic() - wall, 3),
        "cpu": round(time.process_time() - cpu, 3),
        "children": round(_children() - children, 3),
    }
    with open(path, "a", encoding="utf-8") as report:
        report.write(json.dumps(line) + "\n")
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, Any, Any]:
    return (yield from _measured(item, "setup"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    return (yield from _measured(item, "call"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, Any, Any]:
    return (yield from _measured(item, "teardown"))
