"""Small helpers every test tier uses: waiting for a condition, reading an error body,
marking a tier's tests and skipping (failing in CI) when its server is not installed."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pytest


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


def in_ci() -> bool:
    """Whether the environment variable ``CI`` says the suite runs in CI."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def server_not_installed(message: str) -> NoReturn:
    """A session server is not installed: the test skips, or fails in CI."""
    if in_ci():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def mark_tests_below(
    directory: Path, items: list[pytest.Item], marker: pytest.MarkDecorator
) -> None:
    """Give ``marker`` to every collected test whose file lies below ``directory``."""
    for item in items:
        if directory in Path(item.path).resolve().parents:
            item.add_marker(marker)
