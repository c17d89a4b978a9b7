"""A verb's user steps checked against the steps the node's interfaces offer, as Ironic 39's
conductor checks them: a manual cleaning or a servicing that names a step its node does not
offer, or gives it the wrong arguments, fails in ``clean failed`` / ``service failed``
before its network changes; a deploy's steps are refused (400) before anything changes."""

from __future__ import annotations

import time
from typing import Any

from tests.api.test_lifecycle import hook_events
from tests.conftest import Api, fault
from tests.support.helpers import AGENT_RAMDISK, DIRECT_IMAGE

SETTINGS = {"settings": [{"name": "LogicalProc", "value": "Enabled"}]}


def _manageable(api: Api, **fields: Any) -> str:
    node = api.node(name="life", **fields)
    api.port(node, "52:54:00:20:00:01")
    assert _put(api, {"target": "manage"}).status_code == 202
    return str(node["uuid"])


def _active(api: Api) -> str:
    uuid = _manageable(api)
    for verb in ("provide", "active"):
        assert _put(api, {"target": verb}).status_code == 202
    return uuid


def _put(api: Api, body: dict[str, Any], version: str | None = None) -> Any:
    return api.put("/v1/nodes/life/states/provision", body, version=version)


def _clean(api: Api, *steps: dict[str, Any], **more: Any) -> dict[str, Any]:
    response = _put(api, {"target": "clean", "clean_steps": list(steps), **more})
    assert response.status_code == 202, response.text
    return dict(api.get("/v1/nodes/life").json())


def _failures(api: Api) -> list[str]:
    entries = api.get("/v1/nodes/life/history?detail=true").json()["history"]
    return [e["event"] for e in entries if e["severity"] == "ERROR"]


def test_a_clean_step_the_node_does_not_offer_fails_the_cleaning_before_its_network(
    api: Api,
) -> None:
    uuid = _manageable(api)

    shown = _clean(api, {"interface": "deploy", "step": "no_such_step"})

    error = (
        f"Cannot clean node {uuid}: node does not support this clean step: "
        "{'interface': 'deploy', 'step': 'no_such_step'}"
    )
    assert (shown["provision_state"], shown["target_provision_state"]) == (
        "clean failed",
        "manageable",  # a manual cleaning's, as Ironic's cleaning error handler keeps it
    )
    assert shown["last_error"] == error
    assert _failures(api) == [f"clean failed: {error}"]
    assert hook_events(api) == []  # the cleaning network was never set up


def test_a_clean_step_missing_a_required_argument_fails_naming_the_argument(api: Api) -> None:
    uuid = _manageable(api)

    shown = _clean(api, {"interface": "bios", "step": "apply_configuration", "args": {}})

    assert shown["provision_state"] == "clean failed"
    assert shown["last_error"].startswith(
        f"Cannot clean node {uuid}: clean step {{'interface': 'bios', 'step': "
        "'apply_configuration', 'args': {}} is missing these required arguments: settings ("
    )


def test_a_clean_step_given_an_argument_it_does_not_take_fails_naming_it(api: Api) -> None:
    _manageable(api)
    step = {"interface": "vendor", "step": "log_passthrough", "args": {"speed": 3, "force": 1}}

    shown = _clean(api, step)

    assert shown["provision_state"] == "clean failed"
    assert shown["last_error"].endswith(
        f"clean step {step} has these unexpected arguments: force, speed"
    )


def test_every_refused_clean_step_is_named_at_once(api: Api) -> None:
    _manageable(api)

    shown = _clean(
        api,
        {"interface": "raid", "step": "delete_configuration"},  # fake RAID offers no step
        {"interface": "vendor", "step": "log_passthrough"},
        {"interface": "firmware", "step": "update"},
    )

    problems = shown["last_error"].split(": ", 1)[1].split("; ")
    assert [p.split(" {")[0] for p in problems] == [
        "node does not support this clean step:",
        "clean step",
    ]
    assert "'step': 'update'} is missing these required arguments: settings" in problems[1]


