"""``/v1/deploy_templates`` (1.55) through HTTP as Ironic 39 answers it, and the templates a
node's ``instance_info/traits`` names taking part in its deploy: their steps checked with
the deploy's other checks and the steps that run recorded in the node's history."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.conftest import Api, fault, routing_error

TEMPLATE_ID = "3f2d1c4b-5a69-4e7f-8a1b-2c3d4e5f6a7b"
RAID_STEP = {"interface": "raid", "step": "delete_configuration", "args": {}, "priority": 10}
BIOS_STEP = {
    "interface": "bios",
    "step": "apply_configuration",
    "args": {"settings": [{"name": "LogicalProc", "value": "Enabled"}]},
    "priority": 150,
}

sqlite_only = pytest.mark.parametrize("database", ["sqlite"])


def template(api: Api, name: str = "CUSTOM_RAID_OFF", **fields: Any) -> dict[str, Any]:
    resp = api.post("/v1/deploy_templates", {"name": name, "steps": [RAID_STEP], **fields})
    assert resp.status_code == 201, resp.text
    return dict(resp.json())


def test_create_show_list_patch_delete(api: Api) -> None:
    resp = api.post(
        "/v1/deploy_templates",
        {"uuid": TEMPLATE_ID, "name": "CUSTOM_HT_ON", "steps": [BIOS_STEP], "extra": {"a": 1}},
    )
    assert resp.status_code == 201, resp.text
    assert resp.headers["Location"].endswith(f"/v1/deploy_templates/{TEMPLATE_ID}")
    created = resp.json()
    assert set(created) == {
        "uuid",
        "name",
        "steps",
        "extra",
        "created_at",
        "updated_at",
        "links",
    }
    assert (created["uuid"], created["name"], created["extra"]) == (
        TEMPLATE_ID,
        "CUSTOM_HT_ON",
        {"a": 1},
    )
    assert created["steps"] == [BIOS_STEP] and created["updated_at"] is None
    assert created["links"] == [
        {"href": f"http://testserver/v1/deploy_templates/{TEMPLATE_ID}", "rel": "self"},
        {"href": f"http://testserver/deploy_templates/{TEMPLATE_ID}", "rel": "bookmark"},
    ]
    created.pop("created_at")  # MariaDB keeps whole seconds
    for ident in (TEMPLATE_ID, "CUSTOM_HT_ON"):
        shown = api.get(f"/v1/deploy_templates/{ident}").json()
        assert shown.pop("created_at") and shown == created

    listed = api.get("/v1/deploy_templates").json()["deploy_templates"]
    assert [set(t) for t in listed] == [{"uuid", "name", "links"}]

    patched = api.patch(
        "/v1/deploy_templates/CUSTOM_HT_ON",
        [
            {"op": "replace", "path": "/name", "value": "CUSTOM_HT_OFF"},
            {"op": "replace", "path": "/steps/0/priority", "value": "90"},
            {"op": "add", "path": "/extra/b", "value": 2},
        ],
    )
    assert patched.status_code == 200, patched.text
    body = patched.json()
    assert body["name"] == "CUSTOM_HT_OFF" and body["extra"] == {"a": 1, "b": 2}
    assert body["steps"] == [{**BIOS_STEP, "priority": 90}] and body["updated_at"]

    assert api.delete("/v1/deploy_templates/CUSTOM_HT_OFF").status_code == 204
    missing = api.get(f"/v1/deploy_templates/{TEMPLATE_ID}")
    assert missing.status_code == 404
    assert fault(missing) == f"Deploy template {TEMPLATE_ID} could not be found."


def test_a_name_or_uuid_taken_is_a_conflict_and_nothing_is_stored(api: Api) -> None:
    template(api, "CUSTOM_A", uuid=TEMPLATE_ID)
    other = template(api, "CUSTOM_B")

    again = api.post("/v1/deploy_templates", {"name": "CUSTOM_A", "steps": [RAID_STEP]})
    assert again.status_code == 409, again.text
    assert fault(again) == "A deploy template with name CUSTOM_A already exists."
    same_uuid = api.post(
        "/v1/deploy_templates", {"uuid": TEMPLATE_ID, "name": "CUSTOM_C", "steps": [RAID_STEP]}
    )
    assert same_uuid.status_code == 409, same_uuid.text
    assert fault(same_uuid) == f"A deploy template with UUID {TEMPLATE_ID} already exists."
    renamed = api.patch(
        f"/v1/deploy_templates/{other['uuid']}",
        [{"op": "replace", "path": "/name", "value": "CUSTOM_A"}],
    )
    assert renamed.status_code == 409, renamed.text

    names = {t["name"] for t in api.get("/v1/deploy_templates").json()["deploy_templates"]}
    assert names == {"CUSTOM_A", "CUSTOM_B"}


@sqlite_only
@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"steps": [RAID_STEP]}, "Mandatory field missing: name."),
        ({"name": "CUSTOM_X"}, "Mandatory field missing: steps."),
        ({"name": "custom_x", "steps": [RAID_STEP]}, "Invalid deploy template name: "),
        ({"name": "CUSTOM_X", "steps": []}, "needs a list of at least one deploy step"),
        (
            {"name": "CUSTOM_X", "steps": [{**RAID_STEP, "interface": "disk"}]},
            "Invalid steps: step 1: interface 'disk' is not one of bios, deploy",
        ),
        (
            {"name": "CUSTOM_X", "steps": [{**RAID_STEP, "priority": -1}]},
            "'priority' must be a non-negative integer",
        ),
        (
            {"name": "CUSTOM_X", "steps": [{"interface": "raid", "step": "x"}]},
            "Invalid steps: step 1: 'args', 'priority' are missing.",
        ),
        (
            {"name": "CUSTOM_X", "steps": [RAID_STEP, {**RAID_STEP, "priority": 5}]},
            "Duplicate deploy steps. A template cannot have multiple deploy steps with the "
            "same interface and step. Duplicates: interface: raid, step: delete_configuration",
        ),
        ({"name": "CUSTOM_X", "steps": [RAID_STEP], "uuid": "nope"}, "uuid"),
        ({"name": "CUSTOM_X", "steps": [RAID_STEP], "owner": "p"}, "Unknown attribute"),
        ({"name": "CUSTOM_X", "steps": [RAID_STEP], "description": 5}, "Invalid description"),
    ],
)
def test_bad_input_is_refused_naming_what_is_wrong(
    api: Api, body: dict[str, Any], words: str
) -> None:
    resp = api.post("/v1/deploy_templates", body)
    assert resp.status_code == 400, resp.text
    assert words in fault(resp)
    assert api.get("/v1/deploy_templates").json()["deploy_templates"] == []


@sqlite_only
def test_a_patch_is_checked_as_a_create_and_stores_nothing_it_refuses(api: Api) -> None:
    made = template(api)
    url = f"/v1/deploy_templates/{made['uuid']}"
    for patch, status, words in (
        ([{"op": "remove", "path": "/steps"}], 400, "'steps' is a mandatory attribute"),
        ([{"op": "replace", "path": "/steps", "value": []}], 400, "at least one deploy step"),
        ([{"op": "add", "path": "/steps/-", "value": RAID_STEP}], 400, "Duplicate deploy steps"),
        ([{"op": "replace", "path": "/name", "value": "lower"}], 400, "Invalid deploy template"),
        ([{"op": "replace", "path": "/uuid", "value": str(uuid.uuid4())}], 400, "internal"),
        ([{"op": "replace", "path": "/steps/0/args", "value": []}], 400, "'args' must be an"),
    ):
        resp = api.patch(url, patch)
        assert resp.status_code == status, (patch, resp.text)
        assert words in fault(resp), patch
    shown = api.get(url).json()
    assert (shown["name"], shown["steps"], shown["updated_at"]) == (
        "CUSTOM_RAID_OFF",
        [RAID_STEP],
        None,
    )


@sqlite_only
def test_unknown_templates_and_bad_identifiers(api: Api) -> None:
    missing = api.get("/v1/deploy_templates/CUSTOM_NONE")
    assert missing.status_code == 404
    assert fault(missing) == "Deploy template CUSTOM_NONE could not be found."
    assert api.delete("/v1/deploy_templates/CUSTOM_NONE").status_code == 404
    bad = api.get("/v1/deploy_templates/a b")
    assert bad.status_code == 400
    assert fault(bad) == "Expected a logical name or UUID but received a b."


@sqlite_only
def test_below_1_55_there_are_no_deploy_templates(api: Api) -> None:
    made = template(api)
    for method, url in (
        ("GET", "/v1/deploy_templates"),
        ("GET", f"/v1/deploy_templates/{made['uuid']}"),
        ("POST", "/v1/deploy_templates"),
        ("PATCH", f"/v1/deploy_templates/{made['uuid']}"),
        ("DELETE", f"/v1/deploy_templates/{made['uuid']}"),
    ):
        resp = api.client.request(
            method, url, json=[] if method == "PATCH" else {}, headers=api.headers("1.54")
        )
        assert resp.status_code == (404 if method == "GET" else 405), (method, resp.text)
        assert routing_error(resp)["description"] == (
            "The API version does not allow deploy templates"
        )
    assert "deploy_templates" not in api.get("/v1/", version="1.54").json()
    assert api.get("/v1/", version="1.55").json()["deploy_templates"][0]["rel"] == "self"


@sqlite_only
def test_list_fields_detail_sort_limit_marker(api: Api) -> None:
    made = [template(api, name) for name in ("CUSTOM_B", "CUSTOM_C", "CUSTOM_A")]
    detail = api.get("/v1/deploy_templates?detail=true").json()["deploy_templates"]
    assert {"steps", "extra", "created_at"} <= set(detail[0])
    # as Ironic 39: no /detail list; "detail" is read as a template's name
    assert fault(api.get("/v1/deploy_templates/detail")) == (
        "Deploy template detail could not be found."
    )
    fields = api.get("/v1/deploy_templates?fields=name,steps").json()["deploy_templates"]
    assert fields[0] == {"name": "CUSTOM_B", "steps": [RAID_STEP], "links": fields[0]["links"]}
    by_name = api.get("/v1/deploy_templates?sort_key=name&sort_dir=desc").json()
    assert [t["name"] for t in by_name["deploy_templates"]] == ["CUSTOM_C", "CUSTOM_B", "CUSTOM_A"]
    page = api.get("/v1/deploy_templates?limit=2").json()
    assert [t["uuid"] for t in page["deploy_templates"]] == [made[0]["uuid"], made[1]["uuid"]]
    assert f"marker={made[1]['uuid']}" in page["next"]
    rest = api.get(f"/v1/deploy_templates?marker={made[1]['uuid']}").json()
    assert [t["uuid"] for t in rest["deploy_templates"]] == [made[2]["uuid"]]
    unsortable = api.get("/v1/deploy_templates?sort_key=steps")
    assert unsortable.status_code == 400
    assert fault(unsortable) == "The sort_key value steps is an invalid field for sorting"
    unknown_field = api.get("/v1/deploy_templates?fields=description")
    assert unknown_field.status_code == 400


@sqlite_only
def test_a_steps_secret_arguments_are_masked(api: Api) -> None:
    step = {**RAID_STEP, "args": {"bmc_password": "s3cret", "keep": 1}}
    made = template(api, steps=[step])
    assert made["steps"][0]["args"] == {"bmc_password": "******", "keep": 1}


# -- deploys ------------------------------------------------------------------------------


def _available(api: Api, traits: list[str], **fields: Any) -> str:
    node = api.node(name="life", **fields)
    api.port(node, "52:54:00:20:00:01")
    uuid_ = str(node["uuid"])
    for trait in traits:
        assert api.put(f"/v1/nodes/{uuid_}/traits/{trait}").status_code == 204
    patch = [{"op": "add", "path": "/instance_info/traits", "value": traits}]
    assert api.patch(f"/v1/nodes/{uuid_}", patch).status_code == 200
    for verb in ("manage", "provide"):
        assert api.put(f"/v1/nodes/{uuid_}/states/provision", {"target": verb}).status_code == 202
    return uuid_


def _events(api: Api) -> list[str]:
    entries = api.get("/v1/nodes/life/history?detail=true").json()["history"]
    return [e["event"] for e in entries]


@sqlite_only
def test_a_deploy_runs_the_steps_of_the_templates_its_instance_traits_name(api: Api) -> None:
    template(api, "CUSTOM_RAID_OFF")
    template(api, "CUSTOM_BIOS", steps=[BIOS_STEP])
    template(api, "CUSTOM_UNUSED", steps=[{**RAID_STEP, "step": "apply_configuration"}])
    _available(
        api, ["CUSTOM_RAID_OFF", "CUSTOM_BIOS"], raid_interface="redfish", bios_interface="redfish"
    )

    resp = api.put("/v1/nodes/life/states/provision", {"target": "active"})

    assert resp.status_code == 202, resp.text
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"
    assert (
        "deploy steps: bios.apply_configuration (priority 150, deploy template), "
        "deploy.deploy (priority 100, driver), "
        "raid.delete_configuration (priority 10, deploy template)"
    ) in _events(api)


@sqlite_only
def test_the_deploy_steps_given_with_the_verb_override_a_templates(api: Api) -> None:
    template(api, "CUSTOM_RAID_OFF")
    _available(api, ["CUSTOM_RAID_OFF"], raid_interface="redfish")

    disabled = {**RAID_STEP, "priority": 0}
    body = {"target": "active", "deploy_steps": [disabled]}
    assert api.put("/v1/nodes/life/states/provision", body).status_code == 202

    assert "deploy steps: deploy.deploy (priority 100, driver)" in _events(api)


@sqlite_only
def test_a_deploy_whose_given_steps_disable_every_step_records_none(api: Api) -> None:
    _available(api, [])
    disabled = {"interface": "deploy", "step": "deploy", "args": {}, "priority": 0}
    body = {"target": "active", "deploy_steps": [disabled]}
    assert api.put("/v1/nodes/life/states/provision", body).status_code == 202

    assert "deploy steps: none enabled" in _events(api)


@sqlite_only
def test_a_template_step_the_node_refuses_refuses_the_deploy(api: Api) -> None:
    bad = {"interface": "raid", "step": "apply_configuration", "args": {}, "priority": 10}
    template(api, "CUSTOM_RAID_ON", steps=[bad])
    uuid_ = _available(api, ["CUSTOM_RAID_ON"], raid_interface="redfish")

    resp = api.put("/v1/nodes/life/states/provision", {"target": "active"})

    assert resp.status_code == 400, resp.text
    assert fault(resp).startswith(
        f"Failed to validate deploy or power info for node {uuid_}: Validation of deploy steps "
        "from deploy templates matching this node's instance traits failed. Matching deploy "
        f"templates: CUSTOM_RAID_ON. Errors: deploy step {bad} is missing these required "
        "arguments: raid_config ("
    )
    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["last_error"]) == ("available", None)
    # what Nova's ironic driver asks before it deploys, as Ironic's validate answers it
    deploy = api.get("/v1/nodes/life/validate").json()["deploy"]
    assert deploy["result"] is False
    assert deploy["reason"].startswith(
        "Validation of deploy steps from deploy templates matching this node's instance "
        "traits failed. Matching deploy templates: CUSTOM_RAID_ON. Errors: "
    )


@sqlite_only
def test_a_template_step_no_interface_offers_is_left_for_an_agent(api: Api) -> None:
    """As for the steps given with the verb (Ironic checks both with the agent's steps)."""
    template(api, "CUSTOM_RAID_OFF")  # the node's raid interface is fake: no such step
    _available(api, ["CUSTOM_RAID_OFF"])

    resp = api.put("/v1/nodes/life/states/provision", {"target": "active"})

    assert resp.status_code == 202, resp.text
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"
    assert not any(event.startswith("deploy steps:") for event in _events(api))
