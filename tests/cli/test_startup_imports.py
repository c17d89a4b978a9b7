"""A client command starts without the server side: it imports the client library and
argparse-level code only, never SQLAlchemy, FastAPI or metalwire's API, conductor or db."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.cli.conftest import clean_env
from tests.support.server import free_port

# Top-level packages of the server's stack, and metalwire's server-side modules.
SERVER_PACKAGES = ("sqlalchemy", "fastapi", "starlette", "pydantic", "alembic", "uvicorn")
SERVER_MODULES = (
    "metalwire.api",
    "metalwire.conductor",
    "metalwire.networking",
    "metalwire.db",
    "metalwire.services",
    "metalwire.config",
)


def imported_modules(*args: str) -> tuple[int, str, list[str]]:
    """Run the real program under ``-X importtime``: its exit status, stdout and imports."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "metalwire.cli.main", *args],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    # Each import is a line "import time: SELF | CUMULATIVE | <indent>module".
    modules = [
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    ]
    return done.returncode, done.stdout, modules


def server_side(modules: list[str]) -> list[str]:
    return [
        m
        for m in modules
        if m.split(".")[0] in SERVER_PACKAGES
        or any(m == s or m.startswith(s + ".") for s in SERVER_MODULES)
    ]


def test_node_list_help_imports_no_server_module() -> None:
    code, out, modules = imported_modules("node", "list", "--help")
    assert code == 0
    assert out.startswith("usage: metalwire node list")
    assert "metalwire.client.client" in modules  # the probe sees the program's imports
    assert server_side(modules) == []


@pytest.mark.parametrize(
    "command",
    [["--help"], ["port", "create", "--help"], ["node", "vif", "attach", "--help"]],
    ids=" ".join,
)
def test_help_of_any_command_imports_no_server_module(command: list[str]) -> None:
    code, _, modules = imported_modules(*command)
    assert code == 0
    assert server_side(modules) == []


def test_a_client_command_that_runs_imports_no_server_module() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens: the command fails to connect
    code, _, modules = imported_modules("node", "list", "--url", url, "--max-retries", "0")
    assert code == 1
    assert "httpx" in modules
    assert server_side(modules) == []


def test_server_commands_still_import_the_server_side_when_run() -> None:
    code, out, modules = imported_modules("config-reference")
    assert code == 0
    assert "[database]" in out
    assert "metalwire.config" in modules
