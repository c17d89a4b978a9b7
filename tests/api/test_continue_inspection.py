"""``POST /v1/continue_inspection`` as Ironic 39 answers it: the inspection ramdisk's report
finds its node in ``inspect wait`` and ends the inspection; ``GET .../inventory`` serves what
it stored."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.config import Config
from tests.api.test_lifecycle import provision
from tests.conftest import Api, fault
from tests.support.helpers import AGENT_RAMDISK
from tests.support.inspection import (
    PXE_MAC,
    SECOND_MAC,
    SWITCH_MAC,
    SWITCH_NAME,
    SWITCH_PORT,
    interface,
    report,
)

NOT_FOUND = "Resource could not be found."


@pytest.fixture(autouse=True)
def no_inspect_timeout(config: Config) -> None:
    config.conductor.inspect_wait_timeout = 3600


def _inspected(api: Api, name: str = "life", mac: str = PXE_MAC, **fields: Any) -> dict[str, Any]:
    """A node in ``inspect wait`` of an ``agent`` inspection, with a port of ``mac``."""
    node = api.node(
        name=name,
        inspect_interface="agent",
        boot_interface="ipxe",
        network_interface=fields.pop("network_interface", "noop"),
        driver_info={**AGENT_RAMDISK, **fields.pop("driver_info", {})},
        **fields,
    )
    api.port(node, mac)
    assert provision(api, "manage", node=name).status_code == 202
    assert provision(api, "inspect", node=name).status_code == 202
    assert _shown(api, name)["provision_state"] == "inspect wait"
    return node


def _shown(api: Api, name: str = "life") -> dict[str, Any]:
    return dict(api.get(f"/v1/nodes/{name}").json())


def _events(api: Api, name: str = "life") -> list[str]:
    history = api.get(f"/v1/nodes/{name}/history?detail=true").json()["history"]
    return [e["event"] for e in history]


def _continue(api: Api, body: Any, version: str | None = None, query: str = "") -> Any:
    return api.post(f"/v1/continue_inspection{query}", body, version=version)


def test_the_report_of_a_node_found_by_mac_ends_its_inspection_in_manageable(api: Api) -> None:
    node = _inspected(api)

    resp = _continue(api, report())

    assert resp.status_code == 202, resp.text
    answer = resp.json()
    assert answer["node"]["uuid"] == node["uuid"]
    assert set(answer["node"]) == {
        "uuid",
        "properties",
        "instance_info",
        "driver_internal_info",
        "links",
    }
    assert answer["config"]["agent_token_required"] is True
    shown = _shown(api)
    assert (shown["provision_state"], shown["target_provision_state"]) == ("manageable", None)
    assert shown["power_state"] == "power off"
    assert shown["last_error"] is None
    assert shown["inspection_finished_at"] is not None
    assert _events(api)[-3:] == [
        "inspection data received from the ramdisk",
        "noop.remove_inspection_network done",
        "inspect done: manageable",
    ]


def test_the_inventory_is_what_the_ramdisk_reported_without_its_logs(api: Api) -> None:
    _inspected(api)
    posted = report()
    assert _continue(api, posted).status_code == 202

    resp = api.get("/v1/nodes/life/inventory")

    assert resp.status_code == 200, resp.text
    stored = resp.json()
    assert stored["inventory"] == posted["inventory"]
    assert stored["plugin_data"]["error"] is None
    assert "logs" not in stored["plugin_data"]


def test_a_report_at_1_1_is_answered_with_the_node_uuid_only(api: Api) -> None:
    """As Ironic's, which takes ironic-inspector's ramdisks' reports at the base version."""
    node = _inspected(api)

    resp = _continue(api, report(), version="1.1")

    assert resp.status_code == 202, resp.text
    assert resp.json() == {"uuid": node["uuid"]}
    assert _shown(api)["provision_state"] == "manageable"


def test_a_report_needs_api_1_84_and_node_uuid_too(api: Api) -> None:
    node = _inspected(api)

    for version, query in (("1.83", ""), ("1.1", f"?node_uuid={node['uuid']}")):
        resp = _continue(api, report(), version=version, query=query)
        assert resp.status_code == 404, (version, resp.text)
        assert fault(resp) == "API version 1.84 or newer is required"
    assert _shown(api)["provision_state"] == "inspect wait"


