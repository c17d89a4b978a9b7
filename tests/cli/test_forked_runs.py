"""The ``metalwire`` program forked from a process that has imported it (how the tests run it,
``tests/support/preforked.py``) behaves as a new interpreter does: the same output and exit
status, its own standard input, and ``metalwire serve`` a process of its own session that
ends on SIGTERM as it would."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml

from metalwire.config import SQLITE_FILE
from metalwire.db import migrations
from metalwire.db.engine import Database
from tests.cli.conftest import clean_env, run_metalwire
from tests.client.util import unique
from tests.support import preforked
from tests.support.helpers import free_port
from tests.support.server import MetalwireServer


def _executed(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "metalwire.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def _same(text: str) -> str:
    """Without what differs from one run to the next: request ids, timings, node UUIDs."""
    text = re.sub(r"req-[0-9a-f-]{36}", "req-...", text)
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "UUID", text)


def test_a_forked_metalwire_prints_and_exits_as_a_new_interpreter_does(
    server: MetalwireServer, tmp_path: Path
) -> None:
    env = clean_env(METALWIRE_URL=server.url)
    node = unique("forked")
    enrol, refused = tmp_path / "enrol.yaml", tmp_path / "refused.yaml"
    enrol.write_text(yaml.safe_dump({"nodes": [{"name": node, "driver": "fake-hardware"}]}))
    refused.write_text(yaml.safe_dump({"nodes": [{"name": unique("x"), "driver": "no-such"}]}))
    # The first run is forked from a process that has imported nothing yet; the next ones
    # from one that has imported what it did.
    created = run_metalwire("create", str(enrol), env=env)
    assert created.code == 0, created
    commands = [
        ("--version",),
        ("node", "show", "no-such-node"),  # 404, on stderr
        ("node", "list", "--no-such-option"),  # refused by the program itself
        ("create", str(refused)),  # refused: nothing is created
        ("node", "show", node, "-f", "json", "-c", "name", "-c", "driver"),
    ]
    for args in commands:
        forked = run_metalwire(*args, env=env)
        code, stdout, stderr = _executed(*args, env=env)
        both = (forked, (code, stdout, stderr))
        assert forked.code == code, both
        assert _same(forked.stdout) == _same(stdout), both
        assert _same(forked.stderr) == _same(stderr), both
    shown = run_metalwire("node", "show", node, "-f", "value", "-c", "driver", env=env)
    assert shown.stdout == "fake-hardware\n"


def test_a_serve_that_cannot_start_says_so_as_a_new_interpreter_does(tmp_path: Path) -> None:
    args = ("serve", "--data-dir", str(tmp_path), "--port", "not-a-port")
    forked = run_metalwire(*args, env=clean_env())
    code, stdout, stderr = _executed(*args, env=clean_env())
    assert (forked.code, forked.stdout, forked.stderr) == (code, stdout, stderr)
    assert code != 0 and "not-a-port" in stderr


def test_a_forked_server_leads_its_session_and_ends_on_sigterm_as_one_executed_does(
    tmp_path: Path,
) -> None:
    # As executed: uvicorn shuts down, then ends the process by the signal it was sent.
    port = free_port()
    argv = [sys.executable, "-m", "metalwire.cli.main", "serve", "--port", str(port)]
    argv += ["--host", "127.0.0.1", "--data-dir", str(tmp_path / "executed")]
    (tmp_path / "executed").mkdir()
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    executed = subprocess.Popen(argv, env=clean_env(), **quiet)  # type: ignore[call-overload]
    try:
        deadline = time.monotonic() + 60
        while executed.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"http://127.0.0.1:{port}/", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
    finally:
        executed.send_signal(signal.SIGTERM)
    status = executed.wait(30)

    with MetalwireServer(tmp_path / "forked") as server:
        assert server.process is not None
        pid = server.process.pid
        assert os.getsid(pid) == pid  # its own session: killpg reaches it and its children
        assert httpx.get(server.url + "/v1/nodes", timeout=10).status_code == 200
        os.killpg(pid, signal.SIGTERM)
        assert server.process.wait(30) == status == -signal.SIGTERM
        assert server.process.poll() == status
    assert "Traceback" not in server.log()


def _with_modules(tmp_path: Path, **modules: str) -> dict[str, str]:
    """The test's environment with a folder of ``modules`` (name: source) on the module path."""
    installed = tmp_path / "site"
    installed.mkdir()
    for name, source in modules.items():
        (installed / f"{name}.py").write_text(source)
    return {**clean_env(), "PYTHONPATH": str(installed)}


def test_what_a_server_imported_is_loaded_for_the_next_run_though_a_signal_ended_it(
    tmp_path: Path,
) -> None:
    # A server never ends by itself, and the signal that stops it runs no ``finally``:
    # its imports are listed while it runs.
    env = _with_modules(
        tmp_path,
        imported_by_the_server="",
        long_running=(
            "import sys, time\n"
            "print('imported_by_the_server' in sys.modules, flush=True)\n"
            "import imported_by_the_server\n"
            "if sys.argv[1:] == ['serve']:\n"
            "    time.sleep(600)\n"
        ),
    )
    program = [sys.executable, "-m", "long_running"]
    first_output = tmp_path / "first.out"
    first = preforked.popen([*program, "serve"], env, first_output, cwd=tmp_path)
    deadline = time.monotonic() + 30
    while "False" not in preforked.read(first_output) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(2.5)  # past its listings at 1 and 2 s
    os.kill(first.pid, signal.SIGTERM)
    assert first.wait(30) == -signal.SIGTERM
    assert preforked.read(first_output) == "False\n"

    assert preforked.run(program, env, timeout=60, cwd=tmp_path).stdout == "True\n"


def test_what_the_server_imported_is_out_of_a_runs_garbage_collections(tmp_path: Path) -> None:
    # A run's collections would otherwise write to every inherited object, copying the
    # server's heap into the run page by page (up to two thirds of a short run's CPU).
    env = _with_modules(
        tmp_path,
        inherited="MARKER = [object()]\n",
        collector_view=(
            "import gc, sys\n"
            "loaded = 'inherited' in sys.modules\n"
            "import inherited\n"
            "collected = any(o is inherited.MARKER for o in gc.get_objects())\n"
            "print(loaded, collected)\n"
        ),
    )
    program = [sys.executable, "-m", "collector_view"]
    assert preforked.run(program, env, timeout=60, cwd=tmp_path).stdout == "False True\n"
    assert preforked.run(program, env, timeout=60, cwd=tmp_path).stdout == "True False\n"


def test_a_server_on_an_empty_data_directory_creates_its_database_at_the_newest_schema(
    tmp_path: Path,
) -> None:
    with MetalwireServer(tmp_path, migrated=False) as server:
        assert httpx.get(server.url + "/v1/nodes", timeout=10).status_code == 200
    database = Database(f"sqlite:///{tmp_path / SQLITE_FILE}")
    try:
        revision = migrations.current_revision(database.engine)
        assert revision is not None and revision == migrations.head_revision(database.engine)
    finally:
        database.dispose()
