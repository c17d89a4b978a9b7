"""The bench's CPU accounting: a server's time counts its worker processes' too."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import run_stats


def _burning(seconds: float, then: str) -> str:
    """A program that keeps a core busy for ``seconds`` of its own CPU time, then ``then``."""
    return (
        "import subprocess, sys, time\n"
        f"end = time.process_time() + {seconds}\n"
        "while time.process_time() < end:\n"
        "    sum(range(1000))\n"
        f"{then}\n"
        "time.sleep(30)\n"
    )


# A parent that burns CPU for a moment and starts a child which does too; then both wait.
_CHILD = _burning(0.4, 'print("burnt", flush=True)')
_PARENT = _burning(
    0.2,
    'child = subprocess.Popen([sys.executable, "-c", sys.argv[1]])\nprint("started", flush=True)',
)


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc")
def test_a_process_trees_cpu_time_includes_its_children() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, _CHILD], stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline().strip() == "started"
        assert parent.stdout.readline().strip() == "burnt"  # the child's line, same pipe
        tree = run_stats.tree_cpu_seconds(parent.pid)
        alone = run_stats.tree_cpu_seconds(_child_of(parent.pid))
        assert alone >= 0.35  # the child's burn
        assert tree >= alone + 0.15  # and the parent's own on top
    finally:
        children = Path(f"/proc/{parent.pid}/task/{parent.pid}/children")
        for child in children.read_text().split() if children.exists() else []:
            subprocess.run(["kill", "-9", child], check=False)
        parent.kill()
        parent.communicate()


def test_idle_time_grows_at_most_by_every_core_idle() -> None:
    before, started = run_stats.idle_cpu_seconds(), time.monotonic()
    time.sleep(0.3)
    idle = run_stats.idle_cpu_seconds() - before
    elapsed = time.monotonic() - started
    assert run_stats.idle_cpu_seconds() >= before
    assert idle <= (elapsed + 0.02) * (os.cpu_count() or 1)  # two clock ticks of slack


def _child_of(pid: int) -> int:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])
