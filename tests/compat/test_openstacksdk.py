"""openstacksdk's baremetal proxy, unmodified, against a real metalwire server."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from openstack import exceptions, utils

from metalwire.api_versions import MAX_MINOR
from tests.compat.clients import random_mac, unique
from tests.compat.conftest import LATEST
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


def new_node(sdk: Any, **fields: Any) -> Any:
    return sdk.create_node(driver="fake-hardware", name=unique("sdk"), **fields)


def node_with_ports(sdk: Any, count: int) -> tuple[Any, list[Any]]:
    node = new_node(sdk)
    return node, [sdk.create_port(node_id=node.id, address=random_mac()) for _ in range(count)]


# Version negotiation


def test_discovery_negotiates_the_served_range(sdk: Any, compat_server: MetalwireServer) -> None:
    assert sdk.get_endpoint() == f"{compat_server.url}/v1/"
    data = sdk.get_endpoint_data()
    assert (data.min_microversion, data.max_microversion) == ((1, 1), (1, MAX_MINOR))
    assert utils.supports_microversion(sdk, LATEST)
    assert not utils.supports_microversion(sdk, f"1.{MAX_MINOR + 1}")
    assert utils.maximum_supported_microversion(sdk, "1.115") == LATEST


def test_requests_carry_the_negotiated_version(sdk: Any) -> None:
    resp = sdk.get("/nodes", microversion="1.78")
    assert resp.status_code == 200
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.78"
    assert resp.headers["OpenStack-API-Version"] == "baremetal 1.78"
    node = new_node(sdk)
    # A node created at a negotiated version of 1.11 or later starts in enroll.
    assert node.provision_state == "enroll"
    assert node.network_interface == "flat"


def test_a_node_lists_no_firmware_components(sdk: Any) -> None:
    node = new_node(sdk)
    assert sdk.list_node_firmware(node) == {"firmware": []}


# Nodes


def test_node_create_get_update_patch_delete(sdk: Any, http: httpx.Client) -> None:
    name = unique("sdk-node")
    node = sdk.create_node(
        driver="fake-hardware", name=name, properties={"cpus": 8}, extra={"rack": "r1"}
    )
    assert node.name == name
    assert node.driver == "fake-hardware"
    assert node.properties == {"cpus": 8}
    assert node.extra == {"rack": "r1"}
    assert node.is_maintenance is False

    by_name = sdk.get_node(name)
    by_uuid = sdk.get_node(node.id)
    assert by_name.id == by_uuid.id == node.id
    assert by_uuid.properties == {"cpus": 8}

    updated = sdk.update_node(node, extra={"rack": "r2", "row": "a"}, description="first")
    assert updated.extra == {"rack": "r2", "row": "a"}
    assert updated.description == "first"

    patched = sdk.patch_node(
        node,
        [
            {"op": "add", "path": "/properties/memory_mb", "value": 4096},
            {"op": "remove", "path": "/extra/row"},
        ],
    )
    assert patched.properties == {"cpus": 8, "memory_mb": 4096}
    assert patched.extra == {"rack": "r2"}
    stored = http.get(f"/v1/nodes/{node.id}").json()
    assert stored["properties"] == {"cpus": 8, "memory_mb": 4096}
    assert stored["description"] == "first"

    sdk.delete_node(node)
    assert http.get(f"/v1/nodes/{node.id}").status_code == 404
    with pytest.raises(exceptions.NotFoundException):
        sdk.get_node(node.id)
    assert sdk.delete_node(node.id, ignore_missing=True) is None
    with pytest.raises(exceptions.NotFoundException):
        sdk.delete_node(node.id, ignore_missing=False)


def test_node_list_and_details(sdk: Any) -> None:
    node = new_node(sdk, properties={"cpus": 2})
    listed = {n.id: n for n in sdk.nodes()}
    assert listed[node.id].name == node.name
    assert listed[node.id].provision_state == "enroll"
    assert listed[node.id].driver is None  # not part of the short list view

    detailed = {n.id: n for n in sdk.nodes(details=True)}
    assert detailed[node.id].driver == "fake-hardware"
    assert detailed[node.id].properties == {"cpus": 2}

    wanted = {n.id: n for n in sdk.nodes(fields=["uuid", "driver"])}
    assert wanted[node.id].driver == "fake-hardware"
    assert wanted[node.id].name is None


def test_node_pagination_follows_next_links(
    sdk: Any, compat_server: MetalwireServer, http: httpx.Client
) -> None:
    created = {new_node(sdk).id for _ in range(5)}
    total = len(http.get("/v1/nodes").json()["nodes"])

    first = http.get("/v1/nodes", params={"limit": 2}).json()
    assert len(first["nodes"]) == 2
    assert "marker=" in first["next"] and "limit=2" in first["next"]

    for details in (False, True):
        seen = [n.id for n in sdk.nodes(details=details, limit=2)]
        assert len(seen) == len(set(seen)) == total
        assert created <= set(seen)

    log = compat_server.log()
    assert "GET /v1/nodes?limit=2&marker=" in log
    assert "GET /v1/nodes/detail?limit=2&marker=" in log


def test_node_created_manageable_waits_for_the_manage_verb(sdk: Any) -> None:
    node = new_node(sdk, provision_state="manageable")
    assert node.provision_state == "manageable"
    assert sdk.get_node(node.id).provision_state == "manageable"


# Ports and portgroups


def test_port_create_get_list_update_patch_delete(sdk: Any, http: httpx.Client) -> None:
    node = new_node(sdk)
    other = new_node(sdk)
    address = random_mac()
    port = sdk.create_port(
        node_id=node.id,
        address=address.upper(),
        extra={"slot": 1},
        physical_network="physnet1",
        local_link_connection={"switch_id": "00:11:22:33:44:55", "port_id": "Eth1/1"},
        is_pxe_enabled=False,
    )
    assert port.address == address
    assert port.node_id == node.id
    assert port.physical_network == "physnet1"
    assert port.local_link_connection == {"switch_id": "00:11:22:33:44:55", "port_id": "Eth1/1"}
    assert port.is_pxe_enabled is False
    sdk.create_port(node_id=other.id, address=random_mac())

    assert sdk.get_port(port.id).address == address
    assert [p.id for p in sdk.ports(node=node.id)] == [port.id]
    assert [p.id for p in sdk.ports(node_uuid=node.id)] == [port.id]
    assert [p.id for p in sdk.ports(address=address)] == [port.id]
    detailed = list(sdk.ports(details=True, node=node.id))
    assert detailed[0].extra == {"slot": 1}
    assert detailed[0].physical_network == "physnet1"

    updated = sdk.update_port(port, physical_network="physnet2", extra={"slot": 2})
    assert (updated.physical_network, updated.extra) == ("physnet2", {"slot": 2})
    patched = sdk.patch_port(port, [{"op": "replace", "path": "/pxe_enabled", "value": True}])
    assert patched.is_pxe_enabled is True
    assert http.get(f"/v1/ports/{port.id}").json()["pxe_enabled"] is True

    sdk.delete_port(port)
    with pytest.raises(exceptions.NotFoundException):
        sdk.get_port(port.id)
    assert http.get(f"/v1/ports/{port.id}").status_code == 404


def test_port_group_create_get_list_update_patch_delete(sdk: Any, http: httpx.Client) -> None:
    node = new_node(sdk)
    name = unique("bond")
    address = random_mac()
    group = sdk.create_port_group(
        node_id=node.id,
        name=name,
        address=address,
        mode="802.3ad",
        properties={"miimon": "100"},
        extra={"tag": "a"},
    )
    assert (group.name, group.address, group.node_id) == (name, address, node.id)
    assert group.mode == "802.3ad"
    assert group.properties == {"miimon": "100"}
    assert group.is_standalone_ports_supported is True

    assert sdk.get_port_group(name).id == group.id
    assert sdk.get_port_group(group.id).name == name
    assert [g.id for g in sdk.port_groups(node=node.id)] == [group.id]
    assert [g.mode for g in sdk.port_groups(details=True, node=node.id)] == ["802.3ad"]

    # A member that boots by PXE would keep standalone ports from being turned off (409).
    member = sdk.create_port(
        node_id=node.id, address=random_mac(), port_group_id=group.id, is_pxe_enabled=False
    )
    assert member.port_group_id == group.id
    members = http.get(f"/v1/portgroups/{group.id}/ports").json()["ports"]
    assert [p["uuid"] for p in members] == [member.id]

    updated = sdk.update_port_group(group, extra={"tag": "b"}, mode="active-backup")
    assert (updated.extra, updated.mode) == ({"tag": "b"}, "active-backup")
    patched = sdk.patch_port_group(
        group, [{"op": "replace", "path": "/standalone_ports_supported", "value": False}]
    )
    assert patched.is_standalone_ports_supported is False

    sdk.delete_port(member)
    sdk.delete_port_group(group)
    with pytest.raises(exceptions.NotFoundException):
        sdk.get_port_group(group.id)


def test_node_interfaces_and_port_group_mode_are_filled_in(sdk: Any) -> None:
    node = sdk.get_node(sdk.create_node(driver="ipmi", name=unique("sdk-ifaces")).id)
    assert (node.boot_interface, node.power_interface, node.management_interface) == (
        "ipxe",
        "ipmitool",
        "ipmitool",
    )
    assert (node.storage_interface, node.vendor_interface, node.rescue_interface) == (
        "noop",
        "ipmitool",
        "no-rescue",
    )
    assert node.conductor
    node = sdk.update_node(node, driver="fake-hardware")
    assert (node.boot_interface, node.storage_interface) == ("fake", "noop")
    group = sdk.get_port_group(sdk.create_port_group(node_id=node.id).id)
    assert group.mode == "active-backup"
    with pytest.raises(exceptions.BadRequestException):
        sdk.patch_port_group(group, [{"op": "remove", "path": "/mode"}])


def test_port_and_port_group_pagination_keeps_filters(
    sdk: Any, compat_server: MetalwireServer
) -> None:
    node, ports = node_with_ports(sdk, 3)
    groups = [sdk.create_port_group(node_id=node.id, address=random_mac()) for _ in range(3)]
    node_with_ports(sdk, 2)  # ports of another node, which the filter must keep out

    assert sorted(p.id for p in sdk.ports(node=node.id, limit=2)) == sorted(p.id for p in ports)
    listed_groups = [g.id for g in sdk.port_groups(details=True, node=node.id, limit=2)]
    assert sorted(listed_groups) == sorted(g.id for g in groups)
    log = compat_server.log()
    assert f"GET /v1/ports?node={node.id}&limit=2&marker=" in log
    assert f"GET /v1/portgroups/detail?node={node.id}&limit=2&marker=" in log


# Error mapping


def test_not_found_maps_to_resource_not_found(sdk: Any) -> None:
    missing = "5f2e2e8c-6c77-4b2b-9d7c-000000000000"
    with pytest.raises(exceptions.ResourceNotFound) as node_error:
        sdk.get_node(missing)
    assert node_error.value.status_code == 404
    assert missing in str(node_error.value.details)
    with pytest.raises(exceptions.NotFoundException):
        sdk.get_port(missing)
    with pytest.raises(exceptions.NotFoundException):
        sdk.get_port_group(missing)
    with pytest.raises(exceptions.NotFoundException):
        sdk.list_node_vifs(missing)


def test_bad_request_maps_to_bad_request_exception(sdk: Any) -> None:
    node = new_node(sdk)
    with pytest.raises(exceptions.BadRequestException) as error:
        sdk.create_port(node_id=node.id, address="not-a-mac")
    assert error.value.status_code == 400
    assert "MAC address" in str(error.value.details)
    with pytest.raises(exceptions.BadRequestException):
        sdk.set_node_provision_state(node, "provide")


def test_conflicts_map_to_conflict_exception(sdk_no_retry: Any) -> None:
    sdk = sdk_no_retry
    node, (port,) = node_with_ports(sdk, 1)
    with pytest.raises(exceptions.ConflictException) as error:
        sdk.create_port(node_id=node.id, address=port.address)
    assert error.value.status_code == 409
    assert port.address in str(error.value.details)
    with pytest.raises(exceptions.ConflictException):
        sdk.create_node(driver="fake-hardware", name=node.name)
    assert [p.id for p in sdk.ports(node=node.id)] == [port.id]


# VIFs


def test_vif_attach_list_detach(sdk: Any, http: httpx.Client) -> None:
    node, ports = node_with_ports(sdk, 2)
    assert sdk.list_node_vifs(node) == []

    sdk.attach_vif_to_node(node, "vif-sdk-1")
    sdk.attach_vif_to_node(node, "vif-sdk-2")
    assert sorted(sdk.list_node_vifs(node)) == ["vif-sdk-1", "vif-sdk-2"]
    on_ports = {sdk.get_port(p.id).internal_info.get("tenant_vif_port_id") for p in ports}
    assert on_ports == {"vif-sdk-1", "vif-sdk-2"}

    assert sdk.detach_vif_from_node(node, "vif-sdk-1") is True
    assert sdk.list_node_vifs(node.id) == ["vif-sdk-2"]
    assert http.get(f"/v1/nodes/{node.id}/vifs").json() == {"vifs": [{"id": "vif-sdk-2"}]}


def test_vif_attach_to_a_chosen_port_or_portgroup(sdk: Any) -> None:
    node, (first, second) = node_with_ports(sdk, 2)
    group = sdk.create_port_group(node_id=node.id, address=random_mac())
    sdk.create_port(node_id=node.id, address=random_mac(), port_group_id=group.id)

    sdk.attach_vif_to_node(node, "vif-on-port", port=second.id)
    assert sdk.get_port(second.id).internal_info["tenant_vif_port_id"] == "vif-on-port"
    assert "tenant_vif_port_id" not in sdk.get_port(first.id).internal_info

    sdk.attach_vif_to_node(node, "vif-on-group", port_group=group)
    assert sdk.get_port_group(group.id).internal_info["tenant_vif_port_id"] == "vif-on-group"
    assert sorted(sdk.list_node_vifs(node)) == ["vif-on-group", "vif-on-port"]


def test_vif_attached_elsewhere_conflicts(sdk: Any) -> None:
    node, _ = node_with_ports(sdk, 1)
    other, _ = node_with_ports(sdk, 1)
    sdk.attach_vif_to_node(node, "vif-taken")
    with pytest.raises(exceptions.ConflictException) as error:
        sdk.attach_vif_to_node(other, "vif-taken", retry_on_conflict=False)
    assert "vif-taken" in str(error.value.details)
    assert sdk.list_node_vifs(other) == []


def test_vif_attach_without_a_free_port_is_a_bad_request(sdk: Any) -> None:
    node = new_node(sdk)
    with pytest.raises(exceptions.BadRequestException):
        sdk.attach_vif_to_node(node, "vif-nowhere")


def test_detach_of_an_unattached_vif(sdk: Any) -> None:
    node, _ = node_with_ports(sdk, 1)
    assert sdk.detach_vif_from_node(node, "vif-never-attached") is False
    assert sdk.detach_vif_from_node(node, "vif-never-attached", ignore_missing=True) is False
    with pytest.raises(exceptions.BadRequestException):
        sdk.detach_vif_from_node(node, "vif-never-attached", ignore_missing=False)


# Provision states and maintenance


def test_provision_state_cycle(sdk: Any) -> None:
    node, _ = node_with_ports(sdk, 1)
    sdk.attach_vif_to_node(node, "vif-deployed")

    node = sdk.set_node_provision_state(node, "manage", wait=True, timeout=30)
    assert node.provision_state == "manageable"
    node = sdk.set_node_provision_state(node, "provide", wait=True, timeout=30)
    assert node.provision_state == "available"
    node = sdk.set_node_provision_state(node, "active", wait=True, timeout=30)
    assert (node.provision_state, node.power_state) == ("active", "power on")
    node = sdk.set_node_provision_state(node, "deleted", wait=True, timeout=30)
    assert (node.provision_state, node.power_state) == ("available", "power off")
    assert sdk.list_node_vifs(node) == []


def test_deploy_and_undeploy_verbs(sdk: Any) -> None:
    node = new_node(sdk, provision_state="manageable")
    sdk.set_node_provision_state(node, "provide", wait=True, timeout=30)

    sdk.set_node_provision_state(node, "deploy")
    (node,) = sdk.wait_for_nodes_provision_state([node], "active", timeout=30)
    assert node.provision_state == "active"
    sdk.set_node_provision_state(node, "undeploy")
    (node,) = sdk.wait_for_nodes_provision_state([node], "available", timeout=30)
    assert node.provision_state == "available"


def test_maintenance_set_and_unset(sdk: Any, http: httpx.Client) -> None:
    node = new_node(sdk)
    node = sdk.set_node_maintenance(node, reason="disk swap")
    assert (node.is_maintenance, node.maintenance_reason) == (True, "disk swap")
    stored = http.get(f"/v1/nodes/{node.id}").json()
    assert (stored["maintenance"], stored["maintenance_reason"]) == (True, "disk swap")
    assert [n.id for n in sdk.nodes(maintenance=True)].count(node.id) == 1

    node = sdk.unset_node_maintenance(node)
    assert (node.is_maintenance, node.maintenance_reason) == (False, None)
    stored = http.get(f"/v1/nodes/{node.id}").json()
    assert (stored["maintenance"], stored["maintenance_reason"]) == (False, None)

    node = sdk.update_node(node, is_maintenance=True, maintenance_reason="firmware")
    assert sdk.get_node(node.id).maintenance_reason == "firmware"


# Validation


def test_validate_reports_a_boot_interface_without_its_deploy_ramdisk(sdk: Any) -> None:
    node = new_node(sdk, boot_interface="ipxe", deploy_interface="direct")
    sdk.create_port(node_id=node.id, address=random_mac())

    result = sdk.validate_node(node, required=None)

    assert result["boot"].result is False
    assert "missing: deploy_kernel, deploy_ramdisk" in result["boot"].reason
    assert result["deploy"].result is False  # the direct deploy validates the boot first
    with pytest.raises(exceptions.ValidationException, match="deploy_kernel"):
        sdk.validate_node(node, required=("boot", "deploy"))
    sdk.set_node_provision_state(node, "manage", wait=True)
    sdk.set_node_provision_state(node, "provide", wait=True)
    with pytest.raises(exceptions.BadRequestException, match="Failed to validate deploy"):
        sdk.set_node_provision_state(node, "active", config_drive=None)
    assert sdk.get_node(node.id).provision_state == "available"
    sdk.patch_node(
        node,
        [
            {"op": "add", "path": "/driver_info/deploy_kernel", "value": "http://i/k"},
            {"op": "add", "path": "/driver_info/deploy_ramdisk", "value": "http://i/r"},
        ],
    )
    assert sdk.validate_node(node, required=None)["boot"].result is True
