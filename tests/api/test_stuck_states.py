"""A node left in a transient provision state by a process that stopped half-way (``deploying``
with nobody deploying it) is failed, as Ironic fails it at a conductor's start and take-over:
by the periodic provision check once its lock is free, and by any operation that takes its
lock. The crash itself, with a real process killed, is tests/integration/test_provision_crash.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from metalwire.conductor.stuck_states import FAILED_STATES
from metalwire.config import Config
from metalwire.db.engine import Database
from tests.api.test_lifecycle import provision
from tests.conftest import Api, fault

NO_CHECK = "test_an_operation_on_a_stuck_node"


@pytest.fixture(autouse=True)
def check_interval(config: Config, request: pytest.FixtureRequest) -> None:
    """Set before the app starts: the check runs every 0.1 s, except where a test shows that
    an operation fails the node without it."""
    no_check = request.node.name.startswith(NO_CHECK)
    config.conductor.check_provision_state_interval = 3600 if no_check else 0.1


@pytest.fixture
def db(config: Config) -> Iterator[Database]:
    database = Database(config.database_url())
    yield database
    database.dispose()


def _left_in(db: Database, name: str, state: str, target: str | None, **more: Any) -> None:
    """What a process that died half-way through a verb leaves, in one commit: the transient
    state, its target, and (``more``) its lease or a power change under way."""
    with db.writing() as work:
        node = work.nodes.get(name)
        work.nodes.update(node.id, {"provision_state": state, "target_provision_state": target})
        if more:
            work.nodes.update(node.id, more)


def _shown(api: Api, name: str) -> dict[str, Any]:
    return dict(api.get(f"/v1/nodes/{name}").json())


def _wait_for_state(api: Api, name: str, state: str, within: float = 10) -> dict[str, Any]:
    deadline = time.monotonic() + within
    shown = _shown(api, name)
    while shown["provision_state"] != state and time.monotonic() < deadline:
        time.sleep(0.05)
        shown = _shown(api, name)
    return shown


# Where Ironic 39's state machine leaves the target of a node failed out of each state: a
# failure state keeps one, the stable enroll and error none.
TARGET_AFTER = {
    "adopt failed": "active",
    "clean failed": "available",
    "deploy failed": "active",
    "enroll": None,
    "error": None,
    "inspect failed": "manageable",
    "rescue failed": "rescue",
    "service failed": "active",
    "unrescue failed": "active",
}


@pytest.mark.parametrize(("state", "failed"), sorted(FAILED_STATES.items()))
def test_the_provision_check_fails_a_node_left_in_a_transient_state(
    api: Api, db: Database, state: str, failed: str
) -> None:
    api.node(name="stuck")
    _left_in(db, "stuck", state, "active")

    shown = _wait_for_state(api, "stuck", failed)

    assert (shown["provision_state"], shown["target_provision_state"]) == (
        failed,
        TARGET_AFTER[failed],
    )
    assert shown["last_error"] == (
        f"The operation in {state!r} was cut short (its process stopped) and cannot be "
        f"resumed; the node was moved to {failed!r}."
    )
    last = api.get("/v1/nodes/stuck/history?detail=true").json()["history"][-1]
    assert (last["event"], last["severity"], last["event_type"]) == (
        shown["last_error"],
        "ERROR",
        "provisioning",
    )


def test_a_manual_cleaning_cut_short_keeps_heading_for_manageable(api: Api, db: Database) -> None:
    """As Ironic's cleaning error handler: a manual cleaning's failure keeps the target
    manageable, an automated one's is available."""
    api.node(name="stuck")
    _left_in(db, "stuck", "cleaning", "manageable")

    shown = _wait_for_state(api, "stuck", "clean failed")

    assert shown["target_provision_state"] == "manageable"


