"""/v1/allocations through HTTP, as Ironic 39 serves them: a node reserved by resource class,
traits and candidates (answered ``active`` or ``error`` at once), a deployed node's
allocation backfilled, a node's allocation, and the gates of 1.52, 1.57, 1.58 and 1.60."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.test_lifecycle import provision
from tests.conftest import LATEST, Api, fault, routing_error
from tests.support.server import MetalwireServer

RC = "baremetal"


@pytest.fixture
def database() -> str:
    """Nothing here depends on the database (the race is in tests/db): SQLite alone."""
    return "sqlite"


def available(api: Api, name: str, **fields: Any) -> dict[str, Any]:
    node = api.node(name=name, resource_class=RC, **fields)
    assert provision(api, "manage", name).status_code == 202
    assert provision(api, "provide", name).status_code == 202
    return node


def allocate(api: Api, body: dict[str, Any], version: str | None = None) -> dict[str, Any]:
    resp = api.post("/v1/allocations", body, version=version)
    assert resp.status_code == 201, resp.text
    return dict(resp.json())


def test_an_allocation_reserves_a_matching_node_and_is_active_at_once(api: Api) -> None:
    available(api, "plain")
    wanted = available(api, "gpu")
    api.put("/v1/nodes/gpu/traits", {"traits": ["CUSTOM_GPU"]})
    resp = api.post(
        "/v1/allocations", {"name": "a1", "resource_class": RC, "traits": ["CUSTOM_GPU"]}
    )
    assert resp.status_code == 201, resp.text
    created = resp.json()
    assert resp.headers["Location"].endswith(f"/v1/allocations/{created['uuid']}")
    assert (created["state"], created["node_uuid"], created["last_error"]) == (
        "active",
        wanted["uuid"],
        None,
    )
    assert created["traits"] == ["CUSTOM_GPU"] and created["candidate_nodes"] == []
    assert created["owner"] is None and created["extra"] == {}
    node = api.get("/v1/nodes/gpu").json()
    assert node["instance_uuid"] == created["uuid"]
    assert node["allocation_uuid"] == created["uuid"]
    assert node["instance_info"]["traits"] == ["CUSTOM_GPU"]

    shown = api.get("/v1/allocations/a1").json()
    assert shown == api.get(f"/v1/allocations/{created['uuid']}").json()
    assert shown["node_uuid"] == wanted["uuid"]
    (listed,) = api.get("/v1/allocations").json()["allocations"]
    assert set(listed) == set(created)
    assert api.get("/v1/nodes/gpu/allocation").json()["uuid"] == created["uuid"]
    by_node = api.get("/v1/allocations?node=gpu").json()["allocations"]
    assert [a["uuid"] for a in by_node] == [created["uuid"]]
    assert api.get("/v1/allocations?state=error").json()["allocations"] == []
    assert set(api.get("/v1/allocations/a1?fields=uuid,state").json()) == {
        "uuid",
        "state",
        "links",
    }


def test_candidate_nodes_by_name_are_stored_as_uuids_and_the_only_ones_tried(api: Api) -> None:
    available(api, "first")
    second = available(api, "second")
    created = allocate(api, {"resource_class": RC, "candidate_nodes": ["second"]})
    assert created["candidate_nodes"] == [second["uuid"]]
    assert created["node_uuid"] == second["uuid"]


def test_an_allocation_named_as_a_node_takes_that_node_first(api: Api) -> None:
    for name in ("n1", "n2", "n3"):
        available(api, name)
    assert (
        allocate(api, {"name": "n3", "resource_class": RC})["node_uuid"]
        == (api.get("/v1/nodes/n3").json()["uuid"])
    )


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"resource_class": "other"}, "no available nodes match the resource class other"),
        (
            {"resource_class": RC, "candidate_nodes": ["busy"]},
            f"none of the requested nodes are available and match the resource class {RC}",
        ),
        (
            {"resource_class": RC, "traits": ["CUSTOM_MISSING"]},
            "no suitable nodes have the requested traits CUSTOM_MISSING",
        ),
    ],
)
def test_no_fitting_node_leaves_the_allocation_in_error_with_ironics_last_error(
    api: Api, body: dict[str, Any], error: str
) -> None:
    available(api, "free")
    api.node(name="busy", resource_class=RC)  # enroll: not available
    created = allocate(api, body)
    assert created["state"] == "error" and created["node_uuid"] is None
    assert created["last_error"] == f"Failed to process allocation {created['uuid']}: {error}."
    assert api.get("/v1/nodes/free").json()["instance_uuid"] is None


def test_a_node_in_maintenance_or_with_an_instance_is_not_taken(api: Api) -> None:
    available(api, "kept", maintenance=True)
    available(api, "used", instance_uuid="6b1b0a8e-7b6e-4bb2-9a55-1d1d2b1b7e11")
    assert allocate(api, {"resource_class": RC})["state"] == "error"


def test_delete_releases_the_node(api: Api) -> None:
    available(api, "free")
    created = allocate(api, {"resource_class": RC})
    assert api.delete(f"/v1/allocations/{created['uuid']}").status_code == 204
    node = api.get("/v1/nodes/free").json()
    assert (node["instance_uuid"], node["allocation_uuid"]) == (None, None)
    assert api.get(f"/v1/allocations/{created['uuid']}").status_code == 404
    # and the node can be allocated again, here through the node's own path
    again = allocate(api, {"resource_class": RC})
    assert again["state"] == "active"
    assert api.delete("/v1/nodes/free/allocation").status_code == 204
    assert api.get("/v1/nodes/free").json()["instance_uuid"] is None
    resp = api.get("/v1/nodes/free/allocation")
    assert resp.status_code == 404
    assert fault(resp) == "Allocation for node free was not found"


def test_removing_the_nodes_instance_deletes_its_allocation_only_where_ironic_allows(
    api: Api,
) -> None:
    available(api, "free")
    created = allocate(api, {"resource_class": RC})
    remove = [{"op": "remove", "path": "/instance_uuid"}]
    resp = api.patch("/v1/nodes/free", remove)
    assert resp.status_code == 409
    assert "with an allocation can not have instance_uuid removed" in fault(resp)
    api.patch("/v1/nodes/free", [{"op": "replace", "path": "/maintenance", "value": True}])
    assert api.patch("/v1/nodes/free", remove).status_code == 200
    assert api.get(f"/v1/allocations/{created['uuid']}").status_code == 404
    assert api.get("/v1/nodes/free").json()["allocation_uuid"] is None


def test_a_deleted_node_leaves_its_allocation_without_a_node(api: Api) -> None:
    available(api, "free")
    created = allocate(api, {"resource_class": RC})
    api.patch("/v1/nodes/free", [{"op": "replace", "path": "/maintenance", "value": True}])
    assert api.delete("/v1/nodes/free").status_code == 204
    shown = api.get(f"/v1/allocations/{created['uuid']}").json()
    assert (shown["state"], shown["node_uuid"]) == ("active", None)


def test_an_active_nodes_allocation_is_not_deleted_outside_maintenance(api: Api) -> None:
    available(api, "free")
    created = allocate(api, {"resource_class": RC})
    assert provision(api, "active", "free").status_code == 202
    resp = api.delete(f"/v1/allocations/{created['uuid']}")
    assert resp.status_code == 409
    assert fault(resp) == (
        f"Cannot remove allocation {created['uuid']} for node {created['node_uuid']}, because "
        "the node is active (and maintenance mode is off)"
    )
    # undeploying the node ends its allocation, as Ironic's tear-down does
    assert provision(api, "deleted", "free").status_code == 202
    assert api.get(f"/v1/allocations/{created['uuid']}").status_code == 404


def test_patch_changes_name_and_extra_only(api: Api) -> None:
    created = allocate(api, {"resource_class": "none", "name": "before"})
    resp = api.patch(
        "/v1/allocations/before",
        [
            {"op": "replace", "path": "/name", "value": "after"},
            {"op": "add", "path": "/extra/k", "value": "v"},
        ],
    )
    assert resp.status_code == 200, resp.text
    assert (resp.json()["name"], resp.json()["extra"]) == ("after", {"k": "v"})
    assert resp.json()["updated_at"]
    resp = api.patch(
        f"/v1/allocations/{created['uuid']}",
        [{"op": "replace", "path": "/resource_class", "value": "x"}],
    )
    assert resp.status_code == 400
    resp = api.patch(
        "/v1/allocations/after", [{"op": "replace", "path": "/name", "value": "bad name"}]
    )
    assert resp.status_code == 400
    assert fault(resp) == "Cannot update allocation with invalid name 'bad name'"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "The resource_class field is mandatory when not backfilling"),
        ({"resource_class": "x" * 81}, "resource_class"),
        ({"resource_class": RC, "name": "no spaces"}, "invalid name 'no spaces'"),
        ({"resource_class": RC, "traits": ["lower"]}, "Invalid trait 'lower'"),
        ({"resource_class": RC, "candidate_nodes": ["ghost"]}, "Nodes cannot be found: ghost"),
        ({"resource_class": RC, "uuid": "not-a-uuid"}, "uuid"),
        ({"resource_class": RC, "bogus": 1}, "bogus"),
        ({"resource_class": RC, "node_uuid": "x"}, "node_uuid"),
    ],
)
def test_bad_input_is_a_400_naming_it_and_stores_nothing(
    api: Api, body: dict[str, Any], message: str
) -> None:
    resp = api.post("/v1/allocations", body)
    assert resp.status_code == 400, resp.text
    assert message in fault(resp)
    assert api.get("/v1/allocations").json()["allocations"] == []


def test_a_name_or_uuid_taken_is_a_409(api: Api) -> None:
    created = allocate(api, {"resource_class": RC, "name": "once"})
    resp = api.post("/v1/allocations", {"resource_class": RC, "name": "once"})
    assert resp.status_code == 409
    assert fault(resp) == "An allocation with name once already exists."
    resp = api.post("/v1/allocations", {"resource_class": RC, "uuid": created["uuid"]})
    assert resp.status_code == 409
    assert fault(resp) == f"An allocation with UUID {created['uuid']} already exists."


def test_backfilling_records_the_allocation_of_a_deployed_node(api: Api) -> None:
    node = available(api, "deployed")
    assert provision(api, "active", "deployed").status_code == 202
    instance = "0c4c44a6-8a61-4d5b-9d73-53f6c0a5f7d3"
    api.patch("/v1/nodes/deployed", [{"op": "add", "path": "/instance_uuid", "value": instance}])
    created = allocate(api, {"node": "deployed"})
    # the node's instance UUID and resource class, as Ironic backfills them
    assert (created["uuid"], created["resource_class"]) == (instance, RC)
    assert (created["state"], created["node_uuid"]) == ("active", node["uuid"])
    assert api.get("/v1/nodes/deployed").json()["allocation_uuid"] == instance


def test_backfilling_a_node_that_does_not_fit_is_refused_and_kept_as_failed(api: Api) -> None:
    node = available(api, "idle")
    resp = api.post("/v1/allocations", {"node": "idle", "name": "late"})
    assert resp.status_code == 400
    expected = (
        f"Cannot backfill an allocation for node {node['uuid']}: Node must be in the "
        '"active" state, but the current state is "available"'
    )
    assert expected in fault(resp)
    kept = api.get("/v1/allocations/late").json()
    assert kept["state"] == "error" and expected in kept["last_error"]
    resp = api.post("/v1/allocations", {"node": "ghost"})
    assert (resp.status_code, fault(resp)) == (400, "Node ghost could not be found.")


def test_version_gates(api: Api) -> None:
    for method, path in (("get", ""), ("post", ""), ("delete", "/gone")):
        resp = getattr(api.client, method)(f"/v1/allocations{path}", headers=api.headers("1.51"))
        assert resp.status_code == (404 if method == "get" else 405), (method, resp.text)
        # Ironic's handlers' refusal, in an object's error body (not the router's)
        assert fault(resp) == "The API version does not allow allocations"
    assert routing_error(api.get("/v1/nodes/x/allocation", version="1.51"))["code"] == 404
    assert "allocations" not in api.get("/v1/", version="1.51").json()
    assert "allocations" in api.get("/v1/", version="1.52").json()
    api.node(name="old")

    created = allocate(api, {"resource_class": RC, "name": "gated"}, version="1.52")
    assert "owner" not in created
    resp = api.patch(
        "/v1/allocations/gated", [{"op": "add", "path": "/extra/a", "value": 1}], "1.56"
    )
    assert (resp.status_code, fault(resp)) == (
        405,
        "The API version does not allow updating allocations",
    )
    resp = api.post("/v1/allocations", {"node": "old"}, version="1.57")
    assert (resp.status_code, fault(resp)) == (
        400,
        "Cannot set node when creating an allocation in this API version",
    )
    resp = api.post("/v1/allocations", {"resource_class": RC, "owner": "p"}, version="1.59")
    assert resp.status_code == 406
    assert api.get("/v1/allocations?owner=p", version="1.59").status_code == 406
    assert api.get("/v1/allocations/gated?fields=owner", version="1.59").status_code == 406
    owned = allocate(api, {"resource_class": RC, "owner": "p"}, version="1.60")
    assert owned["owner"] == "p"
    assert [a["uuid"] for a in api.get("/v1/allocations?owner=p").json()["allocations"]] == [
        owned["uuid"]
    ]


def test_the_policy_scopes_allocations_to_their_owner(personas: MetalwireServer) -> None:
    """``tenant`` is a member of project-a, ``viewer`` a system reader, ``boss`` a system
    administrator (tests/auth/test_http_basic.py)."""

    def call(user: str, method: str, path: str, **kw: Any) -> httpx.Response:
        headers = {"X-OpenStack-Ironic-API-Version": LATEST}
        return httpx.request(
            method, personas.url + path, auth=(user, f"{user}-pw"), headers=headers, **kw
        )

    own = call("tenant", "POST", "/v1/allocations", json={"resource_class": "none"})
    assert own.status_code == 201, own.text
    assert own.json()["owner"] == "project-a"  # a project's allocation is its own
    refused = call(
        "tenant", "POST", "/v1/allocations", json={"resource_class": "x", "owner": "project-b"}
    )
    assert refused.status_code == 403
    assert "baremetal:allocation:create_restricted is required" in fault(refused)
    other = call(
        "boss", "POST", "/v1/allocations", json={"resource_class": "x", "owner": "project-b"}
    )
    assert other.status_code == 201, other.text
    mine, theirs = own.json()["uuid"], other.json()["uuid"]

    listed = call("tenant", "GET", "/v1/allocations").json()["allocations"]
    assert [a["uuid"] for a in listed] == [mine]
    assert call("tenant", "GET", "/v1/allocations?owner=project-b").status_code == 403
    everything = call("viewer", "GET", "/v1/allocations").json()["allocations"]
    assert {a["uuid"] for a in everything} >= {mine, theirs}
    for method in ("GET", "DELETE"):  # another project's allocation does not exist for it
        assert call("tenant", method, f"/v1/allocations/{theirs}").status_code == 404
    resp = call("viewer", "DELETE", f"/v1/allocations/{theirs}")
    assert resp.status_code == 403 and "baremetal:allocation:delete" in fault(resp)
    assert call("tenant", "DELETE", f"/v1/allocations/{mine}").status_code == 204


def test_a_node_held_by_an_allocation_with_an_owner_keeps_its_owner(api: Api) -> None:
    available(api, "owned", owner="p")
    allocate(api, {"resource_class": RC, "owner": "p"})
    resp = api.patch("/v1/nodes/owned", [{"op": "replace", "path": "/owner", "value": "q"}])
    assert resp.status_code == 409
    assert fault(resp) == (
        f'Cannot update owner of node "{api.get("/v1/nodes/owned").json()["uuid"]}" while it '
        "is allocated to an allocation with an  owner."
    )
    assert api.get("/v1/nodes/owned").json()["owner"] == "p"
