"""Nodes through HTTP: create, show, list, patch, delete and their rules."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import Api, fault


def test_create_returns_201_location_and_enroll_state(api: Api) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "node-1"})
    assert resp.status_code == 201
    node = resp.json()
    assert resp.headers["Location"] == f"http://testserver/v1/nodes/{node['uuid']}"
    assert node["provision_state"] == "enroll"
    assert node["network_interface"] == "flat"
    assert node["links"][0] == {"href": resp.headers["Location"], "rel": "self"}


def test_create_before_1_11_starts_available(api: Api) -> None:
    node = api.post("/v1/nodes", {"driver": "fake-hardware"}, version="1.10").json()
    assert node["provision_state"] == "available"


def test_state_available_is_shown_as_none_before_1_2(api: Api) -> None:
    node = api.post("/v1/nodes", {"driver": "fake-hardware"}, version="1.10").json()
    assert api.get(f"/v1/nodes/{node['uuid']}", version="1.1").json()["provision_state"] is None


def test_get_by_uuid_or_name(api: Api) -> None:
    node = api.node(name="by-name")
    assert api.get("/v1/nodes/by-name").json()["uuid"] == node["uuid"]
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["name"] == "by-name"


def test_a_node_is_shown_from_one_read_transaction(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The row, who may see it and its view (the conductor serving it included) are read
    together, not in a transaction each."""
    node = api.node(name="read-once")
    db = api.client.app.state.services.db
    reads = []
    read = db.read

    @contextlib.contextmanager
    def counted() -> Iterator[Any]:
        reads.append("read")
        with read() as session:
            yield session

    monkeypatch.setattr(db, "read", counted)
    shown = api.get("/v1/nodes/read-once").json()
    assert shown["uuid"] == node["uuid"] and "conductor" in shown
    assert reads == ["read"]


def test_unknown_node_is_404_naming_it(api: Api) -> None:
    resp = api.get("/v1/nodes/missing-node")
    assert resp.status_code == 404
    assert "missing-node" in fault(resp)


def test_fields_above_request_version_are_hidden(api: Api) -> None:
    node = api.node(owner="team-a")
    old = api.get(f"/v1/nodes/{node['uuid']}", version="1.19").json()
    assert "network_interface" not in old and "owner" not in old and "name" in old
    assert "name" not in api.get(f"/v1/nodes/{node['uuid']}", version="1.4").json()
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["owner"] == "team-a"


def test_setting_a_field_above_request_version_is_406(api: Api) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "owner": "x"}, version="1.49")
    assert resp.status_code == 406
    assert "owner" in fault(resp)
    node = api.node()
    resp = api.patch(
        f"/v1/nodes/{node['uuid']}", [{"op": "add", "path": "/owner", "value": "x"}], version="1.49"
    )
    assert resp.status_code == 406


def test_missing_driver_is_400(api: Api) -> None:
    resp = api.post("/v1/nodes", {"name": "x"})
    assert resp.status_code == 400
    assert "driver" in fault(resp)


def test_unknown_driver_is_400(api: Api) -> None:
    resp = api.post("/v1/nodes", {"driver": "no-such-driver"})
    assert resp.status_code == 400
    assert "no-such-driver" in fault(resp)


def test_unknown_field_is_400(api: Api) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "colour": "red"})
    assert resp.status_code == 400
    assert "colour" in fault(resp)


def test_wrong_type_is_400_naming_field(api: Api) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "properties": "cpus=4"})
    assert resp.status_code == 400
    assert "properties" in fault(resp)


def test_network_interface_must_be_enabled(api: Api) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "network_interface": "magic"})
    assert resp.status_code == 400
    assert "magic" in fault(resp)
    assert api.node(network_interface="noop")["network_interface"] == "noop"


def test_malformed_json_body_is_400_not_500(api: Api) -> None:
    resp = api.client.post(
        "/v1/nodes",
        content=b"{not json",
        headers={**api.headers(), "Content-Type": "application/json"},
    )
    assert resp.status_code == 400
    resp = api.client.post(
        "/v1/nodes",
        content=b"[1, 2]",
        headers={**api.headers(), "Content-Type": "application/json"},
    )
    assert resp.status_code == 400


def test_duplicate_name_is_409(api: Api) -> None:
    api.node(name="twin")
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "twin"})
    assert resp.status_code == 409
    assert "twin" in fault(resp)


def test_invalid_name_is_400(api: Api) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "has space"})
    assert resp.status_code == 400
    assert "has space" in fault(resp)


@pytest.mark.parametrize(
    "name", ["detail", "validate", "states", "maintenance", "management", "vendor_passthru"]
)
def test_a_word_the_node_routes_use_is_no_node_name(api: Api, name: str) -> None:
    """As in Ironic 39: a node named "detail" could never be shown by its name."""
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": name})
    assert resp.status_code == 400, resp.text
    assert f"Cannot use '{name}' as node name: the API uses it" in fault(resp)
    assert api.get("/v1/nodes/detail").json()["nodes"] == []

    node = api.node(name="renamed-later")
    resp = api.patch(
        f"/v1/nodes/{node['uuid']}", [{"op": "replace", "path": "/name", "value": name}]
    )
    assert resp.status_code == 400, resp.text
    assert "reserved: maintenance, management, states" in fault(resp)
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["name"] == "renamed-later"
    # A name that only contains a reserved word is a name like any other.
    assert api.node(name=f"{name}-1")["name"] == f"{name}-1"


