"""openstacksdk's cloud layer attaching Neutron ports to a machine, against a real metalwire
and a real Neutron.

``attach_port_to_machine``, ``list_ports_attached_to_machine`` and
``detach_port_from_machine`` look the port up in Neutron (by name or ID) through the
connection's network service, then call metalwire's VIF API with its ID. The connection
here has no authentication: both endpoints are given to it. The other cloud-layer calls are
in ``tests/compat/test_openstacksdk_cloud.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openstack import exceptions

from tests.neutron.clients import Json, Metalwire, Neutron, assert_unbound, link
from tests.neutron.interface_fixtures import (  # noqa: F401  (the shared module fixtures)
    fixture_api,
    fixture_neutron,
    fixture_server,
)
from tests.support.server import MetalwireServer

pytestmark = [
    # The cloud layer's own calls: its lookups pass ignore_missing=True, which the SDK warns
    # about, as it warns about its own internals on every connection.
    pytest.mark.filterwarnings(
        "ignore:The ignore_missing parameter:openstack.warnings.RemovedInSDK60Warning"
    ),
    pytest.mark.filterwarnings("ignore::openstack.warnings.RemovedInSDK50Warning"),
    pytest.mark.filterwarnings(
        "ignore:Support for InfluxDB:openstack.warnings.RemovedInSDK60Warning"
    ),
]

WAIT = 30  # seconds


@pytest.fixture(scope="module")
def cloud(server: MetalwireServer, neutron_endpoint: str) -> Iterator[Any]:
    """An unauthenticated openstacksdk connection to this metalwire and the Neutron."""
    import openstack

    conn = openstack.connect(
        auth_type="none",
        baremetal_endpoint_override=server.url + "/",
        network_endpoint_override=neutron_endpoint + "/",
        load_yaml_config=False,
        load_envvars=False,
        baremetal_status_code_retries=0,
    )
    try:
        yield conn
    finally:
        conn.close()


def register(cloud: Any, name: str, mac: str, switch_port: str) -> Any:
    """A machine with one port wired to sw1, on the ``neutron`` interface, available."""
    nic = {"mac": mac, "physical_network": "physnet1", "local_link_connection": link(switch_port)}
    return cloud.register_machine(
        nics=[nic],
        driver="fake-hardware",
        name=name,
        network_interface="neutron",
        wait=True,
        timeout=WAIT,
    )


def test_attach_list_and_detach_a_port_by_name(
    cloud: Any, api: Metalwire, neutron: Neutron
) -> None:
    node = register(cloud, "cloud-vifs", "52:54:00:41:00:01", "Ethernet41/1")
    vif: Json = neutron.vif("mw-tenant-p1", name="cloud-vif-1")

    cloud.attach_port_to_machine("cloud-vifs", "cloud-vif-1")
    assert api.vifs(node.id) == [vif["id"]]
    [port] = api.get(f"/v1/nodes/{node.id}/ports/detail")["ports"]
    assert port["internal_info"]["tenant_vif_port_id"] == vif["id"]
    assert neutron.port(vif["id"])["mac_address"] == "52:54:00:41:00:01"
    assert [p.id for p in cloud.list_ports_attached_to_machine(node.id)] == [vif["id"]]

    cloud.detach_port_from_machine(node.name, vif["id"])
    assert api.vifs(node.id) == []
    assert cloud.list_ports_attached_to_machine(node.id) == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_a_deploy_binds_the_attached_port_and_an_undeploy_detaches_it(
    cloud: Any, api: Metalwire, neutron: Neutron
) -> None:
    node = register(cloud, "cloud-deploy", "52:54:00:41:00:02", "Ethernet41/2")
    vif: Json = neutron.vif("mw-tenant-p1", name="cloud-vif-2")
    cloud.attach_port_to_machine(node.id, vif["id"])

    cloud.update_machine(node.id, instance_info={"image_source": "http://images/os.qcow2"})
    deployed = cloud.node_set_provision_state(node.id, "active", wait=True, timeout=WAIT)
    assert deployed.provision_state == "active"
    bound = neutron.wait_status(vif["id"], "ACTIVE")
    assert (bound["binding:host_id"], bound["mac_address"]) == (node.id, "52:54:00:41:00:02")

    undeployed = cloud.node_set_provision_state(node.id, "deleted", wait=True, timeout=WAIT)
    assert undeployed.provision_state == "available"
    assert cloud.list_ports_attached_to_machine(node.id) == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_attaching_a_port_neutron_does_not_have_calls_nothing(cloud: Any, api: Metalwire) -> None:
    """The SDK looks the port up first: an unknown name fails there, and metalwire sees no
    attach."""
    node = cloud.register_machine(
        nics=[], driver="fake-hardware", network_interface="neutron", provision_state="enroll"
    )
    with pytest.raises(exceptions.NotFoundException):
        cloud.attach_port_to_machine(node.id, "no-such-port")
    assert api.vifs(node.id) == []