def test_a_report_naming_its_node_finds_it(api: Api) -> None:
    node = _inspected(api)
    mac = "52:54:00:99:99:99"  # no port has it
    body = report(interfaces=[{"name": "eth9", "mac_address": mac}], boot={"pxe_interface": mac})

    resp = _continue(api, body, query=f"?node_uuid={node['uuid']}")

    assert resp.status_code == 202, resp.text
    assert _shown(api)["provision_state"] == "manageable"


def test_a_node_is_found_by_its_bmc_address_when_no_port_has_the_macs(api: Api) -> None:
    _inspected(api, mac="52:54:00:30:00:99", driver_info={"ipmi_address": "192.0.2.200"})

    resp = _continue(api, report())

    assert resp.status_code == 202, resp.text
    assert _shown(api)["provision_state"] == "manageable"


def test_a_report_matching_no_node_is_not_found(api: Api) -> None:
    _inspected(api, mac="52:54:00:30:00:99")
    body = report(bmc_address="192.0.2.201", bmc_v6address=None)

    resp = _continue(api, body)

    assert resp.status_code == 404, resp.text
    assert fault(resp) == NOT_FOUND
    assert _shown(api)["provision_state"] == "inspect wait"


def test_the_report_of_a_node_not_in_inspect_wait_is_not_found(api: Api) -> None:
    node = api.node(name="life", inspect_interface="agent")
    api.port(node, PXE_MAC)
    assert provision(api, "manage").status_code == 202

    resp = _continue(api, report())

    assert resp.status_code == 404, resp.text
    assert fault(resp) == NOT_FOUND
    assert _shown(api)["provision_state"] == "manageable"
    assert api.get("/v1/nodes/life/inventory").status_code == 404


def test_a_report_whose_macs_are_ports_of_two_nodes_is_not_found(api: Api) -> None:
    _inspected(api, name="one", mac=PXE_MAC)
    _inspected(api, name="two", mac=SECOND_MAC)

    resp = _continue(api, report())

    assert resp.status_code == 404, resp.text
    assert fault(resp) == NOT_FOUND
    assert _shown(api, "one")["provision_state"] == "inspect wait"
    assert _shown(api, "two")["provision_state"] == "inspect wait"


def test_a_node_named_by_uuid_that_the_macs_contradict_is_not_found(api: Api) -> None:
    _inspected(api, name="one", mac=PXE_MAC)
    two = _inspected(api, name="two", mac="52:54:00:30:00:99")

    resp = _continue(api, report(), query=f"?node_uuid={two['uuid']}")

    assert resp.status_code == 404, resp.text
    assert _shown(api, "two")["provision_state"] == "inspect wait"


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ([], "request body"),
        ({"error": None}, "Missing member inventory"),
        ({"inventory": []}, "Invalid inventory"),
        ({"inventory": {"cpu": {}}}, "Missing member inventory/interfaces"),
        ({"inventory": {"interfaces": []}}, "Invalid inventory/interfaces"),
        ({"inventory": {"interfaces": [{"name": "eth0"}]}}, "inventory/interfaces/0/mac_address"),
        ({"inventory": {"interfaces": [{"mac_address": 5}]}}, "inventory/interfaces/0/mac_address"),
        (
            {"inventory": {"interfaces": [{"mac_address": PXE_MAC}], "bmc_address": 7}},
            "inventory/bmc_address",
        ),
        (
            {"inventory": {"interfaces": [{"mac_address": "not-a-mac"}]}},
            "No lookup information provided",
        ),
    ],
)
def test_a_bad_report_is_refused_naming_what_is_wrong(api: Api, body: Any, named: str) -> None:
    _inspected(api)

    resp = _continue(api, body)

    assert resp.status_code == 400, resp.text
    assert named in fault(resp)
    assert _shown(api)["provision_state"] == "inspect wait"
    assert api.get("/v1/nodes/life/inventory").status_code == 404


