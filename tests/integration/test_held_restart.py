"""A node held by a ``hold`` step (``clean hold``) when its server is killed (SIGKILL): the
restarted server shows it held at that step, and ``unhold`` resumes the rest, or ``abort``
then ``unhold`` ends it aborted: everything the hold needs is stored with its state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.85"}
HOLD = {"interface": "deploy", "step": "hold"}
STEPS = [
    {"interface": "power", "step": "power_off"},
    HOLD,
    {"interface": "power", "step": "power_on"},
]


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
