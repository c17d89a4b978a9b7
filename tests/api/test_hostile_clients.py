"""Hostile clients against a real ``metalwire serve``: forged log lines, huge or countless
headers, slow bodies, clients that leave mid-body."""

from __future__ import annotations

import base64
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from metalwire.api.connections import H11_HEAD_SLACK, protocol_with
from tests.auth.conftest import basic_auth_env
from tests.conftest import LATEST
from tests.support.helpers import wait_for
from tests.support.server import MetalwireServer, protocol_server

pytestmark = pytest.mark.server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[MetalwireServer]:
    with MetalwireServer(tmp_path / "data") as running:
        yield running


def raw_exchange(port: int, request: bytes, timeout: float = 10) -> bytes:
    """Send ``request`` as it is and read until the server closes or answers in full."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        sizes = [line for line in head.lower().split(b"\r\n") if line.startswith(b"content-")]
        length = next((int(v.split(b":")[1]) for v in sizes if b"length" in v), 0)
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
        return head + b"\r\n\r\n" + body


def access_lines(server: MetalwireServer) -> list[str]:
    return [line for line in server.log().splitlines() if "metalwire.api.access" in line]


@pytest.mark.parametrize(
    ("encoded", "shown"),
    [("%0a", "\\n"), ("%0d", "\\r"), ("%1b%5b2J", "\\x1b[2J"), ("%e2%80%a8", "\\u2028")],
    ids=["lf", "cr", "escape", "line-separator"],
)
def test_control_characters_in_the_path_and_query_cannot_forge_access_log_lines(
    server: MetalwireServer, encoded: str, shown: str
) -> None:
    forged = "2026-01-01%2000:00:00,000%20INFO%20metalwire.api.access%20FORGED"
    path = f"/v1/nodes{encoded}{forged}?q={encoded}{forged}"
    answer = raw_exchange(server.port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 "), answer
    assert wait_for(lambda: any("FORGED" in line for line in access_lines(server)), timeout=5)
    lines = [line for line in server.log().splitlines() if "FORGED" in line]
    assert len(lines) == 1, lines  # one line, the request's own
    assert f"GET /v1/nodes{shown}2026-01-01 00:00:00,000 INFO" in lines[0]
    assert f"?q={encoded}2026" in lines[0]  # the query is logged as sent, still encoded
    assert "\x1b" not in server.log() and "\r" not in server.log() and "\u2028" not in server.log()


# -- header limits, body deadline and clients leaving, in http_basic mode ----------------------

CREDENTIALS = "Basic " + base64.b64encode(b"alice:s3cret").decode()


@pytest.fixture(scope="module")
def basic_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MetalwireServer]:
    tmp_path = tmp_path_factory.mktemp("hostile-basic")
    env = basic_auth_env(tmp_path, {"alice": "s3cret"}, METALWIRE_API_BODY_TIMEOUT="1")
    with MetalwireServer(tmp_path / "data", env=env) as server:
        yield server


def status_and_fault(answer: bytes) -> tuple[int, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(json.loads(body)["error_message"])["faultstring"]


def read_answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk


def stream_huge_header(port: int, total: int) -> tuple[bytes, int, float]:
    """Send one header of ``total`` bytes, without credentials, in 1 MiB pieces until the
    server closes; (its answer, bytes sent, seconds until the answer)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        began = time.monotonic()
        sock.sendall(b"GET /v1/nodes HTTP/1.1\r\nHost: x\r\nX-Big: ")
        sent = 0
        piece = b"a" * (1 << 20)
        try:
            while sent < total:
                sock.sendall(piece)
                sent += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = read_answer(sock)
        return answer, sent, time.monotonic() - began


def test_a_100_mb_header_is_refused_431_before_authentication(
    basic_server: MetalwireServer,
) -> None:
    answer, sent, seconds = stream_huge_header(basic_server.port, 100 << 20)
    status, message = status_and_fault(answer)
    assert (status, message) == (
        431,
        "The request headers are larger than the 65536 bytes accepted "
        "([api] max_header_total_size).",
    )
    assert b"\r\nconnection: close\r\n" in answer.lower()
    assert sent < 100 << 20 and seconds < 5


def _raw(headers: list[tuple[str, str]], path: str = "/v1/nodes") -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: x", *(f"{k}: {v}" for k, v in headers)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


