"""``scripts/serve`` run from another directory: relative paths name that directory's files.

The script is run as it is in the repository, from a copy of the repository's layout whose
``scripts/bootstrap`` does nothing (the environment running the tests is installed already)
and whose ``.venv/bin/metalwire`` is the metalwire under test.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import metalwire
from tests.cli.conftest import clean_env
from tests.support.server import free_port

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "serve"
pytestmark = pytest.mark.server


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository layout with the real ``scripts/serve`` and stand-ins for the rest."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    shutil.copy2(SCRIPT, root / "scripts" / "serve")
    _executable(root / "scripts" / "bootstrap", "#!/bin/sh\nexit 0\n")
    src = Path(metalwire.__file__).resolve().parents[1]
    _executable(
        root / ".venv" / "bin" / "metalwire",
        f'#!/bin/sh\nPYTHONPATH="{src}" exec "{sys.executable}" -m metalwire.cli.main "$@"\n',
    )
    return root


def _executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


@pytest.fixture
def caller(tmp_path: Path) -> Path:
    """The directory the script is run from, elsewhere than the repository."""
    path = tmp_path / "elsewhere"
    path.mkdir()
    return path


@contextlib.contextmanager
def serving(repo: Path, caller: Path, port: int, *args: str, **env: str) -> Iterator[None]:
    """``repo/scripts/serve ARGS`` run from ``caller``, once it answers on ``port``."""
    proc = subprocess.Popen(
        [str(repo / "scripts" / "serve"), *args],
        cwd=caller,
        env=clean_env(**env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                assert proc.stderr is not None
                pytest.fail(f"scripts/serve exited {proc.returncode}: {proc.stderr.read()}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "scripts/serve did not answer within 60 s"
            time.sleep(0.1)
        yield
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def test_relative_data_dir_and_config_name_the_callers_files(repo: Path, caller: Path) -> None:
    port = free_port()
    (caller / "serve.ini").write_text(f"[api]\nport = {port}\n")
    with serving(repo, caller, port, "--config", "serve.ini", "--data-dir", "reldir"):
        assert (caller / "reldir" / "metalwire.db").is_file()
    assert not (repo / "reldir").exists()


def test_without_arguments_the_database_is_in_the_callers_metalwire_data(
    repo: Path, caller: Path
) -> None:
    port = free_port()
    with serving(repo, caller, port, METALWIRE_API_PORT=str(port)):
        assert (caller / "metalwire-data" / "metalwire.db").is_file()
    assert not (repo / "metalwire-data").exists()


def test_a_relative_metalwire_venv_names_a_directory_of_the_repository(
    repo: Path, caller: Path
) -> None:
    os.rename(repo / ".venv", repo / "other-venv")
    env = clean_env(METALWIRE_VENV="other-venv")
    done = subprocess.run(
        [str(repo / "scripts" / "serve"), "--help"],
        cwd=caller,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "usage: metalwire serve" in done.stdout
