"""openstacksdk's cloud layer, unmodified, against a real metalwire server.

The cloud layer (``openstack/cloud/_baremetal.py``) is what Ansible's ``openstack.cloud``
baremetal modules and Bifrost call: ``register_machine``, ``update_machine``,
``unregister_machine``, the maintenance, power and provision helpers and the lookups by MAC.
Each test is one operator task, called with the arguments those modules pass, and checks the
server's state over plain HTTP (``http``) rather than only what the SDK hands back.

The SDK's ``wait`` loops look at the node once before they first sleep, and the
``fake-hardware`` interfaces finish a verb before its 202: a wait here costs one request. The
connection does not retry a 409 (the SDK retries it five times by default), so a refusal
fails at once.

Where the SDK itself refuses, or Ironic 39 answers the same refusal, the test records it with
its reason.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from openstack import exceptions
from openstack import warnings as sdk_warnings

from tests.compat.clients import random_mac, unique
from tests.compat.conftest import _connect
from tests.support.server import MetalwireServer

pytestmark = [
    pytest.mark.compat,
    # The cloud layer's own calls: its lookups pass ignore_missing=True and
    # get_machine_by_mac reads a port's node_uuid, which the SDK warns about.
    pytest.mark.filterwarnings(
        "ignore:The ignore_missing parameter:openstack.warnings.RemovedInSDK60Warning"
    ),
    pytest.mark.filterwarnings("ignore:Access to:openstack.warnings.LegacyAPIWarning"),
]

WAIT = 20  # seconds; every wait here ends at its first look
CONFIGDRIVE = "H4sIAAAAAAAAA0tMTEpOSQUAUqH+bQYAAAA="  # a gzipped, base64-encoded config drive


@pytest.fixture(scope="module")
def cloud(compat_server: MetalwireServer, isolated_environ: None) -> Iterator[Any]:
    """An openstacksdk connection (the cloud layer) that does not retry a 409."""
    conn = _connect(compat_server, baremetal_status_code_retries=0)
    try:
        yield conn
    finally:
        conn.close()


def shown(http: httpx.Client, path: str) -> dict[str, Any]:
    response = http.get(path)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def ports_of(http: httpx.Client, node: str) -> dict[str, dict[str, Any]]:
    ports = shown(http, f"/v1/nodes/{node}/ports/detail")["ports"]
    return {p["address"]: p for p in ports}


def register(cloud: Any, provision_state: str = "available", **fields: Any) -> tuple[Any, str]:
    """A machine registered as ``baremetal_node`` does, with one port; the node and its MAC."""
    mac = random_mac()
    node = cloud.register_machine(
        nics=[{"mac": mac}],
        driver="fake-hardware",
        name=unique("cloud"),
        wait=True,
        timeout=WAIT,
        lock_timeout=WAIT,
        provision_state=provision_state,
        **fields,
    )
    return node, mac


def test_register_machine_creates_the_ports_and_provides_the_node(
    cloud: Any, http: httpx.Client
) -> None:
    """``baremetal_node`` state=present: the node as the module builds it (its own UUID,
    properties as the strings Ansible passes), ports with their wiring, then manage and
    provide, waited for."""
    node_id = str(uuid.uuid4())
    pxe_mac, data_mac = random_mac(), random_mac()
    link = {"switch_id": "00:11:22:33:44:55", "port_id": "Eth1/1", "switch_info": "sw1"}
    node = cloud.register_machine(
        nics=[
            {
                "mac": pxe_mac,
                "pxe_enabled": True,
                "physical_network": "physnet1",
                "local_link_connection": link,
            },
            {"mac": data_mac, "pxe_enabled": False},
        ],
        wait=True,
        timeout=WAIT,
        id=node_id,
        name=unique("enrol"),
        driver="fake-hardware",
        driver_info={"deploy_kernel": "http://images/k", "deploy_ramdisk": "http://images/r"},
        properties={"cpu_arch": "x86_64", "cpus": "8", "memory_mb": "16384", "local_gb": "100"},
        resource_class="baremetal",
    )
    assert node.id == node_id
    assert node.provision_state == "available"

    stored = shown(http, f"/v1/nodes/{node_id}")
    assert stored["provision_state"] == "available"
    assert stored["target_provision_state"] is None
    assert stored["last_error"] is None
    assert stored["reservation"] is None
    assert stored["properties"]["cpus"] == "8"
    assert stored["resource_class"] == "baremetal"
    assert stored["driver_info"]["deploy_kernel"] == "http://images/k"
    ports = ports_of(http, node_id)
    assert set(ports) == {pxe_mac, data_mac}
    assert ports[pxe_mac]["pxe_enabled"] is True
    assert ports[pxe_mac]["physical_network"] == "physnet1"
    assert ports[pxe_mac]["local_link_connection"] == link
    assert ports[data_mac]["pxe_enabled"] is False


@pytest.mark.parametrize("provision_state", ["manageable", "enroll"])
def test_register_machine_stops_in_the_state_asked_for(
    cloud: Any, http: httpx.Client, provision_state: str
) -> None:
    node, mac = register(cloud, provision_state)
    assert node.provision_state == provision_state
    assert shown(http, f"/v1/nodes/{node.id}")["provision_state"] == provision_state
    assert set(ports_of(http, node.id)) == {mac}


def test_register_machine_whose_port_is_refused_leaves_no_node(
    cloud: Any, http: httpx.Client
) -> None:
    """A MAC another node's port has: 409, as in Ironic (MACAlreadyExists). The SDK deletes
    the ports it made and the node, so nothing half-registered stays behind."""
    _, taken = register(cloud, "enroll")
    fresh, name = random_mac(), unique("dup")
    with pytest.raises(exceptions.ConflictException, match=f"MAC address {taken}"):
        cloud.register_machine(
            nics=[fresh, taken],
            driver="fake-hardware",
            name=name,
            provision_state="manageable",
            wait=True,
            timeout=WAIT,
        )
    assert http.get(f"/v1/nodes/{name}").status_code == 404
    assert shown(http, f"/v1/ports?address={fresh}")["ports"] == []


def test_register_machine_whose_power_interface_cannot_work_stays_in_enroll(
    cloud: Any, http: httpx.Client
) -> None:
    """``ipmi`` without ``ipmi_address``: the manage fails its power check and the node
    goes back to ``enroll`` with the reason, as Ironic's verify step does; the SDK then
    deletes the node it made."""
    name = unique("ipmi")
    with pytest.raises(exceptions.ResourceFailure, match="driver_info/ipmi_address"):
        cloud.register_machine(
            nics=[random_mac()], driver="ipmi", name=name, wait=True, timeout=WAIT
        )
    assert http.get(f"/v1/nodes/{name}").status_code == 404


def test_update_and_patch_machine(cloud: Any, http: httpx.Client) -> None:
    node, _ = register(cloud, properties={"cpus": 2, "memory_mb": 1024})

    result = cloud.update_machine(
        node.name,
        properties={"cpus": 4, "memory_mb": 1024, "local_gb": 10},
        driver_info={"ipmi_address": "192.0.2.10"},
        description="rack 4",
    )
    assert sorted(result["changes"]) == [
        "/description",
        "/driver_info/ipmi_address",
        "/properties/cpus",
        "/properties/local_gb",
    ]
    stored = shown(http, f"/v1/nodes/{node.id}")
    assert stored["properties"] == {"cpus": 4, "memory_mb": 1024, "local_gb": 10}
    assert stored["driver_info"] == {"ipmi_address": "192.0.2.10"}
    assert stored["description"] == "rack 4"

    unchanged = cloud.update_machine(node.id, properties=stored["properties"])
    assert unchanged["changes"] is None

    cloud.patch_machine(
        node.id,
        [
            {"op": "add", "path": "/driver_info/ipmi_username", "value": "admin"},
            {"op": "replace", "path": "/name", "value": f"{node.name}-new"},
            {"op": "remove", "path": "/properties/local_gb"},
        ],
    )
    stored = shown(http, f"/v1/nodes/{node.id}")
    assert stored["driver_info"] == {"ipmi_address": "192.0.2.10", "ipmi_username": "admin"}
    assert stored["name"] == f"{node.name}-new"
    assert stored["properties"] == {"cpus": 4, "memory_mb": 1024}

    with pytest.raises(exceptions.SDKException, match="failed to find Machine"):
        cloud.update_machine(unique("missing"), description="x")


def test_maintenance_on_and_off(cloud: Any, http: httpx.Client) -> None:
    node, _ = register(cloud)

    cloud.set_machine_maintenance_state(node.id, True, reason="disk swap")
    stored = shown(http, f"/v1/nodes/{node.id}")
    assert (stored["maintenance"], stored["maintenance_reason"]) == (True, "disk swap")

    # No reason sends {"reason": null}: Ironic stores the null over the old reason too.
    cloud.set_machine_maintenance_state(node.name, True)
    stored = shown(http, f"/v1/nodes/{node.id}")
    assert (stored["maintenance"], stored["maintenance_reason"]) == (True, None)

    cloud.set_machine_maintenance_state(node.id, False)
    assert shown(http, f"/v1/nodes/{node.id}")["maintenance"] is False

    cloud.set_machine_maintenance_state(node.id, True, reason="again")
    cloud.remove_machine_from_maintenance(node.name)
    stored = shown(http, f"/v1/nodes/{node.id}")
    assert (stored["maintenance"], stored["maintenance_reason"]) == (False, None)


def test_power_on_reboot_off(cloud: Any, http: httpx.Client) -> None:
    node, _ = register(cloud)
    assert shown(http, f"/v1/nodes/{node.id}")["power_state"] == "power off"

    cloud.set_machine_power_on(node.name)
    assert shown(http, f"/v1/nodes/{node.id}")["power_state"] == "power on"
    cloud.set_machine_power_reboot(node.id)
    stored = shown(http, f"/v1/nodes/{node.id}")
    assert (stored["power_state"], stored["target_power_state"]) == ("power on", None)
    cloud.set_machine_power_off(node.id)
    assert shown(http, f"/v1/nodes/{node.id}")["power_state"] == "power off"


def test_power_of_a_node_without_its_bmc_address_is_refused(cloud: Any, http: httpx.Client) -> None:
    node = cloud.register_machine(nics=[], driver="ipmi", provision_state="enroll")
    with pytest.raises(exceptions.BadRequestException, match="driver_info/ipmi_address"):
        cloud.set_machine_power_on(node.id)
    assert shown(http, f"/v1/nodes/{node.id}")["power_state"] is None


def test_validate_machine(cloud: Any, http: httpx.Client) -> None:
    node, _ = register(cloud)
    cloud.update_machine(node.id, instance_info={"image_source": "http://images/os.qcow2"})
    cloud.validate_machine(node.id)
    cloud.validate_machine(node.name, for_deploy=False)
    with pytest.warns(sdk_warnings.RemovedInSDK50Warning, match="validate_node is deprecated"):
        cloud.validate_node(node.id)

    bmc = cloud.register_machine(nics=[], driver="ipmi", provision_state="enroll")
    with pytest.raises(exceptions.ValidationException) as refused:
        cloud.validate_machine(bmc.id, for_deploy=False)
    assert "power (" in str(refused.value)
    assert "driver_info/ipmi_address" in str(refused.value)
    validation = shown(http, f"/v1/nodes/{bmc.id}/validate")
    assert validation["power"]["result"] is False
    # Not part of what for_deploy=False asks, but reported: ipxe (ipmi's default) has no port.
    assert validation["boot"]["result"] is False
    assert "needs a port" in validation["boot"]["reason"]


def test_deploy_with_a_configdrive_and_undeploy(cloud: Any, http: httpx.Client) -> None:
    """``baremetal_node_action``: instance_info, validate, deploy with a configdrive and
    wait; then instance_info cleared and undeploy, waited for until ``available``."""
    node, _ = register(cloud)
    image = {"image_source": "http://images/os.qcow2", "image_checksum": "0" * 32}
    cloud.baremetal.update_node(node.id, instance_info=image)
    cloud.baremetal.validate_node(node.id)

    deployed = cloud.node_set_provision_state(
        node.id, "active", configdrive=CONFIGDRIVE, wait=True, timeout=WAIT
    )
    assert deployed.provision_state == "active"
    stored = shown(http, f"/v1/nodes/{node.id}")
    assert (stored["provision_state"], stored["power_state"]) == ("active", "power on")
    assert stored["instance_info"] == {**image, "configdrive": "******"}

    cloud.baremetal.update_node(node.id, instance_info={})
    undeployed = cloud.node_set_provision_state(node.id, "deleted", wait=True, timeout=WAIT)
    assert undeployed.provision_state == "available"
    stored = shown(http, f"/v1/nodes/{node.id}")
    assert (stored["provision_state"], stored["power_state"]) == ("available", "power off")
    assert stored["instance_info"] == {}
    assert stored["last_error"] is None


def test_activate_node_with_a_configdrive_document_and_deactivate(
    cloud: Any, http: httpx.Client
) -> None:
    """A configdrive given as a document (meta_data, user_data, network_data): the SDK asks
    for 1.56, and the server keeps it hidden as a string one."""
    node, _ = register(cloud)
    configdrive = {"meta_data": {"hostname": "web-1"}, "user_data": "#!/bin/sh\ntrue\n"}
    cloud.activate_node(node.id, configdrive=configdrive, wait=True, timeout=WAIT)
    stored = shown(http, f"/v1/nodes/{node.id}")
    assert stored["provision_state"] == "active"
    assert stored["instance_info"]["configdrive"] == "******"

    cloud.deactivate_node(node.id, wait=True, timeout=WAIT)
    stored = shown(http, f"/v1/nodes/{node.id}")
    assert (stored["provision_state"], stored["instance_info"]) == ("available", {})


def test_a_configdrive_with_a_verb_that_takes_none_is_refused_by_the_sdk(cloud: Any) -> None:
    node, _ = register(cloud, "manageable")
    with pytest.raises(ValueError, match="Config drive can only be provided"):
        cloud.node_set_provision_state(node.id, "provide", configdrive="H4sI")


def test_manual_cleaning_needs_its_steps(cloud: Any, http: httpx.Client) -> None:
    """The cloud layer's ``node_set_provision_state`` cannot pass clean steps: a ``clean``
    through it is a 400 before anything runs, as Ironic's. The proxy passes them."""
    node, _ = register(cloud, "manageable")
    with pytest.raises(exceptions.BadRequestException, match='"clean_steps" is required'):
        cloud.node_set_provision_state(node.id, "clean", wait=True, timeout=WAIT)
    history = shown(http, f"/v1/nodes/{node.id}/history")["history"]
    assert not [e for e in history if "clean" in e["event"]]

    steps = [{"interface": "vendor", "step": "log_passthrough"}]
    cleaned = cloud.baremetal.set_node_provision_state(
        node.id, "clean", clean_steps=steps, wait=True, timeout=WAIT
    )
    assert cleaned.provision_state == "manageable"
    stored = shown(http, f"/v1/nodes/{node.id}")
    assert (stored["provision_state"], stored["last_error"]) == ("manageable", None)


