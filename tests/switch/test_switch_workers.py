"""Each switch operation runs in a process forked by one worker server per interpreter
(``metalwire/networking/generic_switch_workers.py``), which has imported
networking-generic-switch once: through ``GenericSwitchDevice`` on the emulated switch."""

from __future__ import annotations

import os
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from metalwire.errors import NetworkError
from metalwire.networking import generic_switch_workers
from metalwire.networking.generic_switch import GenericSwitchDevice
from metalwire.networking.switch_file import SwitchDefinition, parse_switch_file
from metalwire.networking.switch_ports import SwitchChange, apply_changes
from metalwire.networking.switchport import SwitchportConfig
from tests.support.generic_switch import GenericSwitchRunner, worker_servers
from tests.support.helpers import skip_or_fail, wait_for
from tests.support.switch import EmulatedSwitch, PortVlan


@pytest.fixture(scope="module")
def python() -> Iterator[str]:
    runner = GenericSwitchRunner()
    if runner.missing:
        skip_or_fail(runner.missing)
    yield str(runner.venv / "bin" / "python")
    generic_switch_workers.stop_all()


def _device(switch: EmulatedSwitch, python: str, timeout: float = 120) -> GenericSwitchDevice:
    (definition,) = parse_switch_file(switch.switch_file_section(), "test").values()
    return GenericSwitchDevice(definition, python, timeout=timeout)


