"""A throwaway PostgreSQL cluster for tests.

``PostgresServer`` runs ``initdb`` into a fresh temporary directory, starts the cluster with
``pg_ctl`` listening on 127.0.0.1 only (plus a unix socket inside that directory), creates
databases on request and hands back SQLAlchemy URLs. ``stop()`` shuts it down and removes
every file it made.

PostgreSQL refuses to run as root. When the tests run as root, the cluster is owned and run
by a system user (``metalwire-pg`` by default, created with ``useradd`` when missing; the
user ``nobody`` when that fails).

Usage::

    with PostgresServer() as pg:
        url = pg.create_database("metalwire")
        # postgresql+psycopg://metalwire:...@127.0.0.1:PORT/metalwire
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from tests.support.helpers import free_port

__all__ = [
    "PostgresError",
    "PostgresServer",
    "chown_tree",
    "ensure_os_user",
    "find_pg_bindir",
    "generated_locale",
    "locale_unavailable",
]

DEFAULT_OS_USER = "metalwire-pg"
LOOPBACK = "127.0.0.1"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")

# Settings for a cluster whose data may be lost at any moment: no durability, so tests
# do not wait on fsync.
FAST_SETTINGS: Mapping[str, str] = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}


class PostgresError(RuntimeError):
    """The cluster could not be made, started, used or stopped."""


def locale_unavailable(locale: str) -> str | None:
    """Why :func:`generated_locale` cannot make ``locale`` (``de_DE``) with PostgreSQL's
    messages in its language, or None."""
    language = locale.partition("_")[0]
    if shutil.which("localedef") is None:
        return "glibc's localedef is not installed"
    if not Path("/usr/share/i18n/locales", locale).exists():
        return f"glibc's source of the {locale} locale is not installed (Debian's locales)"
    if not glob.glob(f"/usr/share/locale/{language}/LC_MESSAGES/postgres*.mo"):
        return f"PostgreSQL's {language} message catalog is not installed"
    return None


@contextlib.contextmanager
def generated_locale(locale: str) -> Iterator[Path]:
    """A directory holding ``<locale>.UTF-8``, for a cluster's ``LOCPATH``: made with
    ``localedef``, so the machine need not have generated it. Outside pytest's private
    temporary tree and readable by all, since the cluster may run as another OS user."""
    with tempfile.TemporaryDirectory(prefix="metalwire-locales-") as name:
        folder = Path(name)
        command = ["localedef", "-i", locale, "-f", "UTF-8", str(folder / f"{locale}.UTF-8")]
        subprocess.run(command, check=True, capture_output=True)
        for path in (folder, *folder.rglob("*")):
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield folder


def find_pg_bindir() -> Path:
    """Find the folder holding ``initdb`` and ``pg_ctl``.

    Looks at ``$METALWIRE_PG_BINDIR``, then ``PATH``, then Debian's
    ``/usr/lib/postgresql/<major>/bin`` (the newest major first).
    """
    configured = os.environ.get("METALWIRE_PG_BINDIR")
    if configured:
        return Path(configured)
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        # Follow symlinks such as /usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb
        # so that pg_ctl finds the matching postgres binary beside it.
        return Path(initdb).resolve().parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
        reverse=True,
    )
    if candidates:
        return Path(candidates[0]).parent
    raise PostgresError(
        "PostgreSQL binaries not found: put initdb and pg_ctl on PATH or set METALWIRE_PG_BINDIR"
    )


@dataclass(frozen=True)
class _OsUser:
    name: str
    uid: int
    gid: int
    home: str


def ensure_os_user(name: str) -> _OsUser:
    """The OS user that runs the cluster: the current one, unless that is root."""
    if os.geteuid() != 0:
        entry = pwd.getpwuid(os.geteuid())
        return _OsUser(entry.pw_name, entry.pw_uid, entry.pw_gid, entry.pw_dir)
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        result = subprocess.run(
            [useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
            capture_output=True,
            text=True,
            check=False,
        )
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            if result.returncode != 0 and name != "nobody":
                return ensure_os_user("nobody")
            raise PostgresError(f"cannot create OS user {name}: {result.stderr.strip()}") from None
    return _OsUser(entry.pw_name, entry.pw_uid, entry.pw_gid, entry.pw_dir)


def chown_tree(path: Path, uid: int, gid: int) -> None:
    os.chown(path, uid, gid)
    for root, dirs, files in os.walk(path):
        for item in (*dirs, *files):
            os.chown(os.path.join(root, item), uid, gid)


class PostgresServer:
    """A PostgreSQL cluster in a temporary directory, on a free port of 127.0.0.1.

    ``user`` and ``password`` name the cluster's superuser, which owns every database
    made by ``create_database``. ``settings`` are extra ``postgresql.conf`` lines (they
    override ``FAST_SETTINGS``). ``port`` 0 picks a free port at start. ``environment`` is
    added to the environment the cluster runs in (e.g. ``LOCPATH`` for a locale of its own).
    """

    def __init__(
        self,
        *,
        user: str = "metalwire",
        password: str | None = None,
        port: int = 0,
        os_user: str = DEFAULT_OS_USER,
        bindir: Path | str | None = None,
        base_dir: Path | str | None = None,
        settings: Mapping[str, str] | None = None,
        environment: Mapping[str, str] | None = None,
        start_timeout: float = 60.0,
    ) -> None:
        if not _IDENTIFIER.match(user):
            raise ValueError(f"invalid PostgreSQL user name: {user!r}")
        self.user = user
        self.password = password if password is not None else secrets.token_hex(12)
        self.host = LOOPBACK
        self._wanted_port = port
        self.port = port
        self._os_user_name = os_user
        self._bindir = Path(bindir) if bindir is not None else None
        self._base_dir = Path(base_dir) if base_dir is not None else None
        self.settings: dict[str, str] = {**FAST_SETTINGS, **(settings or {})}
        self.environment = dict(environment or {})
        self.start_timeout = start_timeout
        self.root: Path | None = None
        self._os_user: _OsUser | None = None
        self._running = False

    # -- paths -------------------------------------------------------------------------

    def _require_root(self) -> Path:
        if self.root is None:
            raise PostgresError("the PostgreSQL server is not started")
        return self.root

    @property
    def data_dir(self) -> Path:
        return self._require_root() / "data"

    @property
    def socket_dir(self) -> Path:
        return self._require_root() / "run"

    @property
    def log_file(self) -> Path:
        return self._require_root() / "postgres.log"

    @property
    def running(self) -> bool:
        return self._running

    # -- lifecycle ---------------------------------------------------------------------

    def _bin(self, name: str) -> str:
        if self._bindir is None:
            self._bindir = find_pg_bindir()
        path = self._bindir / name
        if not path.exists():
            raise PostgresError(f"{path} does not exist")
        return str(path)

    def _run_as_owner(self, args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
        assert self._os_user is not None
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self._require_root()),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PGTZ": "UTC",
            **self.environment,
        }
        kwargs: dict[str, Any] = {}
        if os.geteuid() == 0:
            kwargs = {"user": self._os_user.uid, "group": self._os_user.gid, "extra_groups": []}
        return subprocess.run(
            args,
            cwd=self._require_root(),
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            **kwargs,
        )

    def _check(self, result: subprocess.CompletedProcess[str], what: str) -> None:
        if result.returncode != 0:
            log = ""
            with contextlib.suppress(OSError, PostgresError):
                log = self.log_file.read_text(errors="replace")[-4000:]
            raise PostgresError(
                f"{what} failed (exit {result.returncode}):\n"
                f"{result.stdout}\n{result.stderr}\n{log}"
            )

    def start(self) -> Self:
        """Make the cluster and start it; returns ``self``."""
        if self._running:
            return self
        self._os_user = ensure_os_user(self._os_user_name)
        base = str(self._base_dir) if self._base_dir is not None else None
        self.root = Path(tempfile.mkdtemp(prefix="metalwire-pg-", dir=base))
        try:
            self._init_cluster()
            self._start_cluster()
        except BaseException:
            self._cleanup()
            raise
        return self

    def _init_cluster(self) -> None:
        assert self._os_user is not None
        root = self._require_root()
        root.chmod(0o700)
        self.socket_dir.mkdir(mode=0o700)
        pwfile = root / "pwfile"
        pwfile.write_text(self.password + "\n")
        pwfile.chmod(0o600)
        chown_tree(root, self._os_user.uid, self._os_user.gid)
        result = self._run_as_owner(
            [
                self._bin("initdb"),
                "--pgdata",
                str(self.data_dir),
                "--username",
                self.user,
                "--pwfile",
                str(pwfile),
                "--auth-local",
                "trust",
                "--auth-host",
                "scram-sha-256",
                "--encoding",
                "UTF8",
                "--locale",
                "C",
                "--no-sync",
            ],
            timeout=120,
        )
        pwfile.unlink()
        self._check(result, "initdb")

    def _write_settings(self) -> None:
        lines = [
            "",
            "# written by tests/support/postgres.py",
            f"listen_addresses = '{LOOPBACK}'",
            f"port = {self.port}",
            f"unix_socket_directories = '{self.socket_dir}'",
            "timezone = 'UTC'",
            "log_timezone = 'UTC'",
        ]
        for key, value in self.settings.items():
            escaped = value.replace("'", "''")
            lines.append(f"{key} = '{escaped}'")
        conf = self.data_dir / "postgresql.auto.conf"
        conf.write_text("\n".join(lines) + "\n")
        if self._os_user is not None:
            os.chown(conf, self._os_user.uid, self._os_user.gid)

    def _pg_ctl_start(self) -> subprocess.CompletedProcess[str]:
        return self._run_as_owner(
            [
                self._bin("pg_ctl"),
                "start",
                "--pgdata",
                str(self.data_dir),
                "--log",
                str(self.log_file),
                "--wait",
                "--timeout",
                str(int(self.start_timeout)),
            ],
            timeout=self.start_timeout + 30,
        )

    def _start_cluster(self) -> None:
        attempts = 1 if self._wanted_port else 5
        for attempt in range(attempts):
            self.port = self._wanted_port or free_port()
            self._write_settings()
            result = self._pg_ctl_start()
            if result.returncode == 0:
                self._running = True
                return
            log = ""
            with contextlib.suppress(OSError):
                log = self.log_file.read_text(errors="replace")
            if attempt + 1 < attempts and "could not bind" in log:
                continue
            self._check(result, "pg_ctl start")

    def _fast_shutdown(self) -> subprocess.CompletedProcess[str]:
        return self._run_as_owner(
            [
                self._bin("pg_ctl"),
                "stop",
                "--pgdata",
                str(self.data_dir),
                "--mode",
                "fast",
                "--wait",
                "--timeout",
                "30",
            ],
            timeout=60,
        )

    def stop(self) -> None:
        """Stop the cluster (fast shutdown) and remove its directory. Safe to call twice."""
        if self.root is None:
            return
        if self._running:
            try:
                if self._fast_shutdown().returncode != 0:
                    self._kill_postmaster()
            except subprocess.TimeoutExpired:
                self._kill_postmaster()
            self._running = False
        self._cleanup()

    def pause(self) -> None:
        """Stop the server (fast shutdown: sessions are ended) and keep its data, as an
        outage would; :meth:`resume` starts it again on the same port."""
        self._check(self._fast_shutdown(), "pg_ctl stop")
        self._running = False

    def resume(self) -> None:
        """Start the server paused by :meth:`pause`, with the same data and port."""
        self._check(self._pg_ctl_start(), "pg_ctl start")
        self._running = True

    @property
    def pid(self) -> int | None:
        """The postmaster's process id (its backends are its children); None if not running."""
        with contextlib.suppress(OSError, ValueError, IndexError, PostgresError):
            return int((self.data_dir / "postmaster.pid").read_text().splitlines()[0])
        return None

    def _kill_postmaster(self) -> None:
        pid = self.pid
        if pid is None:
            return
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGQUIT)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                os.kill(pid, 0)
                time.sleep(0.1)
            os.kill(pid, signal.SIGKILL)

    def _cleanup(self) -> None:
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- databases ---------------------------------------------------------------------

    def url(self, database: str, driver: str = "psycopg") -> str:
        """SQLAlchemy URL of ``database``, e.g. ``postgresql+psycopg://u:pw@127.0.0.1:5432/db``.

        An empty ``driver`` gives a plain ``postgresql://`` URL (also a libpq URI).
        """
        scheme = f"postgresql+{driver}" if driver else "postgresql"
        return f"{scheme}://{self.user}:{self.password}@{self.host}:{self.port}/{database}"

    def connect(self, database: str = "postgres") -> Any:
        """A psycopg connection (autocommit) to ``database`` as the superuser."""
        if not self._running:
            raise PostgresError("the PostgreSQL server is not running")
        import psycopg

        return psycopg.connect(
            host=self.host,
            port=self.port,
            user=self.user,
            password=self.password,
            dbname=database,
            connect_timeout=10,
            autocommit=True,
        )

    def execute(self, sql: str, database: str = "postgres") -> None:
        """Run one SQL statement (autocommit)."""
        conn = self.connect(database)
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
        finally:
            conn.close()

    #: What :meth:`activity` counts: the database's transactions, its tables' row writes.
    ACTIVITY = ("xact_commit", "xact_rollback", "tup_inserted", "tup_updated", "tup_deleted")

    def activity(self, database: str, *, end_connections: bool = False) -> dict[str, int]:
        """Transactions of ``database`` and rows written to its tables, as PostgreSQL counts
        them, once every backend has published its counters. A backend publishes them when it
        ends, or within 10 s of going idle: with ``end_connections`` the database's other
        connections are ended (their clients must be ready to open new ones) and the read
        waits for them only; otherwise it waits 11 s. Rows are counted per table, leaving out
        autovacuum's catalog updates the database-wide figures include. The read itself is
        one commit of ``database``."""
        if end_connections:
            self.end_connections(database)
        else:
            time.sleep(11)
        conn = self.connect(database)
        try:
            with conn.cursor() as cur:
                cur.execute(
                    "SELECT d.xact_commit, d.xact_rollback, coalesce(sum(t.n_tup_ins), 0),"
                    " coalesce(sum(t.n_tup_upd), 0), coalesce(sum(t.n_tup_del), 0)"
                    " FROM pg_stat_database d LEFT JOIN pg_stat_user_tables t ON true"
                    " WHERE d.datname = current_database()"
                    " GROUP BY d.xact_commit, d.xact_rollback"
                )
                row = cur.fetchone()
        finally:
            conn.close()
        return dict(zip(self.ACTIVITY, (int(v) for v in row), strict=True))

    def end_connections(self, database: str, timeout: float = 30.0) -> None:
        """End every connection to ``database`` and wait until their backends are gone."""
        conn = self.connect()
        try:
            with conn.cursor() as cur:
                cur.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                    (database,),
                )
                deadline = time.monotonic() + timeout
                while True:
                    cur.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (database,)
                    )
                    row = cur.fetchone()
                    if row is not None and row[0] == 0:
                        return
                    if time.monotonic() > deadline:
                        raise PostgresError(f"connections to {database} did not end")
                    time.sleep(0.05)
        finally:
            conn.close()

    def create_database(self, name: str, driver: str = "psycopg") -> str:
        """Create database ``name`` (UTF8, owned by the superuser); return its URL."""
        if not _IDENTIFIER.match(name):
            raise ValueError(f"invalid database name: {name!r}")
        self.execute(f"CREATE DATABASE \"{name}\" ENCODING 'UTF8' TEMPLATE template0")
        return self.url(name, driver)

    def drop_database(self, name: str) -> None:
        """Drop database ``name`` (closing its connections); no error if it is absent."""
        if not _IDENTIFIER.match(name):
            raise ValueError(f"invalid database name: {name!r}")
        self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
