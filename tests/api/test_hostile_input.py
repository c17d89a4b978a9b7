"""Hostile input through HTTP: every refusal is a 4xx naming the field, and nothing is stored.

Each test sends what a hostile client would, checks the answer, then reads back to check that
nothing was stored. The tests run on every database (the ``api`` fixture), so the answers are
the same on SQLite, PostgreSQL and MariaDB.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.conftest import Api, fault
from tests.support.helpers import error_text

JSON = {"Content-Type": "application/json"}


def send(api: Api, method: str, url: str, body: str | bytes) -> Any:
    """Send ``body`` as it is: JSON text that ``json=`` could not produce (NaN, lone surrogates)."""
    return api.client.request(method, url, content=body, headers={**api.headers(), **JSON})


def node_names(api: Api) -> list[str | None]:
    resp = api.get("/v1/nodes/detail")
    assert resp.status_code == 200, resp.text
    return [n["name"] for n in resp.json()["nodes"]]


def node_body(fields: str) -> str:
    """A node create body: the fake-hardware driver and ``fields``, JSON text as written."""
    return '{"driver":"fake-hardware",' + fields + "}"


def nested(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


# -- item 1: lone surrogates and non-finite numbers ----------------------------------------


def test_lone_surrogate_in_node_extra_is_400_naming_the_field(api: Api) -> None:
    resp = send(api, "POST", "/v1/nodes", '{"driver":"fake-hardware","extra":{"a":"\\ud800"}}')
    assert resp.status_code == 400, resp.text
    assert "extra/a" in fault(resp)
    assert node_names(api) == []


def test_lone_surrogate_in_a_key_is_400_naming_its_parent(api: Api) -> None:
    resp = send(api, "POST", "/v1/nodes", '{"driver":"fake-hardware","extra":{"\\udc00":1}}')
    assert resp.status_code == 400, resp.text
    assert "extra" in fault(resp)
    assert node_names(api) == []


def test_a_surrogate_pair_is_one_character_and_is_kept(api: Api) -> None:
    resp = send(
        api, "POST", "/v1/nodes", '{"driver":"fake-hardware","extra":{"a":"\\ud83d\\ude00"}}'
    )
    assert resp.status_code == 201, resp.text
    assert api.get(f"/v1/nodes/{resp.json()['uuid']}").json()["extra"] == {"a": "\U0001f600"}


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_number_in_network_data_is_400_naming_the_field(api: Api, number: str) -> None:
    body = node_body('"name":"n1","network_data":{"a":' + number + "}")
    resp = send(api, "POST", "/v1/nodes", body)
    assert resp.status_code == 400, resp.text
    assert "network_data/a" in fault(resp)
    for query in ("retired=false", "fault=power%20failure", "description_contains=x"):
        listed = api.get(f"/v1/nodes?{query}")
        assert listed.status_code == 200, listed.text
        assert listed.json()["nodes"] == []
    assert node_names(api) == []


def test_lone_surrogate_in_a_patch_value_is_400_and_changes_nothing(api: Api) -> None:
    node = api.node(extra={"k": "v"})
    patch = '[{"op":"add","path":"/extra/b","value":["ok","\\udfff"]}]'
    resp = send(api, "PATCH", f"/v1/nodes/{node['uuid']}", patch)
    assert resp.status_code == 400, resp.text
    assert "0/value/1" in fault(resp)
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["extra"] == {"k": "v"}


def test_non_finite_number_in_a_port_is_400(api: Api) -> None:
    node = api.node()
    body = '{"node_uuid":"' + node["uuid"] + '","address":"52:54:00:00:00:01","extra":{"x":NaN}}'
    resp = send(api, "POST", "/v1/ports", body)
    assert resp.status_code == 400, resp.text
    assert "extra/x" in fault(resp)
    assert api.get("/v1/ports").json()["ports"] == []


def test_lone_surrogate_in_a_vif_body_is_400_naming_the_field(api: Api) -> None:
    node = api.node(name="vifnode")
    api.port(node, "52:54:00:00:00:02")
    resp = send(api, "POST", "/v1/nodes/vifnode/vifs", '{"id":"vif-1","note":"\\ud800"}')
    assert resp.status_code == 400, resp.text
    assert "note" in fault(resp)
    resp = send(api, "POST", "/v1/nodes/vifnode/vifs", '{"id":"vif-1","x":{"y":-Infinity}}')
    assert resp.status_code == 400, resp.text
    assert "x/y" in fault(resp)
    assert api.vifs("vifnode") == []


def test_a_body_that_is_not_json_is_still_400(api: Api) -> None:
    resp = send(api, "POST", "/v1/nodes", "driver=fake-hardware")
    assert resp.status_code == 400, resp.text
    assert node_names(api) == []


# -- item 8: deep nesting ------------------------------------------------------------------


@pytest.mark.parametrize("levels", [33, 400, 800])
def test_deeply_nested_node_extra_is_400_and_stores_nothing(api: Api, levels: int) -> None:
    resp = send(api, "POST", "/v1/nodes", node_body('"extra":' + nested(levels)))
    assert resp.status_code == 400, resp.text
    assert "32" in fault(resp)
    assert node_names(api) == []


def test_nesting_up_to_the_limit_is_accepted(api: Api) -> None:
    # The body is level 1, so extra's 31 levels reach 32; one more is refused.
    resp = send(api, "POST", "/v1/nodes", node_body('"extra":' + nested(31)))
    assert resp.status_code == 201, resp.text
    resp = send(api, "POST", "/v1/nodes", node_body('"extra":' + nested(32)))
    assert resp.status_code == 400, resp.text


def test_vif_body_nested_2000_levels_is_400(api: Api) -> None:
    node = api.node(name="vifnode")
    api.port(node, "52:54:00:00:00:03")
    resp = send(api, "POST", "/v1/nodes/vifnode/vifs", "[" * 2000 + "]" * 2000)
    assert resp.status_code == 400, resp.text
    assert "32" in fault(resp)
    assert api.vifs("vifnode") == []


def test_deeply_nested_patch_value_is_400(api: Api) -> None:
    node = api.node()
    patch = '[{"op":"add","path":"/extra/deep","value":' + nested(600) + "}]"
    resp = send(api, "PATCH", f"/v1/nodes/{node['uuid']}", patch)
    assert resp.status_code == 400, resp.text
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["extra"] == {}


# -- item 6: JSON Patch --------------------------------------------------------------------


@pytest.mark.parametrize(
    "operation",
    [
        {"op": ["add"], "path": "/extra/x", "value": 1},
        {"op": {}, "path": "/extra/x", "value": 1},
        {"op": None, "path": "/extra/x", "value": 1},
        {"op": "frobnicate", "path": "/extra/x", "value": 1},
        {"op": "add", "path": ["/extra/x"], "value": 1},
        {"op": "add", "path": "/extra/l/\u00b2", "value": 1},
        {"op": "add", "path": "/extra/l/01", "value": 1},
        {"op": "add", "path": "/extra/l/-1", "value": 1},
        {"op": "replace", "path": "/extra/l/" + "9" * 4301, "value": 1},
        {"op": "remove", "path": "/extra/l/" + "9" * 40},
        {"op": "add", "path": "/extra/missing/x", "value": 1},
        {"op": "add", "path": "/extra/l/5/x", "value": 1},
    ],
)
def test_malformed_patch_operation_is_400_and_changes_nothing(
    api: Api, operation: dict[str, Any]
) -> None:
    node = api.node(extra={"l": [1, 2]})
    port = api.port(node, "52:54:00:00:00:04", extra={"l": [1, 2]})
    for url in (f"/v1/nodes/{node['uuid']}", f"/v1/ports/{port['uuid']}"):
        resp = api.patch(url, [operation])
        assert resp.status_code == 400, resp.text
        assert fault(resp)
        assert api.get(url).json()["extra"] == {"l": [1, 2]}


@pytest.mark.parametrize("operation", [1, "add", None, ["op", "add"]])
def test_patch_operation_that_is_not_an_object_is_400(api: Api, operation: Any) -> None:
    port = api.port(api.node(), "52:54:00:00:00:05")
    resp = api.patch(f"/v1/ports/{port['uuid']}", [operation])
    assert resp.status_code == 400, resp.text
    assert api.get(f"/v1/ports/{port['uuid']}").json()["extra"] == {}


@pytest.mark.parametrize("op", ["move", "copy", "test"])
def test_rfc_6902_operations_ironic_does_not_take_are_400_naming_them(api: Api, op: str) -> None:
    node = api.node(extra={"a": 1})
    resp = api.patch(
        f"/v1/nodes/{node['uuid']}", [{"op": op, "from": "/extra/a", "path": "/extra/b"}]
    )
    assert resp.status_code == 400, resp.text
    assert op in fault(resp)
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["extra"] == {"a": 1}


def test_patch_reaches_into_lists_by_index(api: Api) -> None:
    node = api.node(extra={"l": [{"a": 1}, 2]})
    resp = api.patch(
        f"/v1/nodes/{node['uuid']}", [{"op": "add", "path": "/extra/l/0/b", "value": 3}]
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["extra"] == {"l": [{"a": 1, "b": 3}, 2]}


# -- item 7: identifiers -------------------------------------------------------------------


@pytest.mark.parametrize("value", ["not-a-uuid", "\u0100" * 36, "abc\r\nX-Injected: 1", 7])
def test_port_uuid_must_be_a_uuid(api: Api, value: Any) -> None:
    node = api.node()
    resp = api.post(
        "/v1/ports", {"node_uuid": node["uuid"], "address": "52:54:00:00:00:06", "uuid": value}
    )
    assert resp.status_code == 400, resp.text
    assert "uuid" in fault(resp)
    assert api.get("/v1/ports").json()["ports"] == []


@pytest.mark.parametrize("value", ["not-a-uuid", "\u0100" * 36, "\x01"])
def test_portgroup_uuid_must_be_a_uuid(api: Api, value: str) -> None:
    node = api.node()
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"], "uuid": value})
    assert resp.status_code == 400, resp.text
    assert "uuid" in fault(resp)
    assert api.get("/v1/portgroups").json()["portgroups"] == []


def test_a_valid_port_uuid_is_kept(api: Api) -> None:
    wanted = str(uuid.uuid4())
    port = api.port(api.node(), "52:54:00:00:00:07", uuid=wanted.upper())
    assert port["uuid"] == wanted


@pytest.mark.parametrize("name", ["a\x00b", "tab\tname", "caf\u00e9", "\U0001f600", "x" * 256])
def test_node_and_portgroup_names_refuse_what_a_name_cannot_hold(api: Api, name: str) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": name})
    assert resp.status_code == 400, resp.text
    assert "name" in fault(resp)
    assert node_names(api) == []
    node = api.node()
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"], "name": name})
    assert resp.status_code == 400, resp.text
    assert api.get("/v1/portgroups").json()["portgroups"] == []


@pytest.mark.parametrize("vif", [".", "..", "a\x00b", "\u0100", "vif\n"])
def test_vif_id_refuses_dot_segments_and_control_characters(api: Api, vif: str) -> None:
    node = api.node(name="vifnode")
    api.port(node, "52:54:00:00:00:08")
    resp = api.post("/v1/nodes/vifnode/vifs", {"id": vif})
    assert resp.status_code == 400, resp.text
    assert "id" in fault(resp)
    assert api.vifs("vifnode") == []
    assert api.get("/v1/nodes/vifnode").status_code == 200


@pytest.mark.parametrize("ident", ["a%00b", "a%01b", "%7F", "%C4%80", "%FF"])
def test_odd_node_ident_in_the_path_is_404_or_400_never_500(api: Api, ident: str) -> None:
    api.node(name="present")
    for url in (
        f"/v1/nodes/{ident}",
        f"/v1/nodes/{ident}/ports",
        f"/v1/nodes/{ident}/vifs",
        f"/v1/nodes/{ident}/states",
        f"/v1/ports/{ident}",
        f"/v1/portgroups/{ident}",
    ):
        resp = api.get(url)
        assert resp.status_code in (400, 404), (url, resp.status_code, resp.text)
        assert error_text(resp)
    assert node_names(api) == ["present"]


# -- item 9: string lengths and NUL bytes --------------------------------------------------


@pytest.mark.parametrize(
    ("field", "limit"),
    [("owner", 255), ("lessee", 255), ("resource_class", 80), ("conductor_group", 255)],
)
def test_over_long_node_field_is_400_naming_field_and_limit(
    api: Api, field: str, limit: int
) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", field: "x" * (limit + 1)})
    assert resp.status_code == 400, resp.text
    assert field in fault(resp) and str(limit) in fault(resp)
    assert node_names(api) == []
    node = api.node(name="kept")
    resp = api.patch(
        f"/v1/nodes/{node['uuid']}", [{"op": "add", "path": f"/{field}", "value": "y" * 300}]
    )
    assert resp.status_code == 400, resp.text
    assert field in fault(resp) and str(limit) in fault(resp)
    assert api.get(f"/v1/nodes/{node['uuid']}").json()[field] == node[field]


def test_a_field_at_its_length_limit_is_accepted(api: Api) -> None:
    node = api.node(owner="o" * 255, resource_class="r" * 80)
    assert node["owner"] == "o" * 255


def test_over_long_port_and_portgroup_fields_are_400(api: Api) -> None:
    node = api.node()
    resp = api.post(
        "/v1/ports",
        {"node_uuid": node["uuid"], "address": "52:54:00:00:00:09", "physical_network": "p" * 65},
    )
    assert resp.status_code == 400, resp.text
    assert "physical_network" in fault(resp) and "64" in fault(resp)
    assert api.get("/v1/ports").json()["ports"] == []
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"], "mode": "m" * 256})
    assert resp.status_code == 400, resp.text
    assert "mode" in fault(resp) and "255" in fault(resp)
    assert api.get("/v1/portgroups").json()["portgroups"] == []


@pytest.mark.parametrize(
    "fields",
    [
        {"owner": "a\x00b"},
        {"description": "a\x00b"},
        {"maintenance_reason": "a\x00b"},
        {"extra": {"a": "\x00"}},
        {"extra": {"\x00": 1}},
        {"properties": {"l": ["ok", "a\x00"]}},
    ],
)
def test_nul_in_any_string_of_a_node_is_400(api: Api, fields: dict[str, Any]) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", **fields})
    assert resp.status_code == 400, resp.text
    assert next(iter(fields)) in fault(resp)
    assert node_names(api) == []


def test_nul_in_a_query_parameter_is_400(api: Api) -> None:
    api.node(owner="o")
    for url in (
        "/v1/nodes?owner=a%00b",
        "/v1/nodes?description_contains=%00",
        "/v1/ports?physical_network=%00",
        "/v1/nodes?marker=a%00",
    ):
        resp = api.get(url)
        assert resp.status_code == 400, (url, resp.text)
        assert fault(resp)


def test_user_headers_are_not_trusted_as_the_history_user(api: Api) -> None:
    node = api.node(name="vifnode")
    api.port(node, "52:54:00:00:00:0a")
    resp = api.client.post(
        "/v1/nodes/vifnode/vifs",
        json={"id": "vif-1"},
        headers={**api.headers(), "X-User-Id": "u" * 256, "X-Project-Id": "p"},
    )
    assert resp.status_code == 204, resp.text
    history = api.get("/v1/nodes/vifnode/history?detail=true").json()["history"]
    assert history and {entry["user"] for entry in history} == {None}


# -- item 10: HEAD and what a NOT NULL violation says --------------------------------------


@pytest.mark.parametrize("url", ["/", "/v1/", "/v1/nodes", "/v1/nodes/n1", "/v1/nodes/n1/vifs"])
def test_head_answers_like_get_without_a_body(api: Api, url: str) -> None:
    api.node(name="n1")
    got = api.get(url)
    head = api.client.head(url, headers=api.headers())
    assert head.status_code == got.status_code == 200
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]


def test_head_of_a_missing_node_is_404(api: Api) -> None:
    assert api.client.head("/v1/nodes/ghost", headers=api.headers()).status_code == 404


@pytest.mark.parametrize(
    ("field", "given", "default"),
    [
        # as Ironic: removed or set to null, it becomes [DEFAULT] default_network_interface
        ("network_interface", "noop", "flat"),
        # ``baremetal node unset --conductor-group`` (a 500 in Ironic 39): no group
        ("conductor_group", "rack-a", ""),
    ],
)
@pytest.mark.parametrize("op", ["remove", "replace"])
def test_removing_a_field_with_a_default_gives_the_default_back(
    api: Api, op: str, field: str, given: str, default: str
) -> None:
    node = api.node(**{field: given})
    operation: dict[str, Any] = {"op": op, "path": f"/{field}"}
    if op == "replace":
        operation["value"] = None
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [operation])
    assert resp.status_code == 200, resp.text
    assert api.get(f"/v1/nodes/{node['uuid']}").json()[field] == default


def test_a_node_created_with_a_null_conductor_group_is_in_none(api: Api) -> None:
    """As Ironic 39, which gives it [DEFAULT] default_conductor_group ("")."""
    assert api.node(conductor_group=None)["conductor_group"] == ""


@pytest.mark.parametrize("field", ["maintenance"])
@pytest.mark.parametrize("op", ["remove", "replace"])
def test_removing_a_field_that_cannot_be_null_is_400_naming_it(
    api: Api, field: str, op: str
) -> None:
    node = api.node()
    operation: dict[str, Any] = {"op": op, "path": f"/{field}"}
    if op == "replace":
        operation["value"] = None
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [operation])
    assert resp.status_code == 400, resp.text
    assert field in fault(resp)
    assert "constraint" not in fault(resp).lower()
    assert api.get(f"/v1/nodes/{node['uuid']}").json()[field] == node[field]