def test_nic_lookups_by_mac(cloud: Any, http: httpx.Client) -> None:
    """``baremetal_node_info`` / ``baremetal_port_info`` by MAC, ``list_nics*``."""
    node, mac = register(cloud)
    second = random_mac()
    cloud.baremetal.create_port(node_id=node.id, address=second, is_pxe_enabled=False)

    assert {p.address for p in cloud.list_nics_for_machine(node.id)} == {mac, second}
    # The SDK sends node_uuid, which is a UUID: a name is a 400, as in Ironic.
    with pytest.raises(exceptions.BadRequestException, match="Expected a UUID for node_uuid"):
        cloud.list_nics_for_machine(node.name)
    assert {mac, second} <= {p.address for p in cloud.list_nics()}

    nic = cloud.get_nic_by_mac(mac)
    assert (nic.address, nic.node_id) == (mac, node.id)
    assert cloud.get_nic_by_mac(mac.upper()).id == nic.id  # MACs compare lower-cased
    assert cloud.get_nic_by_mac(random_mac()) is None

    assert cloud.get_machine_by_mac(second).id == node.id
    assert cloud.get_machine_by_mac(random_mac()) is None
    assert cloud.get_machine(node.name).id == node.id
    assert cloud.get_machine(unique("missing")) is None
    assert node.id in {n.id for n in cloud.list_machines()}

    port_ids = {p["uuid"] for p in ports_of(http, node.id).values()}
    assert {p.id for p in cloud.baremetal.ports(details=True, node_uuid=node.id)} == port_ids


