"""The steps a provision verb takes: ``clean`` needs ``clean_steps`` and ``service`` needs
``service_steps``, each a list of well-formed steps, and no other verb takes either. Ironic
39's API refuses the rest with a 400 before anything runs; the node stays as it was."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, fault

STEP = {"interface": "deploy", "step": "erase_devices_metadata"}


def _node(api: Api, *verbs: str) -> str:
    uuid = str(api.node()["uuid"])
    for verb in verbs:
        response = api.put(f"/v1/nodes/{uuid}/states/provision", {"target": verb})
        assert response.status_code == 202, response.text
    return uuid


def _put(api: Api, uuid: str, body: dict[str, Any]) -> Any:
    return api.put(f"/v1/nodes/{uuid}/states/provision", body)


def _unchanged(api: Api, uuid: str, state: str) -> None:
    shown = api.get(f"/v1/nodes/{uuid}?fields=provision_state,last_error").json()
    assert (shown["provision_state"], shown["last_error"]) == (state, None)
    events = [e["event"] for e in api.get(f"/v1/nodes/{uuid}/history").json()["history"]]
    assert not any("clean" in event for event in events), events


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"target": "clean"}, '"clean_steps" is required when setting target provision state'),
        ({"target": "clean", "clean_steps": []}, '"clean_steps" is required'),
        ({"target": "clean", "clean_steps": None}, '"clean_steps" is required'),
        (
            {"target": "clean", "clean_steps": {"interface": "deploy"}},
            "Invalid clean_steps: expected a list of steps, got an object.",
        ),
        ({"target": "clean", "clean_steps": ["erase"]}, "step 1: expected an object"),
        (
            {"target": "clean", "clean_steps": [STEP, {"step": "erase"}]},
            "step 2: 'interface' is missing",
        ),
        (
            {"target": "clean", "clean_steps": [{"interface": "disk", "step": "erase"}]},
            "interface 'disk' is not one of bios, deploy, firmware, management, power, raid",
        ),
        ({"target": "clean", "clean_steps": [{"interface": "raid"}]}, "'step' is missing"),
        (
            {"target": "clean", "clean_steps": [{"interface": "raid", "step": ""}]},
            "'step' must be a non-empty string",
        ),
        (
            {"target": "clean", "clean_steps": [{**STEP, "name": "erase_devices"}]},
            "step 1: unknown key 'name'",
        ),
        ({"target": "clean", "clean_steps": [{**STEP, "args": []}]}, "'args' must be an object"),
        (
            {"target": "clean", "clean_steps": [{**STEP, "order": -1}]},
            "'order' must be a non-negative integer",
        ),
        (
            {"target": "clean", "clean_steps": [{**STEP, "execute_on_child_nodes": "yes"}]},
            "'execute_on_child_nodes' must be a boolean",
        ),
        (
            {"target": "provide", "clean_steps": [STEP]},
            '"clean_steps" is only valid when setting target provision state to clean',
        ),
        (
            {"target": "clean", "clean_steps": [STEP], "service_steps": [STEP]},
            '"service_steps" is only valid when setting target provision state to service',
        ),
    ],
)
def test_bad_clean_steps_are_refused_and_nothing_runs(
    api: Api, body: dict[str, Any], words: str
) -> None:
    uuid = _node(api, "manage")
    response = _put(api, uuid, body)
    assert response.status_code == 400, response.text
    assert words in fault(response)
    _unchanged(api, uuid, "manageable")


def test_well_formed_clean_steps_clean_the_node(api: Api) -> None:
    uuid = _node(api, "manage")
    steps = [
        {"interface": "vendor", "step": "log_passthrough", "args": {}, "order": "1"},
        {"interface": "bios", "step": "cache_bios_settings", "order": 2},
        {"interface": "bios", "step": "factory_reset", "execute_on_child_nodes": False},
    ]
    response = _put(api, uuid, {"target": "clean", "clean_steps": steps})
    assert response.status_code == 202, response.text
    shown = api.get(f"/v1/nodes/{uuid}").json()
    assert (shown["provision_state"], shown["last_error"]) == ("manageable", None)


def test_bad_service_steps_are_refused_as_clean_steps_are(api: Api) -> None:
    uuid = _node(api, "manage", "provide", "active")
    response = _put(api, uuid, {"target": "service", "service_steps": [{**STEP, "args": 1}]})
    assert response.status_code == 400, response.text
    assert (
        fault(response) == "Invalid service_steps: step 1: 'args' must be an object, not a number."
    )
    shown = api.get(f"/v1/nodes/{uuid}").json()
    assert shown["provision_state"] == "active"


DEPLOY_STEP = {"interface": "deploy", "step": "deploy", "args": {}, "priority": 100}


@pytest.mark.parametrize(
    ("body", "version", "status", "words"),
    [
        (
            {"target": "active", "deploy_steps": [DEPLOY_STEP]},
            "1.68",
            406,
            "The minimal required API version should be 1.69",
        ),
        (
            {"target": "manage", "deploy_steps": [DEPLOY_STEP]},
            "1.69",
            400,
            '"deploy_steps" is only valid when setting target provision state to active or rebuild',
        ),
        (
            {"target": "active", "deploy_steps": [{"interface": "deploy", "step": "deploy"}]},
            "1.69",
            400,
            "Invalid deploy_steps: step 1: 'args', 'priority' are missing.",
        ),
        (
            {"target": "deploy", "deploy_steps": [{**DEPLOY_STEP, "order": 1}]},
            "1.73",
            400,
            "step 1: unknown key 'order'",
        ),
        (
            {"target": "active", "deploy_steps": [{**DEPLOY_STEP, "priority": "high"}]},
            "1.69",
            400,
            "'priority' must be a non-negative integer, not 'high'",
        ),
        (
            {"target": "active", "deploy_steps": "deploy"},
            "1.69",
            400,
            "Invalid deploy_steps: expected a list of steps, got a string.",
        ),
    ],
)
def test_bad_deploy_steps_are_refused_and_nothing_runs(
    api: Api, body: dict[str, Any], version: str, status: int, words: str
) -> None:
    uuid = _node(api, "manage", "provide")
    response = api.put(f"/v1/nodes/{uuid}/states/provision", body, version=version)
    assert response.status_code == status, response.text
    assert words in fault(response)
    shown = api.get(f"/v1/nodes/{uuid}?fields=provision_state,last_error").json()
    assert (shown["provision_state"], shown["last_error"]) == ("available", None)


@pytest.mark.parametrize("target", ["active", "deploy"])
def test_well_formed_deploy_steps_deploy_the_node(api: Api, target: str) -> None:
    uuid = _node(api, "manage", "provide")
    # the core step disabled, and a step left for an agent to report (conductor/steps.py)
    steps = [
        {**DEPLOY_STEP, "priority": "0"},
        {"interface": "bios", "step": "apply", "args": {}, "priority": "90"},
    ]
    response = _put(api, uuid, {"target": target, "deploy_steps": steps})
    assert response.status_code == 202, response.text
    assert api.get(f"/v1/nodes/{uuid}").json()["provision_state"] == "active"
