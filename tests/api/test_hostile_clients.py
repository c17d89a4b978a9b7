"""Hostile clients against a real ``metalwire serve``: forged log lines, huge or countless
headers, slow bodies, clients that leave mid-body."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.helpers import wait_for
from tests.support.server import MetalwireServer

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
                break
            data += chunk
        return data


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
