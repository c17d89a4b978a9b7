"""Hardware inspection (``inspect``) as Ironic 39 answers it: the ``fake`` inspect interface
finishes at once, ``no-inspect`` refuses, ``agent`` waits in ``inspect wait`` until an abort or
``[conductor] inspect_wait_timeout``; and ``GET /v1/nodes/{node}/inventory``."""

from __future__ import annotations

import time
from typing import Any

import pytest

from metalwire.config import Config
from tests.api.test_lifecycle import provision
from tests.conftest import Api, fault
from tests.support.helpers import AGENT_RAMDISK


@pytest.fixture(autouse=True)
def inspect_timeout(config: Config, request: pytest.FixtureRequest) -> None:
    """Set before the app starts: the provision check runs every 0.1 s; an inspection
    waits 0.3 s in the test about its timeout, an hour in the others."""
    short = request.node.name.startswith("test_an_inspect_wait_past_inspect_wait_timeout")
    config.conductor.inspect_wait_timeout = 0.3 if short else 3600
    config.conductor.check_provision_state_interval = 0.1


def _manageable(api: Api, **fields: Any) -> dict[str, Any]:
    node = api.node(name="life", **fields)
    assert provision(api, "manage").status_code == 202
    return node


def _agent_node(api: Api) -> dict[str, Any]:
    """A node an agent inspection can boot: an iPXE boot interface, the deploy ramdisk, a
    port, nothing to set up on the network (noop)."""
    node = api.node(
        name="life",
        inspect_interface="agent",
        boot_interface="ipxe",
        network_interface="noop",
        driver_info=AGENT_RAMDISK,
    )
    api.port(node, "52:54:00:30:00:01")
    assert provision(api, "manage").status_code == 202
    return node


def _shown(api: Api, version: str | None = None) -> dict[str, Any]:
    return dict(api.get("/v1/nodes/life", version=version).json())


def _events(api: Api) -> list[str]:
    history = api.get("/v1/nodes/life/history?detail=true").json()["history"]
    return [e["event"] for e in history]


def test_fake_inspection_of_a_manageable_node_ends_in_manageable(api: Api) -> None:
    _manageable(api)

    resp = provision(api, "inspect")

    assert resp.status_code == 202, resp.text
    shown = _shown(api)
    assert (shown["provision_state"], shown["target_provision_state"]) == ("manageable", None)
    assert shown["last_error"] is None
    assert shown["inspection_finished_at"] is not None
    assert shown["inspection_started_at"] is None
    assert _events(api)[-2:] == ["inspect started from manageable", "inspect done: manageable"]


def test_inspect_is_refused_outside_manageable_and_inspect_failed(api: Api) -> None:
    api.node(name="life")  # enroll

    resp = provision(api, "inspect")

    assert resp.status_code == 400, resp.text
    assert 'The requested action "inspect" can not be performed' in fault(resp)
    assert 'while it is in state "enroll"' in fault(resp)
    assert _shown(api)["provision_state"] == "enroll"


def test_inspect_needs_api_1_6(api: Api) -> None:
    _manageable(api)

    resp = provision(api, "inspect", version="1.5")

    assert resp.status_code == 406, resp.text
    assert "requires API version 1.6" in fault(resp)
    assert _shown(api)["provision_state"] == "manageable"


def test_no_inspect_is_refused_as_ironic_refuses_it(api: Api) -> None:
    _manageable(api, inspect_interface="no-inspect")

    resp = provision(api, "inspect")

    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        "Driver fake-hardware does not support inspect (disabled or not implemented)."
    )
    shown = _shown(api)
    assert (shown["provision_state"], shown["target_provision_state"]) == ("manageable", None)
    assert shown["inspection_started_at"] is None


def test_redfish_inspection_needs_the_bmc_address(api: Api) -> None:
    _manageable(api, inspect_interface="redfish")

    resp = provision(api, "inspect")

    assert resp.status_code == 400, resp.text
    assert "redfish inspect interface needs driver_info/redfish_address" in fault(resp)
    assert _shown(api)["provision_state"] == "manageable"


def test_a_node_in_maintenance_is_inspected_as_ironic_does(api: Api) -> None:
    _manageable(api)
    assert api.put("/v1/nodes/life/maintenance", {"reason": "x"}).status_code == 202

    assert provision(api, "inspect").status_code == 202

    assert _shown(api)["provision_state"] == "manageable"


