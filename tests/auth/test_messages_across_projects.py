"""What a refusal says about other projects' objects, against a real ``metalwire serve`` in
keystone mode: the VIF conflict names the other node only to whoever may see it, and no
message carries a database id.

``theirs`` is a node of owner-project holding a VIF; ``mine`` a node of unrelated-project,
whose admin tries to take that VIF (attach, dry-run, ``extra/vif_port_id``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from metalwire.api import dry_run
from tests.auth.conftest import PASSWORD, Cloud
from tests.conftest import LATEST, fault
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

REQUESTER = "unrelated_admin"
ELSEWHERE = "Unable to attach VIF {vif}: it is already attached to another node."
_macs = (f"52:54:00:6b:{i >> 8 & 255:02x}:{i & 255:02x}" for i in itertools.count(1))
_vifs = (f"busy-vif-{i}" for i in itertools.count(1))


class Cloudy:
    """Calls to the server as one persona or another."""

    def __init__(self, url: str, tokens: dict[str, str]) -> None:
        self.url = url
        self.tokens = tokens

    def call(self, who: str, method: str, path: str, **kw: Any) -> httpx.Response:
        headers = {"X-Auth-Token": self.tokens[who], "X-OpenStack-Ironic-API-Version": LATEST}
        headers.update(kw.pop("headers", {}))
        return httpx.request(method, self.url + path, headers=headers, timeout=30, **kw)

    def admin(self, method: str, path: str, **kw: Any) -> Any:
        resp = self.call("system_admin", method, path, **kw)
        assert resp.status_code < 300, resp.text
        return resp.json() if resp.content else None


@pytest.fixture(scope="module")
def api(
    tmp_path_factory: pytest.TempPathFactory, cloud: Cloud, persona_tokens: dict[str, str]
) -> Iterator[Cloudy]:
    # An admin of unrelated-project: port updates (extra/vif_port_id) take an owner admin.
    user = cloud.keystone.user("messages-unrelated-admin", PASSWORD)
    cloud.keystone.grant(user, "admin", cloud.projects["unrelated-project"])
    tokens = {
        **persona_tokens,
        REQUESTER: cloud.keystone.token(
            "messages-unrelated-admin", PASSWORD, project="unrelated-project"
        ),
    }
    with MetalwireServer(tmp_path_factory.mktemp("messages"), env=cloud.env()) as server:
        yield Cloudy(server.url, tokens)


def _node(api: Cloudy, owner: str, name: str) -> dict[str, Any]:
    body = {"driver": "fake-hardware", "name": name, "network_interface": "flat", "owner": owner}
    node: dict[str, Any] = api.admin("POST", "/v1/nodes", json=body)
    node["port"] = api.admin(
        "POST", "/v1/ports", json={"node_uuid": node["uuid"], "address": next(_macs)}
    )
    return node


@pytest.fixture
def nodes(api: Cloudy, cloud: Cloud) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(theirs, mine, the VIF attached to theirs)."""
    suffix = next(_macs).replace(":", "")[-4:]
    theirs = _node(api, cloud.projects["owner-project"], f"theirs-{suffix}")
    mine = _node(api, cloud.projects["unrelated-project"], f"mine-{suffix}")
    vif = next(_vifs)
    api.admin("POST", f"/v1/nodes/{theirs['uuid']}/vifs", json={"id": vif})
    return theirs, mine, vif


def _names_nothing_of(message: str, node: dict[str, Any]) -> None:
    assert node["uuid"] not in message and node["name"] not in message, message


def _attempts(api: Cloudy, who: str, mine: dict[str, Any], vif: str) -> dict[str, httpx.Response]:
    path = f"/v1/nodes/{mine['uuid']}/vifs"
    legacy = [{"op": "add", "path": "/extra/vif_port_id", "value": vif}]
    return {
        "attach": api.call(who, "POST", path, json={"id": vif}),
        "dry-run": api.call(who, "POST", path, json={"id": vif}, headers={dry_run.HEADER: "true"}),
        "legacy": api.call(who, "PATCH", f"/v1/ports/{mine['port']['uuid']}", json=legacy),
    }


def test_a_vif_on_another_projects_node_is_in_use_elsewhere(
    api: Cloudy, nodes: tuple[dict[str, Any], dict[str, Any], str]
) -> None:
    theirs, mine, vif = nodes
    answers = _attempts(api, REQUESTER, mine, vif)
    assert {k: r.status_code for k, r in answers.items()} == dict.fromkeys(answers, 409)
    for resp in answers.values():
        assert fault(resp) == ELSEWHERE.format(vif=vif)
    history = api.admin("GET", f"/v1/nodes/{mine['uuid']}/history?detail=true")["history"]
    stored = [entry["event"] for entry in history]
    assert stored, "the failed attach is in the requester's node history"
    for event in stored:
        _names_nothing_of(event, theirs)
    assert any(ELSEWHERE.format(vif=vif) in event for event in stored), stored


def test_a_requester_who_sees_the_other_node_is_told_which_it_is(
    api: Cloudy, nodes: tuple[dict[str, Any], dict[str, Any], str]
) -> None:
    theirs, mine, vif = nodes
    named = f"it is already attached to node {theirs['uuid']} ({theirs['name']})."
    for kind, resp in _attempts(api, "system_admin", mine, vif).items():
        assert resp.status_code == 409, (kind, resp.text)
        assert fault(resp) == f"Unable to attach VIF {vif}: {named}", kind


def test_a_port_refused_for_a_portgroup_on_another_node_names_no_database_id(
    api: Cloudy, nodes: tuple[dict[str, Any], dict[str, Any], str]
) -> None:
    theirs, mine, _vif = nodes
    portgroup = api.admin("POST", "/v1/portgroups", json={"node_uuid": theirs["uuid"]})
    body = {"node_uuid": mine["uuid"], "address": next(_macs), "portgroup_uuid": portgroup["uuid"]}
    resp = api.call("system_admin", "POST", "/v1/ports", json=body)
    assert resp.status_code == 400, resp.text
    message = fault(resp)
    assert message.endswith("the portgroup is on another node."), message
    # A database id, not a UUID whose first group happens to be all digits.
    assert not re.search(r"\bnode \d+(?![-\w])", message), message
    _names_nothing_of(message, theirs)
