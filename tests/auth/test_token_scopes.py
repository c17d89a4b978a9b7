"""Domain-scoped and unscoped Keystone tokens against a real ``metalwire serve``.

A node without an owner is the case that matters: a token without a project must never be
taken for its owner. Every default rule is scoped to the system or a project, so a domain
token passes none (Ironic: oslo.policy's InvalidScope), and an unscoped token has no role.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.auth.conftest import Cloud
from tests.conftest import LATEST, fault
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

NO_SCOPE_FIT = ("domain_admin", "domain_member", "domain_reader", "unscoped")
BMC = {"ipmi_address": "10.0.0.9"}
_mac_suffixes = itertools.count(1)


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory, cloud: Cloud) -> Iterator[str]:
    with MetalwireServer(tmp_path_factory.mktemp("scopes"), env=cloud.env()) as server:
        yield server.url


def _call(url: str, token: str, method: str, path: str, **kw: Any) -> httpx.Response:
    headers = {"X-Auth-Token": token, "X-OpenStack-Ironic-API-Version": LATEST}
    return httpx.request(method, url + path, headers=headers, timeout=30, **kw)


@pytest.fixture
def unowned_node(server_url: str, persona_tokens: dict[str, str]) -> str:
    """A node of no project, with a BMC address and a port: its UUID."""
    admin = persona_tokens["system_admin"]
    body = {"driver": "fake-hardware", "driver_info": BMC, "network_interface": "flat"}
    node = _call(server_url, admin, "POST", "/v1/nodes", json=body)
    assert node.status_code == 201, node.text
    uuid = str(node.json()["uuid"])
    port = {"node_uuid": uuid, "address": f"52:54:00:7a:00:{next(_mac_suffixes):02x}"}
    assert _call(server_url, admin, "POST", "/v1/ports", json=port).status_code == 201
    return uuid


# (method, path, body) -> the status every token of NO_SCOPE_FIT gets, as Ironic decides.
OPERATIONS: list[tuple[str, str, Any, int]] = [
    ("GET", "/v1/nodes/{node}", None, 404),
    ("GET", "/v1/nodes", None, 403),
    ("GET", "/v1/ports", None, 403),
    ("PATCH", "/v1/nodes/{node}", [{"op": "add", "path": "/driver_info/x", "value": 1}], 404),
    ("POST", "/v1/nodes/{node}/vifs", {"id": "scope-vif"}, 404),
    ("GET", "/v1/nodes/{node}/vifs", None, 404),
    ("DELETE", "/v1/nodes/{node}", None, 404),
    ("GET", "/v1/metalwire/node_summaries", None, 403),
    ("GET", "/v1/metalwire/audit/latest", None, 403),
]


@pytest.mark.parametrize("persona", NO_SCOPE_FIT)
def test_a_token_without_a_project_reaches_no_unowned_node(
    server_url: str, persona_tokens: dict[str, str], unowned_node: str, persona: str
) -> None:
    token = persona_tokens[persona]
    answers = {}
    for method, path, body, _expected in OPERATIONS:
        resp = _call(server_url, token, method, path.format(node=unowned_node), json=body)
        answers[f"{method} {path}"] = resp.status_code
    assert answers == {f"{m} {p}": expected for m, p, _b, expected in OPERATIONS}
    admin = persona_tokens["system_admin"]
    kept = _call(server_url, admin, "GET", f"/v1/nodes/{unowned_node}")
    assert kept.status_code == 200
    assert kept.json()["driver_info"] == BMC
    vifs = _call(server_url, admin, "GET", f"/v1/nodes/{unowned_node}/vifs")
    assert vifs.json() == {"vifs": []}


@pytest.mark.parametrize("persona", ["domain_admin", "unscoped"])
def test_a_refused_list_says_the_token_scope_is_the_reason(
    server_url: str, persona_tokens: dict[str, str], persona: str
) -> None:
    resp = _call(server_url, persona_tokens[persona], "GET", "/v1/nodes")
    assert resp.status_code == 403
    message = fault(resp)
    scope = "a domain-scoped token" if persona == "domain_admin" else "an unscoped token"
    assert "baremetal:node:list_all" in message
    assert f"{scope}: this API accepts project- or system-scoped tokens" in message


def test_a_system_reader_still_reads_the_unowned_node(
    server_url: str, persona_tokens: dict[str, str], unowned_node: str
) -> None:
    resp = _call(server_url, persona_tokens["system_reader"], "GET", f"/v1/nodes/{unowned_node}")
    assert resp.status_code == 200
    assert resp.json()["driver_info"] == BMC


def test_no_rule_of_a_policy_file_takes_a_missing_project_for_a_missing_owner(
    tmp_path: Path, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    # A rule without a role check: only the project comparison decides.
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text('"baremetal:node:get": "project_id:%(node.owner)s"\n')
    env = {**cloud.env(), "METALWIRE_OSLO_POLICY_POLICY_FILE": str(policy_file)}
    with MetalwireServer(tmp_path / "data", env=env) as server:
        admin = persona_tokens["system_admin"]
        created = _call(server.url, admin, "POST", "/v1/nodes", json={"driver": "fake-hardware"})
        assert created.status_code == 201, created.text
        unowned = created.json()["uuid"]
        for persona in ("unscoped", "domain_reader", "system_reader"):
            resp = _call(server.url, persona_tokens[persona], "GET", f"/v1/nodes/{unowned}")
            assert resp.status_code == 404, (persona, resp.text)
