"""``auth_strategy = http_basic``: an htpasswd file of bcrypt hashes, 401 otherwise."""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from metalwire.api.app import create_app
from metalwire.api.auth.basic_personas import read_personas_file
from metalwire.api.auth.identity import ADMIN
from metalwire.client import AuthenticationError, Client, HTTPError, patch
from metalwire.errors import Invalid
from tests.api.test_metrics import scrape, vif_count
from tests.auth.conftest import htpasswd_line, make_config, open_client
from tests.conftest import LATEST, fault
from tests.support.server import MetalwireServer, free_port

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


# -- personas: [DEFAULT] http_basic_auth_personas_file ----------------------------------------

PERSONAS_YAML = """\
viewer:
  roles: [reader]
  system_scope: all
tenant:
  roles: [member, reader]
  project_id: project-a
  project_name: Project A
boss:
  roles: [admin]
  system_scope: all
worker:
  roles: [member]
  project_id: project-a
"""
BASIC_USERS = ("ops", "viewer", "tenant", "boss", "worker")


def _basic_env(tmp_path: Path, personas: str) -> dict[str, str]:
    users = tmp_path / "htpasswd"
    users.write_text("".join(htpasswd_line(u, f"{u}-pw") + "\n" for u in BASIC_USERS))
    personas_file = tmp_path / "personas.yaml"
    personas_file.write_text(personas)
    return {
        "METALWIRE_AUTH_STRATEGY": "http_basic",
        "METALWIRE_HTTP_BASIC_AUTH_USER_FILE": str(users),
        "METALWIRE_HTTP_BASIC_AUTH_PERSONAS_FILE": str(personas_file),
    }


class BasicPersonas:
    """A real ``metalwire serve`` with personas; node A of project-a (one port), node B of
    project-b."""

    def __init__(self, server: MetalwireServer) -> None:
        self.server = server
        self.node_a = self.call("ops", "POST", "/v1/nodes", json=_node("project-a")).json()["uuid"]
        self.node_b = self.call("ops", "POST", "/v1/nodes", json=_node("project-b")).json()["uuid"]
        port = {"node_uuid": self.node_a, "address": "52:54:00:00:00:0a"}
        assert self.call("ops", "POST", "/v1/ports", json=port).status_code == 201

    def call(self, user: str, method: str, path: str, **kw: Any) -> httpx.Response:
        headers = {"X-OpenStack-Ironic-API-Version": LATEST}
        url = self.server.url + path
        return httpx.request(
            method, url, auth=(user, f"{user}-pw"), headers=headers, timeout=30, **kw
        )

    def history(self, node: str) -> set[tuple[str | None, str | None, str | None]]:
        """(user, project, event_type) of the node's stored history (the API hides project)."""
        db = sqlite3.connect(self.server.data_dir / "metalwire.db", timeout=10)
        with contextlib.closing(db):
            rows = db.execute(
                "SELECT h.user, h.project, h.event_type FROM node_history h "
                "JOIN nodes n ON n.id = h.node_id WHERE n.uuid = ?",
                (node,),
            ).fetchall()
        return set(rows)


def _node(owner: str) -> dict[str, Any]:
    return {"driver": "fake-hardware", "owner": owner}


@pytest.fixture(scope="module")
def personas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BasicPersonas]:
    tmp_path = tmp_path_factory.mktemp("basic-personas")
    with MetalwireServer(tmp_path / "data", env=_basic_env(tmp_path, PERSONAS_YAML)) as server:
        yield BasicPersonas(server)


@pytest.mark.server
def test_a_reader_persona_may_read_nodes_but_not_patch_them(personas: BasicPersonas) -> None:
    listed = personas.call("viewer", "GET", "/v1/nodes")
    assert listed.status_code == 200, listed.text
    assert {n["uuid"] for n in listed.json()["nodes"]} >= {personas.node_a, personas.node_b}
    assert personas.call("viewer", "GET", f"/v1/nodes/{personas.node_b}").status_code == 200
    patch = [{"op": "add", "path": "/extra/who", "value": "viewer"}]
    resp = personas.call("viewer", "PATCH", f"/v1/nodes/{personas.node_a}", json=patch)
    assert resp.status_code == 403, resp.text
    assert fault(resp) == (
        "Access was denied to the following resource: baremetal:node:update_extra"
    )


