"""The rules of metalwire's own endpoints (``/metrics``, the drift audit), against the real
Keystone's tokens: system scoped by default, overridable by name in a policy file, and an
audit never shows a node its requester may not see."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from metalwire.api.auth.policy_rules import defaults
from metalwire.conductor.audit import AuditReport, Finding
from tests.auth.conftest import Cloud, make_config, open_client
from tests.conftest import fault

AUDIT = "/v1/metalwire/audit"
NO_NEUTRON = "no Neutron endpoint is configured"  # the audit's own refusal: the rule passed


@pytest.fixture(scope="module")
def client(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, cloud: Cloud
) -> Iterator[TestClient]:
    config = make_config(tmp_path_factory.mktemp("own"), migrated_template, **cloud.options())
    yield from open_client(config)


def _as(client: TestClient, token: str, method: str, url: str) -> Any:
    body = {} if method == "POST" else None  # metalwire's writes take JSON (no form sends it)
    return client.request(method, url, headers={"X-Auth-Token": token}, json=body)


@pytest.mark.parametrize(
    ("method", "path", "rule"),
    [
        ("GET", "/metrics", "metalwire:metrics:get"),
        ("GET", AUDIT, "metalwire:audit:get"),
        ("GET", AUDIT + "/latest", "metalwire:audit:get"),
        ("POST", AUDIT, "metalwire:audit:get"),
        ("POST", AUDIT + "/repair", "metalwire:audit:repair"),
    ],
)
def test_a_project_member_is_refused_metalwires_operator_endpoints(
    client: TestClient, persona_tokens: dict[str, str], method: str, path: str, rule: str
) -> None:
    resp = _as(client, persona_tokens["owner_member"], method, path)
    assert resp.status_code == 403, resp.text
    assert fault(resp) == f"Access was denied to the following resource: {rule}"


def test_a_system_reader_scrapes_and_reads_the_audit_but_may_not_repair(
    client: TestClient, persona_tokens: dict[str, str]
) -> None:
    reader = persona_tokens["system_reader"]
    metrics = _as(client, reader, "GET", "/metrics")
    assert metrics.status_code == 200, metrics.text
    assert "metalwire_http_requests_total" in metrics.text
    assert _as(client, reader, "GET", AUDIT + "/latest").status_code == 200
    assert _as(client, reader, "GET", AUDIT).status_code == 200
    assert NO_NEUTRON in fault(_as(client, reader, "POST", AUDIT))
    refused = _as(client, reader, "POST", AUDIT + "/repair")
    assert fault(refused) == "Access was denied to the following resource: metalwire:audit:repair"
    assert NO_NEUTRON in fault(
        _as(client, persona_tokens["system_admin"], "POST", AUDIT + "/repair")
    )


def _finding(node: str) -> Finding:
    return Finding("orphan", node, None, f"vif-of-{node}", None, None, None, "m")


def test_the_audit_shows_no_node_the_node_rules_hide_from_its_requester(
    tmp_path: Path, migrated_template: Path, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    # The audit rules are system scoped: a project token never passes them. What a system
    # reader is let see of the nodes is still the node rules' to say.
    rules = {"baremetal:node:get": "role:admin", "baremetal:node:list_all": "role:admin"}
    # The rules whose deprecated default is the old baremetal:node:get keep their defaults
    # (else oslo.policy warns that they now fall back on the overridden rule).
    for rule in defaults():
        old = getattr(rule, "deprecated_rule", None)
        if old is not None and old.name == "baremetal:node:get" and rule.name not in rules:
            rules[rule.name] = rule.check_str
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(yaml.safe_dump(rules))
    config = make_config(
        tmp_path, migrated_template, **cloud.options(oslo_policy__policy_file=str(policy_file))
    )
    admin, reader = persona_tokens["system_admin"], persona_tokens["system_reader"]
    for c in open_client(config):
        body = {"driver": "fake-hardware", "owner": cloud.projects["owner-project"]}
        node = c.post("/v1/nodes", json=body, headers={"X-Auth-Token": admin}).json()["uuid"]
        c.app.state.services.audit.record(  # type: ignore[attr-defined]
            AuditReport([_finding(node)], nodes_checked=1)
        )
        hidden = _as(c, reader, "GET", f"{AUDIT}?node={node}")
        assert hidden.status_code == 404, hidden.text
        assert fault(hidden) == f"Node {node} could not be found."
        latest = _as(c, reader, "GET", AUDIT + "/latest")
        assert fault(latest) == (
            "Access was denied to the following resource: baremetal:node:list_all"
        )
        assert _as(c, admin, "GET", AUDIT + "/latest").json()["findings"][0]["node_uuid"] == node