@pytest.mark.parametrize(
    ("kind", "state", "target", "failed"),
    [
        ("clean", "cleaning", "manageable", "clean failed"),
        ("service", "servicing", "active", "service failed"),
    ],
)
def test_a_cleaning_or_servicing_cut_short_at_a_step_keeps_no_stale_step(
    api: Api, db: Database, kind: str, state: str, target: str, failed: str
) -> None:
    """As Ironic's cleaning and servicing error handlers: the failed node shows no current
    step, and keeps none of the steps it was running, until its next verb."""
    step = {"interface": "power", "step": "power_off"}
    kept = {
        f"{kind}_steps": [step, {"interface": "power", "step": "power_on"}],
        f"{kind}_step_index": 0,
        "cleaning_disable_ramdisk" if kind == "clean" else "service_disable_ramdisk": True,
        "is_whole_disk_image": True,  # not the steps': kept
    }
    api.node(name="stuck")
    _left_in(db, "stuck", state, target, **{f"{kind}_step": step, "driver_internal_info": kept})

    shown = _wait_for_state(api, "stuck", failed)

    assert shown["provision_state"] == failed
    assert shown[f"{kind}_step"] == {}
    assert shown["driver_internal_info"] == {"is_whole_disk_image": True}


def test_the_provision_check_leaves_steady_and_wait_states_alone(api: Api, db: Database) -> None:
    for name, state in (("waiting", "wait call-back"), ("deployed", "active")):
        api.node(name=name)
        _left_in(db, name, state, "active" if name == "waiting" else None)
    api.node(name="stuck")
    _left_in(db, "stuck", "cleaning", "available")

    assert _wait_for_state(api, "stuck", "clean failed")["provision_state"] == "clean failed"

    assert _shown(api, "waiting")["provision_state"] == "wait call-back"
    assert _shown(api, "deployed")["provision_state"] == "active"
    assert _shown(api, "deployed")["last_error"] is None


def test_a_node_whose_holder_still_has_a_lease_is_left_to_it(api: Api, db: Database) -> None:
    api.node(name="busy")
    lease_ends = time.time() + 4.0  # slack for a loaded machine: the check runs every 0.1 s
    _left_in(db, "busy", "deploying", "active", reservation="other-process",
             lock_expires_at=lease_ends)  # fmt: skip

    time.sleep(1.0)  # ten checks while the lease holds
    assert _shown(api, "busy")["provision_state"] == "deploying"
    assert time.time() < lease_ends  # or the check above proved nothing

    shown = _wait_for_state(api, "busy", "deploy failed")
    assert shown["provision_state"] == "deploy failed"
    assert time.time() >= lease_ends


def test_an_operation_on_a_stuck_node_fails_it_first(api: Api, db: Database) -> None:
    """No periodic check here: the undeploy's own lock finds the node in 'deploying', fails
    it, and the undeploy then runs from 'deploy failed'."""
    api.node(name="stuck")
    _left_in(db, "stuck", "deploying", "active")

    assert provision(api, "deleted", "stuck").status_code == 202

    shown = _shown(api, "stuck")
    assert (shown["provision_state"], shown["target_provision_state"]) == ("available", None)
    events = [e["event"] for e in api.get("/v1/nodes/stuck/history").json()["history"]]
    failed = events.index("deleted started from deploy failed") - 1
    assert events[failed].startswith("The operation in 'deploying' was cut short")
    assert events[-1] == "deleted done: available"
    assert shown["last_error"] is None  # the undeploy that followed succeeded


def test_an_operation_on_a_stuck_node_that_fails_validation_still_fails_the_node(
    api: Api, db: Database
) -> None:
    """A refused verb (provide from 'deploy failed' is not allowed) leaves the node failed
    all the same: the recovery is its own write, not the verb's."""
    api.node(name="stuck")
    _left_in(db, "stuck", "deploying", "active")

    resp = provision(api, "provide", "stuck")

    assert resp.status_code == 400, resp.text
    assert 'while it is in state "deploy failed"' in fault(resp)
    assert _shown(api, "stuck")["provision_state"] == "deploy failed"


POWER_CUT_SHORT = (
    "The power change to 'power on' was cut short (its process stopped); the power state "
    "shown, 'power off', may not be the machine's."
)


