"""The ``baremetal runbook`` commands and ``baremetal node clean --runbook`` against a real
server, each once with the flags it takes together (``baremetal runbook create`` answered
404 before metalwire served 1.92's runbooks; the API tests pin each flag's meaning)."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

STEPS = [{"interface": "vendor", "step": "log_passthrough", "args": {}, "order": 1}]


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_runbook_commands_and_a_node_cleaned_by_runbook(
    baremetal: Cli, compat_server: MetalwireServer
) -> None:
    name, renamed = unique("rb"), unique("rb")
    runbook = str(uuid.uuid4())
    created = baremetal.json(
        "runbook", "create", "--name", name, "--uuid", runbook, "--steps", json.dumps(STEPS),
        "--description", "logs a line", "--extra", "rack=7", "--disable-ramdisk",
    )  # fmt: skip
    assert (created["uuid"], created["name"], created["steps"]) == (runbook, name, STEPS)
    assert (created["description"], created["disable_ramdisk"]) == ("logs a line", True)
    assert created["extra"] == {"rack": 7}

    listed = baremetal.json("runbook", "list", "--long", "--sort", "name:desc", "--limit", "0")
    (mine,) = [r for r in listed if r["uuid"] == runbook]
    assert (mine["name"], mine["steps"]) == (name, STEPS)

    steps = [{**STEPS[0], "order": 5}]
    baremetal.ok(
        "runbook", "set", name, "--name", renamed, "--steps", json.dumps(steps),
        "--extra", "row=b", "--description", "still logs", "--disable-ramdisk", "false",
    )  # fmt: skip
    baremetal.ok("runbook", "trait", "add", renamed, "CUSTOM_RUNBOOKS_OK")
    shown = baremetal.json(
        "runbook", "show", renamed, "--fields", "name", "steps", "traits", "disable_ramdisk"
    )  # fmt: skip
    assert shown == {
        "name": renamed,
        "steps": steps,
        "traits": ["CUSTOM_RUNBOOKS_OK"],
        "disable_ramdisk": False,
    }

    http = httpx.Client(
        base_url=compat_server.url, headers={"X-OpenStack-Ironic-API-Version": "1.112"}
    )
    with http:
        node = http.post("/v1/nodes", json={"driver": "fake-hardware"}).json()["uuid"]
        assert http.put(f"/v1/nodes/{node}/traits/CUSTOM_RUNBOOKS_OK").status_code == 204
        manage = http.put(f"/v1/nodes/{node}/states/provision", json={"target": "manage"})
        assert manage.status_code == 202, manage.text
        baremetal.ok("node", "clean", "--wait", "60", "--runbook", renamed, node)
        cleaned = http.get(f"/v1/nodes/{node}").json()
        assert (cleaned["provision_state"], cleaned["last_error"]) == ("manageable", None)

        deleted = baremetal.ok("runbook", "delete", renamed)
        assert f"Deleted runbook {renamed}" in deleted.stdout + deleted.stderr
        assert http.get(f"/v1/runbooks/{runbook}").status_code == 404
