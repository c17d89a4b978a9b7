"""Small process helpers shared by the benchmark launchers (loopback only)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

LOOPBACK = "127.0.0.1"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        port: int = sock.getsockname()[1]
        return port


def tail(path: Path, lines: int = 20) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


@dataclass
class Process:
    """A server process started in its own process group, stopped by its pid."""

    name: str
    argv: list[str]
    log_path: Path
    url: str
    cwd: Path | None = None
    env: dict[str, str] | None = None
    popen: subprocess.Popen[bytes] | None = field(default=None, init=False)

    @property
    def pid(self) -> int | None:
        return self.popen.pid if self.popen is not None else None

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as out:
            self.popen = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.cwd,
                env=self.env,
                start_new_session=True,
            )

    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def wait_ready(self, timeout: float = 60.0, path: str = "/") -> None:
        """Wait until GET <url><path> answers 200; raise RuntimeError otherwise."""
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            if not self.running():
                code = self.popen.returncode if self.popen is not None else None
                raise RuntimeError(
                    f"{self.name} exited with code {code} before answering; "
                    f"log {self.log_path}:\n{tail(self.log_path)}"
                )
            try:
                resp = httpx.get(self.url + path, timeout=2.0)
                if resp.status_code == 200:
                    return
                last = f"HTTP {resp.status_code}"
            except httpx.HTTPError as exc:
                last = type(exc).__name__
            time.sleep(0.2)
        raise RuntimeError(
            f"{self.name} did not answer GET {path} within {timeout:.0f} s ({last}); "
            f"log {self.log_path}:\n{tail(self.log_path)}"
        )

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM the process group led by our pid, then SIGKILL it if needed."""
        popen = self.popen
        if popen is None:
            return
        pgid = popen.pid
        if popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGTERM)
            try:
                popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pgid, signal.SIGKILL)
                popen.wait(timeout=5)
        # Children of a forking server may outlive the leader for a moment.
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
        self.popen = None