@pytest.mark.server
def test_a_project_member_persona_sees_only_its_projects_nodes(personas: BasicPersonas) -> None:
    listed = personas.call("tenant", "GET", "/v1/nodes")
    assert listed.status_code == 200, listed.text
    assert {n["uuid"] for n in listed.json()["nodes"]} == {personas.node_a}
    other = personas.call("tenant", "GET", f"/v1/nodes/{personas.node_b}")
    assert other.status_code == 404
    assert fault(other) == f"Node {personas.node_b} could not be found."
    own = personas.call("tenant", "GET", f"/v1/nodes/{personas.node_a}/volume")
    assert own.status_code == 200, own.text
    hidden = personas.call("tenant", "GET", f"/v1/nodes/{personas.node_b}/volume")
    assert hidden.status_code == 404
    assert fault(hidden) == f"Node {personas.node_b} could not be found."


@pytest.mark.server
def test_a_project_member_persona_attaches_a_vif_to_its_node_and_history_names_it(
    personas: BasicPersonas,
) -> None:
    url = f"/v1/nodes/{personas.node_a}/vifs"
    resp = personas.call("tenant", "POST", url, json={"id": "tenant-vif"})
    assert resp.status_code == 204, resp.text
    vifs = personas.call("tenant", "GET", url).json()["vifs"]
    assert vifs == [{"id": "tenant-vif"}]
    refused = personas.call("tenant", "POST", f"/v1/nodes/{personas.node_b}/vifs", json={"id": "x"})
    assert refused.status_code == 404
    assert ("tenant", "project-a", "vif") in personas.history(personas.node_a)


@pytest.mark.server
def test_vif_requests_the_policy_refuses_are_counted_by_outcome(personas: BasicPersonas) -> None:
    def samples() -> Any:
        return scrape(_AsUser(personas, "ops"))  # type: ignore[arg-type]

    before = samples()
    hidden = personas.call("tenant", "POST", f"/v1/nodes/{personas.node_b}/vifs", json={})
    forbidden = personas.call("viewer", "POST", f"/v1/nodes/{personas.node_a}/vifs", json={})
    after = samples()
    assert (hidden.status_code, forbidden.status_code) == (404, 403)
    for result in ("NodeNotFound", "PolicyForbidden"):
        assert vif_count(after, "attach", result) - vif_count(before, "attach", result) == 1


class _AsUser:
    """``get(path)`` as one user of ``personas``: what ``scrape`` reads /metrics with."""

    def __init__(self, personas: BasicPersonas, user: str) -> None:
        self.personas, self.user = personas, user

    def get(self, path: str) -> httpx.Response:
        return self.personas.call(self.user, "GET", path)


@pytest.mark.server
def test_a_user_the_personas_file_does_not_name_stays_admin(personas: BasicPersonas) -> None:
    node = personas.call("ops", "POST", "/v1/nodes", json=_node("project-c")).json()["uuid"]
    assert personas.call("ops", "DELETE", f"/v1/nodes/{node}").status_code == 204
    assert personas.call("viewer", "DELETE", f"/v1/nodes/{personas.node_b}").status_code == 403


@pytest.mark.server
def test_an_admin_only_system_persona_is_decided_as_keystones_admin(
    personas: BasicPersonas,
) -> None:
    # Keystone's admin implies manager, member and reader: [admin] alone lists, reads and
    # changes every node, as a Keystone admin token does.
    listed = personas.call("boss", "GET", "/v1/nodes")
    assert listed.status_code == 200, listed.text
    assert {n["uuid"] for n in listed.json()["nodes"]} >= {personas.node_a, personas.node_b}
    own = personas.call("boss", "GET", f"/v1/nodes/{personas.node_a}")
    assert own.status_code == 200, own.text
    patch = [{"op": "add", "path": "/extra/who", "value": "boss"}]
    changed = personas.call("boss", "PATCH", f"/v1/nodes/{personas.node_b}", json=patch)
    assert changed.status_code == 200, changed.text
    # A reader implies nothing more: still no change.
    resp = personas.call("viewer", "PATCH", f"/v1/nodes/{personas.node_b}", json=patch)
    assert resp.status_code == 403, resp.text