def test_port_module_creates_updates_and_deletes_a_port(cloud: Any, http: httpx.Client) -> None:
    """``baremetal_port``: a port with its own UUID in a portgroup found by name, updated
    with the keys that differ, deleted."""
    node, _ = register(cloud, "manageable")
    group = cloud.baremetal.create_port_group(node_id=node.id, name=unique("bond"))
    found = cloud.baremetal.find_port_group(group.name, ignore_missing=False)
    port_id, mac = str(uuid.uuid4()), random_mac()
    cloud.baremetal.create_port(
        id=port_id,
        node_id=node.id,
        port_group_id=found.id,
        address=mac,
        extra={"slot": "1"},
        is_pxe_enabled=False,
        physical_network="physnet1",
        local_link_connection={"switch_id": "aa:bb:cc:dd:ee:ff", "port_id": "Gi1/0/1"},
    )
    stored = shown(http, f"/v1/ports/{port_id}")
    assert (stored["address"], stored["portgroup_uuid"]) == (mac, group.id)

    cloud.baremetal.update_port(port_id, is_pxe_enabled=True, extra={"slot": "2"})
    stored = shown(http, f"/v1/ports/{port_id}")
    assert (stored["pxe_enabled"], stored["extra"]) == (True, {"slot": "2"})
    assert stored["physical_network"] == "physnet1"

    cloud.baremetal.delete_port(port_id)
    assert http.get(f"/v1/ports/{port_id}").status_code == 404


