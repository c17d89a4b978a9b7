"""The steps Ironic's conductor runs itself (``power_on``, ``power_off``, ``reboot``, ``hold``,
``wait``) in a manual cleaning and a servicing, through HTTP: the hold states and
``unhold`` (1.85), ``abort`` of a held node, timed and open waits."""

from __future__ import annotations

import time
from typing import Any

import pytest

from metalwire.config import Config
from tests.conftest import Api, fault

HOLD = {"interface": "deploy", "step": "hold"}
POWER_OFF = {"interface": "power", "step": "power_off"}
POWER_ON = {"interface": "power", "step": "power_on"}
REBOOT = {"interface": "power", "step": "reboot"}


@pytest.fixture(autouse=True)
def short_waits(config: Config, request: pytest.FixtureRequest) -> None:
    """A wait step asking for more than 2 s waits 2 s; in the tests of the call-back
    timeouts, a wait times out after 0.3 s (set before the app starts)."""
    config.conductor.max_conductor_wait_step_seconds = 2
    if "callback_timeout" in request.node.name:
        config.conductor.clean_callback_timeout = 0.3
        config.conductor.service_callback_timeout = 0.3
        config.conductor.check_provision_state_interval = 0.1


def _node(api: Api, *verbs: str, **fields: Any) -> str:
    uuid = str(api.node(name="held", **fields)["uuid"])
    for verb in verbs:
        resp = api.put(f"/v1/nodes/{uuid}/states/provision", {"target": verb})
        assert resp.status_code == 202, resp.text
    return uuid


def _provision(api: Api, body: dict[str, Any], version: str | None = None) -> Any:
    return api.put("/v1/nodes/held/states/provision", body, version=version)


def _shown(api: Api) -> dict[str, Any]:
    return dict(api.get("/v1/nodes/held").json())


def _events(api: Api) -> list[str]:
    return [e["event"] for e in api.get("/v1/nodes/held/history").json()["history"]]


def _aborted(operation: str, step: str) -> str:
    """The ``last_error`` of an abort during ``step``, as Ironic words it."""
    return (
        f"By request, the {operation} operation was aborted during or after the completion "
        f'of step "{step}"'
    )


def _until_left(api: Api, state: str, limit: float = 15) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while _shown(api)["provision_state"] == state and time.monotonic() < deadline:
        time.sleep(0.05)
    return _shown(api)


def test_a_hold_step_holds_manual_cleaning_until_unhold_resumes_after_it(api: Api) -> None:
    _node(api, "manage")
    steps = [POWER_OFF, HOLD, POWER_ON]
    assert _provision(api, {"target": "clean", "clean_steps": steps}).status_code == 202

    held = _shown(api)
    assert (held["provision_state"], held["target_provision_state"]) == (
        "clean hold",
        "manageable",
    )
    assert held["clean_step"] == HOLD
    assert held["power_state"] == "power off"  # the step before the hold ran
    assert held["driver_internal_info"]["clean_step_index"] == 1
    assert held["driver_internal_info"]["clean_steps"] == steps
    assert "clean held in clean hold at step 2 (hold); unhold resumes it" in _events(api)

    too_old = _provision(api, {"target": "unhold"}, version="1.84")
    assert too_old.status_code == 406
    assert _shown(api)["provision_state"] == "clean hold"

    assert _provision(api, {"target": "unhold"}).status_code == 202
    done = _shown(api)
    assert (done["provision_state"], done["target_provision_state"]) == ("manageable", None)
    assert done["power_state"] == "power on"  # the step after the hold ran
    assert done["clean_step"] == {}
    assert "clean_steps" not in done["driver_internal_info"]
    events = _events(api)
    assert events.index("unhold: clean resumes") < events.index("clean done: manageable")


def test_servicing_holds_and_unhold_brings_the_node_back_to_active(api: Api) -> None:
    _node(api, "manage", "provide", "active")
    steps = [HOLD, REBOOT]
    assert _provision(api, {"target": "service", "service_steps": steps}).status_code == 202
    held = _shown(api)
    assert (held["provision_state"], held["service_step"]) == ("service hold", HOLD)

    assert _provision(api, {"target": "unhold"}).status_code == 202
    done = _shown(api)
    assert (done["provision_state"], done["service_step"]) == ("active", {})
    assert done["power_state"] == "power on"
    assert any(
        "rebooting" in event and "service step power.reboot" in event for event in _events(api)
    )


def test_unhold_of_a_node_not_held_is_refused_naming_its_state(api: Api) -> None:
    _node(api, "manage")
    resp = _provision(api, {"target": "unhold"})
    assert resp.status_code == 400
    assert '"unhold"' in fault(resp) and '"manageable"' in fault(resp)


