"""``auth_strategy = keystone`` against a real Keystone: who gets in, and the 401s."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from metalwire.api.app import create_app
from metalwire.db.models import Node, NodeHistory
from metalwire.errors import Invalid
from tests.auth.conftest import PASSWORD, Cloud, make_config, open_client
from tests.conftest import fault


@pytest.fixture
def keystone_client(tmp_path: Path, migrated_template: Path, cloud: Cloud) -> Iterator[TestClient]:
    yield from open_client(
        make_config(
            tmp_path, migrated_template, **cloud.options(keystone_authtoken__token_cache_time=2)
        )
    )


def _challenge(cloud: Cloud) -> str:
    return f'Keystone uri="{cloud.keystone.url}"'


def test_a_valid_token_gets_in_and_names_the_history_user(
    keystone_client: TestClient, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    headers = {"X-Auth-Token": persona_tokens["system_admin"]}
    resp = keystone_client.post("/v1/nodes", json={"driver": "fake-hardware"}, headers=headers)
    assert resp.status_code == 201, resp.text
    node = resp.json()["uuid"]
    attach = keystone_client.post(f"/v1/nodes/{node}/vifs", json={"id": "v1"}, headers=headers)
    assert attach.status_code == 400  # no port: a failure node history records
    history = keystone_client.get(
        f"/v1/nodes/{resp.json()['uuid']}/history?detail=true", headers=headers
    )
    assert {e["user"] for e in history.json()["history"]} == {cloud.users["sys-admin"]}


def test_history_stores_the_project_of_writes_and_failures_but_shows_only_the_user(
    keystone_client: TestClient, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    admin = {"X-Auth-Token": persona_tokens["system_admin"]}
    owner = cloud.projects["owner-project"]
    node = keystone_client.post(
        "/v1/nodes", json={"driver": "fake-hardware", "owner": owner}, headers=admin
    ).json()["uuid"]
    member = {"X-Auth-Token": persona_tokens["owner_member"]}
    failed = keystone_client.post(f"/v1/nodes/{node}/vifs", json={"id": "v1"}, headers=member)
    assert failed.status_code == 400  # no port: a failure node history records
    with keystone_client.app.state.services.db.read() as session:
        stored = session.scalars(
            select(NodeHistory).join(Node, Node.id == NodeHistory.node_id).where(Node.uuid == node)
        ).all()
    assert {(e.user, e.project, e.result) for e in stored} == {
        (cloud.users["owner-member"], owner, "failure")
    }
    url = f"/v1/nodes/{node}/history?detail=true"
    for version, project in (("1.112", None), ("1.113", owner)):  # shown from 1.113, as Ironic
        headers = {**admin, "X-OpenStack-Ironic-API-Version": version}
        entry = keystone_client.get(url, headers=headers).json()["history"][0]
        assert entry.get("project") == project and ("project" in entry) == (project is not None)


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "Authentication required: send a Keystone token (X-Auth-Token)."),
        ({"X-Auth-Token": "garbage"}, "The X-Auth-Token token is invalid, expired or revoked."),
    ],
    ids=["none", "garbage"],
)
@pytest.mark.parametrize("path", ["/v1/nodes", "/v1/nodes/n1/vifs"])
def test_missing_or_garbage_token_is_401_with_the_keystone_challenge(
    keystone_client: TestClient, cloud: Cloud, headers: dict[str, str], message: str, path: str
) -> None:
    resp = keystone_client.get(path, headers=headers)
    assert resp.status_code == 401
    assert resp.headers["www-authenticate"] == _challenge(cloud)
    assert fault(resp) == message


def test_version_documents_stay_public(keystone_client: TestClient) -> None:
    assert keystone_client.get("/").status_code == 200
    assert keystone_client.get("/v1/").status_code == 200


def _refused_before(client: TestClient, token: str, seconds: float) -> float:
    """Seconds until ``token`` is refused (polling), failing after ``seconds``."""
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        resp = client.get("/v1/nodes", headers={"X-Auth-Token": token})
        if resp.status_code == 401:
            return time.monotonic() - began
        assert resp.status_code == 200, resp.text
        time.sleep(0.1)
    pytest.fail(f"the token was still accepted after {seconds} s")


def test_revoked_token_is_refused_within_token_cache_time(
    keystone_client: TestClient, cloud: Cloud
) -> None:
    token = cloud.keystone.token("sys-reader", PASSWORD, system=True)
    assert keystone_client.get("/v1/nodes", headers={"X-Auth-Token": token}).status_code == 200
    cloud.keystone.revoke(token)
    assert _refused_before(keystone_client, token, seconds=2 + 3) <= 2 + 1


def test_expired_token_is_refused(keystone_client: TestClient, cloud: Cloud) -> None:
    expires = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=10)
    body = {
        "application_credential": {
            "name": f"short-{time.time_ns()}",
            "expires_at": expires.strftime("%Y-%m-%dT%H:%M:%S"),
        }
    }
    owner = cloud.keystone.token("owner-reader", PASSWORD, project="owner-project")
    created = cloud.keystone.admin(
        "POST",
        f"/users/{cloud.users['owner-reader']}/application_credentials",
        json=body,
        headers={"X-Auth-Token": owner},
    )["application_credential"]
    token = cloud.keystone.app_credential_token(created["id"], created["secret"])
    assert _refused_before(keystone_client, token, seconds=30) > 0


def test_keystone_without_credentials_refuses_to_start(
    tmp_path: Path, migrated_template: Path
) -> None:
    config = make_config(
        tmp_path,
        migrated_template,
        DEFAULT__auth_strategy="keystone",
        keystone_authtoken__auth_url="http://127.0.0.1:5000/v3",
    )
    with pytest.raises(Invalid, match="username and password are required"):
        create_app(config)