def test_a_port_of_an_available_node_keeps_its_wiring(cloud: Any, http: httpx.Client) -> None:
    """A ``pxe_enabled`` or ``physical_network`` change on an ``available`` node: 409, as
    Ironic refuses it outside enroll, manageable, inspecting, inspect wait and maintenance."""
    _, mac = register(cloud)
    port = cloud.get_nic_by_mac(mac)
    with pytest.raises(exceptions.ConflictException, match="physical_network"):
        cloud.baremetal.update_port(port.id, physical_network="physnet2")
    assert shown(http, f"/v1/ports/{port.id}")["physical_network"] is None


@pytest.mark.parametrize("provision_state", ["available", "manageable", "enroll"])
def test_unregister_machine_removes_its_ports_and_the_node(
    cloud: Any, http: httpx.Client, provision_state: str
) -> None:
    """``baremetal_node`` state=absent. Ironic deletes a node in enroll, manageable and
    (``[conductor] allow_deleting_available_nodes``, on by default) available."""
    node, mac = register(cloud, provision_state)
    unnamed = random_mac()
    cloud.baremetal.create_port(node_id=node.id, address=unnamed)

    cloud.unregister_machine(nics=[{"mac": mac}], uuid=node.id)
    assert http.get(f"/v1/nodes/{node.id}").status_code == 404
    # A port the task did not name goes with its node.
    assert shown(http, f"/v1/ports?address={mac}")["ports"] == []
    assert shown(http, f"/v1/ports?address={unnamed}")["ports"] == []


