"""/v1/chassis through HTTP: Ironic's chassis, and a node's chassis_uuid naming one."""

from __future__ import annotations

import uuid
from typing import Any

from tests.conftest import Api, fault

CHASSIS_ID = "8f1c1c6e-63b5-4bd5-9d43-7d0b8d1e7a10"


def chassis(api: Api, **fields: Any) -> dict[str, Any]:
    resp = api.post("/v1/chassis", fields)
    assert resp.status_code == 201, resp.text
    return dict(resp.json())


def test_create_show_list_patch_delete(api: Api) -> None:
    resp = api.post("/v1/chassis", {"uuid": CHASSIS_ID, "description": "rack 7", "extra": {"a": 1}})
    assert resp.status_code == 201, resp.text
    created = resp.json()
    assert resp.headers["Location"].endswith(f"/v1/chassis/{CHASSIS_ID}")
    assert created["uuid"] == CHASSIS_ID
    assert created["description"] == "rack 7" and created["extra"] == {"a": 1}
    assert created["created_at"] and created["updated_at"] is None
    assert created["links"] == [
        {"href": f"http://testserver/v1/chassis/{CHASSIS_ID}", "rel": "self"},
        {"href": f"http://testserver/chassis/{CHASSIS_ID}", "rel": "bookmark"},
    ]
    # as Ironic 39 shows them: the nodes' links inside a list
    assert created["nodes"] == [
        [
            {"href": f"http://testserver/v1/chassis/{CHASSIS_ID}/nodes", "rel": "self"},
            {"href": f"http://testserver/chassis/{CHASSIS_ID}/nodes", "rel": "bookmark"},
        ]
    ]
    created.pop("created_at")  # MariaDB keeps whole seconds
    shown = api.get(f"/v1/chassis/{CHASSIS_ID}").json()
    assert shown.pop("created_at") and shown == created

    (listed,) = api.get("/v1/chassis").json()["chassis"]
    assert set(listed) == {"uuid", "description", "links"}
    (detailed,) = api.get("/v1/chassis/detail").json()["chassis"]
    assert detailed.pop("created_at") and detailed == created
    (detailed,) = api.get("/v1/chassis?detail=true").json()["chassis"]
    assert detailed.pop("created_at") and detailed == created
    shown = api.get(f"/v1/chassis/{CHASSIS_ID}?fields=extra").json()
    assert set(shown) == {"extra", "links"}

    resp = api.patch(
        f"/v1/chassis/{CHASSIS_ID}",
        [
            {"op": "replace", "path": "/description", "value": "rack 8"},
            {"op": "add", "path": "/extra/b", "value": 2},
        ],
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["description"] == "rack 8"
    assert resp.json()["extra"] == {"a": 1, "b": 2}
    assert resp.json()["updated_at"] is not None
    resp = api.patch(f"/v1/chassis/{CHASSIS_ID}", [{"op": "remove", "path": "/description"}])
    assert resp.status_code == 200 and resp.json()["description"] is None

    assert api.delete(f"/v1/chassis/{CHASSIS_ID}").status_code == 204
    resp = api.get(f"/v1/chassis/{CHASSIS_ID}")
    assert resp.status_code == 404 and fault(resp) == f"Chassis {CHASSIS_ID} could not be found."


def test_list_pages_and_sorts(api: Api) -> None:
    made = [chassis(api, description=f"c{i}")["uuid"] for i in (2, 0, 1)]
    first = api.get("/v1/chassis?limit=2&sort_key=description").json()
    assert [c["description"] for c in first["chassis"]] == ["c0", "c1"]
    assert "marker=" in first["next"]
    rest = api.get(first["next"].removeprefix("http://testserver")).json()
    assert [c["description"] for c in rest["chassis"]] == ["c2"]
    desc = api.get("/v1/chassis?sort_dir=desc").json()["chassis"]
    assert [c["uuid"] for c in desc] == made[::-1]
    resp = api.get("/v1/chassis?sort_key=extra")
    assert resp.status_code == 400 and "extra" in fault(resp)
    resp = api.get("/v1/chassis?node=x")
    assert resp.status_code == 400 and "node" in fault(resp)
    resp = api.get("/v1/chassis/detail?fields=uuid")
    assert resp.status_code == 400


def test_bad_input_is_refused_naming_what_is_wrong(api: Api) -> None:
    resp = api.post("/v1/chassis", {"description": "x" * 256})
    assert resp.status_code == 400 and "description" in fault(resp)
    resp = api.post("/v1/chassis", {"name": "c1"})
    assert resp.status_code == 400 and "name" in fault(resp)
    resp = api.post("/v1/chassis", {"uuid": "not-a-uuid"})
    assert resp.status_code == 400 and "uuid" in fault(resp)
    resp = api.post("/v1/chassis", {"extra": "flat"})
    assert resp.status_code == 400 and "extra" in fault(resp)
    assert api.get("/v1/chassis").json()["chassis"] == []  # nothing half-written

    chassis(api, uuid=CHASSIS_ID)
    resp = api.post("/v1/chassis", {"uuid": CHASSIS_ID})
    assert resp.status_code == 409 and CHASSIS_ID in fault(resp)
    resp = api.get("/v1/chassis/rack-7")
    assert resp.status_code == 400
    assert fault(resp) == "Expected UUID for chassis_uuid: rack-7"
    resp = api.patch(f"/v1/chassis/{CHASSIS_ID}", [{"op": "replace", "path": "/uuid", "value": 1}])
    assert resp.status_code == 400
    resp = api.patch(
        f"/v1/chassis/{CHASSIS_ID}",
        [{"op": "replace", "path": "/description", "value": "y" * 256}],
    )
    assert resp.status_code == 400 and "description" in fault(resp)
    missing = str(uuid.uuid4())
    resp = api.patch(f"/v1/chassis/{missing}", [{"op": "add", "path": "/extra/a", "value": 1}])
    assert resp.status_code == 404 and fault(resp) == f"Chassis {missing} could not be found."
    assert api.delete(f"/v1/chassis/{missing}").status_code == 404


def test_a_node_names_an_existing_chassis(api: Api) -> None:
    missing = str(uuid.uuid4())
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "n", "chassis_uuid": missing})
    assert resp.status_code == 400, resp.text
    assert fault(resp) == f"Chassis {missing} could not be found."
    assert api.get("/v1/nodes").json()["nodes"] == []  # nothing half-written

    chassis(api, uuid=CHASSIS_ID)
    node = api.node(name="n", chassis_uuid=CHASSIS_ID)
    assert node["chassis_uuid"] == CHASSIS_ID
    other = api.node(name="m")
    resp = api.patch(
        f"/v1/nodes/{other['uuid']}", [{"op": "add", "path": "/chassis_uuid", "value": missing}]
    )
    assert resp.status_code == 400 and fault(resp) == f"Chassis {missing} could not be found."
    assert api.get(f"/v1/nodes/{other['uuid']}").json()["chassis_uuid"] is None
    resp = api.patch(
        f"/v1/nodes/{other['uuid']}", [{"op": "add", "path": "/chassis_uuid", "value": CHASSIS_ID}]
    )
    assert resp.status_code == 200 and resp.json()["chassis_uuid"] == CHASSIS_ID


