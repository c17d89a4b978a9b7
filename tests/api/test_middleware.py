"""The request pipeline every request goes through, the VIF endpoints' fast door included.

The body-size limit on every endpoint, the request id and context, and one error rendering.
"""

from __future__ import annotations

import dataclasses
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from metalwire.api.app import build_services, create_app
from metalwire.config import Config
from tests.conftest import Api, fault
from tests.support.app_client import AppClient
from tests.support.server import MetalwireServer

LIMIT = 114_688
TOO_LARGE = f"is larger than the {LIMIT} bytes accepted ([api] max_request_body_size)."


@pytest.fixture
def database() -> str:
    """The pipeline is the same whatever the database: SQLite alone is enough here."""
    return "sqlite"


@pytest.fixture
def node(api: Api) -> dict[str, Any]:
    made = api.node(name="pipe")
    api.port(made, "52:54:00:20:00:01")
    return made


def padded(body: dict[str, Any], size: int) -> bytes:
    """``body`` as JSON text of exactly ``size`` bytes (trailing spaces are valid JSON)."""
    text = json.dumps(body).encode()
    assert len(text) <= size
    return text + b" " * (size - len(text))


def send(api: Api, method: str, url: str, content: Any) -> Any:
    headers = {**api.headers(), "Content-Type": "application/json"}
    return api.client.request(method, url, content=content, headers=headers)


def chunks(body: bytes, size: int = 16_384) -> Iterator[bytes]:
    """The body as a stream: the client sends it chunked, without Content-Length."""
    for start in range(0, len(body), size):
        yield body[start : start + size]


# -- the body-size limit, on every endpoint -----------------------------------------------


def test_port_create_with_a_body_over_the_limit_is_413(api: Api, node: dict[str, Any]) -> None:
    body = padded({"node_uuid": node["uuid"], "address": "52:54:00:20:00:02"}, LIMIT + 1)
    resp = send(api, "POST", "/v1/ports", body)
    assert resp.status_code == 413, resp.text
    assert fault(resp) == f"The request body of {LIMIT + 1} bytes {TOO_LARGE}"
    assert len(api.get("/v1/ports").json()["ports"]) == 1


def test_node_patch_with_a_body_over_the_limit_is_413(api: Api, node: dict[str, Any]) -> None:
    patch = [{"op": "add", "path": "/extra/big", "value": "x" * (LIMIT + 1)}]
    resp = send(api, "PATCH", "/v1/nodes/pipe", json.dumps(patch).encode())
    assert resp.status_code == 413, resp.text
    assert TOO_LARGE in fault(resp)
    assert api.get("/v1/nodes/pipe").json()["extra"] == {}


def test_vif_attach_with_a_body_over_the_limit_is_413(api: Api, node: dict[str, Any]) -> None:
    resp = send(api, "POST", "/v1/nodes/pipe/vifs", padded({"id": "big"}, LIMIT + 1))
    assert resp.status_code == 413, resp.text
    assert fault(resp) == f"The request body of {LIMIT + 1} bytes {TOO_LARGE}"
    assert api.vifs("pipe") == []


def test_a_body_at_the_limit_is_accepted(api: Api, node: dict[str, Any]) -> None:
    resp = send(api, "POST", "/v1/nodes/pipe/vifs", padded({"id": "fits"}, LIMIT))
    assert resp.status_code == 204, resp.text
    body = padded({"node_uuid": node["uuid"], "address": "52:54:00:20:00:03"}, LIMIT)
    assert send(api, "POST", "/v1/ports", body).status_code == 201


@pytest.mark.parametrize(
    ("method", "url"), [("POST", "/v1/ports"), ("POST", "/v1/nodes/pipe/vifs")]
)
def test_a_streamed_body_growing_past_the_limit_is_413(
    api: Api, node: dict[str, Any], method: str, url: str
) -> None:
    body = padded({"node_uuid": node["uuid"], "address": "52:54:00:20:00:04"}, LIMIT + 1)
    resp = send(api, method, url, chunks(body))
    assert resp.status_code == 413, resp.text
    assert fault(resp) == f"The request body {TOO_LARGE}"
    assert resp.headers["x-openstack-request-id"].startswith("req-")
    assert len(api.get("/v1/ports").json()["ports"]) == 1
    assert api.vifs("pipe") == []