def test_abort_of_a_held_cleaning_ends_it_aborted_once_unheld(api: Api) -> None:
    """As Ironic's: a hold step cannot be aborted, so abort marks the cleaning to end after
    it; the node stays held until unhold."""
    _node(api, "manage")
    steps = [HOLD, POWER_ON]
    assert _provision(api, {"target": "clean", "clean_steps": steps}).status_code == 202

    assert _provision(api, {"target": "abort"}).status_code == 202
    held = _shown(api)
    assert held["provision_state"] == "clean hold"
    assert held["clean_step"] == {**HOLD, "abort_after": True}

    assert _provision(api, {"target": "unhold"}).status_code == 202
    ended = _shown(api)
    assert (ended["provision_state"], ended["target_provision_state"]) == (
        "clean failed",
        "manageable",
    )
    assert ended["last_error"] == _aborted("cleaning", "deploy.hold")
    assert ended["power_state"] == "power off"  # the step after the hold never ran
    assert ended["clean_step"] == {}


def test_abort_of_a_held_servicing_ends_it_in_service_failed_once_unheld(api: Api) -> None:
    _node(api, "manage", "provide", "active")
    assert _provision(api, {"target": "service", "service_steps": [HOLD]}).status_code == 202
    assert _provision(api, {"target": "abort"}).status_code == 202
    assert _shown(api)["provision_state"] == "service hold"

    assert _provision(api, {"target": "unhold"}).status_code == 202
    ended = _shown(api)
    assert ended["provision_state"] == "service failed"
    assert ended["last_error"] == _aborted("service", "deploy.hold")


def test_a_timed_wait_pauses_in_clean_wait_then_the_steps_go_on(api: Api) -> None:
    _node(api, "manage")
    wait = {"interface": "deploy", "step": "wait", "args": {"seconds": 2}}
    began = time.monotonic()
    resp = _provision(api, {"target": "clean", "clean_steps": [wait, POWER_OFF]})
    assert resp.status_code == 202, resp.text
    answered = time.monotonic() - began

    waiting = _shown(api)
    assert (waiting["provision_state"], waiting["clean_step"]) == ("clean wait", wait)
    # the node is not locked meanwhile: a request on it is answered at once
    assert api.get("/v1/nodes/held/states").status_code == 200

    done = _until_left(api, "clean wait")
    assert time.monotonic() - began >= 2
    assert answered < 2  # the request did not wait for the step
    assert (done["provision_state"], done["power_state"]) == ("manageable", "power off")
    assert "clean goes on after its wait of 2 s" in _events(api)


def test_a_wait_longer_than_the_most_allowed_waits_that_long_and_says_so(api: Api) -> None:
    _node(api, "manage", "provide", "active")
    wait = {"interface": "deploy", "step": "wait", "args": {"seconds": "600"}}
    assert _provision(api, {"target": "service", "service_steps": [wait]}).status_code == 202
    assert _shown(api)["provision_state"] == "service wait"

    assert _until_left(api, "service wait", limit=10)["provision_state"] == "active"
    assert (
        "service step wait asked for 600 s, more than [conductor] "
        "max_conductor_wait_step_seconds; waiting 2 s"
    ) in _events(api)


def test_a_wait_without_seconds_stays_in_clean_wait_until_abort(api: Api) -> None:
    _node(api, "manage")
    wait = {"interface": "deploy", "step": "wait"}
    assert _provision(api, {"target": "clean", "clean_steps": [wait, POWER_OFF]}).status_code == 202
    time.sleep(0.2)
    assert (_shown(api)["provision_state"], _shown(api)["clean_step"]) == ("clean wait", wait)

    assert _provision(api, {"target": "abort"}).status_code == 202
    ended = _shown(api)
    assert ended["provision_state"] == "clean failed"
    assert ended["last_error"] == _aborted("cleaning", "deploy.wait")
    assert ended["clean_step"] == {}
    assert "clean_steps" not in ended["driver_internal_info"]


def test_a_wait_whose_seconds_are_not_a_number_fails_the_cleaning_naming_it(api: Api) -> None:
    node = _node(api, "manage")
    wait = {"interface": "deploy", "step": "wait", "args": {"seconds": "soon"}}
    assert _provision(api, {"target": "clean", "clean_steps": [wait]}).status_code == 202
    failed = _shown(api)
    assert failed["provision_state"] == "clean failed"
    assert failed["last_error"].startswith(f"Cannot clean node {node}: clean step ")
    assert "seconds must be a whole number, not 'soon'" in failed["last_error"]


def test_a_failed_service_step_leaves_the_node_in_maintenance_with_its_fault(api: Api) -> None:
    node = _node(api, "manage", "provide", "active", disable_power_off=True)
    assert _provision(api, {"target": "service", "service_steps": [POWER_OFF]}).status_code == 202
    failed = _shown(api)
    assert failed["provision_state"] == "service failed"
    assert failed["last_error"] == (
        f"Node {node} failed service step power.power_off: "
        "Failed to set node power state to power off."
    )
    assert (failed["maintenance"], failed["fault"]) == (True, "service failure")
    assert failed["maintenance_reason"] == failed["last_error"]
    assert failed["service_step"] == {}
    assert failed["power_state"] != "power off"


def test_a_failed_clean_step_leaves_the_node_in_maintenance_with_its_fault(api: Api) -> None:
    _node(api, "manage", disable_power_off=True)
    assert _provision(api, {"target": "clean", "clean_steps": [POWER_OFF]}).status_code == 202
    failed = _shown(api)
    assert failed["provision_state"] == "clean failed"
    assert "failed clean step power.power_off" in failed["last_error"]
    assert (failed["maintenance"], failed["fault"]) == (True, "clean failure")
    assert failed["maintenance_reason"] == failed["last_error"]


