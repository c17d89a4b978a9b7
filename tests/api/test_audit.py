"""The drift audit endpoints through HTTP, without Neutron: refusals, authentication and the
periodic audit's thread (the audit itself is tested against Neutron in tests/neutron)."""

from __future__ import annotations

import threading
from pathlib import Path

from fastapi.testclient import TestClient

from metalwire.api.app import create_app
from metalwire.services import build_services
from tests.auth.conftest import htpasswd_line, make_config, open_client
from tests.conftest import Api, fault

AUDIT = "/v1/metalwire/audit"
NEUTRON_NOWHERE = "http://127.0.0.1:9"  # nothing listens: no test may reach it


def audit_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "metalwire-audit"]


def test_audit_without_neutron_names_what_is_missing(api: Api) -> None:
    for response in (api.post(AUDIT, {}), api.post(AUDIT + "/repair", {})):
        assert response.status_code == 400, response.text
        message = fault(response)
        assert "drift audit compares VIF attachments with Neutron" in message
        assert "no Neutron endpoint is configured" in message


def test_audit_of_an_unknown_node_is_404(api: Api) -> None:
    for response in (
        api.get(AUDIT + "?node=no-such-node"),
        api.post(AUDIT + "?node=no-such-node", {}),
    ):
        assert response.status_code == 404, response.text
        assert "no-such-node" in fault(response)


def test_latest_audit_before_any_is_empty(api: Api) -> None:
    for path in (AUDIT, AUDIT + "/latest"):
        response = api.get(path)
        assert response.status_code == 200, response.text
        assert response.json() == {
            "checked_at": None,
            "nodes_checked": 0,
            "findings": [],
            "not_checked": [],
        }
        assert response.headers["X-OpenStack-Ironic-API-Version"]


def test_audit_endpoints_need_authentication(tmp_path: Path, migrated_template: Path) -> None:
    user_file = tmp_path / "htpasswd"
    user_file.write_text(htpasswd_line("alice", "s3cret") + "\n")
    config = make_config(
        tmp_path,
        migrated_template,
        DEFAULT__auth_strategy="http_basic",
        DEFAULT__http_basic_auth_user_file=str(user_file),
    )
    for client in open_client(config):
        for method, path in (
            ("GET", AUDIT),
            ("GET", AUDIT + "/latest"),
            ("POST", AUDIT),
            ("POST", AUDIT + "/repair"),
        ):
            assert client.request(method, path, json={}).status_code == 401, path
        answered = client.get(AUDIT + "/latest", auth=("alice", "s3cret"))
        assert answered.status_code == 200, answered.text


def test_periodic_audit_runs_with_the_app_and_stops_with_it(
    tmp_path: Path, migrated_template: Path
) -> None:
    config = make_config(
        tmp_path,
        migrated_template,
        conductor__audit_interval=3600.0,
        neutron__endpoint_override=NEUTRON_NOWHERE,
    )
    services, locks = build_services(config, upgrade_schema=False)
    before = audit_threads()
    with TestClient(create_app(config, services)):
        assert len(audit_threads()) == len(before) + 1
    assert audit_threads() == before
    locks.release_all()
    services.db.dispose()


def test_periodic_audit_is_off_by_default_and_without_neutron(
    tmp_path: Path, migrated_template: Path
) -> None:
    for options in ({}, {"conductor__audit_interval": 3600.0}):
        config = make_config(tmp_path, migrated_template, **options)
        services, locks = build_services(config, upgrade_schema=False)
        before = audit_threads()
        with TestClient(create_app(config, services)):
            assert audit_threads() == before, options
        locks.release_all()
        services.db.dispose()
