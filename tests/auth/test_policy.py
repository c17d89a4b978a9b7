"""Authorization with Ironic's secure-RBAC defaults, against the real Keystone's tokens.

Every cell of the persona matrix is the answer Ironic gives, derived from its default check
strings (``metalwire policy-reference`` prints them). The node under test is owned by
``owner-project`` and leased to ``lessee-project``; it has one port.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metalwire.api.app import create_app
from metalwire.db import nodes as node_db
from metalwire.errors import Invalid
from tests.auth.conftest import PERSONAS, Cloud, make_config, open_client
from tests.conftest import fault

_macs = (
    f"52:54:00:{i >> 16 & 255:02x}:{i >> 8 & 255:02x}:{i & 255:02x}" for i in itertools.count(1)
)
_vifs = (f"vif-{i}" for i in itertools.count(1))
MASKED_LAST_ERROR = "** Value Redacted - Requires baremetal:node:get:last_error permission. **"

SEEN, HIDDEN = "seen", "hidden"  # a list answers 200 and shows the node's item, or not
SHOWN, MASKED = "shown", "masked"  # a node's last_error as it is, or Ironic's mask

OPERATIONS = (
    "node_show",
    "node_list",
    "port_list",
    "vif_list",
    "vif_attach",
    "vif_detach",
    "node_patch_extra",
    "node_delete",
    "node_last_error",
    "metrics",
    "audit_latest",
)

# persona -> the answer of each operation, in the order of OPERATIONS.
# The last three: last_error is masked unless get:filter_threshold (SYSTEM_READER) or
# get:last_error (SYSTEM_OR_OWNER_READER) allows; /metrics and the audit are system scoped
# (SYSTEM_READER): any project token gets 403.
MATRIX: dict[str, tuple[int | str, ...]] = {
    "system_admin": (200, SEEN, SEEN, 200, 204, 204, 200, 204, SHOWN, 200, 200),
    # Reads pass SYSTEM_READER; every write needs member or admin.
    "system_reader": (200, SEEN, SEEN, 200, 403, 403, 403, 403, SHOWN, 200, 200),
    # Attach and detach: PROJECT_OWNER_MEMBER. Delete: SYSTEM_ADMIN only (and a project
    # *admin* of the owner through delete:self_owned_node), so a member gets 403.
    "owner_member": (200, SEEN, SEEN, 200, 204, 204, 200, 403, SHOWN, 403, 403),
    "owner_reader": (200, SEEN, SEEN, 200, 403, 403, 403, 403, SHOWN, 403, 403),
    # update_extra is SYSTEM_OR_PROJECT_MEMBER (owner or lessee), but VIF attach and detach
    # accept only a lessee *admin* or *manager*: PATCH extra 200, VIFs 403.
    "lessee_member": (200, SEEN, SEEN, 200, 403, 403, 200, 403, MASKED, 403, 403),
    # The node is invisible: 404 as if it did not exist; lists are filtered, not refused.
    "unrelated_member": (404, HIDDEN, HIDDEN, 404, 404, 404, 404, 404, 404, 403, 403),
    # Without rbac_service_role_elevated_access the service role sees only nodes its own
    # project owns (PROJECT_SERVICE): this node is invisible to it.
    "service": (404, HIDDEN, HIDDEN, 404, 404, 404, 404, 404, 404, 403, 403),
    # Every rule is scoped to the system or a project: a domain-scoped token, whatever its
    # role on the domain that holds every project, passes none (Ironic refuses it with
    # oslo.policy's InvalidScope), so the node is invisible and a list, having no project
    # to filter on, is refused. An unscoped token carries no role at all.
    **dict.fromkeys(
        ("domain_admin", "domain_member", "domain_reader", "unscoped"),
        (404, 403, 403, 404, 404, 404, 404, 404, 404, 403, 403),
    ),
}

# With rbac_service_role_elevated_access the service role in the service project matches
# rule:service_role, part of SYSTEM_READER and SYSTEM_MEMBER; delete stays SYSTEM_ADMIN's,
# and its project token never passes the system-scoped /metrics and audit rules.
ELEVATED_SERVICE = (200, SEEN, SEEN, 200, 204, 204, 200, 403, SHOWN, 403, 403)


class Persona:
    """Requests as one persona, and the system admin's setup calls."""

    def __init__(self, client: TestClient, tokens: dict[str, str], name: str) -> None:
        self.client = client
        self.tokens = tokens
        self.name = name

    def call(self, method: str, url: str, who: str | None = None, **kw: Any) -> Any:
        headers = {"X-Auth-Token": self.tokens[who or self.name]}
        return self.client.request(method, url, headers=headers, **kw)

    def admin(self, method: str, url: str, **kw: Any) -> Any:
        resp = self.call(method, url, "system_admin", **kw)
        assert resp.status_code < 300, resp.text
        return resp


