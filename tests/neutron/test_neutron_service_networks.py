"""The networks a node's ramdisks boot on, against a real Neutron: a node's
``driver_info/<process>_network`` wins over ``[neutron] <process>_network`` for deploying,
cleaning, rescuing and inspecting, and the ports the ``neutron`` interface creates there carry
``[neutron] <process>_network_security_groups``, each of which must exist, as in Ironic."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.neutron.clients import Json, Metalwire, Neutron, link
from tests.neutron.interface_fixtures import (  # noqa: F401  (the shared module fixtures)
    fixture_api,
    fixture_neutron,
)
from tests.support.helpers import (
    AGENT_RAMDISK,
    DIRECT_IMAGE,
    RESCUE_RAMDISK,
    settled_node,
)
from tests.support.server import MetalwireServer

PROCESSES = ("provisioning", "cleaning", "rescuing", "inspection")


@pytest.fixture(scope="module")
def security_groups(neutron: Neutron) -> Iterator[dict[str, Json]]:
    """A security group of its own for each process's ports."""
    groups: dict[str, Json] = {}
    for process in PROCESSES:
        body = {"security_group": {"name": f"mw-{process}"}}
        response = neutron.http.post("/security-groups", json=body)
        assert response.status_code == 201, response.text
        groups[process] = response.json()["security_group"]
    yield groups
    for group in groups.values():
        neutron.http.delete(f"/security-groups/{group['id']}")