def test_a_node_leaves_its_chassis_from_1_25(api: Api) -> None:
    chassis(api, uuid=CHASSIS_ID)
    node = api.node(name="n", chassis_uuid=CHASSIS_ID)
    leave = [{"op": "remove", "path": "/chassis_uuid"}]
    resp = api.patch(f"/v1/nodes/{node['uuid']}", leave, version="1.24")
    assert resp.status_code == 406, resp.text
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["chassis_uuid"] == CHASSIS_ID
    resp = api.patch(f"/v1/nodes/{node['uuid']}", leave, version="1.25")
    assert resp.status_code == 200 and resp.json()["chassis_uuid"] is None


def test_a_chassis_with_nodes_is_not_deleted(api: Api) -> None:
    chassis(api, uuid=CHASSIS_ID)
    node = api.node(name="n", chassis_uuid=CHASSIS_ID)
    resp = api.delete(f"/v1/chassis/{CHASSIS_ID}")
    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        f"Cannot complete the requested action because chassis {CHASSIS_ID} contains nodes."
    )
    assert api.get(f"/v1/chassis/{CHASSIS_ID}").status_code == 200
    api.patch(f"/v1/nodes/{node['uuid']}", [{"op": "remove", "path": "/chassis_uuid"}])
    assert api.delete(f"/v1/chassis/{CHASSIS_ID}").status_code == 204


def test_the_nodes_of_a_chassis(api: Api) -> None:
    chassis(api, uuid=CHASSIS_ID)
    api.node(name="in", chassis_uuid=CHASSIS_ID)
    api.node(name="out")
    listed = api.get(f"/v1/chassis/{CHASSIS_ID}/nodes").json()["nodes"]
    assert [n["name"] for n in listed] == ["in"]
    (detailed,) = api.get(f"/v1/chassis/{CHASSIS_ID}/nodes/detail").json()["nodes"]
    assert detailed["chassis_uuid"] == CHASSIS_ID and "driver_info" in detailed
    assert api.get(f"/v1/nodes?chassis_uuid={CHASSIS_ID}").json()["nodes"] == listed
    empty = chassis(api)["uuid"]
    assert api.get(f"/v1/chassis/{empty}/nodes").json()["nodes"] == []
    assert api.get(f"/v1/nodes?chassis_uuid={empty}").json()["nodes"] == []
    missing = str(uuid.uuid4())
    resp = api.get(f"/v1/chassis/{missing}/nodes")
    assert resp.status_code == 404 and fault(resp) == f"Chassis {missing} could not be found."
    assert api.get("/v1/chassis/rack-7/nodes").status_code == 400


def test_links_and_nodes_are_taken_in_fields_as_ironic_takes_them(api: Api) -> None:
    chassis(api, uuid=CHASSIS_ID)
    shown = api.get(f"/v1/chassis/{CHASSIS_ID}?fields=uuid,nodes")
    assert shown.status_code == 200, shown.text
    assert set(shown.json()) == {"uuid", "nodes", "links"}
    assert shown.json()["nodes"][0][0]["href"].endswith(f"/v1/chassis/{CHASSIS_ID}/nodes")
    (listed,) = api.get("/v1/chassis?fields=links").json()["chassis"]
    assert set(listed) == {"links"}
    resp = api.patch(f"/v1/chassis/{CHASSIS_ID}", [{"op": "add", "path": "/nodes", "value": []}])
    assert resp.status_code == 400 and "nodes" in fault(resp)
