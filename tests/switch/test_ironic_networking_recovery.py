"""The attachment record and the switch agree after a crash or a failed commit, through a
real ``metalwire serve`` on the emulated switch.

The crash is a real SIGKILL between the switch change and the commit: the server's
networking-generic-switch interpreter is a wrapper that runs the real switch worker, whose
operation, for the attach's (or the detach's) ``plug_port_to_network`` of ``swp1``, then
stops (leaving a mark for the test) instead of answering, so the switch has moved and nothing
is committed.
The failed commit is a trigger in the server's SQLite database that refuses the
transaction recording what the switch port was set to (after the switch change).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx

from tests.support.generic_switch import GenericSwitchRunner
from tests.support.server import MetalwireServer
from tests.support.switch import EmulatedSwitch, PortVlan
from tests.switch.conftest import HEADERS, IDLE, TENANT, _serve
from tests.switch.test_ironic_networking_states import _node, _provision

NETWORKS = {"METALWIRE_IRONIC_NETWORKING_VIF_NETWORKS": f"tenant-a:{TENANT}"}
LEASE_S = 3.0


def _hanging_python(tmp_path: Path, vlan: int) -> tuple[Path, Path, Path]:
    """An interpreter for the switch worker whose operations, once armed, stop after setting
    swp1 to ``vlan``; the wrapper, the file that arms it and the mark it leaves."""
    real = GenericSwitchRunner().venv / "bin" / "python"
    wrapper, armed, mark = (tmp_path / name for name in ("python-that-stops", "armed", "moved"))
    shim = tmp_path / "worker_that_stops.py"
    shim.write_text(
        "import importlib.util, os, sys, time\n"
        "spec = importlib.util.spec_from_file_location('generic_switch_worker', sys.argv[1])\n"
        "worker = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(worker)\n"
        "real_run = worker.run\n"
        "def run(request):\n"
        "    answer = real_run(request)\n"
        "    if (request.get('method'), request.get('args')) == "
        f"('plug_port_to_network', ['swp1', {vlan}]) and os.path.exists({str(armed)!r}):\n"
        f"        open({str(mark)!r}, 'w').close()\n"
        "        time.sleep(300)\n"
        "    return answer\n"
        "worker.run = run\n"
        "worker.serve(sys.argv[3])\n"
    )
    # metalwire runs "<python> generic_switch_worker.py serve SOCKET"
    wrapper.write_text(f'#!/bin/sh\nexec "{real}" "{shim}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, armed, mark


def _settings(wrapper: Path) -> dict[str, str]:
    return {
        "METALWIRE_IRONIC_NETWORKING_GENERIC_SWITCH_PYTHON": str(wrapper),
        "METALWIRE_CONDUCTOR_NODE_LOCK_LEASE": str(LEASE_S),
        "METALWIRE_CONDUCTOR_NODE_LOCK_WAIT": "30",
    }


def _in_background(call: Callable[[], object]) -> None:
    def run() -> None:
        with contextlib.suppress(httpx.TransportError):  # killed mid-request
            call()

    threading.Thread(target=run, daemon=True).start()


def _wait_for(mark: Path) -> None:
    deadline = time.monotonic() + 60
    while not mark.exists():
        assert time.monotonic() < deadline, "the operation never moved the switch"
        time.sleep(0.1)


def _applied(http: httpx.Client) -> object:
    ports = http.get("/v1/ports", params={"node": "d", "fields": "internal_info"}).json()
    return ports["ports"][0]["internal_info"].get("switchport_applied")


def _recovered_by_the_next_operation(http: httpx.Client, operation: str) -> None:
    """The next operation on node d opens its task: the interrupted record goes (the history
    naming the operation that was cut), the VIF is not attached any more."""
    resp = http.delete("/v1/nodes/d/vifs/vif-a")
    assert resp.status_code == 400, resp.text  # the record was removed first
    history = http.get("/v1/nodes/d/history").json()["history"]
    said = f"{operation} of VIF vif-a was interrupted"
    assert any(e["event"].startswith(said) for e in history), [e["event"] for e in history]
    assert http.get("/v1/nodes/d/vifs").json()["vifs"] == []


@contextlib.contextmanager
def _server(
    tmp_path: Path, switch: EmulatedSwitch, **env: str
) -> Iterator[tuple[MetalwireServer, httpx.Client]]:
    server = _serve(tmp_path, switch, **NETWORKS, **env)
    try:
        server.start()
        with httpx.Client(base_url=server.url, headers=HEADERS, timeout=120) as http:
            yield server, http
    finally:
        server.stop()


def test_an_attach_killed_after_moving_the_switch_is_put_back_by_the_next_operation(
    emulated_switch: EmulatedSwitch, tmp_path: Path
) -> None:
    switch = emulated_switch
    wrapper, armed, mark = _hanging_python(tmp_path, TENANT)
    armed.touch()
    with _server(tmp_path, switch, **_settings(wrapper)) as (server, http):
        _node(http, "d", "ramdisk", "swp1")
        _provision(http, "d", "active")
        assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())

        _in_background(
            lambda: http.post("/v1/nodes/d/vifs", json={"id": "vif-a", "network": "tenant-a"})
        )
        _wait_for(mark)
        assert switch.port_vlan("swp1") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
        server.kill()
        armed.unlink()  # the restarted server's switch changes run to the end

    with _server(tmp_path, switch, **_settings(wrapper)) as (_, http):  # the same data dir
        assert http.get("/v1/nodes/d/vifs").json()["vifs"] == []
        # the switch shows the crash until an operation on the node opens its task
        assert switch.port_vlan("swp1").tag == TENANT

        _recovered_by_the_next_operation(http, "Attach")

        assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
        assert _applied(http) == {"mode": "access", "native_vlan": IDLE, "allowed_vlans": []}


def test_a_detach_killed_after_moving_the_switch_is_finished_by_the_next_operation(
    emulated_switch: EmulatedSwitch, tmp_path: Path
) -> None:
    switch = emulated_switch
    wrapper, armed, mark = _hanging_python(tmp_path, IDLE)
    with _server(tmp_path, switch, **_settings(wrapper)) as (server, http):
        _node(http, "d", "ramdisk", "swp1")
        _provision(http, "d", "active")
        resp = http.post("/v1/nodes/d/vifs", json={"id": "vif-a", "network": "tenant-a"})
        assert resp.status_code == 204, resp.text
        assert switch.port_vlan("swp1").tag == TENANT

        armed.touch()
        _in_background(lambda: http.delete("/v1/nodes/d/vifs/vif-a"))
        _wait_for(mark)
        assert switch.port_vlan("swp1").tag == IDLE
        server.kill()
        armed.unlink()  # the restarted server's switch changes run to the end

    with _server(tmp_path, switch, **_settings(wrapper)) as (_, http):
        _recovered_by_the_next_operation(http, "Detach")

        assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
        assert _applied(http) == {"mode": "access", "native_vlan": IDLE, "allowed_vlans": []}


def test_an_attach_whose_commit_fails_puts_the_switch_back_and_keeps_no_record(
    emulated_switch: EmulatedSwitch, tmp_path: Path
) -> None:
    switch = emulated_switch
    switch.set_access_vlan("swp2", TENANT)
    with _server(tmp_path, switch) as (_, http):
        _node(http, "g", "ramdisk", "swp1")
        _provision(http, "g", "active")
        database = tmp_path / "server" / "metalwire.db"
        with contextlib.closing(sqlite3.connect(database)) as db:
            db.execute(
                "CREATE TRIGGER refuse_applied BEFORE UPDATE OF internal_info ON ports "
                "BEGIN SELECT RAISE(ABORT, 'injected commit failure'); END"
            )
            db.commit()

        resp = http.post("/v1/nodes/g/vifs", json={"id": "vif-g", "network": "tenant-a"})

        # the database's refusal, as metalwire reports a statement the database refuses
        assert resp.status_code == 409 and "injected commit failure" in resp.text, resp.text
        assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
        assert not switch.ping(1, 2)
        assert http.get("/v1/nodes/g/vifs").json()["vifs"] == []
        with contextlib.closing(sqlite3.connect(database)) as db:
            assert db.execute("SELECT count(*) FROM vif_attachments").fetchone() == (0,)
