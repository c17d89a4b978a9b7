"""``metalwire serve`` with ``[api] api_workers`` above 1: one port, several server processes.

The process started is the supervisor. It checks the setup (the port free among it) and
upgrades the schema as a single server does (``server.run_serve``), then starts the workers:
fresh interpreters (``spawn``) given the configuration it read, each a complete server (API,
conductor, network interfaces) on its own event loop and database connections. The
supervisor serves nothing itself.

Each worker listens on a socket of its own, bound to the port with ``SO_REUSEPORT``, and the
kernel spreads new connections over the workers listening (by a hash of the client's address
and port). With one socket shared by all, the worker that woke first took every connection
waiting, and clients keep theirs open: 32 connections opened together all went to one of two
workers, which answered them from then on while the other idled. A worker that dies takes
with it the connections waiting on its socket, not yet accepted, as well as its own; the
next connections go to the others until it is started again.

- SIGTERM or SIGINT: each worker stops accepting (its socket closed), finishes its requests
  and its background provision steps
  (``[DEFAULT] graceful_shutdown_timeout``) and exits; one that has not within
  :data:`STOP_WAIT` seconds more is killed.
- SIGHUP: each worker reloads its files (policy, logging configuration), as a single server
  does, and so does the supervisor's logging. A worker that is still starting blocks the
  signal until it can reload (it would otherwise end the process).
- A worker that dies is started again, and the supervisor logs how it ended. One that keeps
  failing to start (ending before it tells the supervisor it serves, however long its start
  took, or within :data:`START_GRACE` seconds of serving) is started again after a growing
  delay, up to :data:`MAX_RESTART_DELAY`, while the others serve; when every worker has
  failed :data:`FAILED_STARTS` starts in a row, nothing serves and the supervisor stops with
  the last worker's exit status.
- A worker whose supervisor is gone (killed with SIGKILL) stops by itself.

What the workers share besides the database lives in a directory the supervisor makes
and removes: their Prometheus metrics (``api/metrics.py``) and the latest drift audit,
which the first worker runs periodically for all (``conductor/audit_runner.py``). The
supervisor holds a lock on a file in it while it runs; a supervisor that starts removes the
directories no running supervisor holds (left by one that was killed with SIGKILL).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import logging
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from metalwire import config as config_module

LOG = logging.getLogger("metalwire")

#: Seconds a stopping worker has to finish its requests and its periodic jobs' last runs
#: (10 s at most, counted together, from the end of its background provision steps), beyond
#: the ``[DEFAULT] graceful_shutdown_timeout`` those steps have, before it is killed (with
#: the default 60 s, below the 90 s systemd gives deploy/metalwire.service).
STOP_WAIT = 25.0
#: A worker that ends within this many seconds of serving failed to start.
START_GRACE = 10.0
#: Failed starts in a row, of every worker, after which the supervisor gives up.
FAILED_STARTS = 3
#: Seconds before a worker that ended is started again, doubled after each failed start.
RESTART_DELAY = 1.0
MAX_RESTART_DELAY = 30.0
#: The shared directories' names start with this, in the temporary directory (TMPDIR).
SHARED_DIR_PREFIX = "metalwire-workers-"
#: ... and start with this while it is made, until its supervisor holds its lock.
STAGING_PREFIX = "metalwire-starting-"
#: The file of a shared directory its supervisor holds locked (flock) while it runs.
OWNER_LOCK = "supervisor.lock"


@dataclass
class _Worker:
    """One worker's place: its process (None while waiting to start again), and the pipe on
    which that process says it serves (closed unread if it ends before)."""

    index: int
    process: BaseProcess | None = None
    started: float = field(default_factory=time.monotonic)
    serving_since: float | None = None
    ready: Connection | None = None
    failed_starts: int = 0
    restart_at: float = 0.0

    def start_failed(self, now: float) -> bool:
        """Whether the process that has just ended failed to start."""
        return self.serving_since is None or now - self.serving_since < START_GRACE


class Supervisor:
    """Starts, restarts and stops the worker processes of one server."""

    def __init__(
        self,
        args: argparse.Namespace,
        conf: config_module.Config,
        shared_dir: Path,
    ) -> None:
        self.args = args
        self.conf = conf
        self.shared_dir = shared_dir
        self.context = multiprocessing.get_context("spawn")
        self.workers = [_Worker(index) for index in range(conf.api.api_workers)]
        self.stopping = False
        self.last_status = 1

    def start(self, worker: _Worker) -> None:
        ready, tell_ready = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=run_worker,
            args=(
                self.args,
                self.conf,
                worker.index,
                self.shared_dir,
                os.getpid(),
                tell_ready,
            ),
            name=f"metalwire-worker-{worker.index}",
        )
        # The worker inherits SIGHUP blocked and unblocks it once it can reload its files.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
        try:
            process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP})
            tell_ready.close()  # the worker's copy is the only one: it ending closes the pipe
        worker.process, worker.started = process, time.monotonic()
        worker.ready, worker.serving_since = ready, None
        LOG.info("worker %d started (pid %s)", worker.index, process.pid)

    def run(self) -> int:
        """Serve until asked to stop or nothing can serve; the exit status."""
        for worker in self.workers:
            self.start(worker)
        while not self.stopping:
            running = {w.process.sentinel: w for w in self.workers if w.process is not None}
            starting = {w.ready: w for w in self.workers if w.ready is not None}
            for ready in wait([*running, *starting], timeout=0.2):
                if ready in starting:
                    self._read_ready(starting[ready])
                else:
                    self._ended(running[cast(int, ready)])
            if all(w.failed_starts >= FAILED_STARTS for w in self.workers):
                LOG.error(
                    "every worker failed %d starts in a row: stopping (the lines above say why)",
                    FAILED_STARTS,
                )
                self.stop()
                return self.last_status
            now = time.monotonic()
            for worker in self.workers:
                if worker.process is None and now >= worker.restart_at and not self.stopping:
                    self.start(worker)
        self.stop()
        return 0

    @staticmethod
    def _read_ready(worker: _Worker) -> None:
        """Note whether the worker said it serves (its end closes the pipe unsaid), and close
        the pipe: it says nothing more. Nothing to do once closed (the worker ended meanwhile)."""
        if worker.ready is None:
            return
        if worker.ready.poll():
            with contextlib.suppress(EOFError):
                worker.ready.recv_bytes()
                worker.serving_since = time.monotonic()
        worker.ready.close()
        worker.ready = None

    def _ended(self, worker: _Worker) -> None:
        """Note how a worker ended and when to start another in its place."""
        assert worker.process is not None
        worker.process.join()
        self._read_ready(worker)  # it may have said it serves just before it ended
        now = time.monotonic()
        lived = now - worker.started
        pid, status = worker.process.pid, worker.process.exitcode
        worker.process = None
        if self.stopping:
            return
        worker.failed_starts = worker.failed_starts + 1 if worker.start_failed(now) else 0
        delay = min(MAX_RESTART_DELAY, RESTART_DELAY * 2 ** max(0, worker.failed_starts - 1))
        worker.restart_at = time.monotonic() + delay
        if status is not None and status > 0:
            self.last_status = status
        LOG.error(
            "worker %d (pid %s) ended with %s after %.1f s; starting another in %g s",
            worker.index,
            pid,
            _how_it_ended(status),
            lived,
            delay,
        )

    def ask_to_stop(self, _signum: int, _frame: FrameType | None) -> None:
        self.stopping = True

    def reload(self, _signum: int, _frame: FrameType | None) -> None:
        from metalwire.cli import server

        if self.conf.default.log_config_append:  # a rotated log file is opened again
            with contextlib.suppress(Exception):  # the workers' reloads say what is wrong
                server.configure_logging(self.conf, self.args.log_level)
        for worker in self.workers:
            if worker.process is not None:
                _signal(worker.process, signal.SIGHUP)

    def stop(self) -> None:
        """Each worker finishes its requests and background steps; one still running
        after STOP_WAIT plus ``graceful_shutdown_timeout`` (none if that is 0) is killed."""
        self.stopping = True
        started = [w for w in self.workers if w.process is not None]
        for worker in started:
            _signal(worker.process, signal.SIGTERM)  # type: ignore[arg-type]
        graceful = self.conf.default.graceful_shutdown_timeout
        wait = STOP_WAIT + graceful
        deadline = None if graceful == 0 else time.monotonic() + wait
        for worker in started:
            process = worker.process
            assert process is not None
            process.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            if process.exitcode is None:
                LOG.error("worker %d did not stop within %g s: killed", worker.index, wait)
                process.kill()
                process.join()


def warn_on_sqlite(workers: int) -> None:
    LOG.warning(
        "[api] api_workers is %d on SQLite: the workers take turns writing its one file, "
        "which serves fewer VIF operations than one process does (docs/scaling.md); "
        "several workers pay on PostgreSQL or MariaDB",
        workers,
    )


def supervise(args: argparse.Namespace, conf: config_module.Config) -> int:
    """Run ``[api] api_workers`` workers on ``[api] host_ip``:``port`` until stopped."""
    from metalwire.api.metrics import MULTIPROCESS_DIR_VARIABLE

    with shared_directory() as shared_dir:
        metrics_dir = shared_dir / "metrics"
        metrics_dir.mkdir()
        # Read by prometheus_client when each worker imports it.
        os.environ[MULTIPROCESS_DIR_VARIABLE] = str(metrics_dir)
        supervisor = Supervisor(args, conf, shared_dir)
        signal.signal(signal.SIGTERM, supervisor.ask_to_stop)
        signal.signal(signal.SIGINT, supervisor.ask_to_stop)
        signal.signal(signal.SIGHUP, supervisor.reload)
        return supervisor.run()


@contextlib.contextmanager
def shared_directory() -> Iterator[Path]:
    """A new directory for the workers to share, locked by this process until the block ends,
    then removed; directories left by supervisors that no longer run are removed first.

    It is made under another name and renamed once locked: a supervisor starting meanwhile
    never sees it unlocked."""
    temporary = Path(tempfile.gettempdir())
    for left in temporary.glob(SHARED_DIR_PREFIX + "*"):
        remove_if_abandoned(left)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX))
    owner_lock = os.open(staging / OWNER_LOCK, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(owner_lock, fcntl.LOCK_EX)
        path = staging.rename(temporary / (SHARED_DIR_PREFIX + staging.name[len(STAGING_PREFIX) :]))
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)
    finally:
        os.close(owner_lock)
        shutil.rmtree(staging, ignore_errors=True)  # if the rename failed


def remove_if_abandoned(path: Path) -> None:
    """Remove a workers' directory of this user whose lock no supervisor holds."""
    try:
        if not path.is_dir() or path.stat().st_uid != os.getuid():
            return
        descriptor = os.open(path / OWNER_LOCK, os.O_RDWR)
    except OSError:  # gone meanwhile, or not one of ours
        return
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # its supervisor runs
        os.close(descriptor)
        return
    try:
        shutil.rmtree(path, ignore_errors=True)
    finally:
        os.close(descriptor)
    LOG.info("removed %s, left by a server that was killed", path)