def test_patch_replace_add_remove(api: Api) -> None:
    node = api.node(name="patchme", extra={"a": 1})
    resp = api.patch(
        "/v1/nodes/patchme",
        [
            {"op": "replace", "path": "/name", "value": "patched"},
            {"op": "add", "path": "/extra/b", "value": 2},
            {"op": "remove", "path": "/extra/a"},
            {"op": "add", "path": "/properties/cpus", "value": 8},
        ],
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["name"] == "patched"
    assert body["extra"] == {"b": 2}
    assert body["properties"] == {"cpus": 8}
    assert body["updated_at"] is not None
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["name"] == "patched"


@pytest.mark.parametrize("path", ["/uuid", "/provision_state", "/created_at"])
def test_patch_read_only_field_is_400(api: Api, path: str) -> None:
    node = api.node()
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [{"op": "replace", "path": path, "value": "x"}])
    assert resp.status_code == 400
    assert path in fault(resp)


def test_patch_remove_missing_key_is_400_and_changes_nothing(api: Api) -> None:
    node = api.node(extra={"keep": True})
    resp = api.patch(
        f"/v1/nodes/{node['uuid']}",
        [
            {"op": "add", "path": "/extra/new", "value": 1},
            {"op": "remove", "path": "/extra/absent"},
        ],
    )
    assert resp.status_code == 400
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["extra"] == {"keep": True}


def test_patch_driver_cannot_be_removed(api: Api) -> None:
    node = api.node()
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [{"op": "remove", "path": "/driver"}])
    assert resp.status_code == 400


def test_patch_not_a_list_is_400(api: Api) -> None:
    node = api.node()
    assert api.patch(f"/v1/nodes/{node['uuid']}", {"op": "remove"}).status_code == 400


def test_list_default_fields_and_detail(api: Api) -> None:
    api.node(name="l1")
    listed = api.get("/v1/nodes").json()["nodes"][0]
    assert set(listed) == {
        "uuid",
        "name",
        "instance_uuid",
        "power_state",
        "provision_state",
        "maintenance",
        "links",
    }
    detailed = api.get("/v1/nodes/detail").json()["nodes"][0]
    assert detailed["driver"] == "fake-hardware"
    assert "ports" in detailed
    assert api.get("/v1/nodes?detail=true").json()["nodes"][0]["driver"] == "fake-hardware"


def test_list_fields_param(api: Api) -> None:
    api.node(name="f1")
    listed = api.get("/v1/nodes?fields=uuid,driver").json()["nodes"][0]
    assert set(listed) == {"uuid", "driver", "links"}
    assert api.get("/v1/nodes?fields=nope").status_code == 400


def test_list_filters(api: Api) -> None:
    api.node(name="a1", owner="alpha")
    api.node(name="b1", owner="beta", driver="ipmi")
    names = lambda url: sorted(n["name"] for n in api.get(url).json()["nodes"])  # noqa: E731
    assert names("/v1/nodes?owner=alpha") == ["a1"]
    assert names("/v1/nodes?driver=ipmi") == ["b1"]
    assert names("/v1/nodes?provision_state=enroll") == ["a1", "b1"]
    assert names("/v1/nodes?associated=false") == ["a1", "b1"]


def test_list_pagination_with_next_link(api: Api) -> None:
    for i in range(5):
        api.node(name=f"page-{i}")
    first = api.get("/v1/nodes?limit=2").json()
    assert len(first["nodes"]) == 2
    assert "marker=" in first["next"] and "limit=2" in first["next"]
    seen = [n["name"] for n in first["nodes"]]
    url = first["next"].replace("http://testserver", "")
    while url:
        page = api.get(url).json()
        seen += [n["name"] for n in page["nodes"]]
        url = page.get("next", "").replace("http://testserver", "")
    assert seen == [f"page-{i}" for i in range(5)]


def test_list_sorting(api: Api) -> None:
    for name in ("b", "c", "a"):
        api.node(name=f"sort-{name}")
    names = [n["name"] for n in api.get("/v1/nodes?sort_key=name&sort_dir=desc").json()["nodes"]]
    assert names == ["sort-c", "sort-b", "sort-a"]
    assert api.get("/v1/nodes?sort_key=bogus").status_code == 400
    assert api.get("/v1/nodes?sort_dir=up").status_code == 400
    assert api.get("/v1/nodes?limit=-1").status_code == 400
    assert api.get(f"/v1/nodes?marker={uuid.uuid4()}").status_code == 404


