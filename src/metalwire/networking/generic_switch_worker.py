"""Runs networking-generic-switch device operations, each in a process of its own.

networking-generic-switch loads oslo.service's eventlet backend and keeps oslo.config state:
inside metalwire's threaded server its SSH calls hang, so every operation runs in a process
of its own. ``python generic_switch_worker.py serve SOCKET`` is what
:mod:`metalwire.networking.generic_switch_workers` starts, once per interpreter and metalwire
process: it imports networking-generic-switch and its device classes (about 2 s of CPU), says
so on its standard output (``{"ready": PID}``, or ``{"error": "..."}`` when it cannot), then
forks a child for each connection to the Unix socket SOCKET; the child reads one JSON request
until the caller shuts its side down, answers one JSON object and ends. The server ends when
its standard input closes (the metalwire process that started it is gone), at SIGTERM or
SIGINT (a stop signalled to metalwire's whole process group), even while it starts, or when
it cannot start, and removes the socket and its directory; it ignores SIGHUP (metalwire's
reload).

A request is ``{"device": {...}, "name": ..., "timeout": seconds}`` and one of:

- ``"method": ..., "args": [...], "kwargs": {...}``: calls the device method, answers
  ``{"output": ...}``;
- ``"render": [{"method": ..., "args": [...], "kwargs": {...}}, ...]``: calls each method with
  the device's sending replaced, so nothing connects, and answers ``{"commands": [[...],
  ...]}``, the commands each call would have sent;
- ``"show": ["<command>", ...]``: sends each read-only command over one SSH connection and
  answers ``{"outputs": [...]}``.

Any failure answers ``{"error": "<class>: <text>"}``; a child still working after ``timeout``
is ended by SIGALRM. A child does not outlive the server: on Linux it is killed when the server
ends, however it ends (``PR_SET_PDEATHSIG``), and a server that ends of itself kills those still
running first; a restarted metalwire, which takes the switch's lock again, never finds one of
its predecessor's operations still at the switch. It imports nothing of metalwire: any
interpreter with networking-generic-switch runs it.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import signal
import socket
import sys
from typing import Any


def _device(request: dict[str, Any]) -> Any:
    from networking_generic_switch import config as ngs_config
    from networking_generic_switch import devices

    ngs_config.CONF([], project="networking_generic_switch", default_config_files=[])
    return devices.device_manager(dict(request["device"]), request["name"])


def _render(device: Any, calls: list[dict[str, Any]]) -> list[list[str]]:
    if not callable(getattr(device, "send_commands_to_device", None)):
        raise TypeError(f"{type(device).__name__} sends no command templates to render")
    sent: list[str] = []

    def capture(cmd_set: list[str]) -> None:
        sent.extend(cmd_set or [])

    def refuse_connection(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("rendering commands opens no connection")

    device.send_commands_to_device = capture
    device._get_connection = refuse_connection
    rendered = []
    for call in calls:
        sent.clear()
        getattr(device, call["method"])(*call.get("args", []), **call.get("kwargs", {}))
        rendered.append(list(sent))
    return rendered


def _show(device: Any, commands: list[str]) -> list[str]:
    with device._get_connection() as connection:
        return [str(connection.send_command(command)) for command in commands]


def run(request: dict[str, Any]) -> dict[str, Any]:
    try:
        device = _device(request)
        if "render" in request:
            return {"commands": _render(device, request["render"])}
        if "show" in request:
            return {"outputs": _show(device, request["show"])}
        output = getattr(device, request["method"])(*request["args"], **request["kwargs"])
    except Exception as error:  # the parent names every failure, with its class
        return {"error": f"{type(error).__name__}: {error}"}
    return {"output": output if isinstance(output, str) or output is None else repr(output)}


def _preload() -> None:
    """Import networking-generic-switch and every device class it names, as the children
    would at each operation."""
    from importlib.metadata import entry_points

    from networking_generic_switch import config as ngs_config  # noqa: F401
    from networking_generic_switch import devices  # noqa: F401

    for entry_point in entry_points(group="generic_switch.devices"):
        with contextlib.suppress(Exception):  # a class that cannot load fails its requests
            entry_point.load()


def _receive(connection: socket.socket) -> dict[str, Any]:
    chunks = []
    while chunk := connection.recv(65536):
        chunks.append(chunk)
    if not chunks:
        return {}
    request: dict[str, Any] = json.loads(b"".join(chunks))
    return request


def _answer_one(connection: socket.socket) -> None:
    """In a forked child: the connection's request, answered; none for a connection closed
    without one (metalwire's check that the server still listens)."""
    request = _receive(connection)
    if not request:
        return
    timeout = float(request.get("timeout") or 0)
    if timeout > 0:
        signal.alarm(math.ceil(timeout))  # its default action ends the process
    connection.sendall(json.dumps(run(request)).encode())


_ENDING_SIGNALS = (signal.SIGTERM, signal.SIGINT)
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

#: The server's children still running (or ended and not yet reaped, so their ids are not
#: reused): those it kills when it ends.
_children: set[int] = set()


def _reap(_signum: int, _frame: object) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _children.discard(pid)


def _kill_children() -> None:
    for pid in list(_children):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _die_with(server: int) -> None:
    """In a forked child: be killed when the server ends, even by SIGKILL (Linux); ended
    already if the server ended before that was asked."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):  # no libc to ask: the server's own kill remains
            import ctypes  # here: an interpreter built without it still serves

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != server:
        os._exit(1)


def _end(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def _fork_for(connection: socket.socket, listener: socket.socket) -> None:
    server = os.getpid()
    # no reaping between the fork and the child's id being recorded: a reaped id recorded
    # after would be killed at the end, maybe another process's by then
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    pid = os.fork()
    if pid != 0:
        _children.add(pid)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        connection.close()
        return
    status = 1
    try:
        _die_with(server)
        for signum in (signal.SIGCHLD, signal.SIGHUP, *_ENDING_SIGNALS):
            signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        listener.close()
        devnull = os.open(os.devnull, os.O_RDWR)
        for descriptor in (0, 1):  # the server's pipes are not the operation's
            os.dup2(devnull, descriptor)
        os.close(devnull)
        _answer_one(connection)
        connection.close()
        status = 0
    finally:
        os._exit(status)  # nothing of the server's: no exit handler, no thread waited for


def serve(path: str) -> None:
    # Stopped with metalwire (systemd signals the whole group), even while it starts: through
    # the clean-up below.
    for signum in _ENDING_SIGNALS:
        signal.signal(signum, _end)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # metalwire's reload: nothing to reload here
    try:
        _serve(path)
    finally:  # its operations, the socket, if bound, and the directory made for it
        _kill_children()
        for remove, what in ((os.unlink, path), (os.rmdir, os.path.dirname(path))):
            with contextlib.suppress(OSError):
                remove(what)


def _serve(path: str) -> None:
    try:
        _preload()
    except Exception as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return
    signal.signal(signal.SIGCHLD, _reap)  # children are reaped as they end
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        try:
            listener.bind(path)
        except OSError as error:  # e.g. a path too long for a Unix socket (a long TMPDIR)
            reason = error.strerror or str(error)
            print(json.dumps({"error": f"cannot listen on {path}: {reason}"}), flush=True)
            return
        listener.listen(64)
        print(json.dumps({"ready": os.getpid()}), flush=True)
        while True:
            readable, _, _ = select.select([listener, sys.stdin], [], [])
            if sys.stdin in readable and not os.read(sys.stdin.fileno(), 4096):
                return  # whoever started this server is gone
            if listener in readable:
                connection, _ = listener.accept()
                _fork_for(connection, listener)


if __name__ == "__main__":
    if sys.argv[1:2] != ["serve"] or len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} serve SOCKET")
    serve(sys.argv[2])