def _setup_node(p: Persona, cloud: Cloud) -> tuple[str, str]:
    """A node of owner-project leased to lessee-project with one port: (node, port) UUIDs."""
    node = p.admin(
        "POST",
        "/v1/nodes",
        json={
            "driver": "fake-hardware",
            "owner": cloud.projects["owner-project"],
            "lessee": cloud.projects["lessee-project"],
        },
    ).json()["uuid"]
    port = p.admin("POST", "/v1/ports", json={"node_uuid": node, "address": next(_macs)})
    return node, port.json()["uuid"]


def _listed(resp: Any, key: str, uuid: str) -> int | str:
    if resp.status_code != 200:
        return int(resp.status_code)
    return SEEN if uuid in {item["uuid"] for item in resp.json()[key]} else HIDDEN


def _operation(p: Persona, cloud: Cloud, operation: str) -> int | str:
    node, port = _setup_node(p, cloud)
    if operation == "node_show":
        return int(p.call("GET", f"/v1/nodes/{node}").status_code)
    if operation == "node_list":
        return _listed(p.call("GET", "/v1/nodes"), "nodes", node)
    if operation == "port_list":
        return _listed(p.call("GET", "/v1/ports"), "ports", port)
    if operation == "vif_list":
        return int(p.call("GET", f"/v1/nodes/{node}/vifs").status_code)
    if operation == "vif_attach":
        return int(p.call("POST", f"/v1/nodes/{node}/vifs", json={"id": next(_vifs)}).status_code)
    if operation == "vif_detach":
        vif = next(_vifs)
        p.admin("POST", f"/v1/nodes/{node}/vifs", json={"id": vif})
        return int(p.call("DELETE", f"/v1/nodes/{node}/vifs/{vif}").status_code)
    if operation == "node_patch_extra":
        patch = [{"op": "add", "path": "/extra/who", "value": p.name}]
        return int(p.call("PATCH", f"/v1/nodes/{node}", json=patch).status_code)
    if operation == "node_last_error":
        with p.client.app.state.services.db.write() as session:  # type: ignore[attr-defined]
            node_db.get(session, node).last_error = "conductor-3 timed out"
        resp = p.call("GET", f"/v1/nodes/{node}")
        if resp.status_code != 200:
            return int(resp.status_code)
        shown = resp.json()["last_error"]
        assert shown in ("conductor-3 timed out", MASKED_LAST_ERROR), shown
        return SHOWN if shown == "conductor-3 timed out" else MASKED
    if operation == "metrics":
        return int(p.call("GET", "/metrics").status_code)
    if operation == "audit_latest":
        return int(p.call("GET", "/v1/metalwire/audit/latest").status_code)
    assert operation == "node_delete"
    return int(p.call("DELETE", f"/v1/nodes/{node}").status_code)


def _keystone_client(
    tmp_path: Path, template: Path, cloud: Cloud, **options: Any
) -> Iterator[TestClient]:
    yield from open_client(make_config(tmp_path, template, **cloud.options(**options)))


@pytest.fixture(scope="module")
def rbac_client(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, cloud: Cloud
) -> Iterator[TestClient]:
    yield from _keystone_client(tmp_path_factory.mktemp("rbac"), migrated_template, cloud)


@pytest.fixture(scope="module")
def elevated_client(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, cloud: Cloud
) -> Iterator[TestClient]:
    yield from _keystone_client(
        tmp_path_factory.mktemp("elevated"),
        migrated_template,
        cloud,
        DEFAULT__rbac_service_role_elevated_access=True,
    )


def test_the_matrix_names_every_persona() -> None:
    assert set(MATRIX) == set(PERSONAS)


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize("persona", list(MATRIX))
def test_persona_matrix_answers_as_ironic(
    rbac_client: TestClient,
    cloud: Cloud,
    persona_tokens: dict[str, str],
    persona: str,
    operation: str,
) -> None:
    expected = MATRIX[persona][OPERATIONS.index(operation)]
    p = Persona(rbac_client, persona_tokens, persona)
    assert _operation(p, cloud, operation) == expected


@pytest.mark.parametrize("operation", OPERATIONS)
def test_elevated_service_role_acts_on_every_node_but_may_not_delete(
    elevated_client: TestClient, cloud: Cloud, persona_tokens: dict[str, str], operation: str
) -> None:
    p = Persona(elevated_client, persona_tokens, "service")
    assert _operation(p, cloud, operation) == ELEVATED_SERVICE[OPERATIONS.index(operation)]


