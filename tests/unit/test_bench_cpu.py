"""The bench's CPU accounting: a server's time counts its worker processes' too."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import run_stats

# A parent that burns CPU for a moment and starts a child which does too; then both wait.
_PARENT = """
import subprocess, sys, time
end = time.process_time() + 0.2
while time.process_time() < end:
    pass
child = subprocess.Popen([sys.executable, "-c", sys.argv[1]])
print("started", flush=True)
time.sleep(30)
"""
_CHILD = """
import time
end = time.process_time() + 0.4
while time.process_time() < end:
    pass
print("burnt", flush=True)
time.sleep(30)
"""


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


def test_idle_time_only_grows() -> None:
    before = run_stats.idle_cpu_seconds()
    time.sleep(0.05)
    assert run_stats.idle_cpu_seconds() >= before


def _child_of(pid: int) -> int:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])
