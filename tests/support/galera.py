"""A throwaway MariaDB Galera cluster on loopback for tests.

``GaleraCluster(3)`` starts node 1 as a new cluster (``--wsrep-new-cluster``, on a data
directory made by ``mariadb-install-db``), then the others, which join it and receive its
data by rsync (SST), each node on free ports of 127.0.0.1: the SQL port, the group
communication port, the IST and SST receive ports. It waits until every node reports
``wsrep_local_state_comment = Synced``. ``kill(i)`` ends node ``i`` with SIGKILL, as a
crash; ``restart(i)`` starts it again as MariaDB's systemd unit does (``galera_recovery``:
``--wsrep-recover`` reads the last committed position from InnoDB, then the server starts at
it), so the node catches up by IST from a donor that keeps serving, and waits until it has
rejoined; ``isolate(i)`` cuts node ``i`` off from the group as a network partition would,
``isolate(i, False)`` lets it rejoin. ``stop()`` stops
every node and removes every file. The binaries come from Debian's ``mariadb-server``,
``galera-4`` and ``rsync`` packages (``scripts/install-galera``).

Usage::

    with GaleraCluster(3) as cluster:
        urls = cluster.create_database("metalwire")   # one URL per node
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Self

import pymysql

from tests.support.helpers import stop_process_group
from tests.support.mariadb import (
    MARIADBD,
    MariaDBError,
    create_database_on,
    root_connection,
    root_url,
)
from tests.support.mariadb import available as mariadb_available
from tests.support.server import free_port

PROVIDER = "/usr/lib/galera/libgalera_smm.so"


def available() -> bool:
    return mariadb_available() and Path(PROVIDER).exists() and shutil.which("rsync") is not None


class _Node:
    def __init__(self, root: Path, number: int) -> None:
        self.number = number
        self.dir = root / f"node{number}"
        self.dir.mkdir()
        self.new_ports()
        self.process: subprocess.Popen[bytes] | None = None

    def new_ports(self) -> None:
        self.port = free_port()
        self.group_port = free_port()
        self.ist_port = free_port()
        self.sst_port = free_port()

    @property
    def log_path(self) -> Path:
        return self.dir / "server.log"


class GaleraCluster:
    def __init__(self, size: int = 3, start_timeout: float = 120.0) -> None:
        self.size = size
        self.start_timeout = start_timeout
        self.root: Path | None = None
        self.nodes: list[_Node] = []

    def _owner_args(self) -> list[str]:
        return ["--user=mysql"] if os.geteuid() == 0 else []

    def start(self) -> Self:
        if not available():
            raise MariaDBError("galera-4, rsync or mariadb-server is not installed")
        self.root = Path(tempfile.mkdtemp(prefix="metalwire-galera-"))
        if os.geteuid() == 0:
            shutil.chown(self.root, "mysql", "mysql")
        try:
            self.nodes = [_Node(self.root, i + 1) for i in range(self.size)]
            for node in self.nodes:
                (node.dir / "data").mkdir()
                if os.geteuid() == 0:
                    shutil.chown(node.dir, "mysql", "mysql")
                    shutil.chown(node.dir / "data", "mysql", "mysql")
            subprocess.run(
                [
                    "mariadb-install-db",
                    "--no-defaults",
                    *self._owner_args(),
                    f"--datadir={self.nodes[0].dir}/data",
                    "--auth-root-authentication-method=normal",
                    "--skip-test-db",
                ],
                check=True,
                capture_output=True,
                timeout=120,
            )
            self._spawn(self.nodes[0], new_cluster=True)
            self._wait_synced(self.nodes[0])
            for node in self.nodes[1:]:
                self._join(node)
        except BaseException:
            self.stop()
            raise
        return self

    def _join(self, node: _Node, attempts: int = 3) -> None:
        """Start a node that joins the cluster by a state transfer (rsync). A joiner whose
        transfer fails at once (its ports are picked free, then bound by the transfer's own
        processes: under load another process may take one between the two) starts again
        with an empty data directory and new ports."""
        for attempt in range(1, attempts + 1):
            self._spawn(node, new_cluster=False)
            try:
                self._wait_synced(node)
                return
            except MariaDBError as exc:
                if attempt == attempts or "exited early" not in str(exc):
                    raise
            failed = node.log_path.with_name(f"server-attempt{attempt}.log")
            node.log_path.rename(failed)
            shutil.rmtree(node.dir / "data")
            (node.dir / "data").mkdir()
            if os.geteuid() == 0:
                shutil.chown(node.dir / "data", "mysql", "mysql")
            node.new_ports()

    def _cluster_address(self, node: _Node, new_cluster: bool) -> str:
        if new_cluster:
            return "gcomm://"
        others = [n for n in self.nodes if n is not node]
        return "gcomm://" + ",".join(f"127.0.0.1:{n.group_port}" for n in others)

    def _args(self, node: _Node, new_cluster: bool = False) -> list[str]:
        provider_options = ";".join(
            [
                f"gmcast.listen_addr=tcp://127.0.0.1:{node.group_port}",
                f"ist.recv_addr=127.0.0.1:{node.ist_port}",
                "gcache.size=64M",
                "evs.suspect_timeout=PT3S",
                "evs.inactive_timeout=PT6S",
                "evs.install_timeout=PT6S",
            ]
        )
        args = [
            MARIADBD,
            "--no-defaults",
            *self._owner_args(),
            f"--datadir={node.dir}/data",
            f"--port={node.port}",
            "--bind-address=127.0.0.1",
            f"--socket={node.dir}/sock",
            f"--pid-file={node.dir}/pid",
            "--skip-log-bin",
            "--binlog-format=ROW",
            "--default-storage-engine=InnoDB",
            "--innodb-autoinc-lock-mode=2",
            "--innodb-buffer-pool-size=64M",
            "--innodb-flush-log-at-trx-commit=0",
            "--max-connections=500",
            "--character-set-server=utf8mb4",
            "--collation-server=utf8mb4_general_ci",
            "--wsrep-on=ON",
            f"--wsrep-provider={PROVIDER}",
            f"--wsrep-cluster-address={self._cluster_address(node, new_cluster)}",
            "--wsrep-cluster-name=metalwire-tests",
            f"--wsrep-node-name=node{node.number}",
            "--wsrep-node-address=127.0.0.1",
            f"--wsrep-provider-options={provider_options}",
            "--wsrep-sst-method=rsync",
            f"--wsrep-sst-receive-address=127.0.0.1:{node.sst_port}",
        ]
        return [*args, "--wsrep-new-cluster"] if new_cluster else args

    def _recovered_position(self, node: _Node) -> str | None:
        """The last committed ``uuid:seqno`` in node's InnoDB (``galera_recovery``'s job)."""
        done = subprocess.run(
            [*self._args(node), "--wsrep-recover", "--disable-log-error"],
            capture_output=True,
            timeout=120,
        )
        found = re.search(rb"WSREP: Recovered position: (\S+:-?\d+)", done.stdout + done.stderr)
        return found.group(1).decode() if found else None

    def _spawn(self, node: _Node, new_cluster: bool, position: str | None = None) -> None:
        args = self._args(node, new_cluster)
        if position is not None:
            args.append(f"--wsrep-start-position={position}")
        with node.log_path.open("ab") as log:
            node.process = subprocess.Popen(
                args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def _state(self, node: _Node, variable: str = "wsrep_local_state_comment") -> str | None:
        try:
            with (
                root_connection(node.port, connect_timeout=2) as conn,
                conn.cursor() as cursor,
            ):
                cursor.execute("SHOW STATUS LIKE %s", (variable,))
                row = cursor.fetchone()
                return str(row[1]) if row else None
        except pymysql.err.MySQLError:
            return None

    def _wait_for(self, node: _Node, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            assert node.process is not None
            if node.process.poll() is not None:
                raise MariaDBError(f"node {node.number} exited early:\n{self.log(node.number)}")
            if ready():
                return
            time.sleep(0.3)
        raise MariaDBError(f"node {node.number} not {what} in time:\n{self.log(node.number)}")

    def _wait_synced(self, node: _Node) -> None:
        def synced() -> bool:
            return (
                self._state(node, "wsrep_cluster_status") == "Primary"
                and self._state(node) == "Synced"
            )

        self._wait_for(node, synced, "synced")

    def log(self, number: int) -> str:
        path = self.nodes[number - 1].log_path
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def url(self, number: int, database: str) -> str:
        node = self.nodes[number - 1]
        return root_url(node.port, database)

    def create_database(self, name: str) -> list[str]:
        """Create database ``name`` (through node 1; Galera replicates it): a URL per node."""
        create_database_on(self.nodes[0].port, name)
        return [self.url(n.number, name) for n in self.nodes]

    def kill(self, number: int) -> None:
        """SIGKILL node ``number``, as a crash."""
        process = self.nodes[number - 1].process
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)

    def restart(self, number: int) -> None:
        """Start a killed node again at its recovered position; it rejoins (IST when the
        donor's gcache still holds what it missed, else SST) and is Synced on return."""
        node = self.nodes[number - 1]
        self._spawn(node, new_cluster=False, position=self._recovered_position(node))
        self._wait_synced(node)

    def isolate(self, number: int, isolated: bool = True) -> None:
        """Cut node ``number`` off from the others' group traffic (``gmcast.isolate``), as a
        network partition would, and wait until it has left the primary component; with
        ``isolated=False`` let it back and wait until it has rejoined and is Synced."""
        node = self.nodes[number - 1]
        with root_connection(node.port) as conn, conn.cursor() as cursor:
            option = f"gmcast.isolate={int(isolated)}"
            cursor.execute("SET GLOBAL wsrep_provider_options = %s", (option,))
        if isolated:
            self._wait_for(
                node,
                lambda: self._state(node, "wsrep_cluster_status") not in (None, "Primary"),
                "out of the primary component",
            )
        else:
            self._wait_synced(node)

    def stop(self) -> None:
        for node in reversed(self.nodes):
            stop_process_group(node.process, 30.0)
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