def test_the_steps_a_node_offers_clean_it_through_its_cleaning_network(api: Api) -> None:
    _manageable(api)

    shown = _clean(
        api,
        {"interface": "bios", "step": "apply_configuration", "args": SETTINGS},
        {"interface": "firmware", "step": "update", "args": SETTINGS, "order": 2},
        {"interface": "vendor", "step": "log_passthrough"},
        {"interface": "power", "step": "reboot"},  # run by the conductor itself
        # Long enough to be seen waiting on a loaded machine, short enough to wait out.
        {"interface": "deploy", "step": "wait", "args": {"seconds": 3}},
    )

    assert (shown["provision_state"], shown["last_error"]) == ("clean wait", None)
    deadline = time.monotonic() + 30
    while shown["provision_state"] == "clean wait" and time.monotonic() < deadline:
        time.sleep(0.05)
        shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["last_error"]) == ("manageable", None)
    assert hook_events(api) == ["add_cleaning_network done", "remove_cleaning_network done"]


def test_a_step_is_checked_against_the_nodes_own_implementation(api: Api) -> None:
    """``cache_bios_settings`` is the fake BIOS interface's, not Redfish's."""
    uuid = _manageable(api, bios_interface="redfish")
    step = {"interface": "bios", "step": "cache_bios_settings"}

    shown = _clean(api, step)

    assert shown["last_error"] == (
        f"Cannot clean node {uuid}: node does not support this clean step: {step}"
    )


def test_a_direct_nodes_agent_steps_wait_for_the_agent_its_other_steps_are_checked(
    api: Api,
) -> None:
    """The agent's steps are known once its ramdisk reports them: the cleaning waits for it,
    as Ironic's; a step no ramdisk can add is refused at once."""
    fields = {"deploy_interface": "direct", "boot_interface": "ipxe"}
    uuid = _manageable(api, driver_info=AGENT_RAMDISK, instance_info=DIRECT_IMAGE, **fields)

    waiting = _clean(api, {"interface": "deploy", "step": "erase_devices", "args": {"x": 1}})
    assert (waiting["provision_state"], waiting["last_error"]) == ("clean wait", None)
    assert _put(api, {"target": "abort"}).status_code == 202
    assert _put(api, {"target": "manage"}).status_code == 202

    shown = _clean(api, {"interface": "bios", "step": "no_such_step"})
    assert shown["provision_state"] == "clean failed"
    assert shown["last_error"].startswith(f"Cannot clean node {uuid}: node does not support")


def test_without_the_ramdisk_agent_steps_and_steps_needing_it_are_refused(api: Api) -> None:
    fields = {"deploy_interface": "direct", "boot_interface": "ipxe"}
    uuid = _manageable(api, driver_info=AGENT_RAMDISK, instance_info=DIRECT_IMAGE, **fields)
    agent_step = {"interface": "deploy", "step": "erase_devices"}
    in_band = {"interface": "bios", "step": "factory_reset"}

    shown = _clean(api, agent_step, in_band, disable_ramdisk=True)

    assert shown["provision_state"] == "clean failed"
    assert shown["last_error"] == (
        f"Cannot clean node {uuid}: node does not support this clean step: {agent_step}; "
        f"clean step {in_band} requires booting a ramdisk"
    )


def test_a_service_step_the_node_does_not_offer_fails_the_servicing(api: Api) -> None:
    uuid = _active(api)
    step = {"interface": "deploy", "step": "no_such_step"}

    response = _put(api, {"target": "service", "service_steps": [step]})

    assert response.status_code == 202, response.text
    shown = api.get("/v1/nodes/life").json()
    error = f"Cannot service node {uuid}: node does not support this service step: {step}"
    assert (shown["provision_state"], shown["last_error"]) == ("service failed", error)
    assert _failures(api) == [f"service failed: {error}"]


def test_an_abort_gives_a_failed_servicing_node_back_to_its_instance(api: Api) -> None:
    """As Ironic 39: ``abort`` takes a node from ``service failed`` back to ``active``,
    saying why in ``last_error``; from ``active`` there is nothing to abort."""
    _active(api)
    step = {"interface": "deploy", "step": "no_such_step"}
    assert _put(api, {"target": "service", "service_steps": [step]}).status_code == 202

    response = _put(api, {"target": "abort"})

    assert response.status_code == 202, response.text
    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["target_provision_state"]) == ("active", None)
    assert shown["last_error"] == "By request, the service operation was aborted"
    again = _put(api, {"target": "abort"})
    assert again.status_code == 400, again.text
    assert 'while it is in state "active"' in fault(again)


