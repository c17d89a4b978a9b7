"""Runs a real ``metalwire serve`` process on a free loopback port for tests."""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import uvicorn

from metalwire.config import SQLITE_FILE, load_config
from metalwire.db import migrations
from metalwire.db.engine import Database
from tests.support import preforked
from tests.support.helpers import HTTP_SERVER, free_port


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (valid one day) and its key, written by openssl."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@contextlib.contextmanager
def noauth_https_server(root: Path) -> Iterator[tuple[str, Path]]:
    """A metalwire over HTTPS (a self-signed certificate) without authentication, in
    ``root``: its URL and the certificate, which a client takes as its CA."""
    tls = self_signed_certificate(root)
    with MetalwireServer(root / "data", tls=tls) as server:
        yield server.url, tls[0]


@functools.cache
def migrated_sqlite_file() -> Path:
    """An SQLite file at the newest schema, made once per process (removed at its exit), to
    copy instead of migrating anew (about 0.35 s of CPU each time)."""
    data_dir = Path(tempfile.mkdtemp(prefix="metalwire-template-"))
    atexit.register(shutil.rmtree, data_dir, True)
    config = load_config(environ={}, overrides={("DEFAULT", "data_dir"): str(data_dir)})
    db = Database(config.database_url())
    migrations.upgrade(db.engine)
    db.dispose()
    return data_dir / SQLITE_FILE


class MetalwireServer:
    """``with MetalwireServer(data_dir) as server: server.url`` — a real server process.

    ``database`` overrides the SQLite file; ``env`` adds METALWIRE_* settings; ``config`` is
    an INI file passed with ``--config``; ``tls`` (certificate, key) serves HTTPS; ``args``
    are more ``metalwire serve`` arguments. A data directory without an SQLite file gets a
    copy of a migrated one (the server finds its schema current) unless ``migrated`` is
    false: then the server creates and migrates it, as on its first start.
    """

    def __init__(
        self,
        data_dir: Path,
        database: str | None = None,
        env: dict[str, str] | None = None,
        port: int | None = None,
        config: Path | None = None,
        tls: tuple[Path, Path] | None = None,
        args: list[str] | None = None,
        migrated: bool = True,
    ) -> None:
        self.args = args or []
        self.migrated = migrated
        self.config = config
        self.tls = tls
        self.data_dir = data_dir
        self.database = database
        self.env = env or {}
        self.port = port or free_port()
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.log_path = data_dir / f"server-{self.port}.log"
        self.process: preforked.PreforkedProcess | None = None

    def start(self, timeout: float = 30.0) -> MetalwireServer:
        self.start_process()
        return self.wait_ready(timeout)

    def start_process(self) -> None:
        """Start ``metalwire serve`` without waiting for it to answer."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        database_file = self.data_dir / SQLITE_FILE
        if self.migrated and self.database is None and not database_file.exists():
            shutil.copyfile(migrated_sqlite_file(), database_file)
        args = [
            sys.executable,
            "-m",
            "metalwire.cli.main",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
        ]
        if self.database:
            args += ["--database", self.database]
        if self.config:
            args += ["--config", str(self.config)]
        args += self.args
        env = {k: v for k, v in os.environ.items() if not k.startswith("METALWIRE_")}
        env["METALWIRE_DEPLOY_HTTP_URL"] = HTTP_SERVER  # as a deployment booting with iPXE
        env.update(self.env)
        if self.tls:
            env["METALWIRE_API_ENABLE_SSL_API"] = "true"
            env["METALWIRE_SSL_CERT_FILE"], env["METALWIRE_SSL_KEY_FILE"] = map(str, self.tls)
        # The real program, forked from a process that has imported it (preforked.py).
        self.process = preforked.popen(args, env, self.log_path, append=True, session=True)

    def wait_ready(self, timeout: float = 30.0) -> MetalwireServer:
        """Wait until the started server answers ``GET /``."""
        assert self.process is not None
        deadline = time.monotonic() + timeout
        # One client for every try: each new one loads the CA certificates again (~40 ms).
        verify = ssl.create_default_context(cafile=str(self.tls[0])) if self.tls else False
        with httpx.Client(timeout=1.0, verify=verify) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"metalwire serve exited early:\n{self.log()}")
                try:
                    if client.get(self.url + "/").status_code == 200:
                        return self
                except httpx.TransportError:
                    time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"metalwire serve did not answer within {timeout} s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill(self) -> None:
        """SIGKILL, as a crash would: no lock is released."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()

    def __enter__(self) -> MetalwireServer:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


async def _ok(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


@contextlib.contextmanager
def protocol_server(http: type[Any], **options: Any) -> Iterator[int]:
    """uvicorn in a thread with the protocol class ``http`` (``uvicorn.Config`` ``options``),
    serving a plain 200 to every request; yields its port."""
    config = uvicorn.Config(
        _ok,
        host="127.0.0.1",
        port=free_port(),
        http=http,
        lifespan="off",
        log_config=None,
        **options,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        yield config.port
    finally:
        server.should_exit = True
        thread.join(10)
