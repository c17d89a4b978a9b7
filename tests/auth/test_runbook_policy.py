"""Who may see, create, change and delete runbooks, against the real Keystone's tokens, as
Ironic 39's ``baremetal:runbook:*`` rules decide on the runbook's owner: a project's manager
creates and administers its own project's runbooks, its readers see them, other projects
see only the public ones, only the system makes a runbook public or gives it an owner, and
only who administers a runbook cleans a node with it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.auth.conftest import PASSWORD, Cloud, make_config, open_client
from tests.conftest import LATEST, fault

STEPS = [{"interface": "raid", "step": "delete_configuration", "args": {}, "order": 1}]


@pytest.fixture(scope="module")
def client(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, cloud: Cloud
) -> Iterator[TestClient]:
    config = make_config(tmp_path_factory.mktemp("runbooks"), migrated_template, **cloud.options())
    yield from open_client(config)


@pytest.fixture(scope="module")
def owner_manager(cloud: Cloud) -> str:
    """A manager of the owner project: Ironic 39's runbook creator and administrator."""
    user = cloud.keystone.user("runbook-manager", PASSWORD)
    cloud.keystone.grant(user, "manager", cloud.projects["owner-project"])
    return cloud.keystone.token("runbook-manager", PASSWORD, project="owner-project")


def _as(client: TestClient, token: str, method: str, url: str, body: Any = None) -> Any:
    headers = {"X-Auth-Token": token, "X-OpenStack-Ironic-API-Version": LATEST}
    return client.request(method, url, headers=headers, json=body)


def test_a_project_manager_owns_what_it_creates_and_other_projects_see_only_public_ones(
    client: TestClient, cloud: Cloud, persona_tokens: dict[str, str], owner_manager: str
) -> None:
    project = cloud.projects["owner-project"]
    made = _as(client, owner_manager, "POST", "/v1/runbooks", {"name": "mine", "steps": STEPS})
    assert made.status_code == 201, made.text
    assert made.json()["owner"] == project
    for body, words in (
        ({"name": "theirs", "steps": STEPS, "owner": "other"}, "the owner must be your own"),
        ({"name": "shared", "steps": STEPS, "public": True}, "Cannot create a public runbook"),
    ):
        refused = _as(client, owner_manager, "POST", "/v1/runbooks", body)
        assert refused.status_code == 400 and words in fault(refused), refused.text
    member = persona_tokens["owner_member"]
    refused = _as(client, member, "POST", "/v1/runbooks", {"name": "m", "steps": STEPS})
    assert refused.status_code == 403 and "baremetal:runbook:create" in fault(refused)

    admin = persona_tokens["system_admin"]
    public = {"name": "everyone", "steps": STEPS, "public": True}
    assert _as(client, admin, "POST", "/v1/runbooks", public).status_code == 201
    system = {"name": "system-only", "steps": STEPS}
    assert _as(client, admin, "POST", "/v1/runbooks", system).status_code == 201

    def names(token: str) -> set[str]:
        resp = _as(client, token, "GET", "/v1/runbooks")
        assert resp.status_code == 200, resp.text
        return {r["name"] for r in resp.json()["runbooks"]}

    assert names(admin) == {"mine", "everyone", "system-only"}
    assert names(member) == {"mine", "everyone"}
    unrelated = persona_tokens["unrelated_member"]
    assert names(unrelated) == {"everyone"}
    assert _as(client, unrelated, "GET", "/v1/runbooks/everyone").status_code == 200
    hidden = _as(client, unrelated, "GET", "/v1/runbooks/mine")
    assert hidden.status_code == 403 and "baremetal:runbook:get" in fault(hidden)

    extra = [{"op": "add", "path": "/extra/a", "value": 1}]
    assert _as(client, owner_manager, "PATCH", "/v1/runbooks/mine", extra).status_code == 200
    for path in ("/public", "/owner"):
        patch = [{"op": "replace", "path": path, "value": None if path == "/owner" else True}]
        refused = _as(client, owner_manager, "PATCH", "/v1/runbooks/mine", patch)
        assert refused.status_code == 403, refused.text
        assert f"baremetal:runbook:update:{path[1:]}" in fault(refused)
    for token in (member, unrelated):
        refused = _as(client, token, "DELETE", "/v1/runbooks/mine")
        assert refused.status_code == 403 and "baremetal:runbook:delete" in fault(refused)
    refused = _as(client, owner_manager, "DELETE", "/v1/runbooks/system-only")
    assert refused.status_code == 403, refused.text

    # a project's member may clean its own node, but not with another project's runbook
    node = {"driver": "fake-hardware", "owner": cloud.projects["unrelated-project"]}
    made_node = _as(client, admin, "POST", "/v1/nodes", node).json()["uuid"]
    provision = f"/v1/nodes/{made_node}/states/provision"
    assert _as(client, admin, "PUT", provision, {"target": "manage"}).status_code == 202
    by_runbook = {"target": "clean", "runbook": "mine"}
    refused = _as(client, unrelated, "PUT", provision, by_runbook)
    assert refused.status_code == 403 and "baremetal:runbook:use" in fault(refused)
    assert _as(client, owner_manager, "DELETE", "/v1/runbooks/mine").status_code == 204