@pytest.mark.parametrize(
    ("headers", "path", "message"),
    [
        (
            [(f"X-H{i}", "v") for i in range(100)],
            "/v1/nodes",
            "The request has 101 headers, more than the 100 accepted ([api] max_header_count).",
        ),
        (
            [("X-Long", "a" * 16384)],
            "/v1/nodes",
            "The request has a line longer than the 16384 bytes accepted ([api] max_header_size).",
        ),
        (
            [],
            "/v1/nodes?q=" + "a" * 16384,
            "The request has a line longer than the 16384 bytes accepted ([api] max_header_size).",
        ),
        (
            [(f"X-H{i}", "a" * 8000) for i in range(9)],
            "/v1/nodes",
            "The request has headers larger than the 65536 bytes accepted "
            "([api] max_header_total_size).",
        ),
    ],
    ids=["count", "line", "request-line", "total"],
)
def test_headers_over_the_limits_are_431_before_authentication(
    basic_server: MetalwireServer, headers: list[tuple[str, str]], path: str, message: str
) -> None:
    answer = raw_exchange(basic_server.port, _raw(headers, path))
    assert status_and_fault(answer) == (431, message)


def test_headers_within_the_limits_are_served(basic_server: MetalwireServer) -> None:
    headers = [("Authorization", CREDENTIALS), *((f"X-H{i}", "a" * 600) for i in range(97))]
    answer = raw_exchange(basic_server.port, _raw(headers))
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]


@pytest.mark.parametrize("parser", [HttpToolsProtocol, H11Protocol], ids=["httptools", "h11"])
def test_both_parsers_refuse_a_huge_header_while_it_arrives(parser: type[Any]) -> None:
    protocol = protocol_with(30, parser, max_head_bytes=65536)
    with protocol_server(protocol, h11_max_incomplete_event_size=65536 + H11_HEAD_SLACK) as port:
        answer, sent, seconds = stream_huge_header(port, 50 << 20)
    assert status_and_fault(answer)[0] == 431
    assert sent < 50 << 20 and seconds < 5


def _post_head(length: int) -> bytes:
    return (
        "POST /v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: {CREDENTIALS}\r\nX-OpenStack-Ironic-API-Version: {LATEST}\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


def test_a_body_sent_one_byte_at_a_time_is_cut_at_body_timeout(
    basic_server: MetalwireServer,
) -> None:
    with socket.create_connection(("127.0.0.1", basic_server.port), timeout=10) as sock:
        sock.sendall(_post_head(100))
        began = time.monotonic()
        answer = b""
        sock.settimeout(0.2)
        while time.monotonic() - began < 6 and b"\r\n\r\n" not in answer:
            try:
                sock.sendall(b" ")  # each byte in time, the whole never
                answer += sock.recv(65536)
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
        sock.settimeout(5)
        answer += read_answer(sock)  # then the server closes the connection
        seconds = time.monotonic() - began
    assert status_and_fault(answer) == (
        408,
        "The request body was not received within 1 seconds ([api] body_timeout).",
    )
    assert b"\r\nconnection: close\r\n" in answer.lower()
    assert seconds < 3


def _requests_counted(server: MetalwireServer, status: str) -> float:
    resp = httpx.get(f"{server.url}/metrics", headers={"Authorization": CREDENTIALS}, timeout=10)
    assert resp.status_code == 200, resp.text
    return sum(
        sample.value
        for family in text_string_to_metric_families(resp.text)
        for sample in family.samples
        if sample.name == "metalwire_http_requests_total" and sample.labels["status"] == status
    )


def test_a_client_leaving_mid_body_is_neither_an_error_log_nor_a_counted_500(
    basic_server: MetalwireServer,
) -> None:
    errors_before = basic_server.log().count(" ERROR ")
    counted_before = _requests_counted(basic_server, "500")
    for _ in range(3):
        with socket.create_connection(("127.0.0.1", basic_server.port), timeout=10) as sock:
            sock.sendall(_post_head(1000) + b'{"driver": "fake-')
            time.sleep(0.2)
    assert wait_for(
        lambda: basic_server.log().count("client disconnected before its request") >= 3, 5
    ), basic_server.log()[-3000:]
    assert basic_server.log().count(" ERROR ") == errors_before, basic_server.log()[-3000:]
    assert "Traceback" not in basic_server.log()
    assert _requests_counted(basic_server, "500") == counted_before
    assert _requests_counted(basic_server, "499") >= 3