@pytest.mark.server
def test_a_member_only_project_persona_reads_its_projects_nodes(personas: BasicPersonas) -> None:
    # member implies reader: the project's node is visible, another project's is not.
    listed = personas.call("worker", "GET", "/v1/nodes")
    assert listed.status_code == 200, listed.text
    assert {n["uuid"] for n in listed.json()["nodes"]} == {personas.node_a}
    own = personas.call("worker", "GET", f"/v1/nodes/{personas.node_a}")
    assert own.status_code == 200, own.text
    assert personas.call("worker", "GET", f"/v1/nodes/{personas.node_b}").status_code == 404


@pytest.mark.parametrize(
    ("roles", "expected"),
    [
        ("[admin]", {"admin", "manager", "member", "reader"}),
        ("[manager]", {"manager", "member", "reader"}),
        ("[member]", {"member", "reader"}),
        ("[reader]", {"reader"}),
        ("[Admin]", {"Admin", "manager", "member", "reader"}),
        ("[reader, baremetal_observer]", {"reader", "baremetal_observer"}),
        ("[service]", {"service"}),
    ],
)
def test_a_personas_roles_get_the_roles_keystone_implies(
    tmp_path: Path, roles: str, expected: set[str]
) -> None:
    env = _basic_env(tmp_path, f"viewer: {{roles: {roles}, system_scope: all}}\n")
    found = read_personas_file(
        env["METALWIRE_HTTP_BASIC_AUTH_PERSONAS_FILE"], BASIC_USERS, "htpasswd"
    )
    assert found["viewer"].roles == expected


def test_the_admin_persona_has_the_roles_of_a_keystone_admin_token() -> None:
    assert ADMIN.roles == {"admin", "manager", "member", "reader"}
    assert ADMIN.system_scope == "all"


def _personas_config(tmp_path: Path, template: Path, personas: str | None) -> Any:
    env = _basic_env(tmp_path, personas or "")
    path = env["METALWIRE_HTTP_BASIC_AUTH_PERSONAS_FILE"]
    if personas is None:
        Path(path).unlink()
    return make_config(
        tmp_path,
        template,
        DEFAULT__auth_strategy="http_basic",
        DEFAULT__http_basic_auth_user_file=env["METALWIRE_HTTP_BASIC_AUTH_USER_FILE"],
        DEFAULT__http_basic_auth_personas_file=path,
    )


@pytest.mark.parametrize(
    ("personas", "problem"),
    [
        (None, r"cannot be read: No such file or directory"),
        ("viewer: [roles\n", r"is not valid YAML"),
        ("- viewer\n", r"must map user names to personas"),
        ("viewer: reader\n", r"user 'viewer': the persona must be a mapping"),
        (
            "viewer: {roles: [reader], system_scope: all, domain: d}\n",
            r"user 'viewer': unknown key 'domain' \(known: roles, system_scope, project_id, "
            r"project_name\)",
        ),
        (
            "bob: {roles: [reader], system_scope: all}\n",
            r"user 'bob' is not in \[DEFAULT\] http_basic_auth_user_file .*htpasswd",
        ),
        (
            "viewer: {roles: [reader], system_scope: all, project_id: p}\n",
            r"user 'viewer': give either system_scope: all or project_id, not both",
        ),
        (
            "viewer: {roles: [reader]}\n",
            r"user 'viewer': give either system_scope: all or project_id",
        ),
        (
            "viewer: {roles: [reader], system_scope: project}\n",
            r"user 'viewer': system_scope must be 'all', not 'project'",
        ),
        (
            "viewer: {roles: [], system_scope: all}\n",
            r"user 'viewer': roles must be a non-empty list of role names",
        ),
        (
            "viewer: {roles: reader, system_scope: all}\n",
            r"user 'viewer': roles must be a non-empty list of role names",
        ),
        (
            "tenant: {roles: [member], project_id: ''}\n",
            r"user 'tenant': project_id must be a non-empty string",
        ),
    ],
    ids=[
        "missing",
        "yaml",
        "not-a-mapping",
        "persona-not-a-mapping",
        "unknown-key",
        "unknown-user",
        "both-scopes",
        "no-scope",
        "bad-system-scope",
        "empty-roles",
        "roles-not-a-list",
        "empty-project",
    ],
)
def test_a_bad_personas_file_refuses_to_start(
    tmp_path: Path, migrated_template: Path, personas: str | None, problem: str
) -> None:
    config = _personas_config(tmp_path, migrated_template, personas)
    with pytest.raises(Invalid, match=r"http_basic_auth_personas_file .*personas\.yaml.*") as err:
        create_app(config)
    assert re.search(problem, str(err.value)), str(err.value)


