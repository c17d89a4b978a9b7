"""Run a program as ``subprocess`` would, from a process that has already imported it.

Each run is a fresh process running the unmodified program (a console script, or a module as
``python -m`` runs it; see ``prefork_server.py``), forked from a server process that has
already imported what the program imports: the OpenStack clients spend about 2 s of CPU
importing per run otherwise, ``metalwire serve`` about 1.5 s. One server per program,
working directory and environment, per test process, started on first use (a module may read
the directory or the environment when imported). Settings that no module reads when imported
(``METALWIRE_*``, ``OS_*``, pytest's current test) do not make another server: each run takes
its whole environment anyway.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

_SERVER = Path(__file__).with_name("prefork_server.py")
# Read when a program runs, never when its modules are imported (metalwire, openstacksdk,
# keystoneauth, osc-lib, ironicclient).
_NOT_READ_AT_IMPORT = ("METALWIRE_", "OS_", "PYTEST_CURRENT_TEST")


@dataclass
class Completed:
    returncode: int
    stdout: str
    stderr: str


class PreforkedProcess:
    """A running program the prefork server forked: what tests use of ``subprocess.Popen``
    (``pid``, ``poll``, ``wait``, ``returncode``). It is the server's child, not the test's:
    its exit status comes from the server."""

    def __init__(self, args: list[str]) -> None:
        self.args = args
        self._pid: Future[int] = Future()
        self._returncode: Future[int] = Future()

    @property
    def pid(self) -> int:
        return self._pid.result(30)

    @property
    def returncode(self) -> int | None:
        return self.poll()

    def poll(self) -> int | None:
        return self._returncode.result() if self._returncode.done() else None

    def wait(self, timeout: float | None = None) -> int:
        try:
            return self._returncode.result(timeout)
        except FutureTimeout:
            raise subprocess.TimeoutExpired(self.args, timeout or 0) from None


class PreforkServer:
    """The server process of one program in one working directory and environment."""

    def __init__(self, program: list[str], env: dict[str, str], cwd: str) -> None:
        # Where its children list the modules they imported: in this process's temporary
        # directory, not in one the program's environment names.
        listed = tempfile.mkdtemp(prefix="prefork-")
        self.process = subprocess.Popen(
            [sys.executable, "-P", str(_SERVER), listed, *program],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd=cwd,
            text=True,
            bufsize=1,
        )
        self.cwd = cwd
        self.runs: dict[int, PreforkedProcess] = {}
        self.next_id = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._read_answers, daemon=True).start()

    def _read_answers(self) -> None:
        stdout: IO[str] = self.process.stdout  # type: ignore[assignment]
        for line in stdout:
            answer: dict[str, Any] = json.loads(line)
            with self.lock:
                run = self.runs[answer["id"]]
                if "returncode" in answer:
                    del self.runs[answer["id"]]
            if "pid" in answer:
                run._pid.set_result(answer["pid"])
            else:
                run._returncode.set_result(answer["returncode"])
        with self.lock:  # the server is gone: nothing more will end
            for run in self.runs.values():
                for future in (run._pid, run._returncode):
                    if not future.done():
                        future.set_exception(RuntimeError("the prefork server ended"))

    def start(self, argv: list[str], env: dict[str, str], **files: Any) -> PreforkedProcess:
        """Fork a run of the program; ``files`` are the request's ``stdout``, ``stderr`` and
        optional ``append`` and ``session`` (see prefork_server.py)."""
        with self.lock:
            self.next_id += 1
            request_id, run = self.next_id, PreforkedProcess(argv)
            self.runs[request_id] = run
            request = {"id": request_id, "argv": argv, "env": env, "cwd": self.cwd, **files}
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        return run


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace") if path.exists() else ""


_servers: dict[tuple[tuple[str, ...], str, tuple[tuple[str, str], ...]], PreforkServer] = {}
_servers_lock = threading.Lock()


def _server(program: list[str], env: dict[str, str], cwd: Path | None) -> PreforkServer:
    """The server for runs in ``env`` and ``cwd`` (this process's by default). A module may
    read either when imported (openstacksdk's configuration search path starts with the
    working directory), so the server imports in the same ones."""
    imported_with = {k: v for k, v in env.items() if not k.startswith(_NOT_READ_AT_IMPORT)}
    directory = str(cwd or os.getcwd())
    key = (tuple(program), directory, tuple(sorted(imported_with.items())))
    with _servers_lock:
        server = _servers.get(key)
        if server is None or server.process.poll() is not None:
            server = _servers[key] = PreforkServer(program, imported_with, directory)
    return server


def program_of(argv: list[str]) -> tuple[list[str], list[str]]:
    """The program (``["-m", module]`` or a console script's path) and its ``sys.argv``."""
    if argv[0] == sys.executable and argv[1:2] == ["-m"]:
        return argv[1:3], argv[2:]  # ``python -m`` makes the module's path argv[0]
    return [argv[0]], argv


def popen(
    argv: list[str],
    env: dict[str, str],
    output: Path,
    *,
    append: bool = False,
    session: bool = False,
    cwd: Path | None = None,
) -> PreforkedProcess:
    """``subprocess.Popen(argv, env=env, cwd=cwd, stdin=DEVNULL, stdout=output,
    stderr=STDOUT, start_new_session=session)``, the output file opened to append if
    ``append``. ``argv`` is a console script's path or ``sys.executable, "-m", module``, and
    its arguments."""
    program, argv = program_of(argv)
    files = {"stdout": str(output), "stderr": str(output), "append": append, "session": session}
    return _server(program, env, cwd).start(argv, env, **files)


def run(argv: list[str], env: dict[str, str], timeout: float, cwd: Path | None = None) -> Completed:
    """What ``subprocess.run(argv, env=env, cwd=cwd, stdin=DEVNULL, capture_output=True,
    text=True, timeout=timeout)`` gives."""
    program, argv = program_of(argv)
    with tempfile.TemporaryDirectory(prefix="prefork-") as directory:
        out, err = Path(directory, "stdout"), Path(directory, "stderr")
        files = {"stdout": str(out), "stderr": str(err)}
        run = _server(program, env, cwd).start(argv, env, **files)
        try:
            returncode = run.wait(timeout)
        except subprocess.TimeoutExpired:
            os.kill(run.pid, signal.SIGKILL)
            run.wait(30)
            raise
        return Completed(returncode, read(out), read(err))
