"""A TCP relay to Neutron that a test can cut: connections refused, or accepted and never
answered. A server configured with the relay's URL loses Neutron when the test says so."""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit

from tests.support.server import free_port


class Relay:
    """A TCP relay to Neutron that can forward, refuse connections, or swallow requests."""

    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.mode = "forward"
        self._listener: socket.socket | None = None
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self.swallowed = 0  # connections accepted and never answered

    def _listen(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with self._lock:
                self._open.append(conn)
            if self.mode == "forward":
                upstream = socket.create_connection(self.target)
                with self._lock:
                    self._open.append(upstream)
                for a, b in ((conn, upstream), (upstream, conn)):
                    threading.Thread(target=self._pump, args=(a, b), daemon=True).start()
            else:  # held open and never answered
                with self._lock:
                    self.swallowed += 1

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def _drop_connections(self) -> None:
        with self._lock:
            sockets, self._open = self._open, []
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def forward(self) -> None:
        self.mode = "forward"
        self._drop_connections()
        if self._listener is None:
            self._listen()

    def refuse(self) -> None:
        if self._listener is not None:
            # shutdown() wakes the thread blocked in accept(); close() alone would not.
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        self._drop_connections()

    def swallow(self) -> None:
        self.mode = "swallow"
        self._drop_connections()
        if self._listener is None:
            self._listen()

    def close(self) -> None:
        self.refuse()


def server_env_through(relay: Relay) -> dict[str, str]:
    """A metalwire server's environment reaching Neutron through ``relay``, with short
    timeouts and one retry so that a cut shows within seconds; no automated cleaning."""
    return {
        "METALWIRE_NEUTRON_URL": relay.url,
        "METALWIRE_NEUTRON_TIMEOUT": "4",
        "METALWIRE_NEUTRON_RETRIES": "1",
        "METALWIRE_NEUTRON_PROVISIONING_NETWORK": "mw-provision",
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
    }
