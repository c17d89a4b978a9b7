"""The flows ``api/routes/resource.py`` gives nodes, ports and portgroups, through the API:
each test asks the three resources the same question and expects the same answer, so a
descriptor that names the wrong fields, compares the wrong values or checks the policy in
another order fails here."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metalwire.api.fields import (
    NODE_FIELDS,
    NODE_LIST_FIELDS,
    PORT_FIELDS,
    PORT_LIST_FIELDS,
    PORTGROUP_FIELDS,
    PORTGROUP_LIST_FIELDS,
    Field,
    visible,
)
from tests.auth.conftest import htpasswd_line, make_config, open_client
from tests.auth.test_http_basic import BASIC_USERS, PERSONAS_YAML
from tests.conftest import LATEST, Api, fault

KINDS = ("nodes", "ports", "portgroups")
NOUNS = {"nodes": "Node", "ports": "Port", "portgroups": "Portgroup"}
FIELDS: dict[str, tuple[Field, ...]] = {
    "nodes": NODE_FIELDS,
    "ports": PORT_FIELDS,
    "portgroups": PORTGROUP_FIELDS,
}
LIST_FIELDS = {
    "nodes": NODE_LIST_FIELDS,
    "ports": PORT_LIST_FIELDS,
    "portgroups": PORTGROUP_LIST_FIELDS,
}
# The links to sub-resources a full view carries.
SUBLINKS = {
    "nodes": {"ports", "states", "portgroups", "volume"},
    "ports": set(),
    "portgroups": {"ports"},
}
MANDATORY = {
    "nodes": ("driver",),
    "ports": ("address", "node_uuid"),
    "portgroups": ("node_uuid", "mode"),
}
# A field of each, with the version it is shown from, whose PATCH Ironic 39 refuses below
# that version too (it patches a port's name at any version: tests/api/test_newer_gates.py).
NEWER = {
    "nodes": ("parent_node", 83),
    "ports": ("physical_network", 34),
    "portgroups": ("mode", 26),
}

_macs = (f"52:54:02:00:{i >> 8 & 255:02x}:{i & 255:02x}" for i in itertools.count(1))


def _made(api: Api, kind: str) -> tuple[str, str]:
    """A new resource of ``kind`` (on a new node): its URL and UUID."""
    node = api.node()
    if kind == "nodes":
        made = node
    elif kind == "ports":
        made = api.port(node, next(_macs))
    else:
        made = api.portgroup(node, address=next(_macs))
    return f"/v1/{kind}/{made['uuid']}", str(made["uuid"])


def _names(kind: str, minor: int) -> list[str]:
    return [f.name for f in visible(FIELDS[kind], minor)]


class OtherWriter:
    """Wraps the RPC update of one kind: before the first update the API sends, another
    writer's update of the same row lands, as if it came between the API's read and write."""

    def __init__(self, api: Api, kind: str, changes: dict[str, Any]) -> None:
        self.rpcapi = api.client.app.state.services.rpcapi
        self.method = f"update_{kind[:-1]}"
        self.real = getattr(self.rpcapi, self.method)
        self.changes = changes
        self.expected: list[dict[str, Any]] = []  # what each update of the API expected

    def __call__(
        self, context: Any, ident: str, changes: dict[str, Any], expected: Any = None, **kw: Any
    ) -> Any:
        if not self.expected:
            self.real(context, ident, self.changes, None)
        self.expected.append(dict(expected or {}))
        return self.real(context, ident, changes, expected, **kw)


@pytest.mark.parametrize("kind", KINDS)
def test_a_patch_racing_a_writer_of_the_same_field_is_retried_and_both_changes_land(
    api: Api, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _uuid = _made(api, kind)
    other = OtherWriter(api, kind, {"extra": {"theirs": "first"}})
    monkeypatch.setattr(other.rpcapi, other.method, other)
    resp = api.patch(url, [{"op": "add", "path": "/extra/ours", "value": "second"}])
    assert resp.status_code == 200, resp.text
    both = {"theirs": "first", "ours": "second"}
    assert resp.json()["extra"] == both
    # Refused once (the other writer changed extra), then read again and written.
    assert len(other.expected) == 2
    assert other.expected[1] == {"extra": {"theirs": "first"}}
    monkeypatch.undo()
    assert api.get(url).json()["extra"] == both


@pytest.mark.parametrize("kind", KINDS)
def test_a_patch_compares_only_the_fields_it_changes(
    api: Api, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _uuid = _made(api, kind)
    other = OtherWriter(api, kind, {"name": f"racer-{kind}"})
    monkeypatch.setattr(other.rpcapi, other.method, other)
    resp = api.patch(url, [{"op": "add", "path": "/extra/ours", "value": "second"}])
    assert resp.status_code == 200, resp.text
    assert len(other.expected) == 1  # the name changed meanwhile, which this patch left alone
    assert set(other.expected[0]) == {"extra"}
    body = resp.json()
    assert (body["name"], body["extra"]) == (f"racer-{kind}", {"ours": "second"})


@pytest.mark.parametrize("kind", ("ports", "portgroups"))
def test_moving_to_another_node_is_not_compared_as_a_stored_value(api: Api, kind: str) -> None:
    url, _uuid = _made(api, kind)
    target = api.node()
    resp = api.patch(url, [{"op": "replace", "path": "/node_uuid", "value": target["uuid"]}])
    assert resp.status_code == 200, resp.text
    assert api.get(url).json()["node_uuid"] == target["uuid"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_field_newer_than_the_version_is_refused_alike(api: Api, kind: str) -> None:
    url, _uuid = _made(api, kind)
    name, since = NEWER[kind]
    older = f"1.{since - 1}"
    assert name not in api.get(url, version=older).json()
    assert name in api.get(url, version=f"1.{since}").json()
    # As Ironic 39's check_allowed_*fields: a field newer than the request is 406.
    refusal = (
        f"Request not acceptable. Field {name} requires API version 1.{since} or later; "
        f"the request used {older}."
    )
    for asked in (f"{url}?fields=uuid,{name}", f"/v1/{kind}?fields={name}"):
        resp = api.get(asked, version=older)
        assert resp.status_code == 406, resp.text
        assert fault(resp) == refusal
    resp = api.patch(url, [{"op": "add", "path": f"/{name}", "value": "x"}], version=older)
    assert resp.status_code == 406, resp.text
    assert fault(resp) == refusal  # a PATCH says it alike


@pytest.mark.parametrize("kind", KINDS)
def test_a_list_shows_its_list_fields_and_detail_every_field(api: Api, kind: str) -> None:
    _url, made = _made(api, kind)
    minor = int(LATEST.split(".")[1])
    names = _names(kind, minor)

    def the_one(path: str) -> dict[str, Any]:
        resp = api.get(path)
        assert resp.status_code == 200, resp.text
        return next(item for item in resp.json()[kind] if item["uuid"] == made)

    assert set(the_one(f"/v1/{kind}")) == {*(n for n in LIST_FIELDS[kind] if n in names), "links"}
    assert set(the_one(f"/v1/{kind}/detail")) == {*names, "links", *SUBLINKS[kind]}
    assert set(the_one(f"/v1/{kind}?detail=true")) == {*names, "links", *SUBLINKS[kind]}
    assert set(the_one(f"/v1/{kind}?fields=uuid")) == {"uuid", "links"}


@pytest.mark.parametrize("kind", KINDS)
def test_show_gives_every_field_or_those_asked_for(api: Api, kind: str) -> None:
    url, made = _made(api, kind)
    minor = int(LATEST.split(".")[1])
    shown = api.get(url).json()
    assert set(shown) == {*_names(kind, minor), "links", *SUBLINKS[kind]}
    assert shown["links"][0] == {"href": f"http://testserver{url}", "rel": "self"}
    assert api.get(f"{url}?fields=uuid,extra").json() == {
        "uuid": made,
        "extra": {},
        "links": shown["links"],
    }


@pytest.mark.parametrize("kind", KINDS)
def test_a_mandatory_field_cannot_be_removed(api: Api, kind: str) -> None:
    url, _uuid = _made(api, kind)
    for name in MANDATORY[kind]:
        resp = api.patch(url, [{"op": "remove", "path": f"/{name}"}])
        assert resp.status_code == 400, resp.text
        assert fault(resp) == f"'{name}' is a mandatory attribute and can not be removed."
    resp = api.patch(url, [{"op": "remove", "path": "/extra"}])
    assert resp.status_code == 200, resp.text


@pytest.mark.parametrize("kind", KINDS)
def test_reading_or_patching_what_does_not_exist_is_404(api: Api, kind: str) -> None:
    missing = str(uuid.uuid4())
    for resp in (
        api.get(f"/v1/{kind}/{missing}"),
        api.patch(f"/v1/{kind}/{missing}", [{"op": "add", "path": "/extra/a", "value": 1}]),
    ):
        assert resp.status_code == 404, resp.text
        assert fault(resp) == f"{NOUNS[kind]} {missing} could not be found."


# -- with the policy: who may see, who may change, in which order ---------------------------


class Personas:
    """An API with http_basic personas: ``ops`` (the admin), ``viewer`` (a system reader)
    and ``tenant`` (a member of project-a); one node of each project with a port and a
    portgroup."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.urls: dict[tuple[str, str], str] = {}
        for project in ("project-a", "project-b"):
            node = self.admin(
                "POST", "/v1/nodes", json={"driver": "fake-hardware", "owner": project}
            )
            self.urls[("nodes", project)] = f"/v1/nodes/{node['uuid']}"
            for kind in ("ports", "portgroups"):
                body = {"node_uuid": node["uuid"], "address": next(_macs)}
                made = self.admin("POST", f"/v1/{kind}", json=body)
                self.urls[(kind, project)] = f"/v1/{kind}/{made['uuid']}"

    def call(self, user: str, method: str, path: str, **kw: Any) -> Any:
        return self.client.request(method, path, auth=(user, f"{user}-pw"), **kw)

    def admin(self, method: str, path: str, **kw: Any) -> Any:
        resp = self.call("ops", method, path, **kw)
        assert resp.status_code < 300, resp.text
        return resp.json()


