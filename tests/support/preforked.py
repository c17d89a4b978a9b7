"""Run an installed program as ``subprocess.run`` would, from a process that preloads it.

Each run is a fresh process running the unmodified console script (see
``prefork_server.py``), forked from a server process that has already imported what the
program imports: the OpenStack clients spend about 2 s of CPU importing per run otherwise.
One server per program and environment, per test process, started on first use.
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
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

_SERVER = Path(__file__).with_name("prefork_server.py")


@dataclass
class Completed:
    returncode: int
    stdout: str
    stderr: str


class _Run:
    def __init__(self) -> None:
        self.pid: Future[int] = Future()
        self.returncode: Future[int] = Future()


class PreforkServer:
    """The server process of one program in one environment."""

    def __init__(self, program: str, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-P", str(_SERVER), program],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
            bufsize=1,
        )
        self.runs: dict[int, _Run] = {}
        self.next_id = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._read_answers, daemon=True).start()

    def _read_answers(self) -> None:
        stdout: IO[str] = self.process.stdout  # type: ignore[assignment]
        for line in stdout:
            answer: dict[str, Any] = json.loads(line)
            with self.lock:
                run = self.runs[answer["id"]]
            if "pid" in answer:
                run.pid.set_result(answer["pid"])
            else:
                run.returncode.set_result(answer["returncode"])
        with self.lock:  # the server is gone: nothing more will end
            for run in self.runs.values():
                if not run.returncode.done():
                    run.returncode.set_exception(RuntimeError("the prefork server ended"))

    def run(self, argv: list[str], env: dict[str, str], timeout: float) -> Completed:
        """What ``subprocess.run(argv, env=env, stdin=DEVNULL, capture_output=True,
        text=True, timeout=timeout)`` gives."""
        with tempfile.TemporaryDirectory(prefix="prefork-") as directory:
            out, err = Path(directory, "stdout"), Path(directory, "stderr")
            with self.lock:
                self.next_id += 1
                request_id, run = self.next_id, _Run()
                self.runs[request_id] = run
                request = {"id": request_id, "argv": argv, "env": env}
                assert self.process.stdin is not None
                self.process.stdin.write(
                    json.dumps({**request, "stdout": str(out), "stderr": str(err)}) + "\n"
                )
                self.process.stdin.flush()
            try:
                returncode = run.returncode.result(timeout)
            except TimeoutError:
                os.kill(run.pid.result(5), signal.SIGKILL)
                run.returncode.result(30)
                raise subprocess.TimeoutExpired(argv, timeout) from None
            finally:
                with self.lock:
                    del self.runs[request_id]
            return Completed(returncode, read(out), read(err))


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace") if path.exists() else ""


_servers: dict[tuple[str, tuple[tuple[str, str], ...]], PreforkServer] = {}
_servers_lock = threading.Lock()


def run(argv: list[str], env: dict[str, str], timeout: float) -> Completed:
    """Run ``argv`` (its first item an installed console script) in the environment ``env``."""
    key = (argv[0], tuple(sorted(env.items())))
    with _servers_lock:
        server = _servers.get(key)
        if server is None or server.process.poll() is not None:
            server = _servers[key] = PreforkServer(argv[0], env)
    return server.run(argv, env, timeout)