def test_a_streamed_body_within_the_limit_is_read_whole(api: Api, node: dict[str, Any]) -> None:
    body = padded({"id": "streamed"}, LIMIT)
    assert send(api, "POST", "/v1/nodes/pipe/vifs", chunks(body)).status_code == 204
    assert api.vifs("pipe") == ["streamed"]


def test_the_limit_is_the_configured_one(config: Config) -> None:
    small = dataclasses.replace(
        config, api=dataclasses.replace(config.api, max_request_body_size=64)
    )
    services, locks = build_services(small, upgrade_schema=False)
    try:
        with AppClient(create_app(small, services)) as client:
            api = Api(client)
            api.node(name="pipe")
            resp = send(api, "POST", "/v1/nodes/pipe/vifs", padded({"id": "v"}, 65))
            assert resp.status_code == 413
            assert "larger than the 64 bytes accepted" in fault(resp)
            patch = json.dumps([{"op": "add", "path": "/extra/a", "value": "b"}]).encode()
            assert len(patch) <= 64
            assert send(api, "PATCH", "/v1/nodes/pipe", patch).status_code == 200
    finally:
        locks.release_all()
        services.db.dispose()


def raw_request(server: MetalwireServer, head: bytes, body: bytes = b"") -> bytes:
    """Send a request as bytes on a socket to the real server; its answer's status and headers."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head + body)
        answer = b""
        while b"\r\n\r\n" not in answer:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    return answer


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_sent(
    server: MetalwireServer,
) -> None:
    # The body is never sent: only an answer that does not wait for it arrives.
    head = (
        b"POST /v1/ports HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"X-OpenStack-Ironic-API-Version: 1.78\r\nContent-Length: 1000000000\r\n\r\n"
    )
    answer = raw_request(server, head)
    assert answer.startswith(b"HTTP/1.1 413 "), answer
    assert b"x-openstack-request-id: req-" in answer.lower()


def test_a_chunked_body_past_the_limit_is_cut_off_by_the_real_server(
    server: MetalwireServer,
) -> None:
    head = (
        b"POST /v1/ports HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/json\r\nX-OpenStack-Ironic-API-Version: 1.78\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b" " * 40_000
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(3)) + b"0\r\n\r\n"
    answer = raw_request(server, head, body)
    assert answer.startswith(b"HTTP/1.1 413 "), answer


# -- the request id and context, built once for every request -----------------------------


def test_every_answer_has_its_own_request_id_door_or_router(api: Api, node: dict[str, Any]) -> None:
    answers = [
        api.get("/v1/nodes/pipe/vifs"),  # the VIF door: 200
        api.post("/v1/nodes/pipe/vifs", {"id": "rid"}),  # 204
        api.client.put("/v1/nodes/pipe/vifs", headers=api.headers()),  # 405
        api.get("/v1/nodes/pipe/vifs", version="1.27"),  # 404 below 1.28
        api.post("/v1/nodes/pipe/vifs", {"id": "rid"}),  # 409 from the conductor
        api.get("/v1/nodes/pipe"),  # the router: 200
        api.get("/v1/nowhere"),  # 404 from the router
        api.get("/v1/nodes", version="abc"),  # 406 from the middleware
    ]
    assert [a.status_code for a in answers] == [200, 204, 405, 404, 409, 200, 404, 406]
    ids = [a.headers["x-openstack-request-id"] for a in answers]
    assert all(i.startswith("req-") for i in ids)
    assert len(set(ids)) == len(ids)


def test_a_user_header_is_trusted_neither_at_the_door_nor_at_the_router(
    api: Api, node: dict[str, Any]
) -> None:
    who = {**api.headers(), "X-User-Id": "mallory", "X-Project-Id": "p" * 300}
    assert api.client.post("/v1/nodes/pipe/vifs", json={"id": "u1"}, headers=who).status_code == 204
    patch = [{"op": "add", "path": "/extra/k", "value": 1}]
    resp = api.client.patch("/v1/nodes/pipe", json=patch, headers=who)
    assert resp.status_code == 200, resp.text
    assert api.client.delete("/v1/nodes/pipe/vifs/u1", headers=who).status_code == 204
    entries = api.get("/v1/nodes/pipe/history?detail=true").json()["history"]
    assert entries and {e["user"] for e in entries} == {None}
