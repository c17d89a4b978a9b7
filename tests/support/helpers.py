"""Small helpers every test tier uses: waiting for a condition, reading an error body."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any


def wait_for(check: Callable[[], bool], timeout: float = 10.0, interval: float = 0.05) -> bool:
    """Poll ``check`` until it holds (True) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)
    return True


def fault(resp: Any) -> str:
    """The faultstring of an Ironic error body (``{"error_message": "<json>"}``)."""
    return str(json.loads(resp.json()["error_message"])["faultstring"])


def terminate_group(process: subprocess.Popen[bytes] | None, wait: float = 30.0) -> None:
    """SIGTERM the process group of ``process`` (started with ``start_new_session``), then
    SIGKILL if it has not ended within ``wait`` seconds. Nothing if it already ended."""
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(wait)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
