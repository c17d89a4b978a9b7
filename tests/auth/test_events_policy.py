"""Who may post network events, against the real Keystone's tokens: Ironic 39's
``baremetal:events:post`` is a system administrator's (system scoped); every other persona,
the service role's project token Neutron might hold included, gets 403 naming the rule."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.test_events import neutron_event
from tests.auth.conftest import PERSONAS, Cloud, make_config, open_client
from tests.conftest import fault


@pytest.fixture(scope="module")
def client(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, cloud: Cloud
) -> Iterator[TestClient]:
    config = make_config(tmp_path_factory.mktemp("events"), migrated_template, **cloud.options())
    yield from open_client(config)


def _post(client: TestClient, token: str) -> Any:
    return client.post(
        "/v1/events",
        json={"events": [neutron_event()]},
        headers={"X-Auth-Token": token, "X-OpenStack-Ironic-API-Version": "1.54"},
    )


def test_only_a_system_admin_posts_events(
    client: TestClient, persona_tokens: dict[str, str]
) -> None:
    assert _post(client, persona_tokens["system_admin"]).status_code == 204
    for persona in sorted(set(PERSONAS) - {"system_admin"}):
        refused = _post(client, persona_tokens[persona])
        assert refused.status_code == 403, (persona, refused.text)
        assert "baremetal:events:post" in fault(refused), persona


def test_without_a_token_an_event_is_401(client: TestClient) -> None:
    assert client.post("/v1/events", json={"events": [neutron_event()]}).status_code == 401


def test_the_policy_is_checked_before_the_body(
    client: TestClient, persona_tokens: dict[str, str]
) -> None:
    """A requester the rule refuses learns nothing of the body's checks (Ironic 39 checks
    the body first: docs/api-ref/events.md)."""
    headers = {"X-OpenStack-Ironic-API-Version": "1.54"}
    for persona, status in (("system_reader", 403), ("system_admin", 400)):
        headers["X-Auth-Token"] = persona_tokens[persona]
        answer = client.post("/v1/events", json={"events": []}, headers=headers)
        assert answer.status_code == status, (persona, answer.text)
