"""The process that forks networking-generic-switch's operations, one per interpreter.

A switch operation runs in a process of its own (``generic_switch_worker.py`` says why). A
new interpreter spends about 2 s of CPU importing networking-generic-switch before its first
command; so each metalwire process starts, on its first operation, one worker server per
interpreter (``[ironic_networking] generic_switch_python``) that has imported it once, and
asks it for a forked child per operation over a Unix socket in a private temporary
directory. The server ends when this process does (its standard input closes).

A server killed with its metalwire process (SIGKILL to the whole group) cannot remove its
directory; the first server a metalwire process starts removes such directories of the same
user (:func:`remove_abandoned`): those whose socket nobody listens on any more.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from metalwire.errors import NetworkError

# run by path: the worker imports nothing of metalwire, so any interpreter with
# networking-generic-switch can run it
WORKER = Path(__file__).with_name("generic_switch_worker.py")

#: How long a worker server may take to import networking-generic-switch.
START_TIMEOUT = 60.0
#: The prefix of a worker server's directory in the temporary directory.
DIRECTORY_PREFIX = "metalwire-switch-"
#: A socket this many seconds old that refuses connections belongs to no server: far more
#: than a server's bind() takes to its listen().
ABANDONED_AFTER = 10.0

LOG = logging.getLogger(__name__)


class WorkerServer:
    """One ``generic_switch_worker.py serve`` process of one interpreter."""

    def __init__(self, python: str) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix=DIRECTORY_PREFIX))  # mode 0700
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


def remove_abandoned(under: Path, now: float | None = None) -> list[Path]:
    """Remove the worker server directories under ``under`` that this user owns and whose
    server is gone: its socket, older than :data:`ABANDONED_AFTER`, refuses connections, or
    it has none long after a server's start would have made it (killed while it started);
    the directories removed. One still starting or serving is left."""
    now = time.time() if now is None else now
    removed = []
    for directory in under.glob(f"{DIRECTORY_PREFIX}*"):
        sock = directory / "worker.sock"
        try:
            made = directory.lstat()
            if made.st_uid != os.getuid():
                continue
            bound = sock.lstat().st_mtime if sock.exists() else None
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if bound is None:
            if now - made.st_mtime < START_TIMEOUT + ABANDONED_AFTER:
                continue  # its server may still be starting
        elif now - bound < ABANDONED_AFTER or _listened_on(str(sock)):
            continue
        shutil.rmtree(directory, ignore_errors=True)
        LOG.info("Removed %s, left by a switch worker server that was killed", directory)
        removed.append(directory)
    return removed


def _listened_on(path: str) -> bool:
    """Whether a server listens on the Unix socket ``path``: a connection made and closed
    at once, which the worker server takes for no request."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(path)
        except ConnectionRefusedError:
            return False
        except OSError:  # not ours to judge (a full backlog, permissions): left alone
            return True
        return True


_servers: dict[str, WorkerServer] = {}
_servers_lock = threading.Lock()
_swept = False


def server_of(python: str) -> WorkerServer:
    """The running worker server of ``python``, started if there is none (the first one
    of this process removes what killed servers left, :func:`remove_abandoned`)."""
    global _swept
    with _servers_lock:
        if not _swept:
            _swept = True
            with contextlib.suppress(OSError):
                remove_abandoned(Path(tempfile.gettempdir()))
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