def test_agent_inspection_waits_in_inspect_wait_until_aborted(api: Api) -> None:
    _agent_node(api)

    assert provision(api, "inspect").status_code == 202

    shown = _shown(api)
    assert (shown["provision_state"], shown["target_provision_state"]) == (
        "inspect wait",
        "manageable",
    )
    assert shown["inspection_started_at"] is not None
    assert shown["power_state"] == "power on"  # booted into the inspection ramdisk
    # before 1.39 the wait was called inspecting, as in Ironic
    assert _shown(api, version="1.38")["provision_state"] == "inspecting"
    states = api.get("/v1/nodes/life/states", version="1.38").json()
    assert states["provision_state"] == "inspecting"
    refused = provision(api, "abort", version="1.40")
    assert refused.status_code == 406, refused.text
    assert "requires API version 1.41" in fault(refused)
    assert _shown(api)["provision_state"] == "inspect wait"

    assert provision(api, "abort", version="1.41").status_code == 202

    shown = _shown(api)
    assert (shown["provision_state"], shown["target_provision_state"]) == (
        "inspect failed",
        "manageable",  # as Ironic's: a failure state keeps its target
    )
    assert shown["last_error"] == "Inspection was aborted by request."
    assert shown["inspection_started_at"] is None
    assert shown["power_state"] == "power off"
    assert _events(api)[-3:] == [
        "abort started from inspect wait",
        "noop.remove_inspection_network done",
        "Inspection was aborted by request.: inspect failed",
    ]


def test_agent_inspection_needs_a_boot_interface_that_boots_its_ramdisk(api: Api) -> None:
    """As Ironic 39 with its default [inspector] require_managed_boot."""
    _manageable(api, inspect_interface="agent", boot_interface="fake", network_interface="noop")

    resp = provision(api, "inspect")

    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        "Driver fake-hardware does not support validate_inspection (disabled or not implemented)."
    )
    assert _shown(api)["provision_state"] == "manageable"


def test_agent_inspection_over_pxe_needs_a_port(api: Api) -> None:
    node = _manageable(
        api,
        inspect_interface="agent",
        boot_interface="ipxe",
        network_interface="noop",
        driver_info=AGENT_RAMDISK,
    )

    resp = provision(api, "inspect")

    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        "Insufficient information provided for managed inspection: Node "
        f"{node['uuid']}: the ipxe boot interface needs a port to boot from; the node has none."
    )
    assert _shown(api)["provision_state"] == "manageable"


def test_agent_inspection_over_pxe_needs_the_deploy_ramdisk(api: Api) -> None:
    """As Ironic's PXE boot interfaces: the inspection ramdisk is the deploy ramdisk, from
    driver_info or [conductor]; refused before anything changes, and said by validate."""
    node = _manageable(
        api, inspect_interface="agent", boot_interface="pxe", network_interface="noop"
    )
    api.port(node, "52:54:00:30:00:03")

    resp = provision(api, "inspect")

    assert resp.status_code == 400, resp.text
    reason = (
        "Insufficient information provided for managed inspection: Node "
        f"{node['uuid']}: the pxe boot interface needs the deploy ramdisk: "
        "driver_info/deploy_kernel and driver_info/deploy_ramdisk, or [conductor] "
        "deploy_kernel and deploy_ramdisk; missing: deploy_kernel, deploy_ramdisk."
    )
    assert fault(resp) == reason
    shown = _shown(api)
    assert (shown["provision_state"], shown["inspection_started_at"]) == ("manageable", None)
    assert api.get("/v1/nodes/life/validate").json()["inspect"] == {
        "result": False,
        "reason": reason,
    }


def test_agent_inspection_over_ipxe_needs_the_http_server(api: Api, config: Config) -> None:
    """iPXE fetches the ramdisk from the conductor's HTTP server, as for a deploy."""
    node = _agent_node(api)
    config.deploy.http_url = ""

    resp = provision(api, "inspect")

    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        "Insufficient information provided for managed inspection: Node "
        f"{node['uuid']}: the ipxe boot interface needs the conductor's HTTP server, and "
        "[deploy] http_url is not set."
    )
    assert _shown(api)["provision_state"] == "manageable"


def test_agent_inspection_over_virtual_media_needs_the_deploy_iso_or_ramdisk(api: Api) -> None:
    node = _manageable(
        api,
        inspect_interface="agent",
        boot_interface="redfish-virtual-media",
        network_interface="noop",
    )

    resp = provision(api, "inspect")

    assert resp.status_code == 400, resp.text
    assert fault(resp).startswith(
        f"Node {node['uuid']}: the redfish-virtual-media boot interface needs the deploy "
        "ramdisk: driver_info/deploy_kernel and driver_info/deploy_ramdisk (or "
        "driver_info/deploy_iso)"
    )
    assert _shown(api)["provision_state"] == "manageable"


