from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from metalwire.client import Client
from tests.support import preforked
from tests.support.server import MetalwireServer


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


Run = Callable[..., Result]


def clean_env(**extra: str) -> dict[str, str]:
    """The test's environment without endpoint settings, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("METALWIRE_", "OS_"))}
    env.update(extra)
    return env


def run_metalwire(*args: str, env: dict[str, str]) -> Result:
    """Run the real ``metalwire`` program (``python -m metalwire.cli.main``), forked from a
    process that has imported it (``tests/support/preforked.py``)."""
    argv = [sys.executable, "-m", "metalwire.cli.main", *args]
    done = preforked.run(argv, env, 120)
    return Result(done.returncode, done.stdout, done.stderr)


def serve_until_exit(data_dir: Path, *args: str) -> Result:
    """``metalwire serve`` expected to refuse to start: its exit status and output."""
    argv = [sys.executable, "-m", "metalwire.cli.main", "serve", "--data-dir", str(data_dir)]
    done = preforked.run([*argv, *args], clean_env(), 60)
    return Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def cli(server: MetalwireServer) -> Run:
    """``cli("node", "list")`` runs the program against the session's server."""

    def run(*args: str, **env: str) -> Result:
        return run_metalwire(*args, env=clean_env(METALWIRE_URL=server.url, **env))

    return run


@pytest.fixture
def mw(server: MetalwireServer) -> Iterator[Client]:
    with Client(server.url) as c:
        yield c