def test_the_service_steps_a_node_offers_service_it(api: Api) -> None:
    _active(api)
    steps = [
        {"interface": "vendor", "step": "log_passthrough"},
        {"interface": "deploy", "step": "hold"},
    ]

    response = _put(api, {"target": "service", "service_steps": steps})

    assert response.status_code == 202, response.text
    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["last_error"]) == ("service hold", None)
    assert _put(api, {"target": "unhold"}).status_code == 202
    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["last_error"]) == ("active", None)


def _available(api: Api, **fields: Any) -> str:
    uuid = _manageable(api, **fields)
    assert _put(api, {"target": "provide"}).status_code == 202
    return uuid


def _deploy(api: Api, *steps: dict[str, Any]) -> Any:
    return _put(api, {"target": "active", "deploy_steps": list(steps)})


def test_a_deploy_step_may_not_give_the_core_deploy_step_a_priority(api: Api) -> None:
    uuid = _available(api)

    response = _deploy(api, {"interface": "deploy", "step": "deploy", "args": {}, "priority": 50})

    assert response.status_code == 400, response.text
    assert fault(response) == (
        f"Failed to validate deploy or power info for node {uuid}: Validation of deploy steps "
        'from "deploy steps" argument failed.deploy step deploy on interface deploy is a core '
        "step and cannot be overridden by user steps. It may be disabled by setting the "
        "priority to 0"
    )
    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["last_error"]) == ("available", None)


def test_a_deploy_step_missing_its_arguments_is_refused_unless_disabled(api: Api) -> None:
    _available(api, raid_interface="redfish")
    step = {"interface": "raid", "step": "apply_configuration", "args": {}, "priority": 10}

    refused = _deploy(api, step)
    assert refused.status_code == 400, refused.text
    assert f"deploy step {step} is missing these required arguments: raid_config (" in fault(
        refused
    )

    assert _deploy(api, {**step, "priority": 0}).status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"


def test_a_deploy_step_no_interface_offers_is_left_for_an_agent(api: Api) -> None:
    """Ironic checks such a step again only once an agent reports its steps."""
    _available(api)

    response = _deploy(
        api, {"interface": "bios", "step": "no_such_step", "args": {}, "priority": 5}
    )

    assert response.status_code == 202, response.text
    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["last_error"]) == ("active", None)


def test_a_deploy_step_named_twice_is_refused(api: Api) -> None:
    _available(api, raid_interface="redfish")
    step = {"interface": "raid", "step": "delete_configuration", "args": {}, "priority": 10}

    response = _deploy(api, step, {**step, "priority": 20})

    assert response.status_code == 400, response.text
    assert fault(response).endswith("Duplicate deploy steps for raid.delete_configuration")


def test_a_cleaning_of_out_of_band_steps_boots_no_ramdisk_and_needs_no_cleaning_network(
    api: Api,
) -> None:
    """Redfish's BIOS steps run out of band: even a ``direct`` node's cleaning sets up no
    cleaning network and waits for no agent, as Ironic's detects it."""
    fields = {"deploy_interface": "direct", "boot_interface": "ipxe", "bios_interface": "redfish"}
    _manageable(api, driver_info=AGENT_RAMDISK, instance_info=DIRECT_IMAGE, **fields)

    shown = _clean(
        api,
        {"interface": "bios", "step": "apply_configuration", "args": SETTINGS},
        {"interface": "power", "step": "reboot"},
    )

    assert (shown["provision_state"], shown["last_error"]) == ("manageable", None)
    assert hook_events(api) == []


def test_a_cleaning_without_the_ramdisk_needs_no_cleaning_network(api: Api) -> None:
    _manageable(api, vendor_interface="ipmitool")
    step = {"interface": "vendor", "step": "send_raw", "args": {"raw_bytes": "0x00 0x01"}}

    shown = _clean(api, step, disable_ramdisk=True)

    assert (shown["provision_state"], shown["last_error"]) == ("manageable", None)
    assert hook_events(api) == []
    # a step needing the ramdisk still boots it, on the cleaning network
    _clean(
        api,
        {"interface": "vendor", "step": "send_raw", "args": {"raw_bytes": "0x00"}},
        {"interface": "bios", "step": "factory_reset"},
    )
    assert hook_events(api) == ["add_cleaning_network done", "remove_cleaning_network done"]