@pytest.fixture(scope="module")
def personas(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> Iterator[Personas]:
    tmp_path = tmp_path_factory.mktemp("resource-personas")
    users = tmp_path / "htpasswd"
    users.write_text("".join(htpasswd_line(u, f"{u}-pw") + "\n" for u in BASIC_USERS))
    personas_file = tmp_path / "personas.yaml"
    personas_file.write_text(PERSONAS_YAML)
    config = make_config(
        tmp_path,
        migrated_template,
        DEFAULT__auth_strategy="http_basic",
        DEFAULT__http_basic_auth_user_file=str(users),
        DEFAULT__http_basic_auth_personas_file=str(personas_file),
    )
    for client in open_client(config):
        yield Personas(client)


@pytest.mark.parametrize("kind", KINDS)
def test_what_the_requester_cannot_see_is_404_before_the_patch_is_read(
    personas: Personas, kind: str
) -> None:
    url = personas.urls[(kind, "project-b")]
    ident = url.rsplit("/", 1)[1]
    for resp in (
        personas.call("tenant", "GET", url),
        personas.call("tenant", "PATCH", url, json="not a patch"),
    ):
        assert resp.status_code == 404, resp.text
        assert fault(resp) == f"{NOUNS[kind]} {ident} could not be found."
    assert personas.call("tenant", "GET", personas.urls[(kind, "project-a")]).status_code == 200


@pytest.mark.parametrize("kind", KINDS)
def test_a_refused_update_rule_is_403_before_the_patch_is_read(
    personas: Personas, kind: str
) -> None:
    url = personas.urls[(kind, "project-a")]
    assert personas.call("viewer", "GET", url).status_code == 200
    resp = personas.call("viewer", "PATCH", url, json="not a patch")
    assert resp.status_code == 403, resp.text
    resp = personas.call("ops", "PATCH", url, json="not a patch")
    assert resp.status_code == 400, resp.text


@pytest.mark.parametrize("kind", KINDS)
def test_a_project_lists_only_what_its_nodes_hold(personas: Personas, kind: str) -> None:
    resp = personas.call("tenant", "GET", f"/v1/{kind}")
    assert resp.status_code == 200, resp.text
    listed = {f"/v1/{kind}/{item['uuid']}" for item in resp.json()[kind]}
    assert personas.urls[(kind, "project-a")] in listed
    assert personas.urls[(kind, "project-b")] not in listed
    everything = personas.call("viewer", "GET", f"/v1/{kind}").json()[kind]
    assert personas.urls[(kind, "project-b")] in {f"/v1/{kind}/{i['uuid']}" for i in everything}


@pytest.mark.parametrize("kind", ["nodes", "ports", "portgroups"])
def test_an_empty_patch_changes_nothing_and_answers_the_object(api: Api, kind: str) -> None:
    node = api.node()
    made = {
        "nodes": node,
        "ports": api.port(node, "52:54:00:e0:00:01"),
        "portgroups": api.portgroup(node),
    }[kind]
    url = f"/v1/{kind}/{made['uuid']}"
    before = api.get(url).json()
    resp = api.patch(url, [])
    assert resp.status_code == 200, resp.text
    assert resp.json()["uuid"] == made["uuid"]
    assert api.get(url).json() == before
    assert api.patch(url, {"op": "add"}).status_code == 400
