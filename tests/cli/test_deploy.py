"""deploy/: the systemd unit and its environment file, parsed and run as systemd would.

The unit's ExecStartPre and ExecStart run with the environment file's variables (the paths
moved into a temporary directory) and a $NOTIFY_SOCKET of the test's own: the migration says
what it did, and the server sends READY=1 only once it answers requests.
"""

from __future__ import annotations

import configparser
import dataclasses
import errno
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from metalwire.config import SECTIONS, env_name
from tests.auth.conftest import htpasswd_line
from tests.cli.conftest import clean_env, serve_until_exit
from tests.support.server import free_port

pytestmark = pytest.mark.server
DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
INSTALLED = "/opt/metalwire/bin/metalwire"


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # systemd keys keep case
    parser.read(DEPLOY / "metalwire.service")
    return parser


def environment_file() -> dict[str, str]:
    """The variables set by the file, and those its comments offer (``# NAME=value``)."""
    found = {}
    for line in (DEPLOY / "metalwire.env").read_text().splitlines():
        text = line.lstrip("# ").strip()
        name, sep, value = text.partition("=")
        if sep and name.startswith("METALWIRE_") and " " not in name:
            found[name] = value
    return found


def test_the_unit_waits_for_readiness_and_migrates_first() -> None:
    service = unit()["Service"]
    assert service["Type"] == "notify"
    assert service["EnvironmentFile"] == "/etc/metalwire/metalwire.env"
    assert service["ExecStartPre"] == f"{INSTALLED} db upgrade"
    assert service["ExecStart"] == f"{INSTALLED} serve"
    assert unit()["Install"]["WantedBy"] == "multi-user.target"
    assert service["ReadWritePaths"] == environment_file()["METALWIRE_DATA_DIR"]


def test_every_variable_of_the_environment_file_is_an_option() -> None:
    options = {
        env_name(section, field.name)
        for section, cls in SECTIONS.items()
        for field in dataclasses.fields(cls)
    } | {"METALWIRE_DATABASE"}
    assert set(environment_file()) - options == set()


def _command(line: str) -> list[str]:
    program, *args = shlex.split(line)
    assert program == INSTALLED
    return [sys.executable, "-m", "metalwire.cli.main", *args]


def test_the_unit_runs_migrates_and_notifies_readiness_once_it_answers(tmp_path: Path) -> None:
    service = unit()["Service"]
    users = tmp_path / "htpasswd"
    users.write_text(htpasswd_line("ops", "ops-pw") + "\n")
    port = free_port()
    env = clean_env(**environment_file())
    del env["METALWIRE_DATABASE"]  # offered in a comment only
    del env["METALWIRE_KEYSTONE_AUTHTOKEN_AUTH_URL"]
    env.update(
        METALWIRE_DATA_DIR=str(tmp_path / "data"),
        METALWIRE_API_HOST_IP="127.0.0.1",
        METALWIRE_API_PORT=str(port),
        METALWIRE_AUTH_STRATEGY="http_basic",
        METALWIRE_HTTP_BASIC_AUTH_USER_FILE=str(users),
    )
    (tmp_path / "data").mkdir()
    migrated = subprocess.run(
        _command(service["ExecStartPre"]), env=env, capture_output=True, text=True, timeout=120
    )
    assert migrated.returncode == 0, migrated.stderr
    assert migrated.stdout.startswith("schema upgraded from no schema to revision ")

    notify_path = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as notify:
        notify.bind(str(notify_path))
        notify.settimeout(60)
        server = subprocess.Popen(
            _command(service["ExecStart"]),
            env={**env, "NOTIFY_SOCKET": str(notify_path)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            message = notify.recv(4096).decode()
            assert message.splitlines()[0] == "READY=1"
            answer = httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
            assert answer.status_code == 200
        finally:
            server.terminate()
            server.wait(30)


def test_a_busy_port_is_reported_before_serving_with_the_fix(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve_until_exit(tmp_path / "data", "--port", str(port))
    assert done.code == 2
    assert done.stderr.endswith(
        f"metalwire: port {port} on 127.0.0.1 is in use by another process (Errno "
        f"{errno.EADDRINUSE}): stop it (find it with: ss -ltnp 'sport = :{port}') or choose "
        "another port with --port or [api] port\n"
    )
    assert "serving on" not in done.stderr
    assert not (tmp_path / "data" / "metalwire.db").exists()  # stopped before the database