def test_unregister_machine_of_a_deployed_node_is_refused_by_the_sdk(
    cloud: Any, http: httpx.Client
) -> None:
    """The SDK refuses ``active`` itself, in maintenance too, before it deletes anything
    (Ironic would delete a node in maintenance)."""
    node, mac = register(cloud)
    cloud.node_set_provision_state(node.id, "active", wait=True, timeout=WAIT)
    cloud.set_machine_maintenance_state(node.id, True, reason="retire")
    with pytest.raises(exceptions.SDKException, match="current provision state 'active'"):
        cloud.unregister_machine(nics=[{"mac": mac}], uuid=node.id)
    assert shown(http, f"/v1/nodes/{node.id}")["provision_state"] == "active"
    assert set(ports_of(http, node.id)) == {mac}


def test_unregister_machine_of_a_node_with_an_instance_deletes_its_ports_first(
    cloud: Any, http: httpx.Client
) -> None:
    """A node with an ``instance_uuid``: the node's deletion is a 409, as Ironic's
    NodeAssociated; the SDK has already deleted the ports it was given, as it would with
    Ironic."""
    node, mac = register(cloud)
    kept = random_mac()
    cloud.baremetal.create_port(node_id=node.id, address=kept)
    cloud.update_machine(node.id, instance_uuid=str(uuid.uuid4()))
    with pytest.raises(exceptions.ConflictException, match="is associated with instance"):
        cloud.unregister_machine(nics=[{"mac": mac}], uuid=node.id)
    assert shown(http, f"/v1/nodes/{node.id}")["provision_state"] == "available"
    assert set(ports_of(http, node.id)) == {kept}


