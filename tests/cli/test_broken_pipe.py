"""``metalwire ... | head``: a reader that stops early ends the program quietly."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.cli.conftest import clean_env


@pytest.mark.parametrize(
    ("args", "status"),
    [
        # 128 + SIGPIPE, as a shell reports a program that signal ended, and as `openstack`
        # exits when its reader goes away.
        (("config-reference",), 141),
        (("version",), 141),
        # argparse drops what it cannot write, and exits with its own status.
        (("--help",), 0),
        (("--version",), 0),
        ((), 2),
    ],
    ids=["config-reference", "version", "help", "dash-dash-version", "no-command"],
)
def test_output_into_a_closed_pipe_ends_quietly(args: tuple[str, ...], status: int) -> None:
    # The reading end is closed before the program writes, as `head` closes it once it has
    # read its lines: every write of the program meets a broken pipe.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "metalwire.cli.main", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=clean_env(),
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == status


def test_output_read_to_the_end_still_exits_0() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "metalwire.cli.main", "config-reference"],
        capture_output=True,
        env=clean_env(),
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[DEFAULT]")