def test_agent_inspection_of_a_neutron_node_needs_an_inspection_network(api: Api) -> None:
    """As Ironic's neutron interface: neither driver_info/inspection_network nor [neutron]
    inspection_network names one, so the inspection is refused before anything changes."""
    node = _manageable(
        api,
        inspect_interface="agent",
        boot_interface="ipxe",
        network_interface="neutron",
        driver_info=AGENT_RAMDISK,
    )
    api.port(node, "52:54:00:30:00:02")

    resp = provision(api, "inspect")

    assert resp.status_code == 400, resp.text
    reason = (
        "Insufficient information provided for managed inspection: UUID or name of "
        "inspection_network is not set in configuration or in node driver_info."
    )
    assert fault(resp) == reason
    shown = _shown(api)
    assert (shown["provision_state"], shown["last_error"]) == ("manageable", None)
    assert api.get("/v1/nodes/life/validate").json()["inspect"] == {
        "result": False,
        "reason": reason,
    }


def test_agent_inspection_of_a_standalone_flat_node_has_no_network_to_set_up(api: Api) -> None:
    """flat without Neutron puts no port anywhere: the inspection network steps run and
    change nothing, on the way in and on the way out."""
    node = _manageable(
        api, inspect_interface="agent", boot_interface="ipxe", driver_info=AGENT_RAMDISK
    )
    api.port(node, "52:54:00:30:00:02")

    assert provision(api, "inspect").status_code == 202
    assert _shown(api)["provision_state"] == "inspect wait"
    assert provision(api, "abort").status_code == 202

    shown = _shown(api)
    assert (shown["provision_state"], shown["last_error"]) == (
        "inspect failed",
        "Inspection was aborted by request.",
    )
    events = _events(api)
    since = events[events.index("inspect started from manageable") :]
    assert [e for e in since if e.startswith("flat.")] == [
        "flat.add_inspection_network done",
        "flat.remove_inspection_network done",
    ]


def test_an_aborted_inspection_leaves_a_node_that_may_not_be_powered_off_on(api: Api) -> None:
    """As Ironic: with disable_power_off the ramdisk is left by a reboot, not a power off."""
    _agent_node(api)
    keep_on = [{"op": "replace", "path": "/disable_power_off", "value": True}]
    assert api.patch("/v1/nodes/life", keep_on).status_code == 200
    assert provision(api, "inspect").status_code == 202

    assert provision(api, "abort").status_code == 202

    shown = _shown(api)
    assert (shown["provision_state"], shown["power_state"]) == ("inspect failed", "power on")


def test_inspect_failed_is_inspected_again_or_managed(api: Api) -> None:
    _agent_node(api)
    assert provision(api, "inspect").status_code == 202
    assert provision(api, "abort").status_code == 202

    assert provision(api, "inspect").status_code == 202
    assert _shown(api)["provision_state"] == "inspect wait"
    assert provision(api, "abort").status_code == 202
    assert provision(api, "manage").status_code == 202

    assert _shown(api)["provision_state"] == "manageable"


def test_an_inspect_wait_past_inspect_wait_timeout_fails(api: Api) -> None:
    _agent_node(api)
    assert provision(api, "inspect").status_code == 202

    deadline = time.monotonic() + 10
    while _shown(api)["provision_state"] == "inspect wait" and time.monotonic() < deadline:
        time.sleep(0.05)

    shown = _shown(api)
    assert shown["provision_state"] == "inspect failed"
    assert shown["last_error"].startswith("Timeout reached while inspecting the node.")
    assert shown["power_state"] == "power off"
    assert "noop.remove_inspection_network done" in _events(api)


def test_inventory_of_a_node_never_inspected_is_not_found(api: Api) -> None:
    node = _manageable(api)

    resp = api.get("/v1/nodes/life/inventory")

    assert resp.status_code == 404, resp.text
    assert fault(resp) == f"Node inventory record for node {node['uuid']} could not be found."


def test_inventory_after_a_fake_inspection_is_not_found(api: Api) -> None:
    node = _manageable(api)
    assert provision(api, "inspect").status_code == 202

    resp = api.get("/v1/nodes/life/inventory")

    assert resp.status_code == 404, resp.text
    assert node["uuid"] in fault(resp)


def test_inventory_needs_api_1_81_and_a_node(api: Api) -> None:
    _manageable(api)

    assert api.get("/v1/nodes/life/inventory", version="1.80").status_code == 404
    missing = api.get("/v1/nodes/nothing-here/inventory")
    assert missing.status_code == 404
    assert fault(missing) == "Node nothing-here could not be found."


def test_an_aborted_inspection_leaves_the_node_on_without_inspector_power_off(
    api: Api, config: Config
) -> None:
    """As Ironic's: [inspector] power_off false leaves the node as its ramdisk left it."""
    config.inspector.power_off = False
    _agent_node(api)
    assert provision(api, "inspect").status_code == 202

    assert provision(api, "abort").status_code == 202

    shown = _shown(api)
    assert (shown["provision_state"], shown["power_state"]) == ("inspect failed", "power on")
