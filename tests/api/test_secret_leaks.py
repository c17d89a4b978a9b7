"""No secret reaches an answer, a history entry or the log of a real ``metalwire serve``.

The secrets: a BMC password in ``driver_info``, the password in ``[neutron] url``'s
userinfo, and the ``[neutron] token`` that a misbehaving Neutron echoes in its error text.
"""

from __future__ import annotations

import base64
import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.server import MetalwireServer

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
BMC_PASSWORD = "calvin"
URL_PASSWORD = "s3cret"
TOKEN = "tok-7f3a9c1e5b"
SECRETS = (
    BMC_PASSWORD,
    URL_PASSWORD,
    TOKEN,
    base64.b64encode(f"u:{URL_PASSWORD}".encode()).decode(),
)


class EchoingNeutron(BaseHTTPRequestHandler):
    """A broken Neutron: every call answers 500 with an error text quoting the request."""

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        quoted = f"{self.command} {self.path} {dict(self.headers)!r}"
        if "/ports/json-" in self.path:
            body = json.dumps(
                {"NeutronError": {"type": "HTTPInternalServerError", "message": quoted}}
            )
        else:
            body = f"<html><body><h1>500</h1><pre>{quoted}</pre></body></html>"
        data = body.encode()
        self.send_response(500)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = _answer

    def log_message(self, format: str, *args: Any) -> None:
        return None  # keep the test's output quiet


@pytest.fixture
def echoing_neutron() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), EchoingNeutron)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class Recorder:
    """Talks to a server and keeps every answer body, to be searched for secrets."""

    def __init__(self, server: MetalwireServer) -> None:
        self.server = server
        self.bodies: list[str] = []

    def __call__(self, method: str, path: str, body: Any = None) -> httpx.Response:
        response = httpx.request(
            method, self.server.url + path, json=body, headers=HEADERS, timeout=60
        )
        self.bodies.append(response.text)
        return response

    def history(self, node: str) -> list[dict[str, Any]]:
        response = self("GET", f"/v1/nodes/{node}/history?detail=true")
        assert response.status_code == 200, response.text
        return list(response.json()["history"])


def neutron_node(call: Recorder, name: str) -> None:
    """A node on the ``neutron`` interface, with a BMC password and one port."""
    body = {
        "driver": "ipmi",
        "name": name,
        "network_interface": "neutron",
        "driver_info": {"ipmi_address": "192.0.2.9", "ipmi_password": BMC_PASSWORD},
    }
    created = call("POST", "/v1/nodes", body)
    assert created.status_code == 201, created.text
    port = {"node_uuid": created.json()["uuid"], "address": "52:54:00:00:00:01"}
    assert call("POST", "/v1/ports", port).status_code == 201


def assert_no_secret(texts: list[str], where: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} found in {where}: {text[:2000]}"


def test_attach_with_credentials_in_the_neutron_url_leaks_no_password(tmp_path: Path) -> None:
    env = {
        "METALWIRE_NEUTRON_URL": f"http://u:{URL_PASSWORD}@127.0.0.1:1",
        "METALWIRE_NEUTRON_RETRIES": "0",
    }
    with MetalwireServer(tmp_path, env=env) as server:
        call = Recorder(server)
        neutron_node(call, "cut")
        vif = str(uuid.uuid4())
        response = call("POST", "/v1/nodes/cut/vifs", {"id": vif})
        assert response.status_code == 503, response.text
        assert "Neutron at http://127.0.0.1:1/v2.0 is unreachable" in response.text
        assert URL_PASSWORD not in response.text
        history = call.history("cut")
        assert any(vif in entry["event"] for entry in history)
        assert_no_secret([json.dumps(entry) for entry in history], "the history")
        log = server.log()
    assert "127.0.0.1:1" in log
    assert_no_secret(log.splitlines(), "the log")


def test_no_secret_in_any_answer_history_or_log_line(tmp_path: Path, echoing_neutron: str) -> None:
    env = {
        "METALWIRE_NEUTRON_URL": echoing_neutron.replace("http://", f"http://u:{URL_PASSWORD}@"),
        "METALWIRE_NEUTRON_AUTH_STRATEGY": "token",
        "METALWIRE_NEUTRON_TOKEN": TOKEN,
        "METALWIRE_NEUTRON_RETRIES": "0",
    }
    with MetalwireServer(tmp_path, env=env) as server:
        call = Recorder(server)
        neutron_node(call, "echo")
        call("GET", "/v1/nodes/echo")
        call("GET", "/v1/nodes/detail")
        call("GET", "/v1/nodes?fields=name,driver_info")
        patch = [{"op": "replace", "path": "/driver_info/ipmi_address", "value": "192.0.2.10"}]
        assert call("PATCH", "/v1/nodes/echo", patch).status_code == 200
        for vif in ("json-" + str(uuid.uuid4()), "html-" + str(uuid.uuid4())):
            response = call("POST", "/v1/nodes/echo/vifs", {"id": vif})
            assert response.status_code == 502, response.text
            assert "HTTP 500" in response.text
        history = call.history("echo")
        assert len(history) >= 2
        for entry in history:
            call("GET", f"/v1/nodes/echo/history/{entry['uuid']}")
        call("GET", "/v1/nodes/echo/vifs")
        call("DELETE", "/v1/nodes/echo")
        log = server.log()
    assert f"HTTP Request: GET {echoing_neutron}/v2.0/ports/json-" in log
    assert_no_secret(call.bodies, "an answer")
    assert_no_secret([json.dumps(entry) for entry in history], "the history")
    assert_no_secret(log.splitlines(), "the log")