@pytest.fixture(scope="module", name="server")
def fixture_server(
    neutron: Neutron,
    neutron_endpoint: str,
    security_groups: dict[str, Json],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[MetalwireServer]:
    env = {
        "METALWIRE_NEUTRON_URL": neutron_endpoint,
        "METALWIRE_NEUTRON_PROVISIONING_NETWORK": "mw-provision",
        "METALWIRE_NEUTRON_CLEANING_NETWORK": "mw-clean",
        "METALWIRE_NEUTRON_INSPECTION_NETWORK": "mw-tenant-p2",
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
        **{
            f"METALWIRE_NEUTRON_{process.upper()}_NETWORK_SECURITY_GROUPS": group["id"]
            for process, group in security_groups.items()
        },
    }
    with MetalwireServer(tmp_path_factory.mktemp("service-networks"), env=env) as running:
        yield running


def _settled(api: Metalwire, name: str, target: str, **body: str) -> Json:
    response = api.http.put(f"/v1/nodes/{name}/states/provision", json={"target": target, **body})
    assert response.status_code == 202, response.text
    return settled_node(lambda: api.get(f"/v1/nodes/{name}"))


def test_a_deploy_boots_on_the_provisioning_network_the_node_names(
    api: Metalwire, neutron: Neutron, security_groups: dict[str, Json]
) -> None:
    """A direct deploy waits for its agent on the node's own provisioning network, in the
    provisioning security group; the undeploy deletes the port there."""
    mac = "52:54:00:3d:00:02"
    node = api.node(
        "ownprov",
        deploy_interface="direct",
        instance_info=DIRECT_IMAGE,
        driver_info={"provisioning_network": "mw-tenant-p2"},
    )
    api.port(node, mac, link("Ethernet45/2"))
    api.provision("ownprov", "manage", "provide")
    assert api.attach("ownprov", neutron.vif("mw-tenant-p1")["id"]).status_code == 204

    shown = _settled(api, "ownprov", "active")

    assert (shown["provision_state"], shown["last_error"]) == ("wait call-back", None)
    [port] = neutron.ports_on("mw-tenant-p2", mac)
    assert port["binding:host_id"] == node["uuid"]
    assert port["security_groups"] == [security_groups["provisioning"]["id"]]
    assert neutron.ports_on("mw-provision", mac) == []

    assert _settled(api, "ownprov", "deleted")["provision_state"] == "available"
    assert neutron.ports_on("mw-tenant-p2", mac) == []


def test_a_cleaning_boots_on_the_cleaning_network_the_node_names(
    api: Metalwire, neutron: Neutron, security_groups: dict[str, Json]
) -> None:
    """A direct node's manual cleaning waits for its agent on the node's own cleaning
    network, in the cleaning security group; the abort deletes the port there."""
    mac = "52:54:00:3d:00:03"
    node = api.node(
        "ownclean",
        deploy_interface="direct",
        instance_info=DIRECT_IMAGE,
        driver_info={"cleaning_network": "mw-tenant-p2"},
    )
    api.port(node, mac, link("Ethernet45/3"))
    api.provision("ownclean", "manage", "clean")

    assert api.get("/v1/nodes/ownclean")["provision_state"] == "clean wait"
    [port] = neutron.ports_on("mw-tenant-p2", mac)
    assert port["security_groups"] == [security_groups["cleaning"]["id"]]
    assert neutron.ports_on("mw-clean", mac) == []

    shown = _settled(api, "ownclean", "abort")

    assert shown["provision_state"] == "clean failed"
    assert neutron.ports_on("mw-tenant-p2", mac) == []


def test_inspection_ports_carry_the_configured_security_groups_which_must_exist(
    api: Metalwire, neutron: Neutron, security_groups: dict[str, Json]
) -> None:
    mac = "52:54:00:3d:00:01"
    group = security_groups["inspection"]
    node = api.node(
        "sg", inspect_interface="agent", boot_interface="pxe", driver_info=AGENT_RAMDISK
    )
    api.port(node, mac, link("Ethernet45/1"))
    api.provision("sg", "manage")

    shown = _settled(api, "sg", "inspect")

    assert (shown["provision_state"], shown["last_error"]) == ("inspect wait", None)
    [port] = neutron.ports_on("mw-tenant-p2", mac)
    assert port["security_groups"] == [group["id"]]
    assert _settled(api, "sg", "abort")["provision_state"] == "inspect failed"
    assert neutron.ports_on("mw-tenant-p2", mac) == []

    deleted = neutron.http.delete(f"/security-groups/{group['id']}")
    assert deleted.status_code == 204, deleted.text
    powered = api.http.put("/v1/nodes/sg/states/power", json={"target": "power on"})
    assert powered.status_code == 202, powered.text

    shown = _settled(api, "sg", "inspect")

    # as Ironic's: an inspection that cannot start leaves the node powered off
    assert (shown["provision_state"], shown["power_state"]) == ("inspect failed", "power off")
    assert shown["last_error"] == (
        "Failed to inspect hardware. Reason: unable to start inspection: Adding node "
        f"{node['uuid']} to the inspection network mw-tenant-p2 failed: Neutron has no "
        f"security group {group['id']} (from [neutron] "
        "inspection_network_security_groups). Everything already done was undone."
    )
    assert neutron.ports_on("mw-tenant-p2", mac) == []


def test_a_rescue_needs_the_rescuing_security_groups_to_exist(
    api: Metalwire, neutron: Neutron, security_groups: dict[str, Json]
) -> None:
    """The rescuing network's ports are made in ``[neutron]
    rescuing_network_security_groups``: one Neutron no longer has fails the rescue before
    any port is made there."""
    mac = "52:54:00:3d:00:04"
    driver_info = {**AGENT_RAMDISK, **RESCUE_RAMDISK, "rescuing_network": "mw-tenant-p2"}
    node = api.node(
        "sgrescue", rescue_interface="agent", boot_interface="pxe", driver_info=driver_info
    )
    api.port(node, mac, link("Ethernet45/4"))
    api.provision("sgrescue", "manage", "provide")
    assert api.attach("sgrescue", neutron.vif("mw-tenant-p1")["id"]).status_code == 204
    assert api.provision("sgrescue", "active")["provision_state"] == "active"
    group = security_groups["rescuing"]
    deleted = neutron.http.delete(f"/security-groups/{group['id']}")
    assert deleted.status_code == 204, deleted.text

    shown = _settled(api, "sgrescue", "rescue", rescue_password="s3cret")

    assert shown["provision_state"] == "rescue failed"
    assert (
        f"Neutron has no security group {group['id']} (from [neutron] "
        "rescuing_network_security_groups)" in shown["last_error"]
    )
    assert neutron.ports_on("mw-tenant-p2", mac) == []
