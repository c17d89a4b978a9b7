"""Resource limits of a real ``metalwire serve``: silent, slow and too many clients, and TLS."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from metalwire.api.connections import protocol_with
from tests.auth.conftest import basic_auth_env
from tests.compat.clients import Cli
from tests.conftest import LATEST
from tests.support.helpers import fault, wait_for
from tests.support.server import (
    MetalwireServer,
    free_port,
    protocol_server,
    self_signed_certificate,
)

pytestmark = pytest.mark.server


def _silent_sockets(port: int, count: int) -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sockets.append(sock)
    return sockets


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


@contextlib.contextmanager
def _serving(tmp_path: Path, **env: str) -> Iterator[MetalwireServer]:
    with MetalwireServer(tmp_path, env=env) as server:
        yield server


def test_300_silent_connections_over_the_cap_do_not_starve_normal_requests(
    tmp_path: Path,
) -> None:
    # The bounded form of 1,100 silent connections against a 1,024 open-file limit: 300
    # against a cap of 200, which they exceed just as surely.
    env = {"METALWIRE_API_HEADER_TIMEOUT": "1", "METALWIRE_API_MAX_CONNECTIONS": "200"}
    with _serving(tmp_path, **env) as server:
        idle = _silent_sockets(server.port, 300)
        try:
            began = time.monotonic()
            url = f"{server.url}/v1/nodes"
            # Over the cap, requests are answered 503 until the deadline closes the silent.
            assert wait_for(lambda: httpx.get(url, timeout=10).status_code == 200, timeout=5)
            assert time.monotonic() - began < 1 + 3
            answers = [httpx.get(url, timeout=10).status_code for _ in range(50)]
            assert answers == [200] * 50
            assert all(_closed_by_server(s, within=1) for s in idle)
        finally:
            for sock in idle:
                sock.close()


def test_a_slow_header_sender_is_cut_off_at_the_header_deadline(tmp_path: Path) -> None:
    with _serving(tmp_path, METALWIRE_API_HEADER_TIMEOUT="1") as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        try:
            sock.sendall(b"GET /v1/nodes HTTP/1.1\r\nHost: x\r\n")
            began = time.monotonic()
            cut = False
            while time.monotonic() - began < 5:
                try:
                    sock.sendall(b"X-Slow: 1\r\n")  # each byte in time, the whole never
                except (BrokenPipeError, ConnectionResetError):
                    cut = True
                    break
                if _closed_by_server(sock, within=0.2):
                    cut = True
                    break
            assert cut
            assert time.monotonic() - began < 3
        finally:
            sock.close()


def _busy_sockets(port: int, count: int) -> list[socket.socket]:
    """Connections each in the middle of a request: its headers sent, its body not yet."""
    sockets = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(
            b"POST /v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{"
        )
        sockets.append(sock)
    return sockets


def test_requests_over_max_connections_are_answered_503_as_an_ironic_error(
    tmp_path: Path,
) -> None:
    # Idle connections would give way to the request: these are all busy.
    with _serving(
        tmp_path, METALWIRE_API_MAX_CONNECTIONS="5", METALWIRE_API_HEADER_TIMEOUT="30"
    ) as server:
        idle = _busy_sockets(server.port, 5)
        answers: list[httpx.Response] = []

        def refused_503() -> bool:
            answers.append(httpx.get(f"{server.url}/v1/nodes", timeout=10))
            return answers[-1].status_code == 503

        try:
            assert wait_for(refused_503, timeout=5)
            refused = answers[-1]
            assert refused.headers["content-type"] == "application/json"
            assert fault(refused) == (
                "metalwire is serving its maximum of 5 connections ([api] max_connections); "
                "retry later."
            )
            assert json.loads(refused.json()["error_message"])["faultcode"] == "Server"
            assert refused.headers["retry-after"] == "1"
            assert refused.headers["x-openstack-ironic-api-minimum-version"] == "1.1"
            assert refused.headers["x-openstack-ironic-api-maximum-version"] == LATEST
            assert refused.headers["x-openstack-request-id"].startswith("req-")
        finally:
            for sock in idle:
                sock.close()
        assert wait_for(
            lambda: httpx.get(f"{server.url}/v1/nodes", timeout=10).status_code == 200, timeout=5
        )


def test_the_baremetal_command_over_max_connections_says_why_and_retries(
    tmp_path: Path,
) -> None:
    """python-ironicclient cannot read a Retry-After on a 503 (its error class refuses the
    argument, and its own retry loop ends): the refusal over the cap, answered before the
    application, must leave the header out for it as every other 503 does."""
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    with _serving(
        tmp_path / "server", METALWIRE_API_MAX_CONNECTIONS="5", METALWIRE_API_HEADER_TIMEOUT="30"
    ) as server:
        busy = _busy_sockets(server.port, 5)
        try:
            assert wait_for(
                lambda: httpx.get(f"{server.url}/v1/nodes", timeout=10).status_code == 503,
                timeout=5,
            )
            impatient = Cli("baremetal", server.url, env, options=("--max-retries", "0"))
            refused = impatient.run("node", "list")
        finally:
            for sock in busy:
                sock.close()
    assert refused.returncode != 0, refused.describe()
    assert "serving its maximum of 5 connections" in refused.stderr, refused.describe()
    assert "retry_after" not in refused.stderr, refused.describe()


ANONYMOUS_STARTS = {
    "silent": b"",  # connects and says nothing
    "idle": b"GET /v1/nodes HTTP/1.1\r\nHost: x\r\n\r\n",  # a 401, then keeps it idle
    # a body announced and sent a byte a second: refused 401 before it is read
    "slow-body": b"POST /v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n",
}


def _reconnecting_anonymous_client(port: int, stop: threading.Event, kind: str) -> None:
    """Holds a connection as ``kind`` says (:data:`ANONYMOUS_STARTS`) and reopens it as soon
    as the server closes it."""
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(ANONYMOUS_STARTS[kind])
                while not stop.is_set():
                    try:
                        if sock.recv(65536) == b"":
                            break
                    except TimeoutError:
                        if kind == "slow-body":
                            sock.sendall(b" ")
        except OSError:
            time.sleep(0.01)


def served_while_anonymous_clients_reconnect(
    server: MetalwireServer, clients: int, requests: int, auth: tuple[str, str]
) -> int:
    """How many of ``requests`` normal requests (one connection each) are answered 200 while
    ``clients`` anonymous clients keep connections open: silent, idle after a 401, or
    trickling a body."""
    stop = threading.Event()
    kinds = list(ANONYMOUS_STARTS)
    threads = [
        threading.Thread(
            target=_reconnecting_anonymous_client,
            args=(server.port, stop, kinds[i % len(kinds)]),
        )
        for i in range(clients)
    ]
    for thread in threads:
        thread.start()
    try:
        time.sleep(2)  # every slot is taken
        url = f"{server.url}/v1/nodes"
        answers = []
        for _ in range(requests):
            try:
                answers.append(httpx.get(url, auth=auth, timeout=10).status_code)
            except httpx.TransportError:
                answers.append(0)
            time.sleep(0.1)
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
    return answers.count(200)


def test_a_normal_request_is_served_while_55_anonymous_clients_reopen_idle_sockets(
    tmp_path: Path,
) -> None:
    env = basic_auth_env(tmp_path, {"alice": "s3cret"}, METALWIRE_API_MAX_CONNECTIONS="50")
    with _serving(tmp_path, **env) as server:
        served = served_while_anonymous_clients_reconnect(server, 55, 40, ("alice", "s3cret"))
    print(f"served {served} of 40 normal requests while 55 anonymous clients reconnect")
    assert served >= 39  # one may lose the race of a connection closed just as it is reused


@pytest.mark.parametrize("parser", [HttpToolsProtocol, H11Protocol], ids=["httptools", "h11"])
def test_both_parsers_answer_over_the_cap_with_the_json_error(parser: type[Any]) -> None:
    # A cap of one is reached by the request's own connection: every request is over it.
    with protocol_server(protocol_with(30, parser), limit_concurrency=1) as port:
        resp = httpx.get(f"http://127.0.0.1:{port}/v1/nodes", timeout=10)
    assert resp.status_code == 503
    assert resp.headers["content-type"] == "application/json"
    assert resp.headers["connection"] == "close"
    assert fault(resp) == (
        "metalwire is serving its maximum of 1 connections ([api] max_connections); retry later."
    )


def test_an_idle_keep_alive_connection_is_closed_after_keep_alive_timeout(tmp_path: Path) -> None:
    with _serving(
        tmp_path, METALWIRE_API_KEEP_ALIVE_TIMEOUT="0.5", METALWIRE_API_HEADER_TIMEOUT="30"
    ) as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        try:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert _read_response(sock).startswith(b"HTTP/1.1 200")
            began = time.monotonic()
            assert _closed_by_server(sock, within=5)
            assert time.monotonic() - began < 3
        finally:
            sock.close()


def _read_response(sock: socket.socket) -> bytes:
    """One whole response (headers and Content-Length bytes of body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    return self_signed_certificate(tmp_path)


def _https_answers(url: str, cafile: Path) -> bool:
    try:
        context = ssl.create_default_context(cafile=str(cafile))
        return httpx.get(url, verify=context, timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def test_enable_ssl_api_serves_https_with_the_ssl_section_files(
    tmp_path: Path, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALWIRE_")}
    env.update(
        METALWIRE_API_ENABLE_SSL_API="true",
        METALWIRE_SSL_CERT_FILE=str(cert),
        METALWIRE_SSL_KEY_FILE=str(key),
    )
    args = [sys.executable, "-m", "metalwire.cli.main", "serve", "--port", str(port)]
    args += ["--data-dir", str(tmp_path / "data")]
    with (tmp_path / "serve.log").open("ab") as log:
        process = subprocess.Popen(
            args, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        url = f"https://127.0.0.1:{port}/v1/"
        assert wait_for(lambda: _https_answers(url, cert), timeout=30), (
            tmp_path / "serve.log"
        ).read_text()
        with pytest.raises(httpx.TransportError):  # plain HTTP on the TLS port: no answer
            httpx.get(f"http://127.0.0.1:{port}/v1/", timeout=2)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(15)


def test_enable_ssl_api_without_a_certificate_refuses_to_start(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALWIRE_")}
    env["METALWIRE_API_ENABLE_SSL_API"] = "true"
    done = subprocess.run(
        [sys.executable, "-m", "metalwire.cli.main", "serve", "--data-dir", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "[api] enable_ssl_api is true but [ssl] cert_file is not set" in done.stderr
