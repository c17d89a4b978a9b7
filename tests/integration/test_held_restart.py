"""A node held by a ``hold`` step (``clean hold``) when its server is killed (SIGKILL): the
restarted server shows it held at that step, and ``unhold`` resumes the rest, or ``abort``
then ``unhold`` ends it aborted: everything the hold needs is stored with its state.

A cleaning or a servicing waiting at a timed ``wait`` step when its server is stopped
(SIGKILL, or SIGTERM): the restarted server goes on waiting for the time left only, then runs
the steps after it, and the node ends where an uninterrupted one ends, with no request."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.87"}  # servicing: 1.87
HOLD = {"interface": "deploy", "step": "hold"}
POWER_OFF = {"interface": "power", "step": "power_off"}
POWER_ON = {"interface": "power", "step": "power_on"}
STEPS = [POWER_OFF, HOLD, POWER_ON]
SECONDS = 3
WAIT = {"interface": "deploy", "step": "wait", "args": {"seconds": SECONDS}}
# What a restart may add to the wait: the server's start, the poll.
MARGIN = 10.0


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def server(data_dir: Path) -> Iterator[MetalwireServer]:
    with MetalwireServer(data_dir) as running:
        yield running


def _call(server: MetalwireServer, method: str, path: str, body: Any = None) -> httpx.Response:
    return httpx.request(method, server.url + path, headers=HEADERS, json=body, timeout=30)


def _held_node(server: MetalwireServer, name: str) -> None:
    assert _call(server, "POST", "/v1/nodes", {"driver": "fake-hardware", "name": name}).is_success
    url = f"/v1/nodes/{name}/states/provision"
    assert _call(server, "PUT", url, {"target": "manage"}).status_code == 202
    assert _call(server, "PUT", url, {"target": "clean", "clean_steps": STEPS}).status_code == 202
    assert _call(server, "GET", f"/v1/nodes/{name}").json()["provision_state"] == "clean hold"


def test_a_node_held_when_its_server_dies_is_unheld_or_aborted_after_the_restart(
    server: MetalwireServer, data_dir: Path
) -> None:
    _held_node(server, "kept")
    _held_node(server, "dropped")
    server.kill()

    with MetalwireServer(data_dir) as again:
        kept = _call(again, "GET", "/v1/nodes/kept").json()
        assert (kept["provision_state"], kept["clean_step"]) == ("clean hold", HOLD)
        assert kept["driver_internal_info"]["clean_step_index"] == 1

        unhold = {"target": "unhold"}
        assert _call(again, "PUT", "/v1/nodes/kept/states/provision", unhold).status_code == 202
        kept = _call(again, "GET", "/v1/nodes/kept").json()
        assert (kept["provision_state"], kept["power_state"]) == ("manageable", "power on")

        url = "/v1/nodes/dropped/states/provision"
        assert _call(again, "PUT", url, {"target": "abort"}).status_code == 202
        assert _call(again, "PUT", url, unhold).status_code == 202
        dropped = _call(again, "GET", "/v1/nodes/dropped").json()
        assert (dropped["provision_state"], dropped["power_state"]) == ("clean failed", "power off")
        assert dropped["clean_step"] == {}


def _provision(server: MetalwireServer, body: dict[str, Any]) -> None:
    resp = _call(server, "PUT", "/v1/nodes/waiting/states/provision", body)
    assert resp.status_code == 202, resp.text


def _shown(server: MetalwireServer) -> dict[str, Any]:
    return dict(_call(server, "GET", "/v1/nodes/waiting").json())


def _until_left(server: MetalwireServer, state: str, deadline: float) -> dict[str, Any]:
    while _shown(server)["provision_state"] == state and time.monotonic() < deadline:
        time.sleep(0.1)
    return _shown(server)


def _events(server: MetalwireServer) -> list[str]:
    history = _call(server, "GET", "/v1/nodes/waiting/history").json()["history"]
    return [entry["event"] for entry in history]


def _node(server: MetalwireServer, *verbs: str) -> None:
    body = {"driver": "fake-hardware", "name": "waiting"}
    assert _call(server, "POST", "/v1/nodes", body).is_success
    for verb in verbs:
        _provision(server, {"target": verb})


@pytest.mark.parametrize("stop", ["kill", "stop"])
def test_a_timed_clean_wait_goes_on_after_a_restart_and_the_cleaning_ends(
    server: MetalwireServer, data_dir: Path, stop: str
) -> None:
    _node(server, "manage")
    began = time.monotonic()
    _provision(server, {"target": "clean", "clean_steps": [POWER_OFF, WAIT, POWER_ON]})
    waiting = _shown(server)
    assert (waiting["provision_state"], waiting["clean_step"]) == ("clean wait", WAIT)
    getattr(server, stop)()  # SIGKILL, or SIGTERM: a clean stop cuts the wait short

    with MetalwireServer(data_dir) as again:
        done = _until_left(again, "clean wait", began + SECONDS + MARGIN)
        ended = time.monotonic()
        assert (done["provision_state"], done["target_provision_state"]) == ("manageable", None)
        assert done["power_state"] == "power on"  # the step after the wait ran
        assert ended - began >= SECONDS  # the wait was not cut short
        assert done["clean_step"] == {}
        assert done["last_error"] is None
        kept = done["driver_internal_info"]
        assert not {k for k in kept if k.startswith(("clean_step", "metalwire_"))}, kept
        assert "clean done: manageable" in _events(again)


def test_a_timed_service_wait_goes_on_after_a_restart_and_the_node_is_active_again(
    server: MetalwireServer, data_dir: Path
) -> None:
    _node(server, "manage", "provide", "active")
    began = time.monotonic()
    _provision(server, {"target": "service", "service_steps": [WAIT, POWER_OFF]})
    waiting = _shown(server)
    assert (waiting["provision_state"], waiting["service_step"]) == ("service wait", WAIT)
    server.kill()

    with MetalwireServer(data_dir) as again:
        done = _until_left(again, "service wait", began + SECONDS + MARGIN)
        ended = time.monotonic()
        assert (done["provision_state"], done["target_provision_state"]) == ("active", None)
        assert done["power_state"] == "power off"  # the step after the wait ran
        assert ended - began >= SECONDS
        assert done["service_step"] == {}
        kept = done["driver_internal_info"]
        assert not {k for k in kept if k.startswith(("service_step", "metalwire_"))}, kept


def test_abort_ends_a_timed_wait_resumed_after_a_restart(
    server: MetalwireServer, data_dir: Path
) -> None:
    _node(server, "manage")
    began = time.monotonic()
    _provision(server, {"target": "clean", "clean_steps": [POWER_ON, WAIT, POWER_OFF]})
    assert _shown(server)["provision_state"] == "clean wait"
    server.kill()

    with MetalwireServer(data_dir) as again:
        _provision(again, {"target": "abort"})
        aborted = _shown(again)
        assert aborted["provision_state"] == "clean failed"
        assert aborted["clean_step"] == {}
        assert not {k for k in aborted["driver_internal_info"] if k.startswith("metalwire_")}
        # past the end of the wait, the resumed wait has not run the step after it
        time.sleep(max(0.0, began + SECONDS + 1 - time.monotonic()))
        after = _shown(again)
        assert (after["provision_state"], after["power_state"]) == ("clean failed", "power on")
        assert not [e for e in _events(again) if "goes on after its wait" in e]
