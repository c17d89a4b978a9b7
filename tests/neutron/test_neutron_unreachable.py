"""Neutron unreachable in the middle of a test: a second server reaches Neutron through a
relay the test can cut (connections refused, or accepted and never answered)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.neutron.clients import Metalwire, Neutron, assert_unbound, link
from tests.neutron.interface_fixtures import fixture_neutron  # noqa: F401  (the networks)
from tests.support.helpers import fault, wait_for
from tests.support.server import MetalwireServer, free_port


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


@pytest.fixture(scope="module")
def relay(neutron_endpoint: str) -> Iterator[Relay]:
    running = Relay(neutron_endpoint)
    running.forward()
    yield running
    running.close()


@pytest.fixture(scope="module")
def cut_api(relay: Relay, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Metalwire]:
    """A second server, reaching Neutron through the relay with short timeouts."""
    env = {
        "METALWIRE_NEUTRON_URL": relay.url,
        "METALWIRE_NEUTRON_TIMEOUT": "4",
        "METALWIRE_NEUTRON_RETRIES": "1",
    }
    data_dir: Path = tmp_path_factory.mktemp("neutron-cut")
    with MetalwireServer(data_dir, env=env) as running:
        client = Metalwire(running.url)
        yield client
        client.close()


def test_neutron_unreachable_mid_test(cut_api: Metalwire, relay: Relay, neutron: Neutron) -> None:
    api = cut_api
    api.node("cut")
    api.port(api.get("/v1/nodes/cut"), "52:54:00:34:00:01", link("Ethernet26/1"))
    noop = api.node("bystander", "noop")
    api.port(noop, "52:54:00:34:00:09", link("Ethernet26/9"))
    vif, other = neutron.vif("mw-tenant-p1"), neutron.vif("mw-tenant-p1")
    assert api.attach("cut", vif["id"]).status_code == 204
    assert neutron.port(vif["id"])["mac_address"] == "52:54:00:34:00:01"

    # Connections refused: a clear 503 at once, naming the call; the VIF stays attached.
    relay.refuse()
    began = time.monotonic()
    response = api.detach("cut", vif["id"])
    assert response.status_code == 503, response.text
    message = fault(response)
    assert f"Neutron GET /v2.0/ports/{vif['id']}" in message
    assert f"Neutron at {relay.url}/v2.0 is unreachable" in message
    assert "detach can be retried" in message
    assert time.monotonic() - began < 10
    assert api.vifs("cut") == [vif["id"]]

    # No answer at all: the attach fails after the timeouts, and other nodes do not wait.
    relay.swallow()
    result: dict[str, Any] = {}

    def attach_other() -> None:
        started = time.monotonic()
        result["response"] = api.attach("cut", other["id"])
        result["seconds"] = time.monotonic() - started

    attaching = threading.Thread(target=attach_other)
    swallowed = relay.swallowed
    attaching.start()
    assert wait_for(lambda: relay.swallowed > swallowed), "the attach never reached Neutron"
    for step in (
        lambda: api.attach("bystander", "noop-vif"),
        lambda: api.vifs("bystander"),
        lambda: api.get("/v1/nodes/bystander"),
        lambda: api.get("/v1/nodes/cut/vifs"),
        lambda: api.detach("bystander", "noop-vif"),
    ):
        started = time.monotonic()
        step()
        assert time.monotonic() - started < 1.5
    assert attaching.is_alive(), "the other nodes' calls should finish while Neutron hangs"
    attaching.join(60)
    response = result["response"]
    assert response.status_code == 503, response.text
    message = fault(response)
    assert f"Attaching VIF {other['id']} to node" in message
    assert "nothing was changed" in message
    assert f"Neutron GET /v2.0/ports/{other['id']}" in message
    assert "no answer within 4 s (ReadTimeout)" in message
    assert result["seconds"] >= 4
    assert api.vifs("cut") == [vif["id"]]

    # Neutron back: the detach goes through and the MAC is restored.
    relay.forward()
    response = api.detach("cut", vif["id"])
    assert response.status_code == 204, response.text
    assert api.vifs("cut") == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])
    assert neutron.port(other["id"])["mac_address"] == other["mac_address"]
