"""Boolean fields read as Ironic reads them: a JSON boolean or one of oslo's strict spellings.

The ``baremetal`` CLI sends many flags as strings ("True", "False"), so every boolean field
accepts ``1 t true on y yes`` and ``0 f false off n no`` (any case, surrounding spaces
ignored) on create and on PATCH, stores a JSON boolean and answers 400 for anything else.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import pytest

from tests.conftest import Api, fault

TRUE_SPELLINGS: tuple[Any, ...] = ("1", "t", "true", "on", "y", "yes", " TRUE ", "Yes\t", True)
FALSE_SPELLINGS: tuple[Any, ...] = ("0", "f", "false", "off", "n", "no", " Off ", "NO", False)
SPELLINGS = [(s, True) for s in TRUE_SPELLINGS] + [(s, False) for s in FALSE_SPELLINGS]
INVALID: tuple[Any, ...] = ("maybe", "", "2", "truee", 1, 0, 1.5, [], {"a": True})
# Both key sets, so a port's link information is valid whether or not it is a Smart NIC.
LLC = {"switch_id": "aa:bb:cc:dd:ee:ff", "port_id": "Ethernet1/1", "hostname": "host-a"}

_macs = itertools.count(1)


def next_mac() -> str:
    n = next(_macs)
    return f"52:54:00:00:{n >> 8:02x}:{n & 0xFF:02x}"


@dataclass(frozen=True)
class BoolField:
    collection: str
    name: str

    def __str__(self) -> str:
        return f"{self.collection}.{self.name}"

    def body(self, api: Api, node: dict[str, Any]) -> dict[str, Any]:
        """A create body for this field's resource, without the field."""
        if self.collection == "nodes":
            return {"driver": "fake-hardware"}
        if self.collection == "ports":
            return {"node_uuid": node["uuid"], "address": next_mac(), "local_link_connection": LLC}
        return {"node_uuid": node["uuid"]}

    def create(self, api: Api, node: dict[str, Any], **fields: Any) -> Any:
        return api.post(f"/v1/{self.collection}", {**self.body(api, node), **fields})

    def make(self, api: Api, node: dict[str, Any]) -> str:
        resp = self.create(api, node)
        assert resp.status_code == 201, resp.text
        uuid = str(resp.json()["uuid"])
        if self.name == "protected":  # as Ironic: only a deployed node is protected
            deploy(api, uuid)
        return uuid

    def patch(self, api: Api, uuid: str, value: Any, op: str = "add") -> Any:
        return api.patch(
            f"/v1/{self.collection}/{uuid}", [{"op": op, "path": f"/{self.name}", "value": value}]
        )

    def shown(self, api: Api, uuid: str) -> Any:
        resp = api.get(f"/v1/{self.collection}/{uuid}")
        assert resp.status_code == 200, resp.text
        return resp.json()[self.name]


def deploy(api: Api, node: str) -> None:
    for verb in ("manage", "provide", "active"):
        resp = api.put(f"/v1/nodes/{node}/states/provision", {"target": verb})
        assert resp.status_code == 202, resp.text


CREATABLE = [
    BoolField("nodes", "maintenance"),
    BoolField("nodes", "automated_clean"),
    BoolField("nodes", "retired"),
    BoolField("nodes", "console_enabled"),
    BoolField("ports", "pxe_enabled"),
    BoolField("ports", "is_smartnic"),
    BoolField("portgroups", "standalone_ports_supported"),
]
PATCHABLE = [f for f in CREATABLE if f.name != "console_enabled"] + [
    BoolField("nodes", "protected")
]


def assert_names_field_and_spellings(resp: Any, field: str, value: Any) -> None:
    assert resp.status_code == 400, resp.text
    message = fault(resp)
    assert field in message, message
    assert repr(value) in message, message
    for word in ("'true'", "'false'", "'yes'", "'no'", "'on'", "'off'", "'1'", "'0'"):
        assert word in message, message


@pytest.mark.parametrize("field", CREATABLE, ids=str)
def test_create_accepts_every_boolean_spelling_and_stores_a_json_boolean(
    api: Api, field: BoolField
) -> None:
    node = api.node()
    for spelling, expected in SPELLINGS:
        resp = field.create(api, node, **{field.name: spelling})
        assert resp.status_code == 201, (spelling, resp.text)
        assert resp.json()[field.name] is expected, spelling
        assert field.shown(api, resp.json()["uuid"]) is expected, spelling


@pytest.mark.parametrize("field", CREATABLE, ids=str)
def test_create_with_a_value_that_is_not_a_boolean_is_400_naming_field_and_spellings(
    api: Api, field: BoolField
) -> None:
    node = api.node()
    before = len(api.get(f"/v1/{field.collection}").json()[field.collection])
    for value in INVALID:
        assert_names_field_and_spellings(
            field.create(api, node, **{field.name: value}), field.name, value
        )
    assert len(api.get(f"/v1/{field.collection}").json()[field.collection]) == before


@pytest.mark.parametrize("field", PATCHABLE, ids=str)
def test_patch_accepts_every_boolean_spelling_and_stores_a_json_boolean(
    api: Api, field: BoolField
) -> None:
    uuid = field.make(api, api.node())
    for spelling, expected in SPELLINGS:
        reset = field.patch(api, uuid, not expected, op="replace")
        assert reset.status_code == 200, reset.text
        resp = field.patch(api, uuid, spelling)
        assert resp.status_code == 200, (spelling, resp.text)
        assert resp.json()[field.name] is expected, spelling
        assert field.shown(api, uuid) is expected, spelling


