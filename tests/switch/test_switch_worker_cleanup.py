"""A ``metalwire serve`` that has driven a switch leaves nothing behind when it stops: its
switch worker server (``metalwire/networking/generic_switch_workers.py``) ends and the
private directory of its socket is removed, however the server was stopped: SIGTERM to its
process group (systemd's stop) or SIGKILL to the server alone (a crash: the worker sees its
input close, as it does when the server ends on a SIGTERM of its own). What a SIGKILL of the
whole group leaves, the next server removes."""

from __future__ import annotations

import os
import signal
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from metalwire.networking.generic_switch_workers import ABANDONED_AFTER
from tests.support.generic_switch import worker_servers
from tests.support.server import MetalwireServer
from tests.support.switch import EmulatedSwitch
from tests.switch.conftest import ServersOfSwitch
from tests.switch.test_ironic_networking_states import _node, _provision

STOPS = {
    "sigterm-to-the-group": lambda pid: os.killpg(pid, signal.SIGTERM),
    "sigkill-to-the-server": lambda pid: os.kill(pid, signal.SIGKILL),
}


@pytest.mark.parametrize("stop", sorted(STOPS))
def test_a_stopped_server_leaves_no_worker_and_no_directory(
    emulated_switch: EmulatedSwitch, http_for: ServersOfSwitch, stop: str
) -> None:
    # the server's own TMPDIR, short enough for a Unix socket's path (tmp_path may not be)
    with tempfile.TemporaryDirectory(prefix="mw-") as name:
        _stop_and_look(emulated_switch, http_for, Path(name), stop)


def _deployed(
    emulated_switch: EmulatedSwitch,
    http_for: ServersOfSwitch,
    temporary: Path,
    name: str,
    switch_port: str,
) -> tuple[httpx.Client, MetalwireServer]:
    """A new server (its TMPDIR ``temporary``) that deployed node ``name`` on the switch,
    which started its worker server."""
    http = http_for(emulated_switch, TMPDIR=str(temporary))
    _node(http, name, "ramdisk", switch_port)
    _provision(http, name, "active")  # the deploy sets the switch port
    assert http.get(f"/v1/nodes/{name}").json()["provision_state"] == "active"
    return http, http_for.servers[-1]


def _stop_and_look(
    emulated_switch: EmulatedSwitch, http_for: ServersOfSwitch, temporary: Path, stop: str
) -> None:
    http, server = _deployed(emulated_switch, http_for, temporary, "n1", "swp1")
    (worker,) = worker_servers(server.process.pid, temporary)
    (directory,) = temporary.iterdir()
    assert directory.name.startswith("metalwire-switch-")
    assert Path(worker.cmdline()[-1]).parent == directory

    # a reload signalled to the whole group (pkill -HUP) reloads the server, the worker stays
    os.killpg(server.process.pid, signal.SIGHUP)
    time.sleep(0.5)
    assert http.get("/v1/nodes/n1").status_code == 200
    assert worker.is_running()

    STOPS[stop](server.process.pid)
    server.process.wait(30)
    worker.wait(10)
    deadline = time.monotonic() + 10
    while list(temporary.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(temporary.iterdir()) == []


def test_a_directory_left_by_a_killed_group_is_removed_by_the_next_server(
    emulated_switch: EmulatedSwitch, http_for: ServersOfSwitch
) -> None:
    """SIGKILL to the whole group (systemd's final kill) leaves the directory: nothing of
    either process runs. The next server's first switch operation removes it."""
    with tempfile.TemporaryDirectory(prefix="mw-") as name:
        temporary = Path(name)
        _, server = _deployed(emulated_switch, http_for, temporary, "n1", "swp1")
        (worker,) = worker_servers(server.process.pid, temporary)
        os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait(30)
        worker.wait(10)
        (left,) = temporary.iterdir()
        time.sleep(1.0)
        assert left.exists()  # no process of the group removed it
        aged = time.time() - ABANDONED_AFTER - 1  # as it would be some seconds later
        os.utime(left / "worker.sock", (aged, aged), follow_symlinks=False)

        _, again = _deployed(emulated_switch, http_for, temporary, "n2", "swp2")

        (directory,) = temporary.iterdir()
        assert directory != left
        assert worker_servers(again.process.pid, temporary)
