"""Credential edge cases through a real ``metalwire serve`` in http_basic mode: an over-long
password and repeated credential headers."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.auth.conftest import basic_auth_env
from tests.conftest import LATEST, fault
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

VERSION = {"X-OpenStack-Ironic-API-Version": LATEST}


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.fixture(scope="module")
def basic_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MetalwireServer]:
    tmp_path = tmp_path_factory.mktemp("credential-edges")
    env = basic_auth_env(tmp_path, {"alice": "s3cret"})
    with MetalwireServer(tmp_path / "data", env=env) as server:
        yield server


@pytest.mark.parametrize("user", ["alice", "nobody"], ids=["known", "unknown"])
def test_a_password_over_72_bytes_is_401_for_known_and_unknown_users_alike(
    basic_server: MetalwireServer, user: str
) -> None:
    headers = {**VERSION, "Authorization": _basic(user, "s3cret" + "x" * 67)}
    resp = httpx.get(f"{basic_server.url}/v1/nodes", headers=headers, timeout=10)
    assert resp.status_code == 401, resp.text
    assert fault(resp) == "Invalid HTTP basic credentials."
    assert resp.headers["www-authenticate"] == 'Basic realm="metalwire"'
    assert "Traceback" not in basic_server.log()


def test_a_72_byte_password_is_still_checked(tmp_path: Path) -> None:
    password = "p" * 72
    env = basic_auth_env(tmp_path, {"bob": password})
    with MetalwireServer(tmp_path / "data", env=env) as server:
        ok = httpx.get(
            f"{server.url}/v1/nodes",
            headers={**VERSION, "Authorization": _basic("bob", password)},
            timeout=10,
        )
        assert ok.status_code == 200, ok.text


@pytest.mark.parametrize("valid_first", [True, False], ids=["valid-first", "valid-last"])
def test_two_authorization_headers_are_refused_400(
    basic_server: MetalwireServer, valid_first: bool
) -> None:
    pair = [_basic("alice", "s3cret"), _basic("mallory", "guess")]
    if not valid_first:
        pair.reverse()
    headers = [*VERSION.items(), *(("Authorization", value) for value in pair)]
    resp = httpx.get(f"{basic_server.url}/v1/nodes", headers=headers, timeout=10)
    assert resp.status_code == 400, resp.text
    assert fault(resp) == "The request has more than one Authorization header; send one."
    assert resp.headers["x-openstack-request-id"].startswith("req-")


def test_one_authorization_header_still_gets_in(basic_server: MetalwireServer) -> None:
    headers = {**VERSION, "Authorization": _basic("alice", "s3cret")}
    assert httpx.get(f"{basic_server.url}/v1/nodes", headers=headers, timeout=10).status_code == 200