def run_worker(
    args: argparse.Namespace,
    conf: config_module.Config,
    index: int,
    shared_dir: Path,
    supervisor_pid: int,
    tell_ready: Connection,
) -> None:
    """One worker: the server of ``metalwire serve`` on a socket of its own on the port, with the
    configuration the supervisor read (a file changed since is read on the next restart of
    the whole server, as with one process)."""
    import sys

    from metalwire.api import app as _app  # noqa: F401  (before logging: see run_serve)
    from metalwire.cli import server
    from metalwire.cli.listening import LISTEN_BACKLOG, bound_sockets
    from metalwire.errors import MetalwireError
    from metalwire.services import WorkerPlace

    # A Ctrl-C reaches the whole process group: the supervisor's SIGTERM stops the worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        server.configure_logging(conf, args.log_level)
        tls = server.tls_files(conf)
        app = server.serving_app(conf, args, WorkerPlace(index, shared_dir))
        # Bound last: another process can have taken the port since the supervisor checked.
        sockets = bound_sockets(conf.api.host_ip, conf.api.port, shared=True)
    except MetalwireError as exc:
        LOG.error("worker %d cannot start: %s", index, exc)
        sys.exit(2)
    _stop_with(supervisor_pid)
    # From now on the kernel gives this worker its share of new connections, queued until the
    # server below accepts them.
    for sock in sockets:
        sock.listen(LISTEN_BACKLOG)
    LOG.info("worker %d serving (pid %d)", index, os.getpid())

    def tell_serving() -> None:
        tell_ready.send_bytes(b"serving")
        tell_ready.close()

    sys.exit(server.serve_app(conf, app, tls, sockets=sockets, on_started=tell_serving))


def _stop_with(supervisor_pid: int) -> None:
    """SIGTERM this worker once its supervisor is gone (its parent is then another)."""

    def watch() -> None:
        while os.getppid() == supervisor_pid:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="supervisor-watch", daemon=True).start()


def _signal(process: BaseProcess, signum: int) -> None:
    if process.pid is not None and process.exitcode is None:
        with contextlib.suppress(ProcessLookupError):  # it has just ended
            os.kill(process.pid, signum)


def _how_it_ended(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        return f"signal {signal.Signals(-exitcode).name}"
    return f"status {exitcode}"