def test_a_second_inspection_replaces_the_stored_inventory(api: Api) -> None:
    _inspected(api)
    assert _continue(api, report(hostname="first")).status_code == 202
    assert provision(api, "inspect").status_code == 202

    assert _continue(api, report(hostname="second")).status_code == 202

    stored = api.get("/v1/nodes/life/inventory").json()
    assert stored["inventory"]["hostname"] == "second"


def test_the_v1_root_links_continue_inspection_from_1_84(api: Api) -> None:
    assert "continue_inspection" not in api.get("/v1/", version="1.83").json()
    links = api.get("/v1/", version="1.84").json()["continue_inspection"]
    assert [link["rel"] for link in links] == ["self", "bookmark"]


# -- the default hooks -------------------------------------------------------------------------

OTHER_MAC = "52:54:00:30:00:99"


def _ports(api: Api) -> dict[str, dict[str, Any]]:
    listed = api.get("/v1/nodes/life/ports?detail=true").json()["ports"]
    return {port["address"]: port for port in listed}


def _found_by_bmc(api: Api) -> dict[str, Any]:
    """A node whose only port is none of the report's interfaces: found by its BMC."""
    return _inspected(api, mac=OTHER_MAC, driver_info={"ipmi_address": "192.0.2.200"})


def test_the_port_the_ramdisk_booted_from_is_created_and_the_others_lose_pxe(api: Api) -> None:
    """Ironic's defaults: add_ports pxe, keep_ports all, update_pxe_enabled."""
    _found_by_bmc(api)

    assert _continue(api, report()).status_code == 202

    found = _ports(api)
    assert set(found) == {PXE_MAC, OTHER_MAC}
    assert found[PXE_MAC]["pxe_enabled"] is True
    assert found[OTHER_MAC]["pxe_enabled"] is False
    assert f"port {found[PXE_MAC]['uuid']} created for {PXE_MAC}" in _events(api)
    shown = _shown(api)
    assert shown["provision_state"] == "manageable"
    assert shown["properties"]["cpu_arch"] == "x86_64"
    plugin_data = api.get("/v1/nodes/life/inventory").json()["plugin_data"]
    assert plugin_data["macs"] == [PXE_MAC]
    assert set(plugin_data["all_interfaces"]) == {"eth0", "eth1"}


@pytest.mark.parametrize(
    ("add_ports", "created"),
    [
        ("all", {PXE_MAC, SECOND_MAC}),
        ("active", {PXE_MAC}),  # the only one with an IP address
        ("disabled", set()),
    ],
)
def test_add_ports_picks_the_interfaces_given_ports(
    api: Api, config: Config, add_ports: str, created: set[str]
) -> None:
    config.inspector.add_ports = add_ports
    _found_by_bmc(api)

    assert _continue(api, report()).status_code == 202

    assert set(_ports(api)) == {OTHER_MAC, *created}


def test_without_a_boot_interface_in_the_inventory_pxe_adds_every_port(
    api: Api, config: Config
) -> None:
    """As Ironic's: nothing booted from is known, so none is pxe_enabled either."""
    _found_by_bmc(api)

    assert _continue(api, report(boot={"current_boot_mode": "bios"})).status_code == 202

    found = _ports(api)
    assert set(found) == {PXE_MAC, SECOND_MAC, OTHER_MAC}
    assert not any(port["pxe_enabled"] for port in found.values())


@pytest.mark.parametrize(
    ("keep_ports", "kept"),
    [("all", {OTHER_MAC, PXE_MAC}), ("present", {PXE_MAC}), ("added", {PXE_MAC})],
)
def test_keep_ports_deletes_the_ports_it_does_not_keep(
    api: Api, config: Config, keep_ports: str, kept: set[str]
) -> None:
    config.inspector.keep_ports = keep_ports
    _found_by_bmc(api)

    assert _continue(api, report()).status_code == 202

    assert set(_ports(api)) == kept
    assert _shown(api)["provision_state"] == "manageable"


