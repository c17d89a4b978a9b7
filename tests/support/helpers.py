"""Small helpers every test tier uses: waiting for a condition or a provision verb's end,
reading an error body, marking a tier's tests, skipping a test whose real server is not
installed (failing instead in CI), stopping a server's process group."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pytest

from metalwire.client.client import verb_over


def wait_for(check: Callable[[], bool], timeout: float = 10.0, interval: float = 0.05) -> bool:
    """Poll ``check`` until it holds (True) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)
    return True


#: The instance_info of a node deployed with the ``direct`` deploy interface, which (as Ironic's
#: agent deploy) refuses a deploy without an image: a Glance image, whose checksum Glance holds.
DIRECT_IMAGE = {"image_source": "8b1f2d6c-6a3e-4c55-9a55-2f3b8d1c0a11"}
#: What a node booting the agent over its network or by virtual media has in driver_info: the
#: deploy ramdisk's kernel and image (and, for a rescue, the rescue ones).
AGENT_RAMDISK = {
    "deploy_kernel": "http://images.example.com/ipa.kernel",
    "deploy_ramdisk": "http://images.example.com/ipa.initramfs",
}
RESCUE_RAMDISK = {
    "rescue_kernel": "http://images.example.com/rescue.kernel",
    "rescue_ramdisk": "http://images.example.com/rescue.initramfs",
}
#: A node deployed with the ``ramdisk`` deploy interface, booted over its network by iPXE, as
#: a deployment has it: the agent ramdisk (for the cleaning after it) and the instance's kernel
#: and ramdisk.
RAMDISK_NODE: dict[str, Any] = {
    "deploy_interface": "ramdisk",
    "boot_interface": "ipxe",
    "driver_info": AGENT_RAMDISK,
    "instance_info": {
        "kernel": "http://images.example.com/instance.kernel",
        "ramdisk": "http://images.example.com/instance.initramfs",
    },
}
#: The conductor's HTTP server ([deploy] http_url), which the iPXE boot interfaces need: the
#: test servers have one, as a deployment booting nodes with iPXE has.
HTTP_SERVER = "http://192.0.2.1:8080"

#: Provision states a verb rests in with its target still set: an agent's call-back awaited.
WAIT_STATES = ("wait call-back", "clean wait", "inspect wait")


def settled_node(
    get_node: Callable[[], dict[str, Any]], timeout: float = 120.0, interval: float = 0.1
) -> dict[str, Any]:
    """The node (``get_node()``) once its provision verb's steps are done: no target state
    left, failed (a failure state keeps its target), or waiting for an agent. A verb on a
    node whose interface calls an external service goes on after its 202; AssertionError if
    it is still under way after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        shown = get_node()
        if verb_over(shown) or shown["provision_state"] in WAIT_STATES:
            return shown
        assert time.monotonic() < deadline, f"still {shown['provision_state']!r}: {shown}"
        time.sleep(interval)


def fault(resp: Any) -> str:
    """The faultstring of an Ironic error body (``{"error_message": "<json>"}``)."""
    return str(json.loads(resp.json()["error_message"])["faultstring"])


def error_text(resp: Any) -> str:
    """What an Ironic error body says, in either of its shapes: a handler's ``faultstring``
    or the router's ``description``."""
    error = json.loads(resp.json()["error_message"])
    return str(error["faultstring"] if "faultstring" in error else error["description"])


def in_ci() -> bool:
    """Whether the environment variable ``CI`` is set to something true."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def skip_or_fail(message: str) -> NoReturn:
    """Skip the test for want of an installed server, or fail it in CI, where it must run."""
    if in_ci():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def stop_process_group(process: subprocess.Popen[bytes] | None, timeout: float = 15.0) -> None:
    """SIGTERM the process group a server was started in (``start_new_session=True``), and
    SIGKILL it if it is still there after ``timeout`` seconds; nothing if it has exited."""
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


def mark_tests_below(
    directory: Path, items: list[pytest.Item], marker: pytest.MarkDecorator
) -> None:
    """Give ``marker`` to every collected test whose file lies below ``directory``."""
    for item in items:
        if directory in Path(item.path).resolve().parents:
            item.add_marker(marker)


# Ports the servers of the tests listen on are picked below the kernel's ephemeral range:
# a port picked there is free when picked, but the kernel may hand it to any outgoing
# connection (a test's client, a server's pool) before the server that was to listen on it
# binds it, and that server then fails to start ("Address already in use").
_PORTS = random.Random()  # its own generator: a test that seeds `random` cannot make workers agree


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that nothing listens on now, outside the ephemeral range when
    there is room below it (else one the kernel picks)."""
    low = _ephemeral_low()
    for _ in range(200 if low > 12000 else 0):
        port = _PORTS.randrange(10000, low)
        with socket.socket() as sock:
            try:
                sock.bind((host, port))
            except OSError:
                continue
            return port
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])