@pytest.mark.parametrize(
    ("verb", "verbs", "waiting", "failed", "doing"),
    [
        ("clean", ("manage",), "clean wait", "clean failed", "cleaning"),
        ("service", ("manage", "provide", "active"), "service wait", "service failed", "servicing"),
    ],
)
def test_a_wait_step_past_its_callback_timeout_fails_in_maintenance(
    api: Api, verb: str, verbs: tuple[str, ...], waiting: str, failed: str, doing: str
) -> None:
    """As Ironic's periodic checks of clean wait and service wait: the verb fails at the
    step it waited at, in maintenance, as a failed step leaves it."""
    node = _node(api, *verbs)
    wait = {"interface": "deploy", "step": "wait"}
    assert _provision(api, {"target": verb, f"{verb}_steps": [wait]}).status_code == 202

    ended = _until_left(api, waiting, limit=10)
    assert ended["provision_state"] == failed
    assert (ended["maintenance"], ended["fault"]) == (True, f"{verb} failure")
    assert ended["last_error"].endswith(f" Failed on step {wait}.")
    assert ended["last_error"] == ended["maintenance_reason"]
    if verb == "service":
        assert ended["last_error"].startswith(
            f"Timeout reached while {doing} the node. Please check if the ramdisk responsible "
            f"for the {doing} is running on the node."
        )
    else:
        assert ended["last_error"].startswith(
            f"Timeout reached while waiting for callback for node {node}"
        )


def test_abort_of_a_servicing_wait_gives_the_node_back_to_active(api: Api) -> None:
    _node(api, "manage", "provide", "active")
    wait = {"interface": "deploy", "step": "wait"}
    assert _provision(api, {"target": "service", "service_steps": [wait]}).status_code == 202
    assert _shown(api)["provision_state"] == "service wait"

    assert _provision(api, {"target": "abort"}).status_code == 202
    ended = _shown(api)
    assert (ended["provision_state"], ended["service_step"]) == ("active", {})
    assert ended["last_error"] == _aborted("service", "deploy.wait")


def test_a_cleaning_by_runbook_runs_its_steps_in_its_order_and_holds_there(api: Api) -> None:
    _node(api, "manage")
    steps = [
        {**POWER_OFF, "args": {}, "order": 0},
        {**HOLD, "args": {}, "order": 1},
        {**POWER_ON, "args": {}, "order": 2},
    ]
    made = api.post("/v1/runbooks", {"name": "CUSTOM_HOLD", "steps": steps})
    assert made.status_code == 201, made.text
    trait = api.put(f"/v1/runbooks/{made.json()['uuid']}/traits/CUSTOM_HOLD")
    assert trait.status_code == 204, trait.text
    assert api.put("/v1/nodes/held/traits", {"traits": ["CUSTOM_HOLD"]}).status_code == 204

    resp = _provision(api, {"target": "clean", "runbook": "CUSTOM_HOLD"})
    assert resp.status_code == 202, resp.text
    held = _shown(api)
    assert (held["provision_state"], held["power_state"]) == ("clean hold", "power off")
    assert held["clean_step"] == steps[1]

    assert _provision(api, {"target": "unhold"}).status_code == 202
    done = _shown(api)
    assert (done["provision_state"], done["power_state"]) == ("manageable", "power on")


def test_abort_during_a_timed_wait_ends_it_and_the_steps_after_it_never_run(api: Api) -> None:
    _node(api, "manage")
    wait = {"interface": "deploy", "step": "wait", "args": {"seconds": 1}}
    assert _provision(api, {"target": "clean", "clean_steps": [wait, POWER_ON]}).status_code == 202
    assert _shown(api)["provision_state"] == "clean wait"

    assert _provision(api, {"target": "abort"}).status_code == 202
    assert _shown(api)["last_error"] == _aborted("cleaning", "deploy.wait")
    time.sleep(1.5)  # past the pause: the thread that slept finds the node no longer waiting
    ended = _shown(api)
    assert (ended["provision_state"], ended["power_state"]) == ("clean failed", "power off")
    assert not any("goes on after its wait" in event for event in _events(api))


def test_a_node_waiting_at_a_service_wait_step_can_be_undeployed(api: Api) -> None:
    """Ironic's state machine lets a node in service wait be deleted (Nova deletes the
    instance meanwhile); the servicing's kept steps go with the instance."""
    _node(api, "manage", "provide", "active")
    wait = {"interface": "deploy", "step": "wait"}
    assert _provision(api, {"target": "service", "service_steps": [wait]}).status_code == 202
    assert _shown(api)["provision_state"] == "service wait"

    resp = _provision(api, {"target": "deleted"})
    assert resp.status_code == 202, resp.text
    undeployed = _shown(api)
    assert (undeployed["provision_state"], undeployed["service_step"]) == ("available", {})
    assert "service_steps" not in undeployed["driver_internal_info"]