@pytest.mark.parametrize("field", PATCHABLE, ids=str)
def test_patch_with_a_value_that_is_not_a_boolean_is_400_and_changes_nothing(
    api: Api, field: BoolField
) -> None:
    uuid = field.make(api, api.node())
    assert field.patch(api, uuid, True).status_code == 200
    for value in INVALID:
        assert_names_field_and_spellings(field.patch(api, uuid, value), field.name, value)
        assert field.shown(api, uuid) is True


def test_node_maintenance_cannot_be_null(api: Api) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "maintenance": None})
    assert resp.status_code == 400, resp.text
    assert "maintenance" in fault(resp)
    node = api.node(maintenance="on")
    for op in ({"op": "replace", "value": None}, {"op": "remove"}):
        resp = api.patch(f"/v1/nodes/{node['uuid']}", [{**op, "path": "/maintenance"}])
        assert resp.status_code == 400, resp.text
        assert "maintenance" in fault(resp)
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["maintenance"] is True


def test_node_console_enabled_cannot_be_null(api: Api) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "console_enabled": None})
    assert resp.status_code == 400, resp.text
    assert "console_enabled" in fault(resp)


@pytest.mark.parametrize("op", [{"op": "replace", "value": None}, {"op": "remove"}])
def test_node_protected_null_or_removed_is_false(api: Api, op: dict[str, Any]) -> None:
    node = api.node()
    deploy(api, node["uuid"])
    url = f"/v1/nodes/{node['uuid']}"
    assert api.patch(url, [{"op": "add", "path": "/protected", "value": "True"}]).status_code == 200
    resp = api.patch(url, [{**op, "path": "/protected"}])
    assert resp.status_code == 200, resp.text
    assert resp.json()["protected"] is False
    assert api.get(url).json()["protected"] is False


@pytest.mark.parametrize("value", [True, False, "true", None])
def test_node_create_with_protected_is_400(api: Api, value: Any) -> None:
    before = api.get("/v1/nodes").json()["nodes"]
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "protected": value})
    assert resp.status_code == 400, resp.text
    assert "protected" in fault(resp)
    assert api.get("/v1/nodes").json()["nodes"] == before


def test_node_create_with_protected_reason_is_400(api: Api) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "protected_reason": "keep"})
    assert resp.status_code == 400, resp.text
    assert "protected_reason" in fault(resp)


def test_node_console_enabled_is_stored_on_create_and_read_only_after(api: Api) -> None:
    node = api.node(console_enabled="yes")
    url = f"/v1/nodes/{node['uuid']}"
    assert node["console_enabled"] is True
    assert api.get(url).json()["console_enabled"] is True
    assert api.get(f"{url}/states").json()["console_enabled"] is True
    assert api.node()["console_enabled"] is False
    resp = api.patch(url, [{"op": "replace", "path": "/console_enabled", "value": False}])
    assert resp.status_code == 400, resp.text
    assert "console_enabled" in fault(resp)
    assert api.get(url).json()["console_enabled"] is True


def test_string_booleans_are_stored_as_booleans_for_list_filters(api: Api) -> None:
    in_maintenance = api.node(maintenance="Yes", retired=" on ")
    api.node(maintenance="no", retired="off")
    for query in ("maintenance=true", "retired=true"):
        listed = api.get(f"/v1/nodes?{query}").json()["nodes"]
        assert [n["uuid"] for n in listed] == [in_maintenance["uuid"]], query


def test_port_link_rules_use_the_converted_is_smartnic(api: Api) -> None:
    """A string "true" is a Smart NIC, so its link needs hostname; "false" is not one, so a
    link naming the switch alone will do."""
    node = api.node()
    switch_link = {"port_id": "p1", "switch_id": "aa:bb:cc:dd:ee:ff"}
    resp = api.post(
        "/v1/ports",
        {
            "node_uuid": node["uuid"],
            "address": next_mac(),
            "is_smartnic": "true",
            "local_link_connection": switch_link,
        },
    )
    assert resp.status_code == 400, resp.text
    assert "hostname" in fault(resp)
    port = api.port(node, next_mac(), is_smartnic="false", local_link_connection=switch_link)
    assert port["is_smartnic"] is False


def test_port_pxe_enabled_cannot_be_null_or_removed(api: Api) -> None:
    """Null is not the default: a port created or patched with pxe_enabled null, even in a
    portgroup without standalone ports, is a 400 naming the field, and nothing is stored."""
    node = api.node()
    bond = api.portgroup(node, name="bond-null", standalone_ports_supported=False)
    for group in (None, bond["uuid"]):
        body = {"node_uuid": node["uuid"], "address": next_mac(), "portgroup_uuid": group}
        resp = api.post("/v1/ports", {**body, "pxe_enabled": None})
        assert resp.status_code == 400, resp.text
        assert fault(resp) == "pxe_enabled cannot be null: it is either true or false."
    assert api.get(f"/v1/ports?node={node['uuid']}").json()["ports"] == []
    port = api.port(node, next_mac(), pxe_enabled=False)
    url = f"/v1/ports/{port['uuid']}"
    for op in ({"op": "replace", "value": None}, {"op": "add", "value": None}, {"op": "remove"}):
        resp = api.patch(url, [{**op, "path": "/pxe_enabled"}])
        assert resp.status_code == 400, resp.text
        assert "pxe_enabled cannot be null" in fault(resp)
    assert api.get(url).json()["pxe_enabled"] is False