def test_a_change_whose_second_call_fails_is_put_back_on_the_switch(
    emulated_switch: EmulatedSwitch, python: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    device = _device(emulated_switch, python)
    trunk, idle = SwitchportConfig("trunk", 200, (200, 210)), SwitchportConfig("access", 999)
    device.set_port("swp1", trunk, None)
    assert emulated_switch.port_vlan("swp1") == PortVlan(200, "native-untagged", (200, 210))
    real_call, methods = generic_switch_workers.call, []

    def call(python: str, what: str, request: dict[str, Any], timeout: float) -> Any:
        methods.append(request["method"])
        if len(methods) == 2:  # the plug after delete_port: as if its session dropped
            raise NetworkError(f"{what} failed: the operation's process ended without an answer")
        return real_call(python, what, request, timeout)

    monkeypatch.setattr(generic_switch_workers, "call", call)
    change = SwitchChange(device.switch, "swp1", idle, trunk)
    with pytest.raises(NetworkError, match="Switch emulated port swp1") as raised:
        apply_changes([change], lambda switch: device, tmp_path)

    assert "not put back" not in str(raised.value)
    assert methods == ["delete_port", "plug_port_to_network", "plug_port_to_network"]
    assert emulated_switch.port_vlan("swp1") == PortVlan(200, "native-untagged", (200, 210))


def _server_pid(python: str) -> int:
    return generic_switch_workers.server_of(python).process.pid


def test_one_worker_server_forks_each_operation_and_a_killed_one_is_replaced(
    emulated_switch: EmulatedSwitch, python: str
) -> None:
    device = _device(emulated_switch, python)
    device.set_port("swp1", SwitchportConfig("access", 100), None)
    server = _server_pid(python)
    device.set_port("swp2", SwitchportConfig("access", 200), None)
    assert _server_pid(python) == server
    assert emulated_switch.port_vlan("swp1") == PortVlan(tag=100, vlan_mode="access", trunks=())
    assert emulated_switch.port_vlan("swp2") == PortVlan(tag=200, vlan_mode="access", trunks=())
    # Each operation's process ends and the server reaps it: a child answers before it exits,
    # so the last one may still be there, ending or a zombie, for a moment after its answer.
    children = psutil.Process(server).children
    assert wait_for(lambda: children() == [], timeout=10), children()

    os.kill(server, signal.SIGKILL)
    psutil.Process(server).wait(10)
    device.set_port("swp1", SwitchportConfig("access", 300), None)
    assert _server_pid(python) != server
    assert emulated_switch.port_vlan("swp1").tag == 300


def test_an_operation_past_its_timeout_is_named_and_its_process_ended(python: str) -> None:
    silent = socket.socket()  # accepts the SSH connection and never says a word
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    with silent:
        switch = SwitchDefinition(
            name="silent",
            driver_type="generic-switch",
            device_type="netmiko_ovs_linux",
            address="127.0.0.1",
            port=silent.getsockname()[1],
            username="admin",
            password="hunter2-secret",
            line=1,
        )
        device = GenericSwitchDevice(switch, python, timeout=2)
        began = time.monotonic()
        with pytest.raises(NetworkError, match=r"^read ports got no answer within 2 s$"):
            device.read_ports(["swp1"])
        assert time.monotonic() - began < 10
        server = psutil.Process(_server_pid(python))
        deadline = time.monotonic() + 10
        while server.children() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.children() == []  # ended by its alarm


ORPHANINGS = {
    # metalwire killed (SIGKILL): the server sees its input close and ends
    "input-closed": lambda server: server.process.stdin.close(),
    "server-killed": lambda server: server.process.kill(),
}


@pytest.mark.parametrize("orphaning", sorted(ORPHANINGS))
def test_an_operation_ends_with_its_worker_server(python: str, orphaning: str) -> None:
    """An operation's process does not outlive the server that forked it: else it would go
    on programming the switch, unlocked, beside the operations of a restarted metalwire."""
    silent = socket.socket()  # accepts the SSH connection and never says a word
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    with silent:
        switch = SwitchDefinition(
            name="silent", driver_type="generic-switch", device_type="netmiko_ovs_linux",
            address="127.0.0.1", port=silent.getsockname()[1], username="admin",
            password="hunter2-secret", line=1,
        )  # fmt: skip
        device = GenericSwitchDevice(switch, python, timeout=120)
        failed: list[BaseException] = []

        def operate() -> None:
            try:
                device.set_port("swp1", SwitchportConfig("access", 200), None)
            except BaseException as error:
                failed.append(error)

        operating = threading.Thread(target=operate, daemon=True)
        operating.start()
        server = generic_switch_workers.server_of(python)
        deadline = time.monotonic() + 30
        while not (children := psutil.Process(server.process.pid).children()):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        (child,) = children
        time.sleep(0.5)  # well into its connection
        assert child.is_running()

        ORPHANINGS[orphaning](server)
        server.process.wait(10)
        gone, _ = psutil.wait_procs([child], timeout=3)
        assert gone == [child], f"operation {child.pid} still runs without its server"
        operating.join(10)
        assert len(failed) == 1 and isinstance(failed[0], NetworkError), failed
    generic_switch_workers.stop_all()


def test_an_interpreter_without_networking_generic_switch_is_named(tmp_path: Path) -> None:
    bare = tmp_path / "python-without-site-packages"
    bare.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "$@"\n')
    bare.chmod(0o755)
    assert _render_error(bare) == (
        "render commands failed: ModuleNotFoundError: No module named 'networking_generic_switch'"
    )


def test_a_socket_path_too_long_is_named(
    python: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / ("d" * 100)  # past the 107 bytes of a Unix socket's path
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    said = _render_error(Path(python))
    assert said.startswith(f"render commands failed: cannot listen on {deep}/metalwire-switch-")
    assert said.endswith("/worker.sock: AF_UNIX path too long"), said
    assert list(deep.iterdir()) == []  # its directory removed when the server is stopped


def test_a_worker_stopped_while_it_starts_removes_its_directory(
    python: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    started: list[generic_switch_workers.WorkerServer] = []
    starting = threading.Thread(
        target=lambda: started.append(generic_switch_workers.WorkerServer(python))
    )
    starting.start()
    deadline = time.monotonic() + 10
    while not (workers := worker_servers(os.getpid(), tmp_path)):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    (worker,) = workers
    # once it handles SIGTERM (its first step), while it imports networking-generic-switch
    while not _catches(worker.pid, signal.SIGTERM):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    worker.send_signal(signal.SIGTERM)
    starting.join(30)
    (server,) = started
    try:
        assert server.error is not None and "ended at its start" in server.error, server.error
        assert list(tmp_path.iterdir()) == []  # before anything here stopped it
    finally:
        server.stop()  # its pipes


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler of ``signum`` (``SigCgt`` of its status)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(next(line for line in status.splitlines() if line.startswith("SigCgt:"))[7:], 16)
    return bool(caught >> (signum - 1) & 1)


def _render_error(python: Path) -> str:
    """What rendering one switch change's commands with ``python`` raises."""
    switch = SwitchDefinition(
        name="sw", driver_type="generic-switch", device_type="netmiko_ovs_linux",
        address="127.0.0.1", username="admin", password="hunter2-secret", line=1,
    )  # fmt: skip
    change = SwitchChange(switch, "swp1", SwitchportConfig("access", 100), None)
    try:
        with pytest.raises(NetworkError) as raised:
            GenericSwitchDevice(switch, str(python)).render([change])
        return str(raised.value)
    finally:
        generic_switch_workers.stop_all()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("\x7fELF not really\n", "Exec format error"),
        ("#!/nonexistent/interpreter\n", "No such file or directory"),
    ],
)
def test_an_interpreter_that_cannot_be_run_is_named(
    tmp_path: Path, content: str, problem: str
) -> None:
    broken = tmp_path / "python"
    broken.write_text(content)
    broken.chmod(0o755)
    said = _render_error(broken)
    assert said.startswith(f"render commands failed: the switch worker {broken} "), said
    assert problem in said, said


def test_directories_of_killed_worker_servers_are_removed_and_no_other(python: str) -> None:
    """``remove_abandoned``: a socket that refuses connections and is older than a server's
    bind-to-listen belongs to a killed server, as does a directory still without a socket
    long after a server's start; a listening socket, a fresh one, a directory that may be
    starting and another program's directory stay. The live one is a real worker
    server, which takes the check for no request."""
    prefix = generic_switch_workers.DIRECTORY_PREFIX
    with tempfile.TemporaryDirectory(prefix="mw-") as name:
        under = Path(name)
        live = generic_switch_workers.WorkerServer(python)  # in the system's temp directory
        assert live.running, live.error
        try:
            serving = under / f"{prefix}serving"
            serving.mkdir()
            os.symlink(live.socket_path, serving / "worker.sock")
            dirs = {}
            for label in ("killed", "just-bound", "starting", "killed-starting"):
                dirs[label] = under / f"{prefix}{label}"
                dirs[label].mkdir()
            other = under / "someone-else"
            other.mkdir()
            for directory in (dirs["killed"], dirs["just-bound"], other):
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as bound:
                    bound.bind(str(directory / "worker.sock"))  # closed: left refusing
            now = time.time()
            aged = now - generic_switch_workers.ABANDONED_AFTER - 1
            for directory in (dirs["killed"], serving, other):
                os.utime(directory / "worker.sock", (aged, aged), follow_symlinks=False)
            # a server may take START_TIMEOUT to bind its socket
            long_ago = aged - generic_switch_workers.START_TIMEOUT
            os.utime(dirs["killed-starting"], (long_ago, long_ago))

            removed = generic_switch_workers.remove_abandoned(under, now)

            assert sorted(removed) == [dirs["killed"], dirs["killed-starting"]]
            assert sorted(p.name for p in under.iterdir()) == sorted(
                [serving.name, dirs["just-bound"].name, dirs["starting"].name, other.name]
            )
            # the check was no request: the server still forks operations
            answer = live.call({"op": "nothing"}, 30)
            assert "error" in answer and live.running
        finally:
            live.stop()