def test_delete_node(api: Api) -> None:
    node = api.node()
    assert api.delete(f"/v1/nodes/{node['uuid']}").status_code == 204
    assert api.get(f"/v1/nodes/{node['uuid']}").status_code == 404


def test_delete_node_with_instance_is_409_and_keeps_it(api: Api) -> None:
    node = api.node(instance_uuid=str(uuid.uuid4()))
    api.port(node, "52:54:00:aa:00:01")
    resp = api.delete(f"/v1/nodes/{node['uuid']}")
    assert resp.status_code == 409
    assert node["instance_uuid"] in fault(resp)
    assert api.get(f"/v1/nodes/{node['uuid']}").status_code == 200
    assert len(api.get(f"/v1/nodes/{node['uuid']}/ports").json()["ports"]) == 1


def test_delete_node_removes_its_ports(api: Api) -> None:
    node = api.node()
    port = api.port(node, "52:54:00:aa:00:02")
    assert api.delete(f"/v1/nodes/{node['uuid']}").status_code == 204
    assert api.get(f"/v1/ports/{port['uuid']}").status_code == 404


def test_instance_uuid_unique(api: Api) -> None:
    instance = str(uuid.uuid4())
    api.node(instance_uuid=instance)
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "instance_uuid": instance})
    assert resp.status_code == 409


def test_an_instance_uuid_is_not_overwritten_by_another(api: Api) -> None:
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    node = api.node(instance_uuid=first)
    path = f"/v1/nodes/{node['uuid']}"

    def set_instance(value: str | None) -> Any:
        return api.patch(path, [{"op": "replace", "path": "/instance_uuid", "value": value}])

    resp = set_instance(second)
    assert resp.status_code == 409, resp.text
    assert f"is associated with instance {first}" in fault(resp) and second in fault(resp)
    assert api.get(path).json()["instance_uuid"] == first
    assert set_instance(first).status_code == 200  # the same instance again: no change
    assert set_instance(None).status_code == 200
    assert set_instance(second).status_code == 200
    assert api.get(path).json()["instance_uuid"] == second


def test_maintenance_endpoint(api: Api) -> None:
    node = api.node()
    assert api.put(f"/v1/nodes/{node['uuid']}/maintenance", {"reason": "disk"}).status_code == 202
    shown = api.get(f"/v1/nodes/{node['uuid']}").json()
    assert shown["maintenance"] is True and shown["maintenance_reason"] == "disk"
    assert api.delete(f"/v1/nodes/{node['uuid']}/maintenance").status_code == 202
    shown = api.get(f"/v1/nodes/{node['uuid']}").json()
    assert shown["maintenance"] is False and shown["maintenance_reason"] is None


def test_maintenance_reason_is_set_by_the_maintenance_endpoint_only(api: Api) -> None:
    """Ironic 39 refuses maintenance_reason in a node's create or PATCH (400)."""
    node = api.node()
    url = f"/v1/nodes/{node['uuid']}"
    patch = [
        {"op": "replace", "path": "/maintenance", "value": True},
        {"op": "replace", "path": "/maintenance_reason", "value": "r"},
    ]
    resp = api.patch(url, patch)
    assert resp.status_code == 400 and "/maintenance_reason" in fault(resp)
    assert api.get(url).json()["maintenance"] is False  # nothing of the patch stored
    made = api.post("/v1/nodes", {"driver": "fake-hardware", "maintenance_reason": "r"})
    assert made.status_code == 400 and "maintenance_reason" in fault(made)
    assert api.patch(url, patch[:1]).json()["maintenance"] is True


def test_list_filters_fault_retired_conductor(api: Api) -> None:
    api.node(name="old", retired=True, retired_reason="eol")
    api.node(name="young")
    names = lambda url: sorted(n["name"] for n in api.get(url).json()["nodes"])  # noqa: E731
    assert names("/v1/nodes?retired=true") == ["old"]
    assert names("/v1/nodes?retired=false") == ["young"]
    assert names("/v1/nodes?fault=power%20failure") == []
    assert names("/v1/nodes?conductor=elsewhere") == []
    # Ironic reads retired at every version (no gate), so does metalwire.
    assert names("/v1/nodes?retired=true") == ["old"]
    assert api.get("/v1/nodes?retired=true", version="1.60").status_code == 200


def test_list_filter_chassis_uuid_lists_the_nodes_in_the_chassis(api: Api) -> None:
    chassis = api.post("/v1/chassis", {}).json()["uuid"]
    api.node(name="in-chassis", chassis_uuid=chassis)
    api.node(name="loose")
    listed = api.get(f"/v1/nodes?chassis_uuid={chassis}").json()["nodes"]
    assert [n["name"] for n in listed] == ["in-chassis"]
    missing = str(uuid.uuid4())
    resp = api.get(f"/v1/nodes?chassis_uuid={missing}")
    assert resp.status_code == 404 and fault(resp) == f"Chassis {missing} could not be found."
    resp = api.get("/v1/nodes?chassis_uuid=rack-7")
    assert resp.status_code == 400 and "chassis_uuid" in fault(resp)