def _power_change_left(db: Database, name: str, **lock: Any) -> None:
    """What a process that died between a power change's two writes leaves (its lease, if
    ``lock``): the target set, the power state not yet changed."""
    with db.writing() as work:
        node = work.nodes.get(name)
        work.nodes.update(node.id, {"power_state": "power off", "target_power_state": "power on"})
        if lock:
            work.nodes.update(node.id, lock)


def _wait_for_power_target_cleared(api: Api, name: str, within: float = 10) -> dict[str, Any]:
    deadline = time.monotonic() + within
    shown = _shown(api, name)
    while shown["target_power_state"] is not None and time.monotonic() < deadline:
        time.sleep(0.05)
        shown = _shown(api, name)
    return shown


def test_the_provision_check_clears_a_power_change_its_dead_holder_left(
    api: Api, db: Database
) -> None:
    """As Ironic does when a conductor restarts: target_power_state cleared, last_error set;
    the lease the dead process held runs out first."""
    api.node(name="cut")
    lease_ends = time.time() + 2.0
    _power_change_left(db, "cut", reservation="dead-process", lock_expires_at=lease_ends)

    time.sleep(0.5)  # checks while the lease holds
    assert _shown(api, "cut")["target_power_state"] == "power on"
    assert time.time() < lease_ends  # or the check above proved nothing

    shown = _wait_for_power_target_cleared(api, "cut")

    assert time.time() >= lease_ends
    assert (shown["power_state"], shown["target_power_state"]) == ("power off", None)
    assert shown["last_error"] == POWER_CUT_SHORT
    assert shown["provision_state"] == "enroll"  # a steady state: not touched
    assert shown["reservation"] is None
    last = api.get("/v1/nodes/cut/history?detail=true").json()["history"][-1]
    assert (last["event"], last["severity"], last["event_type"]) == (
        POWER_CUT_SHORT,
        "ERROR",
        "power",
    )


def test_an_operation_on_a_stuck_node_clears_its_power_change_first(api: Api, db: Database) -> None:
    """No periodic check: the next power change takes the lock, clears what the dead one
    left, and runs."""
    api.node(name="cut")
    _power_change_left(db, "cut")

    resp = api.put("/v1/nodes/cut/states/power", {"target": "power on"})

    assert resp.status_code == 202, resp.text
    shown = _shown(api, "cut")
    assert (shown["power_state"], shown["target_power_state"]) == ("power on", None)
    assert shown["last_error"] is None  # the change that followed succeeded
    events = [e["event"] for e in api.get("/v1/nodes/cut/history").json()["history"]]
    assert events[-2:][0] == POWER_CUT_SHORT
    assert events[-1].startswith("power on")


def test_an_operation_on_a_stuck_node_that_is_refused_still_clears_the_power_change(
    api: Api, db: Database
) -> None:
    """A refused change (an unknown target) does not roll the recovery back."""
    api.node(name="cut")
    _power_change_left(db, "cut")

    resp = api.put("/v1/nodes/cut/states/power", {"target": "sideways"})

    assert resp.status_code == 400, resp.text
    shown = _shown(api, "cut")
    assert (shown["target_power_state"], shown["last_error"]) == (None, POWER_CUT_SHORT)


def test_a_node_stuck_deploying_with_a_power_change_keeps_the_deploy_failure_as_last_error(
    api: Api, db: Database
) -> None:
    api.node(name="both")
    # One commit: the check every 0.1 s must not fail the deploy before the power change is
    # there, then clear the power change on its own and leave its error last.
    _left_in(
        db, "both", "deploying", "active", power_state="power off", target_power_state="power on"
    )

    shown = _wait_for_state(api, "both", "deploy failed")

    assert shown["target_power_state"] is None
    assert shown["last_error"].startswith("The operation in 'deploying' was cut short")
    entries = api.get("/v1/nodes/both/history?detail=true").json()["history"][-2:]
    assert [(e["event_type"], e["severity"]) for e in entries] == [
        ("power", "ERROR"),
        ("provisioning", "ERROR"),
    ]
    assert entries[0]["event"] == POWER_CUT_SHORT
