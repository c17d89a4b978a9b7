"""``metalwire serve`` with ``[api] api_workers`` above 1: one port, several server processes.

The process started is the supervisor. It checks the setup and upgrades the schema as a
single server does (``server.run_serve``), binds the port, then starts the workers: fresh
interpreters (``spawn``), each a complete server (API, conductor, network interfaces) on
its own event loop and database connections, accepting connections on the shared socket.
The supervisor serves nothing itself.

- SIGTERM or SIGINT: each worker stops accepting, finishes its requests and exits; one
  that has not within :data:`STOP_WAIT` seconds is killed.
- SIGHUP: each worker reloads its files (policy, logging configuration), as a single
  server does.
- A worker that dies is started again, and the supervisor logs how it ended. Workers that
  keep dying before they serve (:data:`FAILED_STARTS` in a row, each within
  :data:`START_GRACE` seconds) stop the whole server with status 1: a setup that cannot
  serve is not retried for ever.
- A worker whose supervisor is gone (killed with SIGKILL) stops by itself.

What the workers share besides the database lives in a directory the supervisor makes
and removes: their Prometheus metrics (``api/metrics.py``) and the latest drift audit,
which the first worker runs periodically for all (``conductor/audit_runner.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import multiprocessing
import os
import shutil
import signal
import socket
import tempfile
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from metalwire import config as config_module

LOG = logging.getLogger("metalwire")

#: Seconds a stopping worker has to finish its requests before it is killed.
STOP_WAIT = 60.0
#: A worker that ends within this many seconds of its start failed to start.
START_GRACE = 10.0
#: Failed starts in a row after which the supervisor gives up.
FAILED_STARTS = 3
#: Seconds before a worker that ended is started again.
RESTART_DELAY = 1.0


@dataclass
class _Worker:
    index: int
    process: BaseProcess
    started: float = field(default_factory=time.monotonic)


class Supervisor:
    """Starts, restarts and stops the worker processes of one server."""

    def __init__(
        self, args: argparse.Namespace, count: int, sock: socket.socket, shared_dir: Path
    ) -> None:
        self.args = args
        self.count = count
        self.sock = sock
        self.shared_dir = shared_dir
        self.context = multiprocessing.get_context("spawn")
        self.workers: dict[int, _Worker] = {}
        self.stopping = False
        self.failed_starts = 0

    def start(self, index: int) -> None:
        process = self.context.Process(
            target=run_worker,
            args=(self.args, index, self.sock, self.shared_dir, os.getpid()),
            name=f"metalwire-worker-{index}",
        )
        process.start()
        self.workers[index] = _Worker(index, process)
        LOG.info("worker %d started (pid %s)", index, process.pid)

    def run(self) -> int:
        """Serve until asked to stop; the exit status."""
        for index in range(self.count):
            self.start(index)
        while not self.stopping:
            sentinels = [w.process.sentinel for w in self.workers.values()]
            ended = set(wait(sentinels, timeout=0.5))
            for worker in [w for w in self.workers.values() if w.process.sentinel in ended]:
                if self.stopping:
                    break
                if not self._replace(worker):
                    self.stop()
                    return 1
        self.stop()
        return 0

    def _replace(self, worker: _Worker) -> bool:
        """Start another worker in place of one that ended; False to give up."""
        worker.process.join()
        lived = time.monotonic() - worker.started
        LOG.error(
            "worker %d (pid %s) ended with %s after %.1f s; starting another",
            worker.index,
            worker.process.pid,
            _how_it_ended(worker.process.exitcode),
            lived,
        )
        self.failed_starts = self.failed_starts + 1 if lived < START_GRACE else 0
        if self.failed_starts >= FAILED_STARTS:
            LOG.error(
                "%d workers in a row ended within %g s of their start: stopping (their log "
                "says why)",
                self.failed_starts,
                START_GRACE,
            )
            return False
        time.sleep(RESTART_DELAY)
        if not self.stopping:
            self.start(worker.index)
        return True

    def ask_to_stop(self, _signum: int, _frame: FrameType | None) -> None:
        self.stopping = True

    def reload(self, _signum: int, _frame: FrameType | None) -> None:
        for worker in self.workers.values():
            _signal(worker.process, signal.SIGHUP)

    def stop(self) -> None:
        """Each worker finishes its requests; one still running after STOP_WAIT is killed."""
        self.stopping = True
        for worker in self.workers.values():
            _signal(worker.process, signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT
        for worker in self.workers.values():
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.exitcode is None:
                LOG.error("worker %d did not stop within %g s: killed", worker.index, STOP_WAIT)
                worker.process.kill()
                worker.process.join()


def supervise(args: argparse.Namespace, conf: config_module.Config) -> int:
    """Run ``[api] api_workers`` workers on ``[api] host_ip``:``port`` until stopped."""
    import uvicorn

    from metalwire.api.metrics import MULTIPROCESS_DIR_VARIABLE

    listening = uvicorn.Config(app="", host=conf.api.host_ip, port=conf.api.port, log_config=None)
    sock = listening.bind_socket()
    if conf.database_url().startswith("sqlite"):
        LOG.warning(
            "[api] api_workers is %d on SQLite: the workers take turns writing its one file, "
            "which serves fewer VIF operations than one process does (docs/scaling.md); "
            "several workers pay on PostgreSQL or MariaDB",
            conf.api.api_workers,
        )
    shared_dir = Path(tempfile.mkdtemp(prefix="metalwire-workers-"))
    metrics_dir = shared_dir / "metrics"
    metrics_dir.mkdir()
    # Read by prometheus_client when each worker imports it.
    os.environ[MULTIPROCESS_DIR_VARIABLE] = str(metrics_dir)
    supervisor = Supervisor(args, conf.api.api_workers, sock, shared_dir)
    signal.signal(signal.SIGTERM, supervisor.ask_to_stop)
    signal.signal(signal.SIGINT, supervisor.ask_to_stop)
    signal.signal(signal.SIGHUP, supervisor.reload)
    try:
        return supervisor.run()
    finally:
        sock.close()
        shutil.rmtree(shared_dir, ignore_errors=True)


def run_worker(
    args: argparse.Namespace,
    index: int,
    sock: socket.socket,
    shared_dir: Path,
    supervisor_pid: int,
) -> None:
    """One worker: the server of ``metalwire serve`` on the supervisor's socket."""
    import sys

    from metalwire.api import app as _app  # noqa: F401  (before logging: see run_serve)
    from metalwire.cli import server
    from metalwire.errors import MetalwireError
    from metalwire.services import WorkerPlace

    # A Ctrl-C reaches the whole process group: the supervisor's SIGTERM stops the worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        conf = server.load(args)
        server.configure_logging(conf, args.log_level)
        tls = server.tls_files(conf)
        app = server.serving_app(conf, args, WorkerPlace(index, shared_dir))
    except MetalwireError as exc:
        print(f"metalwire: worker {index}: {exc}", file=sys.stderr)
        sys.exit(2)
    server.fit_open_files(conf.api.max_connections)
    signal.signal(signal.SIGHUP, lambda _signum, _frame: app.state.reloader.request())
    _stop_with(supervisor_pid)
    LOG.info("worker %d serving (pid %d)", index, os.getpid())
    web = server.uvicorn_server(conf, app, tls)
    web.run(sockets=[sock])
    sys.exit(0 if web.started else server.STARTUP_FAILED)


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
