"""Smart NIC ports (``is_smartnic``, API 1.53) against a real Neutron, bound as Ironic binds
them: ``binding:host_id`` = the ``hostname`` of the port's ``local_link_connection``,
``binding:vnic_type`` = ``smart-nic``, and a binding failure fatal unless the node's
``driver_info["fail_on_binding_failure"]`` says otherwise.

The test Neutron has no mechanism driver for the ``smart-nic`` vnic type and no agent on the
Smart NIC's host, so it records the binding fields and marks the binding failed
(``binding:vif_type`` ``binding_failed``); the tests check both.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.neutron.clients import Json, Metalwire, Neutron, assert_unbound, link, provision
from tests.neutron.interface_fixtures import (  # noqa: F401  (the shared module fixtures)
    fixture_api,
    fixture_neutron,
)
from tests.support.helpers import fault, settled_node
from tests.support.neutron import NeutronServer
from tests.support.server import MetalwireServer

SMART_LINK = {"port_id": "rep0-0", "hostname": "smartnic-host-1"}
#: A Smart NIC host where no Neutron agent runs.
NO_AGENT_LINK = {"port_id": "rep0-0", "hostname": "smartnic-host-2"}
AUDIT = "/v1/metalwire/audit"


@pytest.fixture(scope="module", name="server")
def fixture_server(
    neutron: Neutron,
    neutron_endpoint: str,
    neutron_server: NeutronServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[MetalwireServer]:
    """The shared fixture's server, checking a Smart NIC host's agent 3 times, 0.2 s apart;
    an agent is alive on smartnic-host-1 only."""
    env = {
        "METALWIRE_NEUTRON_URL": neutron_endpoint,
        "METALWIRE_NEUTRON_PROVISIONING_NETWORK": "mw-provision",
        "METALWIRE_NEUTRON_CLEANING_NETWORK": "mw-clean",
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
        "METALWIRE_AGENT_NEUTRON_AGENT_MAX_ATTEMPTS": "3",
        "METALWIRE_AGENT_NEUTRON_AGENT_STATUS_RETRY_INTERVAL": "0.2",
    }
    with MetalwireServer(tmp_path_factory.mktemp("smart-nic"), env=env) as running:
        yield running


@pytest.fixture(autouse=True)
def agent_alive(neutron_server: NeutronServer) -> None:
    """The agent of smartnic-host-1 reports alive before each test."""
    neutron_server.report_agent_alive(SMART_LINK["hostname"])


def smart_nic_node(api: Metalwire, neutron: Neutron, name: str, mac: str, **fields: Any) -> Json:
    """An active node whose only port is a Smart NIC. It deploys only with binding failures
    allowed (the test Neutron cannot bind the Smart NIC), so ``fields`` must allow them."""
    node = api.node(name, **fields)
    api.port(node, mac, SMART_LINK, is_smartnic=True)
    api.provision(name, "manage", "provide")
    return node


def smart_port(api: Metalwire, node: str) -> Json:
    ports: list[Json] = api.get(f"/v1/nodes/{node}/ports/detail")["ports"]
    return next(p for p in ports if p["is_smartnic"])


def assert_smart_nic_binding(port: Json, mac: str) -> None:
    assert port["binding:host_id"] == "smartnic-host-1"
    assert port["binding:vnic_type"] == "smart-nic"
    assert port["binding:profile"] == {"local_link_information": [SMART_LINK]}
    assert port["mac_address"] == mac
    # No mechanism driver of the test Neutron binds a smart-nic vnic.
    assert (port["binding:vif_type"], port["status"]) == ("binding_failed", "DOWN")


def drift(api: Metalwire, node: str) -> list[Json]:
    response = api.http.post(f"{AUDIT}?node={node}", json={})
    assert response.status_code == 200, response.text
    findings: list[Json] = response.json()["findings"]
    return findings


def test_deploy_and_hot_plug_bind_a_smart_nic_vif_to_the_nic_s_host(
    api: Metalwire, neutron: Neutron
) -> None:
    lenient = {"fail_on_binding_failure": "false"}
    node = smart_nic_node(api, neutron, "smart-lenient", "52:54:00:35:00:01", driver_info=lenient)
    vif = neutron.vif("mw-tenant-p1")
    assert api.attach("smart-lenient", vif["id"]).status_code == 204
    port = neutron.port(vif["id"])
    assert (port["binding:host_id"], port["binding:vnic_type"]) == (node["uuid"], "baremetal")

    # The deploy binds the VIF to the Smart NIC's host.
    assert api.provision("smart-lenient", "active")["provision_state"] == "active"
    assert_smart_nic_binding(neutron.port(vif["id"]), "52:54:00:35:00:01")
    assert drift(api, "smart-lenient") == [], "the Smart NIC binding is no drift"

    # So does an attach to the active node.
    assert api.detach("smart-lenient", vif["id"]).status_code == 204
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])
    assert api.attach("smart-lenient", vif["id"]).status_code == 204
    assert_smart_nic_binding(neutron.port(vif["id"]), "52:54:00:35:00:01")
    assert drift(api, "smart-lenient") == []

    # Bound to the node instead, as before, the audit calls it drift.
    neutron.http.put(
        f"/ports/{vif['id']}",
        json={"port": {"binding:host_id": "", "binding:profile": {}}},
    ).raise_for_status()
    neutron.http.put(
        f"/ports/{vif['id']}",
        json={"port": {"binding:host_id": node["uuid"], "binding:vnic_type": "baremetal"}},
    ).raise_for_status()
    findings = drift(api, "smart-lenient")
    assert [f["kind"] for f in findings] == ["binding_mismatch"], findings
    assert findings[0]["expected"]["binding:host_id"] == "smartnic-host-1"
    assert findings[0]["expected"]["binding:vnic_type"] == "smart-nic"

    assert api.detach("smart-lenient", vif["id"]).status_code == 204


@pytest.mark.parametrize("interface", ["neutron", "flat"])
def test_a_smart_nic_binding_failure_is_fatal_by_default(
    api: Metalwire, neutron: Neutron, interface: str
) -> None:
    """Without ``fail_on_binding_failure`` in driver_info, even ``flat`` (whose bindings
    may fail otherwise) refuses a hot-plug Neutron cannot bind through a Smart NIC."""
    name = f"smart-strict-{interface}"
    mac = "52:54:00:35:00:02" if interface == "neutron" else "52:54:00:35:00:03"
    lenient = {"fail_on_binding_failure": "false"}
    smart_nic_node(api, neutron, name, mac, interface=interface, driver_info=lenient)
    deploy_vif = neutron.vif("mw-tenant-p1")
    api.deploy_with(name, deploy_vif["id"])
    response = api.http.patch(
        f"/v1/nodes/{name}",
        json=[{"op": "remove", "path": "/driver_info/fail_on_binding_failure"}],
    )
    assert response.status_code == 200, response.text
    vif = neutron.vif("mw-tenant-p1")

    response = api.attach(name, vif["id"])

    assert response.status_code == 502, response.text
    message = fault(response)
    assert "binding:vif_type is binding_failed" in message
    assert "bound by the Neutron agent on host smartnic-host-1" in message
    assert "Everything already done was undone." in message
    assert api.vifs(name) == []
    assert "tenant_vif_port_id" not in smart_port(api, name)["internal_info"]
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_a_smart_nic_is_on_the_cleaning_network_through_the_nic_s_host(
    api: Metalwire, neutron: Neutron
) -> None:
    """Cleaning's port for a Smart NIC is bound to the NIC's host; Neutron cannot bind it,
    which fails the cleaning unless the node allows binding failures."""
    name = "smart-clean"
    node = api.node(name, interface="flat")
    api.port(node, "52:54:00:35:00:04", SMART_LINK, is_smartnic=True)
    response = api.http.put(f"/v1/nodes/{name}/states/provision", json={"target": "manage"})
    assert response.status_code == 202, response.text
    response = api.http.put(f"/v1/nodes/{name}/states/provision", json=provision("clean"))
    assert response.status_code == 202, response.text
    shown = settled_node(lambda: api.get(f"/v1/nodes/{name}"))
    assert shown["provision_state"] == "clean failed", shown
    assert "binding:vif_type is binding_failed" in shown["last_error"]
    assert "to host smartnic-host-1" in shown["last_error"]
    assert "check that an agent is alive there" in shown["last_error"]
    assert neutron.ports_on("mw-clean") == []


def test_no_binding_through_a_smart_nic_whose_host_has_no_live_agent(
    api: Metalwire, neutron: Neutron
) -> None:
    """As Ironic, the binding waits for the Neutron agent of the Smart NIC's host, and fails
    when none is alive after the checks, whatever ``fail_on_binding_failure`` says."""
    name = "smart-no-agent"
    lenient = {"fail_on_binding_failure": "false"}
    node = api.node(name, driver_info=lenient)
    api.port(node, "52:54:00:35:00:05", link("Ethernet22/55"))
    smart = api.port(node, "52:54:00:35:00:06", NO_AGENT_LINK, is_smartnic=True, pxe_enabled=False)
    api.provision(name, "manage", "provide")
    api.deploy_with(name, neutron.vif("mw-tenant-p1")["id"])
    vif = neutron.vif("mw-tenant-p1")

    response = api.attach(name, vif["id"], port_uuid=smart["uuid"])

    assert response.status_code == 503, response.text
    message = fault(response)
    assert "No Neutron agent on host smartnic-host-2" in message
    assert "after 3 checks" in message
    assert api.vifs(name) == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_an_undeploy_waits_for_the_smart_nic_host_s_agent_before_unbinding(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer
) -> None:
    """As Ironic's ``neutron``, the undeploy unbinds a Smart NIC's VIF only once the agent
    of the NIC's host is alive: with it gone, the tear-down fails and the VIF stays bound."""
    name = "smart-undeploy"
    host_link = {"port_id": "rep0-0", "hostname": "smartnic-host-3"}
    neutron_server.report_agent_alive("smartnic-host-3")
    node = api.node(name, driver_info={"fail_on_binding_failure": "false"})
    api.port(node, "52:54:00:35:00:07", host_link, is_smartnic=True)
    api.provision(name, "manage", "provide")
    vif = neutron.vif("mw-tenant-p1")
    assert api.attach(name, vif["id"]).status_code == 204
    assert api.provision(name, "active")["provision_state"] == "active"
    assert neutron.port(vif["id"])["binding:host_id"] == "smartnic-host-3"

    neutron_server.report_agent_dead("smartnic-host-3")
    response = api.http.put(f"/v1/nodes/{name}/states/provision", json={"target": "deleted"})
    assert response.status_code == 202, response.text
    shown = settled_node(lambda: api.get(f"/v1/nodes/{name}"))

    assert shown["provision_state"] == "error", shown
    assert "No Neutron agent on host smartnic-host-3" in shown["last_error"]
    port = neutron.port(vif["id"])
    assert (port["binding:host_id"], port["binding:vnic_type"]) == ("smartnic-host-3", "smart-nic")
