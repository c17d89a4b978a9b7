"""``auth_strategy = http_basic``: an htpasswd file of bcrypt hashes, 401 otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from metalwire.api.app import create_app
from metalwire.errors import Invalid
from tests.auth.conftest import make_config
from tests.conftest import fault

CHALLENGE = 'Basic realm="metalwire"'


def test_right_credentials_give_the_admin_persona(basic_client: TestClient) -> None:
    resp = basic_client.post(
        "/v1/nodes", json={"driver": "fake-hardware", "name": "n1"}, auth=("alice", "s3cret")
    )
    assert resp.status_code == 201, resp.text
    node = resp.json()["uuid"]
    vif = basic_client.post(f"/v1/nodes/{node}/vifs", json={"id": "v1"}, auth=("alice", "s3cret"))
    assert vif.status_code == 400  # through authentication into the VIF rules (no port)
    history = basic_client.get(f"/v1/nodes/{node}/history?detail=true", auth=("alice", "s3cret"))
    assert {e["user"] for e in history.json()["history"]} == {"alice"}


@pytest.mark.parametrize(
    "auth",
    [("alice", "wrong"), ("bob", "s3cret"), ("alice", "")],
    ids=["password", "user", "empty"],
)
def test_wrong_credentials_are_401_with_the_basic_challenge(
    basic_client: TestClient, auth: tuple[str, str]
) -> None:
    resp = basic_client.get("/v1/nodes", auth=auth)
    assert resp.status_code == 401
    assert resp.headers["www-authenticate"] == CHALLENGE
    assert fault(resp) == "Invalid HTTP basic credentials."


@pytest.mark.parametrize("path", ["/v1/nodes", "/v1/nodes/n1/vifs", "/v1/ports"])
def test_no_credentials_are_401_with_the_basic_challenge(
    basic_client: TestClient, path: str
) -> None:
    resp = basic_client.get(path)
    assert resp.status_code == 401
    assert resp.headers["www-authenticate"] == CHALLENGE
    assert "x-openstack-request-id" in resp.headers


def test_garbage_authorization_header_is_401(basic_client: TestClient) -> None:
    resp = basic_client.get("/v1/nodes", headers={"Authorization": "Basic !!!not-base64"})
    assert resp.status_code == 401


@pytest.mark.parametrize("path", ["/", "/v1", "/v1/"])
def test_version_documents_stay_public(basic_client: TestClient, path: str) -> None:
    assert basic_client.get(path).status_code == 200


def test_client_headers_do_not_name_the_history_user(basic_client: TestClient) -> None:
    auth = ("alice", "s3cret")
    node = basic_client.post("/v1/nodes", json={"driver": "fake-hardware"}, auth=auth).json()
    resp = basic_client.patch(
        f"/v1/nodes/{node['uuid']}",
        json=[{"op": "add", "path": "/extra/a", "value": "b"}],
        headers={"X-User-Id": "mallory", "X-Project-Id": "evil"},
        auth=auth,
    )
    assert resp.status_code == 200, resp.text
    history = basic_client.get(f"/v1/nodes/{node['uuid']}/history?detail=true", auth=auth)
    assert "mallory" not in {e["user"] for e in history.json()["history"]}


def test_missing_user_file_refuses_to_start(tmp_path: Path, migrated_template: Path) -> None:
    config = make_config(
        tmp_path,
        migrated_template,
        DEFAULT__auth_strategy="http_basic",
        DEFAULT__http_basic_auth_user_file=str(tmp_path / "absent"),
    )
    with pytest.raises(Invalid, match=r"http_basic_auth_user_file .*absent.* cannot be read"):
        create_app(config)


def test_non_bcrypt_hash_refuses_to_start(tmp_path: Path, migrated_template: Path) -> None:
    user_file = tmp_path / "htpasswd"
    user_file.write_text("alice:$apr1$abcdefgh$0123456789abcdefghijkl\n")  # htpasswd -m (MD5)
    config = make_config(
        tmp_path,
        migrated_template,
        DEFAULT__auth_strategy="http_basic",
        DEFAULT__http_basic_auth_user_file=str(user_file),
    )
    with pytest.raises(Invalid, match="hash of user 'alice' is not bcrypt"):
        create_app(config)


def test_access_log_names_the_verified_user(
    basic_client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("INFO", logger="metalwire.api.access"):
        basic_client.get("/v1/nodes", auth=("alice", "s3cret"))
    assert "GET /v1/nodes 200" in caplog.text
    assert "user alice project -" in caplog.text
