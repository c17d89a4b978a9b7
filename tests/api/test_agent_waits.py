"""The wait states of a ``direct`` deploy and of manual cleaning, their abort and timeout,
and the network interface hooks each one calls (Ironic 39's behaviour)."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from metalwire.api.routes.states import DEPLOY_WAIT_ABORT
from metalwire.api_versions import MAX_MINOR
from metalwire.config import Config
from tests.api.test_lifecycle import hook_events, provision
from tests.api.test_metrics import scrape, value
from tests.conftest import Api, fault
from tests.support.helpers import AGENT_RAMDISK, DIRECT_IMAGE

# abort from 'wait call-back' is Ironic's from API 1.110
SERVES_DEPLOY_WAIT_ABORT = MAX_MINOR >= DEPLOY_WAIT_ABORT


@pytest.fixture(autouse=True)
def clean_timeout(config: Config, request: pytest.FixtureRequest) -> None:
    """Set before the app starts (autouse fixtures come first): the check runs every 0.1 s;
    a clean wait times out after 0.3 s in the test about it, never while another test aborts
    it (a slow database would lose that race)."""
    short = request.node.name.startswith("test_a_clean_wait_past_clean_callback_timeout")
    config.conductor.clean_callback_timeout = 0.3 if short else 3600
    config.conductor.check_provision_state_interval = 0.1


def _node(api: Api, deploy_interface: str) -> dict[str, Any]:
    node = api.node(
        name="life",
        deploy_interface=deploy_interface,
        boot_interface="ipxe",  # one that can boot a ramdisk, for the ramdisk deploy
        driver_info=AGENT_RAMDISK,
        instance_info=DIRECT_IMAGE,
    )
    api.port(node, "52:54:00:20:00:01")
    assert provision(api, "manage").status_code == 202
    return node


def _shown(api: Api) -> dict[str, Any]:
    return dict(api.get("/v1/nodes/life").json())


def test_a_direct_deploy_waits_in_wait_call_back_on_the_provisioning_network(api: Api) -> None:
    _node(api, "direct")
    assert provision(api, "provide").status_code == 202

    assert provision(api, "active").status_code == 202

    shown = _shown(api)
    assert (shown["provision_state"], shown["target_provision_state"]) == (
        "wait call-back",
        "active",
    )
    assert hook_events(api)[-1] == "add_provisioning_network done"
    # the newest version below the gate that metalwire serves
    refused = provision(api, "abort", version=f"1.{min(DEPLOY_WAIT_ABORT - 1, MAX_MINOR)}")
    assert refused.status_code == 406, refused.text
    assert "requires API version 1.110" in refused.text
    assert _shown(api)["provision_state"] == "wait call-back"


@pytest.mark.skipif(not SERVES_DEPLOY_WAIT_ABORT, reason="needs MAX_MINOR >= 110")
def test_abort_from_wait_call_back_fails_the_deploy_off_the_provisioning_network(
    api: Api,
) -> None:
    _node(api, "direct")
    assert provision(api, "provide").status_code == 202
    assert provision(api, "active").status_code == 202

    assert provision(api, "abort", version=f"1.{DEPLOY_WAIT_ABORT}").status_code == 202

    shown = _shown(api)
    assert shown["provision_state"] == "deploy failed"
    assert shown["last_error"] == "By request, the deploy operation was aborted"
    assert hook_events(api)[-1] == "remove_provisioning_network done"


def test_a_ramdisk_deploy_goes_to_active_through_the_tenant_networks(api: Api) -> None:
    _node(api, "ramdisk")
    assert provision(api, "provide").status_code == 202

    assert provision(api, "active").status_code == 202

    assert _shown(api)["provision_state"] == "active"
    assert hook_events(api)[-3:] == [
        "add_provisioning_network done",
        "remove_provisioning_network done",
        "configure_tenant_networks done",
    ]


def test_manual_cleaning_waits_in_clean_wait_until_aborted(api: Api) -> None:
    _node(api, "direct")
    steps = [{"interface": "deploy", "step": "erase_devices"}]
    assert api.put("/v1/nodes/life/states/provision", {"target": "clean", "clean_steps": steps})

    shown = _shown(api)
    assert (shown["provision_state"], shown["target_provision_state"]) == (
        "clean wait",
        "manageable",
    )
    assert hook_events(api)[-1] == "add_cleaning_network done"

    assert provision(api, "abort", version="1.13").status_code == 202

    shown = _shown(api)
    assert (shown["provision_state"], shown["target_provision_state"]) == (
        "clean failed",
        "manageable",
    )
    assert shown["last_error"] == "By request, the cleaning operation was aborted"
    assert hook_events(api)[-1] == "remove_cleaning_network done"
    history = api.get("/v1/nodes/life/history?detail=true").json()["history"]
    assert [e["event"] for e in history][-3:] == [
        "abort started from clean wait",
        "flat.remove_cleaning_network done",
        "By request, the cleaning operation was aborted: clean failed",
    ]


def test_a_requested_abort_is_counted_with_the_provision_verbs(api: Api) -> None:
    """An abort changed the node's state and network but was missing from
    metalwire_provision_operations_total, where every other verb is."""
    _node(api, "direct")
    steps = [{"interface": "deploy", "step": "erase_devices"}]
    api.put("/v1/nodes/life/states/provision", {"target": "clean", "clean_steps": steps})
    assert _shown(api)["provision_state"] == "clean wait"
    labels = {"verb": "abort", "network_interface": "flat"}
    before = scrape(api.client)

    assert provision(api, "abort", version="1.13").status_code == 202
    assert provision(api, "abort", version="1.13").status_code == 400  # no longer waiting

    after = scrape(api.client)
    name = "metalwire_provision_operations_total"
    ended = value(after, name, state="clean failed", **labels)
    assert ended - value(before, name, state="clean failed", **labels) == 1
    seconds = "metalwire_provision_duration_seconds_count"
    assert value(after, seconds, **labels) - value(before, seconds, **labels) == 1


def test_a_clean_wait_past_clean_callback_timeout_fails(api: Api) -> None:
    node = _node(api, "direct")
    steps = [{"interface": "deploy", "step": "erase_devices"}]
    api.put("/v1/nodes/life/states/provision", {"target": "clean", "clean_steps": steps})
    assert _shown(api)["provision_state"] == "clean wait"

    deadline = time.monotonic() + 10
    while _shown(api)["provision_state"] == "clean wait" and time.monotonic() < deadline:
        time.sleep(0.05)

    shown = _shown(api)
    assert shown["provision_state"] == "clean failed"
    assert shown["last_error"] == (
        f"Timeout reached while waiting for callback for node {node['uuid']}"
    )
    assert hook_events(api)[-1] == "remove_cleaning_network done"


def _enter_wait(api: Api, wait: str) -> None:
    if wait == "inspect wait":
        api.node(
            name="life",
            inspect_interface="agent",
            boot_interface="ipxe",
            network_interface="noop",
            driver_info=AGENT_RAMDISK,
        )
        api.port(api.get("/v1/nodes/life").json(), "52:54:00:20:00:01")
        assert provision(api, "manage").status_code == 202
        assert provision(api, "inspect").status_code == 202
    elif wait == "clean wait":
        _node(api, "direct")
        steps = [{"interface": "deploy", "step": "erase_devices"}]
        api.put("/v1/nodes/life/states/provision", {"target": "clean", "clean_steps": steps})
    else:
        _node(api, "direct")
        assert provision(api, "provide").status_code == 202
        assert provision(api, "active").status_code == 202
    assert _shown(api)["provision_state"] == wait


@pytest.mark.parametrize(
    ("wait", "failed"),
    [
        ("wait call-back", "deploy failed"),
        ("clean wait", "clean failed"),
        ("inspect wait", "inspect failed"),
    ],
)
def test_a_wait_in_maintenance_outlives_its_timeout_until_maintenance_ends(
    api: Api, config: Config, wait: str, failed: str
) -> None:
    """As Ironic's periodic checks: a node in maintenance is skipped, its wait goes on."""
    _enter_wait(api, wait)
    resp = api.put("/v1/nodes/life/maintenance", {"reason": "looking at it"})
    assert resp.status_code == 202, resp.text
    # Shortened only now, so that the wait cannot expire before the node is in maintenance
    # however slow the machine; each check reads the options anew.
    options = config.conductor
    options.deploy_callback_timeout = options.clean_callback_timeout = 0.3
    options.inspect_wait_timeout = 0.3

    time.sleep(1.0)  # more than three times the 0.3 s timeout, checked every 0.1 s

    assert _shown(api)["provision_state"] == wait
    assert api.delete("/v1/nodes/life/maintenance").status_code == 202
    deadline = time.monotonic() + 10
    while _shown(api)["provision_state"] == wait and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _shown(api)["provision_state"] == failed


