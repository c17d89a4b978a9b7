"""How a path names what it asks for, as Ironic's router takes it (``api/paths.py`` and the
pipeline's ``.json`` suffix): the suffix before 1.91, the action-first shapes, malformed
idents (400), and a node's sub-resources below their version (404 whatever the method)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import Api, fault, routing_error

EXTRA = [{"op": "add", "path": "/extra/a", "value": "b"}]
BAD = "malformed:uuid"


@pytest.fixture
def database() -> str:
    """Paths are read before any database is: SQLite alone is enough here."""
    return "sqlite"


def _version_header(resp: Any) -> str | None:
    return resp.headers.get("X-OpenStack-Ironic-API-Version")


# -- the .json suffix ---------------------------------------------------------------------


def test_a_json_suffix_is_stripped_before_1_91_when_the_version_is_named(api: Api) -> None:
    node = api.node(name="plain")
    uuid = node["uuid"]
    assert api.get(f"/v1/nodes/{uuid}.json", version="1.90").json()["uuid"] == uuid
    assert api.get(f"/v1/nodes/{uuid}.json/", version="1.90").json()["uuid"] == uuid
    assert api.get("/v1/nodes.json", version="1.90").json()["nodes"][0]["uuid"] == uuid
    port = api.port(node, "52:54:00:00:00:01")
    listed = api.get(f"/v1/nodes/{uuid}/ports.json", version="1.90").json()["ports"]
    assert [p["uuid"] for p in listed] == [port["uuid"]]
    assert api.get(f"/v1/ports/{port['uuid']}.json", version="1.90").status_code == 200
    # from 1.91 the suffix is part of the name, as when no version header says otherwise
    assert api.get(f"/v1/nodes/{uuid}.json", version="1.91").status_code == 404
    bare = api.client.get(f"/v1/nodes/{uuid}.json")  # no version header: not stripped
    assert bare.status_code == 404
    assert uuid + ".json" in fault(bare)


def test_a_name_ending_in_json_is_found_with_its_suffix(api: Api) -> None:
    node = api.node(name="rack1.json")
    shown = api.get("/v1/nodes/rack1.json", version="1.90")
    assert shown.status_code == 200 and shown.json()["uuid"] == node["uuid"]
    patched = api.patch("/v1/nodes/rack1.json", EXTRA, version="1.90")
    assert patched.status_code == 200 and patched.json()["extra"] == {"a": "b"}
    assert api.delete("/v1/nodes/rack1.json", version="1.90").status_code == 204
    assert api.get(f"/v1/nodes/{node['uuid']}").status_code == 404


def test_a_deploy_template_and_an_allocation_are_found_and_deleted_with_a_suffix(
    api: Api,
) -> None:
    step = {"interface": "bios", "step": "apply_configuration", "args": {}, "priority": 10}
    made = api.post("/v1/deploy_templates", {"name": "CUSTOM_ONE", "steps": [step]})
    assert made.status_code == 201, made.text
    uuid = made.json()["uuid"]
    assert api.get(f"/v1/deploy_templates/{uuid}.json", version="1.90").status_code == 200
    deleted = api.delete(f"/v1/deploy_templates/{uuid}.json", version="1.90")
    assert deleted.status_code == 204, deleted.text
    api.node(name="spare", resource_class="small")
    made = api.post("/v1/allocations", {"name": "a1.json", "resource_class": "small"})
    assert made.status_code == 201, made.text
    assert api.get("/v1/allocations/a1.json", version="1.90").status_code == 200
    assert api.delete("/v1/allocations/a1.json", version="1.90").status_code == 204
    assert api.get("/v1/allocations").json()["allocations"] == []


# -- action-first paths -------------------------------------------------------------------


def test_a_node_named_after_its_action_is_answered_as_the_node_first(api: Api) -> None:
    uuid = api.node(name="last")["uuid"]
    states = api.get(f"/v1/nodes/states/{uuid}")
    assert states.status_code == 200 and states.json()["provision_state"] == "enroll"
    console = api.get("/v1/nodes/states/console/last")
    assert console.json() == {"console_enabled": False, "console_info": None}
    assert api.get(f"/v1/nodes/management/boot_device/{uuid}").status_code == 200
    assert api.put(f"/v1/nodes/maintenance/{uuid}", {"reason": "cabling"}).status_code == 202
    shown = api.get(f"/v1/nodes/{uuid}").json()
    assert (shown["maintenance"], shown["maintenance_reason"]) == (True, "cabling")
    assert api.delete(f"/v1/nodes/maintenance/{uuid}").status_code == 202
    assert api.get(f"/v1/nodes/{uuid}").json()["maintenance"] is False


# -- malformed idents ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", f"/v1/nodes/{BAD}"),
        ("PATCH", f"/v1/nodes/{BAD}"),
        ("DELETE", f"/v1/nodes/{BAD}"),
        ("GET", f"/v1/nodes/{BAD}/ports"),
        ("GET", f"/v1/nodes/{BAD}/vifs"),
        ("POST", f"/v1/nodes/{BAD}/vifs"),
        ("GET", "/v1/nodes/a%20b"),
    ],
)
def test_a_malformed_node_is_refused_by_the_router(api: Api, method: str, path: str) -> None:
    resp = api.client.request(
        method, path, headers=api.headers(), json=EXTRA if method == "PATCH" else None
    )
    assert resp.status_code == 400, resp.text
    ident = path.split("/")[3].replace("%20", " ")
    assert routing_error(resp)["description"] == f"Expected UUID or name for node: {ident}"
    assert _version_header(resp) is None  # the router's answer carries none


def test_a_malformed_node_below_its_version_is_a_400_first(api: Api) -> None:
    resp = api.get(f"/v1/nodes/{BAD}/vifs", version="1.10")
    assert resp.status_code == 400
    assert routing_error(resp)["description"] == f"Expected UUID or name for node: {BAD}"


@pytest.mark.parametrize(
    "below", ["states", "states/console", "management/boot_device", "vendor_passthru/methods"]
)
def test_a_malformed_node_below_its_handled_paths_is_refused_by_the_handler(
    api: Api, below: str
) -> None:
    resp = api.get(f"/v1/nodes/{BAD}/{below}")
    assert resp.status_code == 400, resp.text
    assert fault(resp) == f"Expected UUID or name for node_ident: {BAD}"
    assert _version_header(resp) == api.version


@pytest.mark.parametrize("method", ["GET", "PATCH", "DELETE"])
def test_a_malformed_port_is_a_400_naming_it(api: Api, method: str) -> None:
    node = api.node(name="holder")
    for path in ("/v1/ports/52:54:00:00:00:02", f"/v1/nodes/{node['uuid']}/ports/{BAD}"):
        resp = api.client.request(
            method, path, headers=api.headers(), json=EXTRA if method == "PATCH" else None
        )
        assert resp.status_code == 400, (path, resp.text)
        assert fault(resp) == f"Expected UUID or name for port_ident: {path.rsplit('/', 1)[1]}"


def test_a_malformed_portgroup_is_refused_by_the_router(api: Api) -> None:
    node = api.node(name="bonded")
    for path in (f"/v1/portgroups/{BAD}", f"/v1/portgroups/{BAD}/ports"):
        resp = api.get(path)
        assert resp.status_code == 400, resp.text
        assert routing_error(resp)["description"] == f"Expected UUID or name for portgroup: {BAD}"
    resp = api.get(f"/v1/nodes/{node['uuid']}/portgroups/{BAD}")
    assert routing_error(resp)["description"] == f"Expected UUID or name for portgroup: {BAD}"


def test_list_filters_naming_a_malformed_node_or_portgroup_are_400s(api: Api) -> None:
    node = api.get(f"/v1/ports?node={BAD}")
    assert node.status_code == 400 and fault(node) == f"Expected UUID or name for node: {BAD}"
    group = api.get(f"/v1/ports?portgroup={BAD}")
    assert fault(group) == f"Expected UUID or name for portgroup: {BAD}"
    groups = api.get(f"/v1/portgroups?node={BAD}")
    assert groups.status_code == 400 and f"'{BAD}' is not a 'uuid'" in fault(groups)


def test_well_formed_names_that_name_nothing_are_still_404s(api: Api) -> None:
    for path in ("/v1/nodes/no-such~node", "/v1/ports/no-such-port", "/v1/portgroups/none_here"):
        resp = api.get(path)
        assert resp.status_code == 404, (path, resp.text)


# -- methods ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "below"),
    [("PUT", "states/target_raid_config"), ("DELETE", "states/foo"), ("GET", "management/x")],
)
def test_a_path_below_states_or_management_that_nothing_answers_is_a_405(
    api: Api, method: str, below: str
) -> None:
    uuid = api.node()["uuid"]
    resp = api.client.request(method, f"/v1/nodes/{uuid}/{below}", headers=api.headers())
    assert resp.status_code == 405, resp.text
    word = below.split("/")[1]
    assert routing_error(resp)["description"].startswith(f"There is no {word!r} below a node's")
    assert resp.headers["allow"] == ""


@pytest.mark.parametrize(
    ("below", "version"), [("vmedia", "1.79"), ("bios", "1.39"), ("history", "1.77")]
)
def test_a_sub_resource_below_its_version_is_a_404_whatever_the_method(
    api: Api, below: str, version: str
) -> None:
    uuid = api.node()["uuid"]
    resp = api.put(f"/v1/nodes/{uuid}/{below}", {}, version=version)
    assert resp.status_code == 404, resp.text
    assert "exists from" in routing_error(resp)["description"]
    at = api.put(f"/v1/nodes/{uuid}/{below}", {})  # the newest version: there, but not PUT
    assert at.status_code == 405, at.text
    assert json.loads(at.json()["error_message"])["code"] == 405
