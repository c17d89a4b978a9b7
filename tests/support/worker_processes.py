"""The worker processes of a ``metalwire serve`` and which of them holds the server side of
a TCP connection, read from /proc (Linux)."""

from __future__ import annotations

import os
from pathlib import Path


def _inodes_by_peer_port(server_port: int) -> dict[int, int]:
    """Socket inode of each established connection to ``server_port`` on loopback, by the
    client's port."""
    found: dict[int, int] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, state, inode = fields[1], fields[2], fields[3], int(fields[9])
            if state == "01" and int(local.rsplit(":", 1)[1], 16) == server_port:
                found[int(remote.rsplit(":", 1)[1], 16)] = inode
    return found


def serving_pids(server_port: int, client_ports: list[int], pids: list[int]) -> dict[int, int]:
    """For each of the clients' ports, which of ``pids`` holds its connection's server side."""
    inodes = _inodes_by_peer_port(server_port)
    owner: dict[int, int] = {}
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                owner[int(target[8:-1])] = pid
    return {port: owner[inodes[port]] for port in client_ports if inodes.get(port) in owner}


def workers_of(supervisor: int) -> list[int]:
    """The worker processes of a server (its spawned children, not multiprocessing's
    resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if ppid == supervisor and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return sorted(found)
