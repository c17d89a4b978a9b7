"""What the policy decides about who owns what: a provisioned node's owner, the node fields
that reveal the infrastructure, and moving ports and portgroups between nodes.

Against the real Keystone's tokens, with Ironic's secure-RBAC defaults. Besides the shared
personas, a system member and an owner admin (the personas these rules tell apart).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metalwire.db import nodes as node_db
from tests.auth.conftest import PASSWORD, Cloud, make_config, open_client
from tests.conftest import fault

_macs = (f"52:54:01:00:{i >> 8 & 255:02x}:{i & 255:02x}" for i in itertools.count(1))

# persona -> (user, role, where), created by this module only.
EXTRA_PERSONAS = {
    "system_member": ("ownership-sys-member", "member", "system"),
    "owner_admin": ("ownership-owner-admin", "admin", "owner-project"),
}


@pytest.fixture(scope="module")
def tokens(cloud: Cloud, persona_tokens: dict[str, str]) -> dict[str, str]:
    found = dict(persona_tokens)
    for persona, (user, role, where) in EXTRA_PERSONAS.items():
        user_id = cloud.keystone.user(user, PASSWORD)
        system = where == "system"
        cloud.keystone.grant(user_id, role, None if system else cloud.projects[where])
        found[persona] = cloud.keystone.token(
            user, PASSWORD, project=None if system else where, system=system
        )
    return found


@pytest.fixture(scope="module")
def client(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, cloud: Cloud
) -> Iterator[TestClient]:
    config = make_config(tmp_path_factory.mktemp("ownership"), migrated_template, **cloud.options())
    yield from open_client(config)


class As:
    def __init__(self, client: TestClient, tokens: dict[str, str]) -> None:
        self.client = client
        self.tokens = tokens

    def __call__(self, who: str, method: str, url: str, **kw: Any) -> Any:
        return self.client.request(method, url, headers={"X-Auth-Token": self.tokens[who]}, **kw)

    def admin(self, method: str, url: str, **kw: Any) -> Any:
        resp = self("system_admin", method, url, **kw)
        assert resp.status_code < 300, resp.text
        return resp.json() if resp.content else None

    def node(self, owner: str | None, lessee: str | None = None, **values: Any) -> str:
        body = {"driver": "fake-hardware", "owner": owner, "lessee": lessee, **values}
        return str(self.admin("POST", "/v1/nodes", json=body)["uuid"])


@pytest.fixture
def as_(client: TestClient, tokens: dict[str, str]) -> As:
    return As(client, tokens)


# -- the owner of a provisioned node -----------------------------------------------------------


def _active_node(as_: As, cloud: Cloud) -> str:
    node = as_.node(cloud.projects["owner-project"])
    for target in ("manage", "provide", "active"):
        as_.admin("PUT", f"/v1/nodes/{node}/states/provision", json={"target": target})
    assert as_.admin("GET", f"/v1/nodes/{node}")["provision_state"] == "active"
    return node


def test_a_system_member_may_not_change_the_owner_of_an_active_node(as_: As, cloud: Cloud) -> None:
    node = _active_node(as_, cloud)
    patch = [{"op": "replace", "path": "/owner", "value": cloud.projects["lessee-project"]}]
    resp = as_("system_member", "PATCH", f"/v1/nodes/{node}", json=patch)
    assert resp.status_code == 409, resp.text
    assert fault(resp) == f'Cannot update owner of node "{node}" while it is in state "active".'
    assert as_.admin("GET", f"/v1/nodes/{node}")["owner"] == cloud.projects["owner-project"]
    # baremetal:node:update_owner_provisioned is the system admin's.
    resp = as_("system_admin", "PATCH", f"/v1/nodes/{node}", json=patch)
    assert resp.status_code == 200, resp.text
    assert resp.json()["owner"] == cloud.projects["lessee-project"]


def test_a_system_member_changes_the_owner_of_a_node_not_deployed(as_: As, cloud: Cloud) -> None:
    node = as_.node(cloud.projects["owner-project"])
    patch = [{"op": "replace", "path": "/owner", "value": cloud.projects["lessee-project"]}]
    assert as_("system_member", "PATCH", f"/v1/nodes/{node}", json=patch).status_code == 200


# -- fields that reveal the infrastructure ---------------------------------------------------


def _node_with_internals(as_: As, client: TestClient, cloud: Cloud) -> str:
    node = as_.node(
        cloud.projects["owner-project"],
        cloud.projects["lessee-project"],
        driver_info={"ipmi_address": "10.1.2.3"},
    )
    with client.app.state.services.db.write() as session:  # type: ignore[attr-defined]
        stored = node_db.get(session, node)
        stored.last_error = "conductor-7.dc1 could not reach 10.1.2.3"
        stored.reservation = "conductor-7.dc1"
        stored.driver_internal_info = {"agent_url": "http://10.9.9.9:9999"}
    return node


FIELDS = ("last_error", "reservation", "driver_internal_info", "driver_info")
# Ironic's masks, word for word.
MASKED = {
    "last_error": "** Value Redacted - Requires baremetal:node:get:last_error permission. **",
    "reservation": "** Redacted - requires baremetal:node:get:reservation permission. **",
    "driver_internal_info": {
        "content": "** Redacted - Requires baremetal:node:get:driver_internal_info permission. **"
    },
    "driver_info": {
        "content": "** Redacted - requires baremetal:node:get:driver_info permission. **"
    },
}


def _shown(body: dict[str, Any]) -> dict[str, Any]:
    return {name: body[name] for name in FIELDS}


def test_a_lessee_member_sees_the_infrastructure_fields_masked_as_ironic_does(
    as_: As, client: TestClient, cloud: Cloud
) -> None:
    node = _node_with_internals(as_, client, cloud)
    masked = MASKED
    show = as_("lessee_member", "GET", f"/v1/nodes/{node}")
    assert show.status_code == 200, show.text
    assert _shown(show.json()) == masked
    listed = as_("lessee_member", "GET", "/v1/nodes/detail").json()["nodes"]
    assert [_shown(n) for n in listed if n["uuid"] == node] == [masked]
    picked = as_("lessee_member", "GET", f"/v1/nodes/{node}?fields=uuid,last_error").json()
    assert picked["last_error"] == masked["last_error"]


@pytest.mark.parametrize("who", ["owner_reader", "system_reader", "system_admin"])
def test_the_owner_and_the_system_see_the_infrastructure_fields(
    as_: As, client: TestClient, cloud: Cloud, who: str
) -> None:
    node = _node_with_internals(as_, client, cloud)
    body = as_(who, "GET", f"/v1/nodes/{node}").json()
    assert body["last_error"] == "conductor-7.dc1 could not reach 10.1.2.3"
    assert body["reservation"] == "conductor-7.dc1"
    assert body["driver_internal_info"] == {"agent_url": "http://10.9.9.9:9999"}
    assert body["driver_info"] == {"ipmi_address": "10.1.2.3"}
    listed = as_(who, "GET", "/v1/nodes/detail").json()["nodes"]
    assert [n["last_error"] for n in listed if n["uuid"] == node] == [body["last_error"]]


# -- moving ports and portgroups -------------------------------------------------------------


def _rehome(as_: As, who: str, kind: str, uuid: str, node: str) -> Any:
    patch = [{"op": "replace", "path": "/node_uuid", "value": node}]
    return as_(who, "PATCH", f"/v1/{kind}/{uuid}", json=patch)


def _item(as_: As, kind: str, node: str) -> str:
    body: dict[str, Any] = {"node_uuid": node}
    if kind == "ports":
        body["address"] = next(_macs)
    return str(as_.admin("POST", f"/v1/{kind}", json=body)["uuid"])


@pytest.mark.parametrize("kind", ["ports", "portgroups"])
def test_an_owner_admin_may_not_move_a_port_to_another_projects_node(
    as_: As, cloud: Cloud, kind: str
) -> None:
    mine = as_.node(cloud.projects["owner-project"])
    theirs = as_.node(cloud.projects["unrelated-project"])
    item = _item(as_, kind, mine)
    resp = _rehome(as_, "owner_admin", kind, item, theirs)
    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        f"Unable to apply the requested node_uuid '{theirs}'. Requested value was invalid."
    )
    assert as_.admin("GET", f"/v1/{kind}/{item}")["node_uuid"] == mine
    # An owner *member* may not change the port at all (update: system member, owner admin).
    assert fault(_rehome(as_, "owner_member", kind, item, theirs)) == (
        f"Access was denied to the following resource: baremetal:{kind[:-1]}:update"
    )
    # The same answer for a node that does not exist: the refusal tells nothing.
    nowhere = "2b7f6e2c-6c3a-4bd4-9a51-4f3c1d6e0a77"
    assert fault(_rehome(as_, "owner_admin", kind, item, nowhere)) == (
        f"Unable to apply the requested node_uuid '{nowhere}'. Requested value was invalid."
    )


@pytest.mark.parametrize("kind", ["ports", "portgroups"])
def test_an_owner_admin_moves_a_port_between_its_projects_nodes(
    as_: As, cloud: Cloud, kind: str
) -> None:
    mine = as_.node(cloud.projects["owner-project"])
    also_mine = as_.node(cloud.projects["owner-project"])
    item = _item(as_, kind, mine)
    resp = _rehome(as_, "owner_admin", kind, item, also_mine)
    assert resp.status_code == 200, resp.text
    assert resp.json()["node_uuid"] == also_mine


def test_even_a_system_admin_moves_a_port_only_between_nodes_of_one_owner(
    as_: As, cloud: Cloud
) -> None:
    port = _item(as_, "ports", as_.node(cloud.projects["owner-project"]))
    theirs = as_.node(cloud.projects["unrelated-project"])
    assert _rehome(as_, "system_admin", "ports", port, theirs).status_code == 400


# -- the node list's project filter ----------------------------------------------------------


def _uuids(resp: Any) -> set[str]:
    assert resp.status_code == 200, resp.text
    return {n["uuid"] for n in resp.json()["nodes"]}


def test_the_node_list_project_filter_is_owner_or_lessee(as_: As, cloud: Cloud) -> None:
    owner, lessee = cloud.projects["owner-project"], cloud.projects["lessee-project"]
    owned = as_.node(owner)
    leased = as_.node(cloud.projects["unrelated-project"], lessee=owner)
    other = as_.node(lessee)
    # Everyone's nodes to a system admin; project= narrows to those it owns or leases.
    seen = _uuids(as_("system_admin", "GET", f"/v1/nodes?project={owner}"))
    assert {owned, leased} <= seen and other not in seen
    # A project member may name its own project, the same list it gets without the filter.
    mine = _uuids(as_("owner_member", "GET", f"/v1/nodes?project={owner}"))
    assert mine == _uuids(as_("owner_member", "GET", "/v1/nodes"))
    assert {owned, leased} <= mine and other not in mine


def test_a_project_member_may_not_name_another_project(as_: As, cloud: Cloud) -> None:
    lessee = cloud.projects["lessee-project"]
    resp = as_("owner_member", "GET", f"/v1/nodes?project={lessee}")
    assert resp.status_code == 403, resp.text
    assert "baremetal:node:list_all" in fault(resp)
