"""A throwaway PgBouncer in front of a :class:`~tests.support.postgres.PostgresServer`.

PgBouncer (the Debian package, ``scripts/install-pgbouncer``) pools the server's connections
for its clients; in transaction mode each transaction a client runs gets whichever server
connection is free, so what one transaction left on its server connection (a prepared
statement) is not there for the next. It runs as the cluster's OS user, as it refuses root.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.support.helpers import free_port
from tests.support.postgres import (
    DEFAULT_OS_USER,
    LOOPBACK,
    PostgresServer,
    chown_tree,
    ensure_os_user,
)


def find_pgbouncer() -> str | None:
    """The pgbouncer program, or None."""
    return shutil.which("pgbouncer") or next(
        (p for p in ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer") if os.access(p, os.X_OK)), None
    )


class PgBouncer:
    """PgBouncer on a free port of 127.0.0.1, serving ``database`` of ``postgres`` as a
    database of the same name, ``pool_size`` server connections in ``pool_mode``."""

    def __init__(
        self,
        postgres: PostgresServer,
        database: str,
        pool_mode: str = "transaction",
        pool_size: int = 3,
    ) -> None:
        self.postgres = postgres
        self.database = database
        self.pool_mode = pool_mode
        self.pool_size = pool_size
        self.port = free_port()
        self.root: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, driver: str = "psycopg") -> str:
        """SQLAlchemy URL of the database through PgBouncer."""
        pg = self.postgres
        scheme = f"postgresql+{driver}" if driver else "postgresql"
        return f"{scheme}://{pg.user}:{pg.password}@{LOOPBACK}:{self.port}/{self.database}"

    @property
    def log_file(self) -> Path:
        assert self.root is not None
        return self.root / "pgbouncer.log"

    def start(self, timeout: float = 20.0) -> PgBouncer:
        program = find_pgbouncer()
        if program is None:
            raise RuntimeError("pgbouncer is not installed (scripts/install-pgbouncer)")
        pg = self.postgres
        self.root = Path(tempfile.mkdtemp(prefix="metalwire-pgbouncer-"))
        (self.root / "users.txt").write_text(f'"{pg.user}" "{pg.password}"\n')
        (self.root / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"{self.database} = host={LOOPBACK} port={pg.port} dbname={self.database}\n"
            "[pgbouncer]\n"
            f"listen_addr = {LOOPBACK}\n"
            f"listen_port = {self.port}\n"
            "unix_socket_dir =\n"
            "auth_type = plain\n"
            f"auth_file = {self.root / 'users.txt'}\n"
            f"pool_mode = {self.pool_mode}\n"
            f"default_pool_size = {self.pool_size}\n"
            "max_client_conn = 500\n"
            f"logfile = {self.log_file}\n"
            f"pidfile = {self.root / 'pgbouncer.pid'}\n"
        )
        kwargs: dict[str, Any] = {}
        if os.geteuid() == 0:
            user = ensure_os_user(DEFAULT_OS_USER)
            chown_tree(self.root, user.uid, user.gid)
            kwargs = {"user": user.uid, "group": user.gid, "extra_groups": []}
        self.process = subprocess.Popen(
            [program, str(self.root / "pgbouncer.ini")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            **kwargs,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"pgbouncer exited early:\n{self.log()}")
            try:
                socket.create_connection((LOOPBACK, self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"pgbouncer did not listen within {timeout} s:\n{self.log()}")

    def log(self) -> str:
        if self.root is None or not self.log_file.exists():
            return ""
        return self.log_file.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def __enter__(self) -> PgBouncer:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