def test_keep_ports_present_keeps_an_interface_add_ports_skipped(api: Api, config: Config) -> None:
    config.inspector.keep_ports = "present"
    _inspected(api, mac=SECOND_MAC)

    assert _continue(api, report()).status_code == 202

    assert set(_ports(api)) == {PXE_MAC, SECOND_MAC}


def test_update_pxe_enabled_off_leaves_the_ports_as_they_were(api: Api, config: Config) -> None:
    config.inspector.update_pxe_enabled = False
    _found_by_bmc(api)

    assert _continue(api, report()).status_code == 202

    assert _ports(api)[OTHER_MAC]["pxe_enabled"] is True


def test_a_ramdisk_error_fails_the_inspection_as_ironic_does(api: Api) -> None:
    node = _found_by_bmc(api)

    resp = _continue(api, report(error="The disk controller did not answer"))

    assert resp.status_code == 202, resp.text  # Ironic processes the report after answering
    shown = _shown(api)
    assert (shown["provision_state"], shown["target_provision_state"]) == (
        "inspect failed",
        "manageable",
    )
    assert shown["last_error"] == (
        "Failed to finish inspection: Failed to inspect hardware. Reason: failed to run "
        "inspection hooks: Failed to inspect hardware. Reason: The following failures "
        f"happened while running preprocess hooks for node {node['uuid']}:\n"
        "Error in preprocess hook ramdisk-error: Failed to inspect hardware. Reason: "
        "Ramdisk reported error: The disk controller did not answer"
    )
    assert shown["power_state"] == "power off"
    assert "noop.remove_inspection_network done" in _events(api)
    assert set(_ports(api)) == {OTHER_MAC}
    assert "cpu_arch" not in shown["properties"]
    assert api.get("/v1/nodes/life/inventory").status_code == 404


def test_an_inventory_without_a_usable_interface_fails_the_inspection(api: Api) -> None:
    node = _found_by_bmc(api)
    body = report(interfaces=[{"name": "eth0", "mac_address": "not-a-mac"}])

    assert _continue(api, body).status_code == 202

    shown = _shown(api)
    assert shown["provision_state"] == "inspect failed"
    assert shown["last_error"].endswith(
        "Unexpected exception InvalidNodeInventory during preprocess hook "
        f"validate-interfaces: Inventory for node {node['uuid']} is invalid: no valid "
        "network interfaces"
    )


def test_an_inventory_without_the_cpu_architecture_fails_the_inspection(api: Api) -> None:
    _found_by_bmc(api)

    assert _continue(api, report(cpu={"count": 4})).status_code == 202

    shown = _shown(api)
    assert shown["provision_state"] == "inspect failed"
    assert (
        "Inventory has malformed or missing CPU architecture information" in (shown["last_error"])
    )
    assert set(_ports(api)) == {OTHER_MAC}  # the port the ports hook created is undone


# -- the LLDP hooks ----------------------------------------------------------------------------

LLDP_HOOKS = "$default_hooks,parse-lldp,local-link-connection"


def test_local_link_connection_is_filled_from_what_the_switch_advertised(
    api: Api, config: Config
) -> None:
    config.inspector.hooks = LLDP_HOOKS
    config.inspector.add_ports = "all"
    _found_by_bmc(api)

    assert _continue(api, report()).status_code == 202

    found = _ports(api)
    assert found[PXE_MAC]["local_link_connection"] == {
        "switch_id": SWITCH_MAC,
        "port_id": SWITCH_PORT,
        "switch_info": SWITCH_NAME,
    }
    assert found[SECOND_MAC]["local_link_connection"] == {}  # it heard no switch
    parsed = api.get("/v1/nodes/life/inventory").json()["plugin_data"]["parsed_lldp"]
    assert parsed == {
        "eth0": {
            "switch_chassis_id": SWITCH_MAC,
            "switch_port_id": SWITCH_PORT,
            "switch_port_description": "to compute-7 eth0",
            "switch_system_name": SWITCH_NAME,
        }
    }
    assert f"port {found[PXE_MAC]['uuid']} ({PXE_MAC}) linked from LLDP: " in "\n".join(
        _events(api)
    )


