"""The listening socket of ``metalwire serve``: a busy port said before start, and systemd's
readiness (``Type=notify``) once the server accepts connections.

sd_notify is a datagram on the Unix socket named by $NOTIFY_SOCKET (a leading ``@`` is the
abstract namespace); without the variable nothing is sent, so the server runs the same
outside systemd.
"""

from __future__ import annotations

import errno
import os
import socket
import threading
import time
from collections.abc import Mapping
from typing import Any

from metalwire.errors import Invalid

#: Connections the kernel queues for the server before it accepts them (uvicorn's default).
LISTEN_BACKLOG = 2048


def bound_sockets(host: str, port: int, *, shared: bool = False) -> list[socket.socket]:
    """Sockets bound to ``host:port`` as asyncio binds a server's, not yet listening: one per
    address the host resolves to (an empty host: every IPv4 and IPv6 address), with address
    reuse (a port whose old connections linger in TIME_WAIT is free), an IPv6 socket taking
    IPv6 only. Raises Invalid naming the fix when one cannot be bound (in use, or an address
    this machine does not have); then none is left open.

    ``shared``: the port is shared with the other workers of the server (``SO_REUSEPORT``,
    which only sockets of the same user that set it too can share): each worker listens on
    a socket of its own and the kernel spreads new connections over them."""
    try:
        found = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as exc:
        raise Invalid(f"[api] host_ip {host!r} cannot be resolved: {exc.strerror}") from None
    sockets: list[socket.socket] = []
    seen: set[tuple[int, object]] = set()
    try:
        for family, kind, proto, _name, address in found:
            if (family, address) in seen:
                continue
            seen.add((family, address))
            sockets.append(_bound(family, kind, proto, address, host, port, shared))
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def _bound(
    family: int, kind: int, proto: int, address: Any, host: str, port: int, shared: bool
) -> socket.socket:
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if shared:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise Invalid(
                f"port {port} on {host} is in use by another process (Errno 98): stop it "
                f"(find it with: ss -ltnp 'sport = :{port}') or choose another port with "
                "--port or [api] port"
            ) from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise Invalid(
                f"[api] host_ip {host} is not an address of this machine: use one of its "
                "addresses, 127.0.0.1 or 0.0.0.0"
            ) from None
        raise
    return sock


def check_port_free(host: str, port: int) -> None:
    """Raise Invalid naming the fix when ``host:port`` cannot be bound; the server binds it
    right after (with several workers, each binds its own once its application is built)."""
    for sock in bound_sockets(host, port):
        sock.close()


def sd_notify(message: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send ``message`` (e.g. ``READY=1``) to systemd; False when not run by systemd."""
    target = (os.environ if environ is None else environ).get("NOTIFY_SOCKET")
    if not target:
        return False
    if target.startswith("@"):
        target = "\0" + target[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.connect(target)
        sock.sendall(message.encode())
    return True


def notify_when_listening(host: str, port: int, timeout: float = 120.0) -> None:
    """Tell systemd READY=1 once ``host:port`` accepts connections (from a daemon thread);
    does nothing outside systemd."""
    if not os.environ.get("NOTIFY_SOCKET"):
        return
    # A wildcard address is reached on loopback.
    target = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)

    def wait_then_notify() -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((target, port), timeout=1):
                    break
            except OSError:
                time.sleep(0.05)
        else:
            return
        sd_notify(f"READY=1\nSTATUS=serving on port {port}")

    threading.Thread(target=wait_then_notify, name="sd-notify", daemon=True).start()
