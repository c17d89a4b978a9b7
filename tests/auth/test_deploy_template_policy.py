"""Who may see, create, change and delete deploy templates, against the real Keystone's
tokens: Ironic 39's ``baremetal:deploy_template:get`` is a system reader's, ``...:create``,
``...:update`` and ``...:delete`` a system administrator's; a project's users have none."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.auth.conftest import Cloud, make_config, open_client
from tests.conftest import LATEST, fault

STEPS = [{"interface": "raid", "step": "delete_configuration", "args": {}, "priority": 5}]
PATCH = [{"op": "add", "path": "/extra/a", "value": 1}]


@pytest.fixture(scope="module")
def client(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, cloud: Cloud
) -> Iterator[TestClient]:
    config = make_config(tmp_path_factory.mktemp("templates"), migrated_template, **cloud.options())
    yield from open_client(config)


def _as(client: TestClient, token: str, method: str, url: str, body: Any = None) -> Any:
    headers = {"X-Auth-Token": token, "X-OpenStack-Ironic-API-Version": LATEST}
    return client.request(method, url, headers=headers, json=body)


def test_only_a_system_admin_writes_and_a_system_reader_reads(
    client: TestClient, persona_tokens: dict[str, str]
) -> None:
    admin = persona_tokens["system_admin"]
    made = _as(client, admin, "POST", "/v1/deploy_templates", {"name": "CUSTOM_P", "steps": STEPS})
    assert made.status_code == 201, made.text
    one = "/v1/deploy_templates/CUSTOM_P"

    reader = persona_tokens["system_reader"]
    for url in ("/v1/deploy_templates", "/v1/deploy_templates?detail=true", one):
        assert _as(client, reader, "GET", url).status_code == 200
    for persona in ("system_reader", "owner_member", "owner_reader"):
        token = persona_tokens[persona]
        for method, url, body, rule in (
            ("POST", "/v1/deploy_templates", {"name": "CUSTOM_Q", "steps": STEPS}, "create"),
            ("PATCH", one, PATCH, "update"),
            ("DELETE", one, None, "delete"),
        ):
            refused = _as(client, token, method, url, body)
            assert refused.status_code == 403, (persona, method, refused.text)
            assert f"baremetal:deploy_template:{rule}" in fault(refused)
    for persona in ("owner_member", "owner_reader"):
        refused = _as(client, persona_tokens[persona], "GET", one)
        assert refused.status_code == 403 and "baremetal:deploy_template:get" in fault(refused)

    assert _as(client, admin, "PATCH", one, PATCH).json()["extra"] == {"a": 1}
    assert _as(client, admin, "DELETE", one).status_code == 204