def test_a_refusal_names_the_rule(
    rbac_client: TestClient, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    p = Persona(rbac_client, persona_tokens, "lessee_member")
    node, _port = _setup_node(p, cloud)
    resp = p.call("POST", f"/v1/nodes/{node}/vifs", json={"id": next(_vifs)})
    assert resp.status_code == 403
    assert fault(resp) == "Access was denied to the following resource: baremetal:node:vif:attach"
    hidden = Persona(rbac_client, persona_tokens, "unrelated_member").call(
        "GET", f"/v1/nodes/{node}"
    )
    assert fault(hidden) == f"Node {node} could not be found."


def test_an_invisible_nodes_ports_are_an_empty_list_by_filter_but_404_by_path(
    rbac_client: TestClient, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    p = Persona(rbac_client, persona_tokens, "unrelated_member")
    node, port = _setup_node(p, cloud)
    filtered = p.call("GET", f"/v1/ports?node={node}")
    assert (filtered.status_code, filtered.json()) == (200, {"ports": []})
    by_path = p.call("GET", f"/v1/nodes/{node}/ports")
    assert by_path.status_code == 404
    assert fault(by_path) == f"Node {node} could not be found."
    assert p.call("GET", f"/v1/ports/{port}").status_code == 404


def test_a_lessee_member_sees_the_nodes_ports_but_may_not_change_them(
    rbac_client: TestClient, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    p = Persona(rbac_client, persona_tokens, "lessee_member")
    node, port = _setup_node(p, cloud)
    assert p.call("GET", f"/v1/nodes/{node}/ports").status_code == 200
    assert p.call("GET", f"/v1/ports/{port}").status_code == 200
    patch = [{"op": "add", "path": "/extra/a", "value": "b"}]
    resp = p.call("PATCH", f"/v1/ports/{port}", json=patch)
    assert resp.status_code == 403  # port update: system member or owner admin/manager
    assert fault(resp) == "Access was denied to the following resource: baremetal:port:update"


def test_only_a_system_member_may_change_a_nodes_owner(
    rbac_client: TestClient, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    p = Persona(rbac_client, persona_tokens, "owner_member")
    node, _port = _setup_node(p, cloud)
    to_unrelated = [{"op": "replace", "path": "/owner", "value": "someone-else"}]
    resp = p.call("PATCH", f"/v1/nodes/{node}", json=to_unrelated)
    assert resp.status_code == 403
    assert fault(resp) == "Access was denied to the following resource: baremetal:node:update:owner"
    # The lessee is the owner's to choose (update:lessee is SYSTEM_MEMBER_OR_OWNER_MEMBER).
    lessee = [{"op": "replace", "path": "/lessee", "value": cloud.projects["unrelated-project"]}]
    assert p.call("PATCH", f"/v1/nodes/{node}", json=lessee).status_code == 200


def test_a_project_member_may_not_create_nodes(
    rbac_client: TestClient, persona_tokens: dict[str, str]
) -> None:
    p = Persona(rbac_client, persona_tokens, "owner_member")
    resp = p.call("POST", "/v1/nodes", json={"driver": "fake-hardware"})
    assert resp.status_code == 403
    assert fault(resp) == "Access was denied to the following resource: baremetal:node:create"


def test_a_policy_file_overrides_a_rule_by_its_ironic_name(
    tmp_path: Path, migrated_template: Path, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(
        '"baremetal:node:vif:attach": "role:member and project_id:%(node.lessee)s"\n'
    )
    options = {"oslo_policy__policy_file": str(policy_file)}
    for client in _keystone_client(tmp_path, migrated_template, cloud, **options):
        p = Persona(client, persona_tokens, "lessee_member")
        node, _port = _setup_node(p, cloud)

        url = f"/v1/nodes/{node}/vifs"
        assert p.call("POST", url, "lessee_member", json={"id": next(_vifs)}).status_code == 204
        # The default lets the owner's members in; the file's rule does not.
        assert p.call("POST", url, "owner_member", json={"id": next(_vifs)}).status_code == 403


def test_a_missing_policy_file_refuses_to_start(
    tmp_path: Path, migrated_template: Path, cloud: Cloud
) -> None:
    missing = str(tmp_path / "nowhere.yaml")
    config = make_config(
        tmp_path, migrated_template, **cloud.options(oslo_policy__policy_file=missing)
    )
    with pytest.raises(
        Invalid, match=r"\[oslo_policy\] policy_file .*nowhere.yaml.* does not exist"
    ):
        create_app(config)
