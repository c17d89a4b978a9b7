"""Argument values the real ``metalwire`` program refuses before it sends anything: a usage
error (exit status 2) naming the argument, never a traceback."""

from __future__ import annotations

import math

import pytest

from metalwire.client import Client
from tests.cli.conftest import Run


@pytest.mark.parametrize("timeout", ["-1", "0", "inf", "nan", "soon"])
def test_a_timeout_that_is_not_a_positive_number_of_seconds_is_a_usage_error(
    cli: Run, timeout: str
) -> None:
    run = cli("node", "list", "--timeout", timeout)
    assert run.code == 2, run.stderr
    expected = f"argument --timeout: expected a number of seconds more than 0, got '{timeout}'"
    assert expected in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("timeout", [-1.0, 0.0, math.inf, math.nan])
def test_the_client_refuses_a_timeout_that_is_not_a_positive_number(timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout must be a number of seconds more than 0"):
        Client("http://127.0.0.1:6385", timeout=timeout)
