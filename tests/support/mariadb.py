"""A throwaway MariaDB server for tests.

``MariaDBServer`` initialises a data directory in a fresh temporary folder with
``mariadb-install-db``, starts ``mariadbd`` on a free port of 127.0.0.1 (as the ``mysql``
system user when run as root), creates databases on request and hands back SQLAlchemy URLs.
``stop()`` shuts it down and removes every file it made. The binaries come from Debian's
``mariadb-server`` package (``scripts/install-mariadb``).

Usage::

    with MariaDBServer() as server:
        url = server.create_database("metalwire")
        # mysql+pymysql://root@127.0.0.1:PORT/metalwire
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, Self

import pymysql

from tests.support.helpers import free_port, stop_process_group

MARIADBD = "/usr/sbin/mariadbd"
# The test servers offer no TLS. Unless told so, PyMySQL prepares a TLS context for every
# connection in case the server offers it, loading the system's CA certificates each time
# (tens of milliseconds of CPU per connection, most of a MariaDB test's own CPU). The
# connections are the same either way: plain TCP to 127.0.0.1.


def root_connection(port: int, **options: Any) -> pymysql.Connection[Any]:
    """A connection as root to the test server on ``port`` of 127.0.0.1, without TLS."""
    return pymysql.connect(host="127.0.0.1", port=port, user="root", ssl_disabled=True, **options)


def root_url(port: int, database: str) -> str:
    """metalwire's URL of ``database`` on the test server on ``port``, without TLS."""
    return f"mysql+pymysql://root@127.0.0.1:{port}/{database}?ssl_disabled=true"


def create_database_on(port: int, name: str) -> None:
    """Create database ``name`` (utf8mb4) on the test server on ``port``."""
    with root_connection(port) as conn:
        with conn.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
        conn.commit()


class MariaDBError(RuntimeError):
    """The server could not be made, started or stopped."""


def available() -> bool:
    return Path(MARIADBD).exists() and shutil.which("mariadb-install-db") is not None


class MariaDBServer:
    """``durable``: every commit flushed to disk (InnoDB's default), as a production server
    runs; the tests' servers write the log once a second instead."""

    def __init__(self, start_timeout: float = 60.0, durable: bool = False) -> None:
        self.durable = durable
        self.port = 0
        self.root: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.start_timeout = start_timeout

    def _owner(self) -> tuple[int, int] | None:
        if os.geteuid() != 0:
            return None
        entry = pwd.getpwnam("mysql")
        return entry.pw_uid, entry.pw_gid

    def start(self) -> Self:
        if not available():
            raise MariaDBError("mariadb-server is not installed (run scripts/install-mariadb)")
        self.root = Path(tempfile.mkdtemp(prefix="metalwire-mariadb-"))
        owner = self._owner()
        if owner is not None:
            os.chown(self.root, *owner)
        user_args = ["--user=mysql"] if owner is not None else []
        installed = subprocess.run(
            [
                "mariadb-install-db",
                "--no-defaults",
                *user_args,
                f"--datadir={self.root}/data",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
            capture_output=True,
            timeout=120,
        )
        if installed.returncode != 0:  # what it said, not only its status
            said = (installed.stdout + installed.stderr).decode(errors="replace")
            shutil.rmtree(self.root, ignore_errors=True)
            raise MariaDBError(f"mariadb-install-db exited {installed.returncode}:\n{said}")
        self.port = free_port()
        with (self.root / "server.log").open("ab") as log:
            self.process = self._spawn(log, user_args)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise MariaDBError(f"mariadbd exited early:\n{self.log()}")
            try:
                root_connection(self.port).close()
                return self
            except pymysql.err.OperationalError:
                time.sleep(0.2)
        self.stop()
        raise MariaDBError(f"mariadbd did not answer within {self.start_timeout} s")

    def _spawn(self, log: BinaryIO, user_args: list[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                MARIADBD,
                "--no-defaults",
                *user_args,
                f"--datadir={self.root}/data",
                f"--port={self.port}",
                "--bind-address=127.0.0.1",
                f"--socket={self.root}/sock",
                f"--pid-file={self.root}/pid",
                "--skip-log-bin",
                "--innodb-buffer-pool-size=64M",
                f"--innodb-flush-log-at-trx-commit={1 if self.durable else 0}",
                "--max-connections=500",
                "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_general_ci",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def drop_database(self, name: str) -> None:
        with root_connection(self.port) as conn, conn.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")

    def log(self) -> str:
        if self.root is None:
            return ""
        path = self.root / "server.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def url(self, database: str) -> str:
        return root_url(self.port, database)

    def create_database(self, name: str) -> str:
        create_database_on(self.port, name)
        return self.url(name)

    def stop(self) -> None:
        stop_process_group(self.process, 30)
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
