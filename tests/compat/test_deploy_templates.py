"""The ``baremetal deploy template`` commands against a real server, each flag of each
(``baremetal deploy template create`` answered 404 before metalwire served 1.55's deploy
templates)."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from tests.compat.clients import Cli
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

STEPS = [
    {
        "interface": "bios",
        "step": "apply_configuration",
        "args": {"settings": [{"name": "LogicalProc", "value": "Enabled"}]},
        "priority": 150,
    }
]


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_create_list_show_set_unset_delete(baremetal: Cli, compat_server: MetalwireServer) -> None:
    """Each command once, with the flags it takes together (the API tests pin each flag's
    meaning); what a command leaves is read back through the API."""
    suffix = uuid.uuid4().hex[:8].upper()
    name, renamed = f"CUSTOM_HT_ON_{suffix}", f"CUSTOM_HT_OFF_{suffix}"
    template = str(uuid.uuid4())
    created = baremetal.json(
        "deploy", "template", "create", name, "--uuid", template,
        "--steps", json.dumps(STEPS), "--extra", "rack=7", "--extra", "row=a",
    )  # fmt: skip
    assert (created["uuid"], created["name"]) == (template, name)
    assert created["steps"] == STEPS and created["extra"] == {"rack": 7, "row": "a"}

    listed = baremetal.json(
        "deploy", "template", "list", "--long", "--sort", "name:desc", "--limit", "0"
    )  # fmt: skip
    (mine,) = [t for t in listed if t["uuid"] == template]
    assert (mine["name"], mine["steps"]) == (name, STEPS)

    steps = [{**STEPS[0], "priority": 90}]
    baremetal.ok(
        "deploy", "template", "set", name, "--name", renamed,
        "--steps", json.dumps(steps), "--extra", "row=b",
    )  # fmt: skip
    shown = baremetal.json("deploy", "template", "show", renamed, "--fields", "name", "steps")
    assert shown == {"name": renamed, "steps": steps}

    baremetal.ok("deploy", "template", "unset", renamed, "--extra", "rack")
    url = f"{compat_server.url}/v1/deploy_templates/{template}"
    headers = {"X-OpenStack-Ironic-API-Version": "1.55"}
    assert httpx.get(url, headers=headers).json()["extra"] == {"row": "b"}

    deleted = baremetal.ok("deploy", "template", "delete", renamed)
    assert f"Deleted deploy template {renamed}" in deleted.stdout + deleted.stderr
    assert httpx.get(url, headers=headers).status_code == 404
