"""``/v1/runbooks`` (1.92) and its traits (1.112) through HTTP, as Ironic 39 answers them."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.conftest import Api, fault, routing_error

RUNBOOK_ID = "5b0e7c2d-8f14-4a3b-9c6d-1e2f3a4b5c6d"
RAID_STEP = {"interface": "raid", "step": "delete_configuration", "args": {}, "order": 1}
BIOS_STEP = {
    "interface": "bios",
    "step": "apply_configuration",
    "args": {"settings": [{"name": "LogicalProc", "value": "Enabled"}]},
    "order": 2,
}

sqlite_only = pytest.mark.parametrize("database", ["sqlite"])


def runbook(api: Api, name: str = "CUSTOM_RAID_OFF", **fields: Any) -> dict[str, Any]:
    resp = api.post("/v1/runbooks", {"name": name, "steps": [RAID_STEP], **fields})
    assert resp.status_code == 201, resp.text
    return dict(resp.json())


@sqlite_only  # the table's round trip on each database: tests/db/test_runbooks_table.py
def test_create_show_list_patch_delete(api: Api) -> None:
    resp = api.post(
        "/v1/runbooks",
        {
            "uuid": RUNBOOK_ID,
            "name": "firmware-update",
            "description": "the BIOS as the fleet wants it",
            "steps": [{**BIOS_STEP, "order": "2"}, {"interface": "raid", "step": "x", "order": 1}],
            "extra": {"a": 1},
        },
    )
    assert resp.status_code == 201, resp.text
    assert resp.headers["Location"].endswith(f"/v1/runbooks/{RUNBOOK_ID}")
    created = resp.json()
    assert set(created) == {
        "uuid",
        "name",
        "description",
        "steps",
        "traits",
        "disable_ramdisk",
        "public",
        "owner",
        "extra",
        "created_at",
        "updated_at",
        "links",
    }
    assert created["steps"] == [
        {**BIOS_STEP, "args": {"settings": [{"name": "LogicalProc", "value": "Enabled"}]}},
        {"interface": "raid", "step": "x", "args": {}, "order": 1},
    ]
    assert (created["traits"], created["public"], created["owner"]) == ([], False, None)
    assert (created["disable_ramdisk"], created["extra"], created["updated_at"]) == (
        False,
        {"a": 1},
        None,
    )
    assert created["links"][0] == {
        "href": f"http://testserver/v1/runbooks/{RUNBOOK_ID}",
        "rel": "self",
    }
    created.pop("created_at")
    for ident in (RUNBOOK_ID, "firmware-update"):
        shown = api.get(f"/v1/runbooks/{ident}").json()
        assert shown.pop("created_at") and shown == created

    at_92 = api.get(f"/v1/runbooks/{RUNBOOK_ID}", version="1.92").json()
    assert "description" not in at_92 and "traits" not in at_92
    listed = api.get("/v1/runbooks").json()["runbooks"]
    assert [set(r) for r in listed] == [{"uuid", "name", "links"}]

    patched = api.patch(
        "/v1/runbooks/firmware-update",
        [
            {"op": "replace", "path": "/name", "value": "bios-update"},
            {"op": "replace", "path": "/steps/1/order", "value": "7"},
            {"op": "replace", "path": "/disable_ramdisk", "value": True},
            {"op": "add", "path": "/extra/b", "value": 2},
        ],
    )
    assert patched.status_code == 200, patched.text
    body = patched.json()
    assert (body["name"], body["disable_ramdisk"], body["extra"]) == (
        "bios-update",
        True,
        {"a": 1, "b": 2},
    )
    assert body["steps"][1]["order"] == 7 and body["updated_at"]

    assert api.delete("/v1/runbooks/bios-update").status_code == 204
    missing = api.get(f"/v1/runbooks/{RUNBOOK_ID}")
    assert missing.status_code == 404
    assert fault(missing) == f"Runbook {RUNBOOK_ID} could not be found."


@sqlite_only
def test_a_name_or_uuid_taken_is_a_conflict_and_nothing_is_stored(api: Api) -> None:
    runbook(api, "CUSTOM_A", uuid=RUNBOOK_ID)
    other = runbook(api, "CUSTOM_B")
    again = api.post("/v1/runbooks", {"name": "CUSTOM_A", "steps": [RAID_STEP]})
    assert again.status_code == 409, again.text
    assert fault(again) == "A runbook with name CUSTOM_A already exists."
    same_uuid = api.post(
        "/v1/runbooks", {"uuid": RUNBOOK_ID, "name": "CUSTOM_C", "steps": [RAID_STEP]}
    )
    assert same_uuid.status_code == 409, same_uuid.text
    assert fault(same_uuid) == f"A runbook with UUID {RUNBOOK_ID} already exists."
    renamed = api.patch(
        f"/v1/runbooks/{other['uuid']}", [{"op": "replace", "path": "/name", "value": "CUSTOM_A"}]
    )
    assert renamed.status_code == 409, renamed.text
    names = {r["name"] for r in api.get("/v1/runbooks").json()["runbooks"]}
    assert names == {"CUSTOM_A", "CUSTOM_B"}


@sqlite_only
@pytest.mark.parametrize(
    ("body", "version", "words"),
    [
        ({"steps": [RAID_STEP]}, None, "Mandatory field missing: name."),
        ({"name": "CUSTOM_X"}, None, "Mandatory field missing: steps."),
        ({"name": "a b", "steps": [RAID_STEP]}, None, "Invalid runbook name 'a b'"),
        ({"name": "lower", "steps": [RAID_STEP]}, "1.92", "Invalid runbook name: "),
        ({"name": "x", "steps": [RAID_STEP], "description": "d"}, "1.111", "description"),
        ({"name": "x", "steps": [RAID_STEP], "traits": ["CUSTOM_A"]}, None, "traits is read"),
        ({"name": "x", "steps": []}, None, "a runbook needs a list of at least one"),
        (
            {"name": "x", "steps": [{**RAID_STEP, "interface": "disk"}]},
            None,
            "Invalid steps: step 1: interface 'disk' is not one of bios, deploy",
        ),
        (
            {"name": "x", "steps": [{**RAID_STEP, "order": -1}]},
            None,
            "'order' must be a non-negative integer",
        ),
        (
            {"name": "x", "steps": [{**RAID_STEP, "priority": 1}]},
            None,
            "Invalid steps: step 1: unknown key 'priority'",
        ),
        (
            {"name": "x", "steps": [{"interface": "raid", "step": "x"}]},
            None,
            "Invalid steps: step 1: 'order' is missing.",
        ),
        (
            {"name": "x", "steps": [RAID_STEP, {**RAID_STEP, "order": 5}]},
            None,
            "Duplicates: interface: raid, step: delete_configuration",
        ),
        ({"name": "x", "steps": [RAID_STEP], "public": "maybe"}, None, "public"),
        ({"name": "x", "steps": [RAID_STEP], "public": "true"}, None, "Invalid public"),
        ({"name": "x", "steps": [RAID_STEP], "disable_ramdisk": 1}, None, "disable_ramdisk"),
        ({"name": "x", "steps": [RAID_STEP], "owner": "o" * 256}, None, "owner"),
        ({"name": "x", "steps": [RAID_STEP], "uuid": "nope"}, None, "uuid"),
    ],
)
def test_bad_input_is_refused_naming_what_is_wrong(
    api: Api, body: dict[str, Any], version: str | None, words: str
) -> None:
    resp = api.post("/v1/runbooks", body, version=version)
    assert resp.status_code == 400, resp.text
    assert words in fault(resp)
    assert api.get("/v1/runbooks").json()["runbooks"] == []


@sqlite_only
def test_a_patch_is_checked_as_a_create_and_stores_nothing_it_refuses(api: Api) -> None:
    made = runbook(api)
    url = f"/v1/runbooks/{made['uuid']}"
    for patch, words in (
        ([{"op": "remove", "path": "/steps"}], "'steps' is a mandatory attribute"),
        ([{"op": "replace", "path": "/steps", "value": []}], "at least one"),
        ([{"op": "add", "path": "/steps/-", "value": RAID_STEP}], "Duplicate deploy steps"),
        ([{"op": "replace", "path": "/name", "value": "a b"}], "Invalid runbook name"),
        ([{"op": "replace", "path": "/uuid", "value": str(uuid.uuid4())}], "Cannot patch /uuid"),
        ([{"op": "add", "path": "/traits", "value": ["CUSTOM_A"]}], "Cannot patch /traits"),
        ([{"op": "replace", "path": "/public", "value": True}, _owner("p1")], "public runbook"),
        ([{"op": "replace", "path": "/public", "value": "True"}], "Invalid public"),
    ):
        resp = api.patch(url, patch)
        assert resp.status_code == 400, (patch, resp.text)
        assert words in fault(resp), patch
    below = api.patch(url, [{"op": "add", "path": "/description", "value": "d"}], "1.111")
    assert below.status_code == 400 and "Cannot patch /description" in fault(below)
    shown = api.get(url).json()
    assert (shown["name"], shown["steps"], shown["updated_at"]) == (
        "CUSTOM_RAID_OFF",
        [RAID_STEP],
        None,
    )


def _owner(project: str) -> dict[str, Any]:
    return {"op": "add", "path": "/owner", "value": project}


@sqlite_only
def test_a_runbook_made_public_loses_its_owner_and_an_owner_needs_it_private(api: Api) -> None:
    made = runbook(api)
    url = f"/v1/runbooks/{made['uuid']}"
    # without a policy the requester is of no project: it creates runbooks of none, as Ironic
    owned = api.post("/v1/runbooks", {"name": "CUSTOM_X", "steps": [RAID_STEP], "owner": "p1"})
    assert owned.status_code == 400 and "the owner must be your own project" in fault(owned)
    assert api.patch(url, [_owner("p1")]).json()["owner"] == "p1"
    public = api.patch(url, [{"op": "replace", "path": "/public", "value": True}]).json()
    assert (public["public"], public["owner"]) == (True, None)
    refused = api.patch(url, [_owner("p2")])
    assert refused.status_code == 400 and "a public runbook has no owner" in fault(refused)
    both = api.patch(url, [{"op": "replace", "path": "/public", "value": False}, _owner("p2")])
    assert both.status_code == 200, both.text
    assert (both.json()["public"], both.json()["owner"]) == (False, "p2")


@sqlite_only
def test_unknown_runbooks_and_bad_identifiers(api: Api) -> None:
    missing = api.get("/v1/runbooks/CUSTOM_NONE")
    assert missing.status_code == 404
    assert fault(missing) == "Runbook CUSTOM_NONE could not be found."
    assert api.delete("/v1/runbooks/CUSTOM_NONE").status_code == 404
    assert api.patch("/v1/runbooks/CUSTOM_NONE", []).status_code == 404
    bad = api.get("/v1/runbooks/a b")
    assert bad.status_code == 400
    assert fault(bad) == "Expected a logical name or UUID but received a b."


@sqlite_only
def test_below_1_92_there_are_no_runbooks(api: Api) -> None:
    made = runbook(api)
    for method, url in (
        ("GET", "/v1/runbooks"),
        ("GET", f"/v1/runbooks/{made['uuid']}"),
        ("POST", "/v1/runbooks"),
        ("PATCH", f"/v1/runbooks/{made['uuid']}"),
        ("DELETE", f"/v1/runbooks/{made['uuid']}"),
    ):
        resp = api.client.request(
            method, url, json=[] if method == "PATCH" else {}, headers=api.headers("1.91")
        )
        assert resp.status_code == (404 if method == "GET" else 405), (method, resp.text)
        assert routing_error(resp)["description"] == "The API version does not allow runbooks"
    assert "runbooks" not in api.get("/v1/", version="1.91").json()
    assert api.get("/v1/", version="1.92").json()["runbooks"][0]["rel"] == "self"


@sqlite_only
def test_traits_from_1_112_replace_add_and_remove(api: Api) -> None:
    made = runbook(api)
    url = f"/v1/runbooks/{made['uuid']}/traits"
    # below 1.112 the path names nothing, whatever the method, even below 1.92 (Ironic 39)
    for below in (api.get(url, version="1.111"), api.put(f"{url}/CUSTOM_A", version="1.91")):
        assert below.status_code == 404
        assert routing_error(below)["description"] == (
            "The API version does not allow runbook traits"
        )

    assert api.put(url, {"traits": ["CUSTOM_B", "CUSTOM_A"]}).status_code == 204
    added = api.put(f"{url}/CUSTOM_C")
    assert added.status_code == 204
    assert added.headers["Location"].endswith(f"{url}/CUSTOM_C")
    assert api.get(url).json() == {"traits": ["CUSTOM_A", "CUSTOM_B", "CUSTOM_C"]}
    assert api.delete(f"{url}/CUSTOM_B").status_code == 204
    assert api.delete(f"{url}/CUSTOM_NONE").status_code == 204  # nothing to remove: no error
    assert api.get(f"/v1/runbooks/{made['uuid']}").json()["traits"] == ["CUSTOM_A", "CUSTOM_C"]
    assert api.delete(url).status_code == 204
    assert api.get(url).json() == {"traits": []}

    for resp, words in (
        (api.put(f"{url}/lower"), "Invalid trait 'lower'"),
        (api.put(url, {"traits": ["CUSTOM_A"], "x": 1}), '{"traits": [...]}'),
        (api.put(url, {"traits": ["bad"]}), "Invalid trait 'bad'"),
        (api.put(f"{url}/CUSTOM_A", {"traits": []}), "takes no request body"),
    ):
        assert resp.status_code == 400, resp.text
        assert words in fault(resp)
    assert api.get(url).json() == {"traits": []}
    assert api.get("/v1/runbooks/CUSTOM_NONE/traits").status_code == 404


# -- a clean or service by runbook -------------------------------------------------------------

OFFERED = [
    {"interface": "vendor", "step": "log_passthrough", "args": {}, "order": 1},
    {"interface": "bios", "step": "cache_bios_settings", "args": {}, "order": 2},
]
NOT_OFFERED = {"interface": "deploy", "step": "no_such_step", "args": {}, "order": 3}


def _node_in(api: Api, *verbs: str, traits: tuple[str, ...] = ("CUSTOM_RB",)) -> str:
    node = api.node()
    api.port(node, "52:54:00:20:00:09")
    for verb in verbs:
        resp = api.put(f"/v1/nodes/{node['uuid']}/states/provision", {"target": verb})
        assert resp.status_code == 202, resp.text
    assert api.put(f"/v1/nodes/{node['uuid']}/traits", {"traits": list(traits)}).status_code == 204
    return str(node["uuid"])


def _by_runbook(api: Api, node: str, body: dict[str, Any], version: str | None = None) -> Any:
    return api.put(f"/v1/nodes/{node}/states/provision", body, version=version)


def _state(api: Api, node: str) -> tuple[str, str | None]:
    shown = api.get(f"/v1/nodes/{node}?fields=provision_state,last_error").json()
    return shown["provision_state"], shown["last_error"]


@sqlite_only
def test_a_clean_by_runbook_runs_its_steps_as_a_manual_cleaning(api: Api) -> None:
    node = _node_in(api, "manage")
    made = runbook(api, "CUSTOM_RB", steps=OFFERED)
    resp = _by_runbook(api, node, {"target": "clean", "runbook": "CUSTOM_RB"}, version="1.92")
    assert resp.status_code == 202, resp.text
    assert _state(api, node) == ("manageable", None)

    # its steps are the cleaning's: one the node does not offer fails it, naming the step
    added = [{"op": "add", "path": "/steps/-", "value": NOT_OFFERED}]
    assert api.patch(f"/v1/runbooks/{made['uuid']}", added).status_code == 200
    assert api.put(f"/v1/runbooks/{made['uuid']}/traits/CUSTOM_RB").status_code == 204
    resp = _by_runbook(api, node, {"target": "clean", "runbook": made["uuid"]})
    assert resp.status_code == 202, resp.text
    state, error = _state(api, node)
    assert state == "clean failed" and error is not None
    assert "node does not support this clean step" in error and "no_such_step" in error


@sqlite_only
def test_a_service_by_runbook_runs_its_steps_and_its_disable_ramdisk(api: Api) -> None:
    node = _node_in(api, "manage", "provide", "active")
    made = runbook(api, "CUSTOM_RB", steps=OFFERED[:1], disable_ramdisk=True)
    assert api.put(f"/v1/runbooks/{made['uuid']}/traits/CUSTOM_RB").status_code == 204
    # its disable_ramdisk is the servicing's: taken from 1.108, as a request's
    service = {"target": "service", "runbook": "CUSTOM_RB"}
    too_old = _by_runbook(api, node, service, version="1.107")
    assert too_old.status_code == 406, too_old.text
    assert "disable_ramdisk is not acceptable" in fault(too_old)
    resp = _by_runbook(api, node, service)
    assert resp.status_code == 202, resp.text
    assert _state(api, node) == ("active", None)


@sqlite_only
def test_a_runbook_is_refused_where_ironic_refuses_it(api: Api) -> None:
    node = _node_in(api, "manage", traits=("CUSTOM_OTHER",))
    runbook(api, "CUSTOM_RB", steps=OFFERED)
    untraited = runbook(api, "no-traits", steps=OFFERED)
    clean = {"target": "clean", "runbook": "CUSTOM_RB"}
    for body, version, status, words in (
        (clean, "1.91", 406, "requires API version 1.92"),
        ({**clean, "runbook": 5}, "1.91", 400, "Invalid runbook"),
        ({**clean, "runbook": "CUSTOM_NONE"}, "1.92", 404, "Runbook CUSTOM_NONE could not be"),
        ({**clean, "runbook": "a b"}, "1.92", 400, "Expected a logical name or UUID"),
        ({**clean, "runbook": 5}, "1.92", 400, "Invalid runbook"),
        (clean, "1.92", 400, "the node's traits do not include the runbook's name"),
        ({**clean, "runbook": untraited["uuid"]}, None, 400, "it has no traits"),
    ):
        resp = _by_runbook(api, node, body, version=version)
        assert resp.status_code == status, (body, version, resp.text)
        assert words in fault(resp), (body, version)

    assert api.put(f"/v1/nodes/{node}/traits/CUSTOM_RB").status_code == 204
    assert api.put("/v1/runbooks/CUSTOM_RB/traits/CUSTOM_OTHER").status_code == 204
    both = _by_runbook(api, node, {**clean, "clean_steps": OFFERED})
    assert both.status_code == 400 and 'either "clean_steps" or a runbook' in fault(both)
    # another verb takes the runbook's disable_ramdisk, false too, and refuses it, as Ironic 39
    provide = _by_runbook(api, node, {**clean, "target": "provide"})
    assert provide.status_code == 400
    assert "disable_ramdisk is supported only with manual cleaning or servicing" in fault(provide)
    assert _state(api, node) == ("manageable", None)
    events = [e["event"] for e in api.get(f"/v1/nodes/{node}/history").json()["history"]]
    assert not any("clean" in event for event in events), events


@sqlite_only
def test_below_1_112_a_runbook_has_no_description_or_traits_to_ask_for(api: Api) -> None:
    """As Ironic 39: they are unknown fields there (400), not newer ones (406)."""
    made = runbook(api)
    for fields in ("description", "traits"):
        resp = api.get(f"/v1/runbooks/{made['uuid']}?fields=name,{fields}", version="1.92")
        assert resp.status_code == 400, resp.text
        assert f"Field(s) {fields} are not valid" in fault(resp)
    assert api.get("/v1/runbooks?sort_key=description", version="1.92").status_code == 200
    by_traits = api.get("/v1/runbooks?sort_key=traits", version="1.92")
    assert by_traits.status_code == 400
    assert fault(by_traits) == "The sort_key value traits is an invalid field for sorting"
