"""The process that forks networking-generic-switch's operations, one per interpreter.

A switch operation runs in a process of its own (``generic_switch_worker.py`` says why). A
new interpreter spends about 2 s of CPU importing networking-generic-switch before its first
command; so each metalwire process starts, on its first operation, one worker server per
interpreter (``[ironic_networking] generic_switch_python``) that has imported it once, and
asks it for a forked child per operation over a Unix socket in a private temporary
directory. The server ends when this process does (its standard input closes).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import select
import shutil
import socket
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from metalwire.errors import NetworkError

# run by path: the worker imports nothing of metalwire, so any interpreter with
# networking-generic-switch can run it
WORKER = Path(__file__).with_name("generic_switch_worker.py")

#: How long a worker server may take to import networking-generic-switch.
START_TIMEOUT = 60.0


class WorkerServer:
    """One ``generic_switch_worker.py serve`` process of one interpreter."""

    def __init__(self, python: str) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="metalwire-switch-"))  # mode 0700
        self.socket_path = str(self.directory / "worker.sock")
        try:
            self.process = subprocess.Popen(
                [python, str(WORKER), "serve", self.socket_path],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError:  # not an interpreter, or its #! names none: call() says so
            shutil.rmtree(self.directory, ignore_errors=True)
            raise
        self.error = self._read_ready()

    def _read_ready(self) -> str | None:
        """None once the server is ready, else why it is not."""
        stdout = self.process.stdout
        assert stdout is not None
        readable, _, _ = select.select([stdout], [], [], START_TIMEOUT)
        if not readable:
            self.stop()
            return f"the switch worker did not start within {START_TIMEOUT:g} s"
        line = stdout.readline()  # the server writes its one line whole
        if not line:
            return f"the switch worker ended at its start (status {self.process.wait()})"
        said: dict[str, Any] = json.loads(line)
        return None if "ready" in said else str(said.get("error"))

    @property
    def running(self) -> bool:
        return self.error is None and self.process.poll() is None

    def call(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The answer of a child forked for ``request``; ``TimeoutError`` after ``timeout``
        seconds, ``ConnectionError`` when the server is gone."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(timeout)
            try:
                connection.connect(self.socket_path)
            except FileNotFoundError as error:
                raise ConnectionRefusedError(str(error)) from None
            connection.sendall(json.dumps({**request, "timeout": timeout}).encode())
            connection.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := connection.recv(65536):
                chunks.append(chunk)
        if not chunks:
            raise ConnectionAbortedError("the operation's process ended without an answer")
        answer: dict[str, Any] = json.loads(b"".join(chunks))
        return answer

    def stop(self) -> None:
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()  # the server ends when its input does
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


_servers: dict[str, WorkerServer] = {}
_servers_lock = threading.Lock()


def server_of(python: str) -> WorkerServer:
    """The running worker server of ``python``, started if there is none."""
    with _servers_lock:
        server = _servers.get(python)
        if server is None or not server.running:
            if server is not None:
                server.stop()
            server = _servers[python] = WorkerServer(python)
        return server


def call(python: str, what: str, request: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Run ``request`` (see ``generic_switch_worker.py``) in a process forked by the worker
    server of ``python``. Raises NetworkError, beginning with ``what``, when no answer comes;
    the answer may itself be an ``{"error": ...}``."""
    server = _started(python, what)
    try:
        return _ask(server, what, request, timeout)
    except ConnectionRefusedError:  # the server is gone: one new one
        server.stop()
    try:
        return _ask(_started(python, what), what, request, timeout)
    except ConnectionRefusedError:
        raise NetworkError(f"{what} failed: the switch worker is not running") from None


def _started(python: str, what: str) -> WorkerServer:
    """:func:`server_of`; NetworkError naming ``python`` when it cannot be run."""
    try:
        return server_of(python)
    except OSError as exc:  # not executable, not a program, or its #! names nothing there
        problem = exc.strerror or str(exc)
        raise NetworkError(
            f"{what} failed: the switch worker {python} cannot be run: {problem}"
        ) from None


def _ask(
    server: WorkerServer, what: str, request: dict[str, Any], timeout: float
) -> dict[str, Any]:
    if server.error is not None:
        raise NetworkError(f"{what} failed: {server.error}")
    try:
        return server.call(request, timeout)
    except TimeoutError:
        raise NetworkError(f"{what} got no answer within {timeout:g} s") from None
    except ConnectionAbortedError as error:
        raise NetworkError(f"{what} failed: {error}") from None


@atexit.register
def stop_all() -> None:
    """Stop every worker server this process started (at its exit too, unless a signal ends
    it, as uvicorn's re-raised SIGTERM ends ``metalwire serve``: the servers then end on
    their closed input, or on the same SIGTERM sent to the whole process group)."""
    with _servers_lock:
        for server in _servers.values():
            server.stop()
        _servers.clear()