def test_abort_outside_a_wait_state_is_refused(api: Api) -> None:
    _node(api, "fake")

    resp = provision(api, "abort")

    assert resp.status_code == 400, resp.text
    assert 'while it is in state "manageable"' in fault(resp)


def test_a_node_waiting_for_its_agent_is_not_patched_but_its_maintenance_is(api: Api) -> None:
    """As Ironic: 409 while a transition is under way; maintenance, traits and, in
    maintenance, removing the instance are still taken."""
    _node(api, "direct")
    assert provision(api, "provide").status_code == 202
    instance = [{"op": "add", "path": "/instance_uuid", "value": str(uuid.uuid4())}]
    assert api.patch("/v1/nodes/life", instance).status_code == 200
    assert provision(api, "active").status_code == 202
    assert _shown(api)["provision_state"] == "wait call-back"

    resp = api.patch("/v1/nodes/life", [{"op": "add", "path": "/extra/a", "value": 1}])
    assert resp.status_code == 409, resp.text
    assert "cannot be updated while a state transition is in progress" in fault(resp)
    assert "('wait call-back' to 'active')" in fault(resp)
    assert _shown(api)["extra"] == {}

    assert api.put("/v1/nodes/life/traits/CUSTOM_A").status_code == 204
    assert api.put("/v1/nodes/life/maintenance", {"reason": "stuck"}).status_code == 202
    removal = [{"op": "remove", "path": "/instance_uuid"}]
    assert api.patch("/v1/nodes/life", removal).status_code == 200
    shown = _shown(api)
    assert (shown["instance_uuid"], shown["maintenance"]) == (None, True)