def test_wait_for_baremetal_node_lock_returns_for_an_unlocked_node(
    cloud: Any, http: httpx.Client
) -> None:
    node, _ = register(cloud, "manageable")
    assert shown(http, f"/v1/nodes/{node.id}")["reservation"] is None
    with pytest.warns(sdk_warnings.RemovedInSDK50Warning, match="wait_for_baremetal_node_lock"):
        cloud.wait_for_baremetal_node_lock(cloud.baremetal.get_node(node.id), timeout=1)
    assert cloud.baremetal.wait_for_node_reservation(node.id, timeout=1).reservation is None


def test_inspect_machine_inspects_an_available_node_and_provides_it_again(
    cloud: Any, http: httpx.Client
) -> None:
    """``baremetal_inspect``: the cloud layer moves an ``available`` node to ``manageable``,
    inspects it (``fake-hardware``'s ``fake`` inspect interface finishes at once, as in
    Ironic 39) and provides it again."""
    node, _ = register(cloud)

    cloud.inspect_machine(node.id, wait=True, timeout=WAIT)

    stored = shown(http, f"/v1/nodes/{node.id}")
    assert (stored["provision_state"], stored["last_error"]) == ("available", None)
    assert stored["inspection_finished_at"] is not None
    events = [e["event"] for e in shown(http, f"/v1/nodes/{node.id}/history")["history"]]
    assert "inspect done: manageable" in events


def test_inspect_machine_of_a_no_inspect_node_is_refused(cloud: Any, http: httpx.Client) -> None:
    """As Ironic 39: a node whose inspect interface is ``no-inspect`` refuses with a 400 naming
    the driver, and stays ``manageable``."""
    node, _ = register(cloud, "manageable", inspect_interface="no-inspect")

    with pytest.raises(exceptions.BadRequestException, match="does not support inspect"):
        cloud.inspect_machine(node.id, wait=True, timeout=WAIT)

    stored = shown(http, f"/v1/nodes/{node.id}")
    assert (stored["provision_state"], stored["last_error"]) == ("manageable", None)
