"""/v1/volume connectors and targets through HTTP: Ironic 1.32's resources and rules."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, fault

NODE_ID = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"


@pytest.fixture
def node(api: Api) -> dict[str, Any]:
    return api.node(name="vol", uuid=NODE_ID)


def connector(api: Api, connector_id: str = "iqn.2017-05.org.openstack:1", **extra: Any) -> Any:
    body = {"node_uuid": NODE_ID, "type": "iqn", "connector_id": connector_id, **extra}
    return api.post("/v1/volume/connectors", body)


def target(api: Api, boot_index: int = 0, **extra: Any) -> Any:
    body = {
        "node_uuid": NODE_ID,
        "volume_type": "iscsi",
        "boot_index": boot_index,
        "volume_id": f"vol-{boot_index}",
        "properties": {"target_lun": 0},
        **extra,
    }
    return api.post("/v1/volume/targets", body)


def test_volume_root_links_both_collections(api: Api) -> None:
    body = api.get("/v1/volume").json()
    assert body["connectors"][0]["href"].endswith("/v1/volume/connectors")
    assert body["targets"][0]["href"].endswith("/v1/volume/targets")
    assert api.get("/v1/volume", version="1.31").status_code == 404
    assert api.get("/v1/volume/targets", version="1.31").status_code == 404


def _path(link: dict[str, str]) -> str:
    return link["href"].removeprefix("http://testserver")


def test_a_node_links_its_volume_resources_from_1_32(api: Api, node: dict[str, Any]) -> None:
    assert connector(api).status_code == 201
    url = f"/v1/nodes/{NODE_ID}"
    shown = api.get(url, version="1.32").json()
    assert shown["volume"] == [
        {"href": f"http://testserver/v1/nodes/{NODE_ID}/volume", "rel": "self"},
        {"href": f"http://testserver/nodes/{NODE_ID}/volume", "rel": "bookmark"},
    ]
    assert "volume" not in api.get(url, version="1.31").json()
    assert "volume" not in api.get(f"{url}?fields=uuid,name", version="1.32").json()
    (listed,) = api.get("/v1/nodes/detail", version="1.32").json()["nodes"]
    assert listed["volume"] == shown["volume"]
    root = api.get(_path(shown["volume"][0]), version="1.32")
    assert root.status_code == 200, root.text
    assert _path(root.json()["links"][0]) == f"/v1/nodes/{NODE_ID}/volume/"
    connectors = api.get(_path(root.json()["connectors"][0])).json()["connectors"]
    assert [c["connector_id"] for c in connectors] == ["iqn.2017-05.org.openstack:1"]
    assert _path(root.json()["targets"][0]) == f"/v1/nodes/{NODE_ID}/volume/targets"


def test_the_volume_root_of_a_node_that_does_not_exist_is_404(api: Api) -> None:
    resp = api.get("/v1/nodes/nowhere/volume")
    assert resp.status_code == 404 and fault(resp) == "Node nowhere could not be found."


def test_connector_create_show_list_patch_delete(api: Api, node: dict[str, Any]) -> None:
    resp = connector(api, extra={"rack": "r1"})
    assert resp.status_code == 201, resp.text
    created = resp.json()
    assert resp.headers["Location"].endswith(f"/v1/volume/connectors/{created['uuid']}")
    assert created["node_uuid"] == NODE_ID
    assert created["extra"] == {"rack": "r1"}
    shown = api.get(f"/v1/volume/connectors/{created['uuid']}").json()
    assert shown["connector_id"] == "iqn.2017-05.org.openstack:1"
    listed = api.get(f"/v1/volume/connectors?node={NODE_ID}").json()["connectors"]
    assert [sorted(c) for c in listed] == [["connector_id", "links", "node_uuid", "type", "uuid"]]
    detail = api.get("/v1/volume/connectors?detail=True").json()["connectors"]
    assert detail[0]["extra"] == {"rack": "r1"}
    assert (
        api.get("/v1/nodes/vol/volume/connectors").json()["connectors"][0]["uuid"]
        == (created["uuid"])
    )

    url = f"/v1/volume/connectors/{created['uuid']}"
    # The node has no power state yet: Ironic changes a connector only on a node powered off.
    resp = api.patch(url, [{"op": "replace", "path": "/connector_id", "value": "iqn.x:2"}])
    assert resp.status_code == 400
    assert '"volume connector update" can not be performed' in fault(resp)
    api.put("/v1/nodes/vol/states/power", {"target": "power off"})
    resp = api.patch(url, [{"op": "replace", "path": "/connector_id", "value": "iqn.x:2"}])
    assert resp.status_code == 200, resp.text
    assert resp.json()["connector_id"] == "iqn.x:2"
    assert api.delete(url).status_code == 204
    assert api.get(url).status_code == 404
    assert f"Volume connector {created['uuid']} could not be found." == fault(api.get(url))


def test_connector_type_and_id_are_unique(api: Api, node: dict[str, Any]) -> None:
    assert connector(api).status_code == 201
    resp = connector(api)
    assert resp.status_code == 409
    assert fault(resp) == (
        "A volume connector with type iqn and connector ID iqn.2017-05.org.openstack:1 "
        "already exists."
    )
    other = api.node(name="other")
    body = {
        "node_uuid": other["uuid"],
        "type": "iqn",
        "connector_id": "iqn.2017-05.org.openstack:1",
    }
    assert api.post("/v1/volume/connectors", body).status_code == 409
    assert connector(api, "iqn.2017-05.org.openstack:2").status_code == 201


def test_connector_refusals(api: Api, node: dict[str, Any]) -> None:
    assert (
        api.post("/v1/volume/connectors", {"node_uuid": NODE_ID, "type": "iqn"}).status_code == 400
    )
    resp = api.post(
        "/v1/volume/connectors",
        {"node_uuid": "7a3b0b4c-0000-4000-8000-000000000000", "type": "ip", "connector_id": "x"},
    )
    assert resp.status_code == 400
    assert "node_uuid" in fault(resp)
    assert connector(api, bogus=1).status_code == 400
    assert api.post("/v1/volume/connectors", {"type": "ip"}, version="1.31").status_code == 404


def test_target_boot_index_unique_per_node(api: Api, node: dict[str, Any]) -> None:
    resp = target(api, 0)
    assert resp.status_code == 201, resp.text
    assert resp.json()["properties"] == {"target_lun": 0}
    resp = target(api, 0)
    assert resp.status_code == 409
    assert fault(resp) == "A volume target with boot index '0' for the same node already exists."
    other = api.node(name="other")
    assert target(api, 0, node_uuid=other["uuid"]).status_code == 201
    assert target(api, 1).status_code == 201
    assert target(api, -1).status_code == 400
    assert target(api, "one").status_code == 400  # type: ignore[arg-type]
    listed = api.get(f"/v1/volume/targets?node={NODE_ID}").json()["targets"]
    assert sorted(t["boot_index"] for t in listed) == [0, 1]
    assert sorted(listed[0]) == [
        "boot_index",
        "links",
        "node_uuid",
        "uuid",
        "volume_id",
        "volume_type",
    ]


def provided(api: Api, name: str) -> None:
    """The node made available: past the states in which its volume rows are deleted at any
    power state."""
    for verb in ("manage", "provide"):
        resp = api.put(f"/v1/nodes/{name}/states/provision", {"target": verb})
        assert resp.status_code == 202, resp.text
    assert api.get(f"/v1/nodes/{name}").json()["provision_state"] == "available"


def test_target_delete_needs_node_powered_off(api: Api, node: dict[str, Any]) -> None:
    created = target(api).json()
    provided(api, "vol")
    api.put("/v1/nodes/vol/states/power", {"target": "power on"})
    url = f"/v1/volume/targets/{created['uuid']}"
    resp = api.delete(url)
    assert resp.status_code == 400
    assert 'while it is in state "power on"' in fault(resp)
    api.put("/v1/nodes/vol/states/power", {"target": "power off"})
    assert api.delete(url).status_code == 204


@pytest.mark.parametrize("verbs", [[], ["manage"]])
def test_rows_of_a_node_not_yet_provided_are_deleted_at_any_power_state(
    api: Api, node: dict[str, Any], verbs: list[str]
) -> None:
    """As Ironic: in enroll, manageable (and adopt failed) no instance uses the volume."""
    made = [f"/v1/volume/targets/{target(api).json()['uuid']}"]
    made.append(f"/v1/volume/connectors/{connector(api).json()['uuid']}")
    for verb in verbs:
        assert api.put("/v1/nodes/vol/states/provision", {"target": verb}).status_code == 202
    api.put("/v1/nodes/vol/states/power", {"target": "power on"})
    for url in made:
        resp = api.delete(url)
        assert resp.status_code == 204, resp.text
        assert api.get(url).status_code == 404


@pytest.mark.parametrize("collection", ["connectors", "targets"])
def test_a_move_to_a_missing_node_is_a_400_naming_it(
    api: Api, node: dict[str, Any], collection: str
) -> None:
    made = connector(api) if collection == "connectors" else target(api)
    url = f"/v1/volume/{collection}/{made.json()['uuid']}"
    api.put("/v1/nodes/vol/states/power", {"target": "power off"})
    missing = "0e0e0e0e-1111-4222-8333-444444444444"
    resp = api.patch(url, [{"op": "replace", "path": "/node_uuid", "value": missing}])
    assert resp.status_code == 400, resp.text
    assert f"to node {missing}: no such node" in fault(resp)
    assert api.get(url).json()["node_uuid"] == NODE_ID


def test_volume_rows_are_removed_with_their_node(api: Api, node: dict[str, Any]) -> None:
    connector(api)
    target(api)
    assert api.delete(f"/v1/nodes/{NODE_ID}").status_code == 204
    assert api.get("/v1/volume/connectors").json() == {"connectors": []}
    assert api.get("/v1/volume/targets").json() == {"targets": []}
    api.node(name="vol", uuid=NODE_ID)
    assert connector(api).status_code == 201  # the old connector's identifier is free again


def test_storage_interface_of_the_node(api: Api, node: dict[str, Any]) -> None:
    assert api.get("/v1/nodes/vol").json()["storage_interface"] == "noop"
    resp = api.patch(
        "/v1/nodes/vol", [{"op": "replace", "path": "/storage_interface", "value": "cinder"}]
    )
    assert resp.status_code == 200, resp.text
    assert api.get("/v1/nodes/vol").json()["storage_interface"] == "cinder"


@pytest.mark.parametrize("name", ["noop", "cinder", "external", "fake"])
def test_a_storage_interface_the_hardware_type_supports_is_set(
    api: Api, node: dict[str, Any], name: str
) -> None:
    patch = [{"op": "replace", "path": "/storage_interface", "value": name}]
    assert api.patch("/v1/nodes/vol", patch).status_code == 200
    assert api.get("/v1/nodes/vol").json()["storage_interface"] == name


def test_a_storage_interface_the_hardware_type_lacks_is_refused(
    api: Api, node: dict[str, Any]
) -> None:
    """As Ironic: 400 naming the value; nothing is stored."""
    patch = [{"op": "replace", "path": "/storage_interface", "value": "ceph"}]
    resp = api.patch("/v1/nodes/vol", patch)
    assert resp.status_code == 400, resp.text
    assert "Could not find the storage interface 'ceph' (storage_interface)" in fault(resp)
    assert api.get("/v1/nodes/vol").json()["storage_interface"] == "noop"
    # fake is fake-hardware's own: an ipmi node refuses it, on create as on a driver change.
    resp = api.post("/v1/nodes", {"driver": "ipmi", "name": "bmc", "storage_interface": "fake"})
    assert resp.status_code == 400, resp.text
    assert "supported: noop, cinder, external" in fault(resp)
    assert api.get("/v1/nodes/bmc").status_code == 404
    patch = [
        {"op": "replace", "path": "/driver", "value": "ipmi"},
        {"op": "replace", "path": "/storage_interface", "value": "fake"},
    ]
    assert api.patch("/v1/nodes/vol", patch).status_code == 400
    assert api.get("/v1/nodes/vol").json()["driver"] == "fake-hardware"


def test_v1_root_links_the_volume_resources_from_1_32(api: Api) -> None:
    assert api.get("/v1/").json()["volume"][0]["href"] == "http://testserver/v1/volume/"
    assert "volume" not in api.get("/v1/", version="1.31").json()


OTHER_NODE_ID = "7f1c1c9e-5a4b-4c55-9d0e-2b7e4b0f9a11"


@pytest.mark.parametrize("collection", ["connectors", "targets"])
def test_a_move_needs_both_nodes_powered_off(
    api: Api, node: dict[str, Any], collection: str
) -> None:
    """As Ironic: the node a connector or target moves to must be powered off, and (ours)
    the node it leaves too; a refused move leaves the row where it was."""
    api.node(name="vol2", uuid=OTHER_NODE_ID)
    created = (connector(api) if collection == "connectors" else target(api)).json()
    url = f"/v1/volume/{collection}/{created['uuid']}"
    noun = f"volume {collection.removesuffix('s')}"
    move = [{"op": "replace", "path": "/node_uuid", "value": OTHER_NODE_ID}]
    api.put("/v1/nodes/vol/states/power", {"target": "power off"})
    api.put("/v1/nodes/vol2/states/power", {"target": "power on"})

    resp = api.patch(url, move)
    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        f'The requested action "{noun} update" can not be performed on node '
        f'"{OTHER_NODE_ID}" while it is in state "power on".'
    )
    assert api.get(url).json()["node_uuid"] == NODE_ID

    api.put("/v1/nodes/vol/states/power", {"target": "power on"})
    api.put("/v1/nodes/vol2/states/power", {"target": "power off"})
    resp = api.patch(url, move)
    assert resp.status_code == 400, resp.text
    assert f'on node "{NODE_ID}" while it is in state "power on"' in fault(resp)
    assert api.get(url).json()["node_uuid"] == NODE_ID

    api.put("/v1/nodes/vol/states/power", {"target": "power off"})
    resp = api.patch(url, move)
    assert resp.status_code == 200, resp.text
    assert resp.json()["node_uuid"] == OTHER_NODE_ID
    for name in ("vol", "vol2"):
        events = [e["event"] for e in api.get(f"/v1/nodes/{name}/history").json()["history"]]
        assert f"{noun} {created['uuid']} updated" in events, (name, events)


def test_a_delete_follows_a_row_moved_to_another_node_before_the_lock(
    api: Api, node: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connector moved to a powered-on node between the delete's read and its lock is
    checked against that node, not the one it was read on."""
    api.node(name="vol2", uuid=OTHER_NODE_ID)
    created = connector(api).json()
    provided(api, "vol2")
    api.put("/v1/nodes/vol/states/power", {"target": "power off"})
    api.put("/v1/nodes/vol2/states/power", {"target": "power on"})
    services = api.client.app.state.services  # type: ignore[attr-defined]
    conductor = services.rpcapi.conductor
    locking = conductor.exclusive_task
    moved: list[bool] = []

    def move_first(ident: Any, *args: Any, **kwargs: Any) -> Any:
        if not moved:  # another request moves the row while this one waits for the lock
            with services.db.writing() as work:
                other = work.nodes.get(OTHER_NODE_ID).id
                work.volume_connectors.update(created["uuid"], {"node_id": other})
            moved.append(True)
        return locking(ident, *args, **kwargs)

    monkeypatch.setattr(conductor, "exclusive_task", move_first)
    resp = api.delete(f"/v1/volume/connectors/{created['uuid']}")

    assert resp.status_code == 400, resp.text
    assert f'on node "{OTHER_NODE_ID}" while it is in state "power on"' in fault(resp)
    assert api.get(f"/v1/volume/connectors/{created['uuid']}").status_code == 200


@pytest.mark.parametrize("collection", ["connectors", "targets"])
def test_a_connector_or_target_named_by_anything_but_a_uuid_is_400(
    api: Api, collection: str
) -> None:
    """As Ironic: /detail is no list of these (clients ask ?detail=True), and a name is no
    ident of theirs."""
    kind = collection.removesuffix("s")
    for path, method, body in (
        ("detail", "GET", None),
        ("c-1", "PATCH", []),
        ("c-1", "DELETE", None),
    ):
        url = f"/v1/volume/{collection}/{path}"
        resp = api.client.request(method, url, json=body, headers=api.headers())
        assert resp.status_code == 400, resp.text
        assert fault(resp) == f"Expected UUID for {kind}_uuid: {path}"
    missing = "5c2b3a5e-0d8e-4f3e-9a47-3a1f1c9b2d10"
    assert api.get(f"/v1/volume/{collection}/{missing.upper()}").status_code == 404
    assert api.get(f"/v1/volume/{collection}/detail", version="1.31").status_code == 404