def test_serve_with_a_bad_personas_file_exits_2_naming_file_user_and_problem(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALWIRE_")}
    env.update(_basic_env(tmp_path, "viewer: {roles: [], system_scope: all}\n"))
    args = [sys.executable, "-m", "metalwire.cli.main", "serve", "--port", str(free_port())]
    done = subprocess.run(
        [*args, "--data-dir", str(tmp_path / "d")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "personas.yaml" in done.stderr
    assert "user 'viewer': roles must be a non-empty list of role names" in done.stderr


@pytest.mark.server
def test_the_client_raises_unauthorized_and_forbidden(personas: BasicPersonas) -> None:
    """A refused login is an AuthenticationError as with Keystone, a refused rule a
    Forbidden, both HTTPErrors with the status and the server's message."""
    url = personas.server.url
    for auth in (None, httpx.BasicAuth("viewer", "wrong-pw")):
        with Client(url, auth=auth) as client, pytest.raises(HTTPError) as refused:
            client.list_nodes()
        assert type(refused.value).__name__ == "Unauthorized"
        assert isinstance(refused.value, AuthenticationError)
        assert refused.value.status_code == 401
    with (
        Client(url, auth=httpx.BasicAuth("viewer", "viewer-pw")) as viewer,
        pytest.raises(HTTPError) as denied,
    ):
        viewer.update_node(personas.node_a, patch.set_fields({"extra/who": "viewer"}))
    assert type(denied.value).__name__ == "Forbidden"
    assert denied.value.status_code == 403
    assert "baremetal:node:update_extra" in denied.value.faultstring


def test_an_inspection_report_needs_no_credentials(basic_client: TestClient) -> None:
    """As Ironic's: the inspection ramdisk posts without any (no node matches here: 404)."""
    body = {"inventory": {"interfaces": [{"mac_address": "52:54:00:30:00:01"}]}}

    resp = basic_client.post("/v1/continue_inspection", json=body)

    assert resp.status_code == 404, resp.text
    assert fault(resp) == "Resource could not be found."


def test_a_policy_file_may_close_the_inspection_report_to_anonymous_callers(
    tmp_path: Path, migrated_template: Path, user_file: Path
) -> None:
    """The route stays public; the rule, checked for an anonymous caller, refuses it."""
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text('"baremetal:driver:ipa_continue_inspection": "role:admin"\n')
    personas_file = tmp_path / "personas.yaml"
    # the rules are enforced with personas only
    personas_file.write_text("alice:\n  roles: [admin]\n  system_scope: all\n")
    config = make_config(
        tmp_path,
        migrated_template,
        DEFAULT__auth_strategy="http_basic",
        DEFAULT__http_basic_auth_user_file=str(user_file),
        DEFAULT__http_basic_auth_personas_file=str(personas_file),
        oslo_policy__policy_file=str(policy_file),
    )
    body = {"inventory": {"interfaces": [{"mac_address": "52:54:00:30:00:01"}]}}
    for client in open_client(config):
        resp = client.post("/v1/continue_inspection", json=body)

        assert resp.status_code == 403, resp.text
        assert "baremetal:driver:ipa_continue_inspection" in fault(resp)