def test_what_a_port_link_already_says_is_kept(api: Api, config: Config) -> None:
    config.inspector.hooks = LLDP_HOOKS
    node = _inspected(api, mac=SECOND_MAC)
    link = {"switch_id": "aa:bb:cc:dd:ee:ff", "port_id": "Ethernet1/1"}
    api.port(node, PXE_MAC, local_link_connection=link)

    assert _continue(api, report()).status_code == 202

    assert _ports(api)[PXE_MAC]["local_link_connection"] == {**link, "switch_info": SWITCH_NAME}


def test_a_port_whose_lldp_does_not_read_is_left_alone(api: Api, config: Config) -> None:
    """As Ironic's hook: one malformed TLV and the port keeps its link; the inspection
    goes on."""
    config.inspector.hooks = LLDP_HOOKS
    _inspected(api)
    lldp = [[1, "04885a92ec5459"], [2, "06657468"]]  # port ID subtype 6: not one read
    body = report(interfaces=[interface("eth0", PXE_MAC, "192.0.2.17", lldp)])

    assert _continue(api, body).status_code == 202

    assert _ports(api)[PXE_MAC]["local_link_connection"] == {}
    assert _shown(api)["provision_state"] == "manageable"
    assert any("left as it was: LLDP unknown subtype 06" in e for e in _events(api))


def test_physical_network_comes_from_the_subnet_of_the_interface(api: Api, config: Config) -> None:
    config.inspector.hooks = "$default_hooks,physical-network"
    config.inspector.physical_network_cidr_map = ["198.51.100.0/24:other", "192.0.2.0/24:tenant"]
    _inspected(api)

    assert _continue(api, report()).status_code == 202

    assert _ports(api)[PXE_MAC]["physical_network"] == "tenant"


def test_a_vif_attach_uses_the_port_inspection_created(api: Api, config: Config) -> None:
    """The point of it all: the port created, and linked, by the inspection carries the
    VIF."""
    config.inspector.hooks = LLDP_HOOKS
    _inspected(
        api, mac=OTHER_MAC, network_interface="flat", driver_info={"ipmi_address": "192.0.2.200"}
    )
    assert _continue(api, report()).status_code == 202
    other = _ports(api)[OTHER_MAC]
    assert api.delete(f"/v1/ports/{other['uuid']}").status_code == 204

    assert api.post("/v1/nodes/life/vifs", {"id": "tenant-vif"}).status_code == 204

    inspected = _ports(api)[PXE_MAC]
    assert inspected["internal_info"]["tenant_vif_port_id"] == "tenant-vif"
    assert inspected["local_link_connection"]["switch_id"] == SWITCH_MAC


def test_a_report_leaves_the_node_on_without_inspector_power_off(api: Api, config: Config) -> None:
    config.inspector.power_off = False
    _inspected(api)

    assert _continue(api, report()).status_code == 202

    shown = _shown(api)
    assert (shown["provision_state"], shown["power_state"]) == ("manageable", "power on")


def test_a_report_is_refused_where_ramdisk_endpoints_are_disabled(api: Api, config: Config) -> None:
    config.api.enable_ramdisk_endpoints = False
    _inspected(api)

    resp = _continue(api, report())

    assert resp.status_code == 403, resp.text
    assert fault(resp) == "Access was denied to the following resource: /v1/continue_inspection"
    assert _shown(api)["provision_state"] == "inspect wait"


def test_interfaces_without_a_usable_name_are_skipped_not_a_server_error(
    api: Api, config: Config
) -> None:
    config.inspector.hooks = LLDP_HOOKS
    _inspected(api)
    body = report()
    body["inventory"]["interfaces"].append({"name": ["eth", 2], "mac_address": OTHER_MAC})
    body["lldp_raw"] = {"eth0": "not TLVs"}

    resp = _continue(api, body)

    assert resp.status_code == 202, resp.text
    assert _shown(api)["provision_state"] == "manageable"
    plugin_data = api.get("/v1/nodes/life/inventory").json()["plugin_data"]
    assert set(plugin_data["all_interfaces"]) == {"eth0", "eth1"}
