"""The ``neutron`` network interface (and ``flat``'s Neutron side) against a real Neutron:
deploy and undeploy, hot-plug on an active node, physical networks and MAC changes.

A real ``metalwire serve`` talks to the session's Neutron (ML2 + networking-generic-switch
with the fake switches sw1 and sw2); the tests drive it through metalwire's HTTP API and
check what Neutron holds afterwards. The deprecated ``extra/vif_port_id``, an ironic.conf
``[neutron]`` section and Neutron becoming unreachable have modules of their own beside it.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.neutron.clients import (
    SW2,
    UNKNOWN_SWITCH,
    Json,
    Metalwire,
    Neutron,
    assert_unbound,
    link,
    provision,
)
from tests.neutron.interface_fixtures import (  # noqa: F401  (the shared module fixtures)
    fixture_api,
    fixture_neutron,
    fixture_server,
)
from tests.support import inspection
from tests.support.helpers import (
    AGENT_RAMDISK,
    DIRECT_IMAGE,
    RESCUE_RAMDISK,
    fault,
    settled_node,
    wait_for,
)
from tests.support.neutron import NeutronServer


@pytest.fixture(scope="module")
def hot(api: Metalwire, neutron: Neutron) -> Json:
    """An active node with no VIF: a PXE port on sw1, a port on an unknown switch, and a
    bond of two."""
    node = api.node("hot")
    api.port(node, "52:54:00:31:00:01", link("Ethernet22/1"), physical_network="physnet1")
    api.port(node, "52:54:00:31:00:02", UNKNOWN_SWITCH, pxe_enabled=False)
    bond = api.portgroup(
        node,
        name="bond-hot",
        address="52:54:00:31:00:10",
        mode="802.3ad",
        properties={"miimon": 100},
    )
    for address, member in (
        ("52:54:00:31:00:11", link("Ethernet23/1")),
        ("52:54:00:31:00:12", link("Ethernet23/2", SW2.name, SW2.mac_address)),
    ):
        api.port(
            node,
            address,
            member,
            pxe_enabled=False,
            physical_network="physnet1",
            portgroup_uuid=bond["uuid"],
        )
    api.provision("hot", "manage", "provide")
    api.deploy_with("hot", neutron.vif("mw-tenant-p1")["id"])
    return node


def ports_of(api: Metalwire, node: str) -> dict[str, Json]:
    ports = api.get(f"/v1/nodes/{node}/ports/detail")["ports"]
    return {p["address"]: p for p in ports}


# -- deploy and undeploy ---------------------------------------------------------------------


def test_deploy_binds_the_vifs_and_undeploy_unbinds_them(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer
) -> None:
    node = api.node("life")
    api.port(node, "52:54:00:30:00:01", link("Ethernet21/1"))
    vif = neutron.vif("mw-tenant-p1")

    # Cleaning puts the PXE port on the cleaning network, then takes it off.
    api.provision("life", "manage", "clean")
    assert wait_for(
        lambda: "plug port Ethernet21/1" in " ".join(neutron_server.fake_switch_commands())
    )
    assert neutron.ports_on("mw-clean") == []
    assert "cleaning_vif_port_id" not in ports_of(api, "life")["52:54:00:30:00:01"]["internal_info"]

    # Attaching to an available node sets the MAC and seeds the binding, as Ironic does:
    # the node as host, no link, so the switch port stays as it is.
    assert api.provision("life", "provide")["provision_state"] == "available"
    plugs_before = len(neutron_server.fake_switch_commands())
    response = api.attach("life", vif["id"])
    assert response.status_code == 204, response.text
    port = neutron.port(vif["id"])
    assert port["mac_address"] == "52:54:00:30:00:01"
    assert (port["binding:host_id"], port["binding:profile"]) == (node["uuid"], {})
    assert port["binding:vnic_type"] == "baremetal"
    assert port["status"] == "DOWN"
    assert neutron_server.fake_switch_commands()[plugs_before:] == []
    shown = ports_of(api, "life")["52:54:00:30:00:01"]
    assert shown["internal_info"]["tenant_vif_port_id"] == vif["id"]

    # Deploying binds the VIF to the node; the provisioning port is gone again.
    shown = api.provision("life", "active")
    assert shown["provision_state"] == "active"
    port = neutron.wait_status(vif["id"], "ACTIVE")
    assert port["binding:host_id"] == node["uuid"]
    assert port["binding:vnic_type"] == "baremetal"
    assert port["binding:vif_type"] == "other"
    assert port["binding:profile"] == {"local_link_information": [link("Ethernet21/1")]}
    assert neutron.ports_on("mw-provision") == []
    info = ports_of(api, "life")["52:54:00:30:00:01"]["internal_info"]
    assert "provisioning_vif_port_id" not in info
    history = api.get("/v1/nodes/life/history?detail=true")["history"]
    events = [e["event"] for e in history]
    assert "neutron.add_provisioning_network done" in events
    assert "neutron.configure_tenant_networks done" in events

    # Undeploying unbinds the VIF, detaches it and gives it back its MAC.
    assert api.provision("life", "deleted")["provision_state"] == "available"
    assert api.vifs("life") == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_a_rebuild_puts_the_node_back_on_its_tenant_network(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer
) -> None:
    """A rebuild boots the deployed node on the provisioning network again, then back on its
    tenant network: its switch port must end on the tenant VLAN, as after the deploy."""
    node = api.node("rebuilt")
    api.port(node, "52:54:00:38:00:01", link("Ethernet38/1"))
    vif = neutron.vif("mw-tenant-p1")
    tenant_vlan = neutron.networks["mw-tenant-p1"]["provider:segmentation_id"]
    api.provision("rebuilt", "manage", "provide")
    assert api.attach("rebuilt", vif["id"]).status_code == 204
    assert api.provision("rebuilt", "active")["provision_state"] == "active"
    seen = len(neutron_server.fake_switch_commands())

    assert api.provision("rebuilt", "rebuild")["provision_state"] == "active"

    def last_command() -> str:
        commands = neutron_server.fake_switch_commands()[seen:]
        return ([""] + [c for c in commands if "Ethernet38/1" in c])[-1]

    assert wait_for(lambda: last_command() == f"plug port Ethernet38/1 to network {tenant_vlan}")
    assert neutron.wait_status(vif["id"], "ACTIVE")["binding:host_id"] == node["uuid"]
    assert neutron.ports_on("mw-provision") == []


def test_a_deploy_gives_a_vif_whose_mac_drifted_the_node_port_s_mac(
    api: Metalwire, neutron: Neutron
) -> None:
    """A VIF's Neutron port whose MAC was changed behind metalwire's back after the attach:
    as Ironic's, the deploy binds it with the port's MAC again, or the instance's NIC
    would not be the port Neutron's DHCP and security groups know."""
    node = api.node("mac-drift")
    api.port(node, "52:54:00:39:00:01", link("Ethernet39/1"))
    api.provision("mac-drift", "manage", "provide")
    vif = neutron.vif("mw-tenant-p1")
    assert api.attach("mac-drift", vif["id"]).status_code == 204
    drifted = {"mac_address": "52:54:00:39:00:09"}
    response = neutron.http.put(f"/ports/{vif['id']}", json={"port": drifted})
    assert response.status_code == 200, response.text

    assert api.provision("mac-drift", "active")["provision_state"] == "active"

    port = neutron.wait_status(vif["id"], "ACTIVE")
    assert port["mac_address"] == "52:54:00:39:00:01"
    assert port["binding:profile"]["local_link_information"] == [link("Ethernet39/1")]
    assert api.provision("mac-drift", "deleted")["provision_state"] == "available"
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_a_neutron_deploy_without_a_vif_fails(api: Metalwire, neutron: Neutron) -> None:
    """As Ironic's ``neutron`` interface: a deploy has to put the node on a tenant network;
    with no VIF attached it fails (``deploy failed``, saying why) rather than leaving an
    instance on no network, and the provisioning port is gone all the same."""
    node = api.node("novif")
    api.port(node, "52:54:00:30:00:09", link("Ethernet21/9"))
    api.provision("novif", "manage", "provide")

    response = api.http.put("/v1/nodes/novif/states/provision", json={"target": "active"})

    assert response.status_code == 202, response.text
    shown = settled_node(lambda: api.get("/v1/nodes/novif"))
    assert shown["provision_state"] == "deploy failed"
    assert f"No VIF is attached to node {node['uuid']}" in shown["last_error"]
    assert neutron.ports_on("mw-provision") == []


# -- rescue ----------------------------------------------------------------------------------


def test_an_agent_rescue_needs_a_rescuing_network(api: Metalwire, neutron: Neutron) -> None:
    """As Ironic's ``neutron`` interface: an ``agent`` rescue is refused before it starts
    while neither ``[neutron] rescuing_network`` nor ``driver_info/rescuing_network`` names
    a rescuing network; the node stays deployed, without the password."""
    node = api.node(
        "rescued",
        rescue_interface="agent",
        boot_interface="pxe",
        driver_info={**AGENT_RAMDISK, **RESCUE_RAMDISK},
    )
    api.port(node, "52:54:00:3b:00:01", link("Ethernet42/1"))
    api.provision("rescued", "manage", "provide")
    api.deploy_with("rescued", neutron.vif("mw-tenant-p1")["id"])
    rescue = {"target": "rescue", "rescue_password": "s3cret"}
    reason = "UUID or name of rescuing_network is not set in configuration or in node driver_info."

    response = api.http.put("/v1/nodes/rescued/states/provision", json=rescue)

    assert response.status_code == 400, response.text
    assert fault(response) == (
        f"Failed to rescue instance None for node {node['uuid']}: Validation failed: {reason}"
    )
    shown = api.get("/v1/nodes/rescued")
    assert (shown["provision_state"], shown["last_error"]) == ("active", None)
    assert "rescue_password" not in shown["instance_info"]
    assert api.get("/v1/nodes/rescued/validate")["rescue"] == {"result": False, "reason": reason}

    unknown = [{"op": "add", "path": "/driver_info/rescuing_network", "value": "mw-no-such"}]
    assert api.http.patch("/v1/nodes/rescued", json=unknown).status_code == 200
    response = api.http.put("/v1/nodes/rescued/states/provision", json=rescue)
    assert response.status_code == 400, response.text
    assert fault(response).endswith(
        "Validation failed: rescuing_network with name or UUID mw-no-such was not found"
    )
    assert api.get("/v1/nodes/rescued")["provision_state"] == "active"

    named = [{"op": "add", "path": "/driver_info/rescuing_network", "value": "mw-tenant-p2"}]
    assert api.http.patch("/v1/nodes/rescued", json=named).status_code == 200
    assert api.attach("rescued", neutron.vif("mw-tenant-p1")["id"]).status_code == 204
    response = api.http.put("/v1/nodes/rescued/states/provision", json=rescue)
    assert response.status_code == 202, response.text
    assert settled_node(lambda: api.get("/v1/nodes/rescued"))["provision_state"] == "rescue"


def _agent_rescue_node(api: Metalwire, neutron: Neutron, name: str, mac: str, **info: Any) -> Json:
    """A deployed ``neutron`` node with the ``agent`` rescue interface, rescuing on
    mw-tenant-p2, a VIF on mw-tenant-p1 attached; the VIF's Neutron port."""
    local_link = info.pop("local_link", link("Ethernet43/1"))
    driver_info = {**AGENT_RAMDISK, **RESCUE_RAMDISK, "rescuing_network": "mw-tenant-p2"}
    node = api.node(
        name, rescue_interface="agent", boot_interface="pxe", driver_info={**driver_info, **info}
    )
    api.port(node, mac, local_link)
    api.provision(name, "manage", "provide")
    vif = neutron.vif("mw-tenant-p1")
    assert api.attach(name, vif["id"]).status_code == 204
    assert api.provision(name, "active")["provision_state"] == "active"
    return vif


def _rescue(api: Metalwire, name: str, password: str = "s3cret") -> Json:
    """Rescue the node (202), then the node once the rescue's steps are done."""
    rescue = {"target": "rescue", "rescue_password": password}
    response = api.http.put(f"/v1/nodes/{name}/states/provision", json=rescue)
    assert response.status_code == 202, response.text
    return settled_node(lambda: api.get(f"/v1/nodes/{name}"))


def _drift_of(api: Metalwire, name: str) -> dict[str, str]:
    """The drift audit's findings for the node now, as {VIF id: kind}."""
    response = api.http.post(f"/v1/metalwire/audit?node={name}", json={})
    assert response.status_code == 200, response.text
    return {f["vif_id"]: f["kind"] for f in response.json()["findings"]}


def _network_events(api: Metalwire, name: str, since: str) -> list[str]:
    """The network hooks run for the node since the history event ``since``, in order."""
    events = [e["event"] for e in api.get(f"/v1/nodes/{name}/history?detail=true")["history"]]
    return [e for e in events[events.index(since) :] if e.startswith("neutron.")]


def test_an_agent_rescue_boots_on_the_rescuing_network(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer
) -> None:
    """As Ironic's ``agent`` rescue: the VIFs are unbound and the node's port is put on its
    rescuing network, bound to it, for the rescue ramdisk; once that is up (at once here)
    the rescuing port is deleted and the VIFs bound again. An unrescue removes the rescuing
    network and binds the VIFs."""
    mac = "52:54:00:3b:00:02"
    vif = _agent_rescue_node(api, neutron, "rescuenet", mac, local_link=link("Ethernet43/2"))
    node = api.get("/v1/nodes/rescuenet")

    rescue = {"target": "rescue", "rescue_password": "s3cret"}
    response = api.http.put("/v1/nodes/rescuenet/states/provision", json=rescue)

    assert response.status_code == 202, response.text
    shown = settled_node(lambda: api.get("/v1/nodes/rescuenet"))
    assert (shown["provision_state"], shown["last_error"]) == ("rescue", None)
    assert _network_events(api, "rescuenet", "rescue started from active") == [
        "neutron.unconfigure_tenant_networks done",
        "neutron.add_rescuing_network done",
        "neutron.remove_rescuing_network done",
        "neutron.configure_tenant_networks done",
    ]
    assert neutron.ports_on("mw-tenant-p2", mac) == []
    assert "rescuing_vif_port_id" not in ports_of(api, "rescuenet")[mac]["internal_info"]
    assert neutron.wait_status(vif["id"], "ACTIVE")["binding:host_id"] == node["uuid"]
    assert _drift_of(api, "rescuenet") == {}, "a rescued node is on its tenant network"

    shown = api.provision("rescuenet", "unrescue")

    assert shown["provision_state"] == "active"
    assert _network_events(api, "rescuenet", "unrescue started from rescue") == [
        "neutron.remove_rescuing_network done",
        "neutron.configure_tenant_networks done",
    ]
    assert neutron.port(vif["id"])["binding:host_id"] == node["uuid"]


def test_a_flat_agent_rescue_binds_the_vifs_again_for_the_rescue_ramdisk(
    api: Metalwire, neutron: Neutron
) -> None:
    """As Ironic's ``flat`` (no rescuing network of its own): the rescue unbinds the VIFs,
    binds them again for the rescue ramdisk, and the rescued node keeps them bound."""
    info = {**AGENT_RAMDISK, **RESCUE_RAMDISK}
    node = api.node(
        "flatrescue", "flat", rescue_interface="agent", boot_interface="pxe", driver_info=info
    )
    api.port(node, "52:54:00:3b:00:04", link("Ethernet43/4"))
    api.provision("flatrescue", "manage", "provide")
    vif = neutron.vif("mw-tenant-p1")
    assert api.attach("flatrescue", vif["id"]).status_code == 204
    api.provision("flatrescue", "active")
    rescue = {"target": "rescue", "rescue_password": "s3cret"}

    response = api.http.put("/v1/nodes/flatrescue/states/provision", json=rescue)

    assert response.status_code == 202, response.text
    shown = settled_node(lambda: api.get("/v1/nodes/flatrescue"))
    assert (shown["provision_state"], shown["last_error"]) == ("rescue", None)
    events = [e["event"] for e in api.get("/v1/nodes/flatrescue/history")["history"]]
    since = events[events.index("rescue started from active") :]
    assert [e for e in since if e.startswith("flat.")] == [
        "flat.unconfigure_tenant_networks done",
        "flat.add_rescuing_network done",
        "flat.remove_rescuing_network done",
        "flat.configure_tenant_networks done",
    ]
    assert neutron.port(vif["id"])["binding:host_id"] == node["uuid"]


def test_undeploying_a_rescued_node_removes_its_rescuing_network_first(
    api: Metalwire, neutron: Neutron
) -> None:
    """As Ironic's tear-down of a node in ``rescue``, ``rescue failed`` or ``unrescue
    failed``: the ``agent`` rescue's clean-up removes what a rescue may have left on the
    rescuing network before the tenant networks are unconfigured."""
    mac = "52:54:00:3b:00:09"
    _agent_rescue_node(api, neutron, "rescuegone", mac, local_link=link("Ethernet43/9"))
    assert _rescue(api, "rescuegone")["provision_state"] == "rescue"

    assert api.provision("rescuegone", "deleted")["provision_state"] == "available"

    assert _network_events(api, "rescuegone", "deleted started from rescue") == [
        "neutron.remove_rescuing_network done",
        "neutron.unconfigure_tenant_networks done",
    ]
    assert neutron.ports_on("mw-tenant-p2", mac) == []


def test_a_flat_unrescue_after_a_failed_rescue_binds_the_vifs_again(
    api: Metalwire, neutron: Neutron
) -> None:
    """As Ironic's ``flat``, whose ``configure_tenant_networks`` binds the VIFs: a rescue
    that failed (here: one VIF's Neutron port deleted behind metalwire's back) leaves the
    others unbound, and the unrescue binds them again."""
    info = {**AGENT_RAMDISK, **RESCUE_RAMDISK}
    node = api.node(
        "flatfail", "flat", rescue_interface="agent", boot_interface="pxe", driver_info=info
    )
    api.port(node, "52:54:00:3b:00:07", link("Ethernet43/7"))
    api.port(node, "52:54:00:3b:00:08", link("Ethernet43/8"))
    api.provision("flatfail", "manage", "provide")
    gone, kept = neutron.vif("mw-tenant-p1"), neutron.vif("mw-tenant-p1")
    for vif in (gone, kept):
        assert api.attach("flatfail", vif["id"]).status_code == 204
    api.provision("flatfail", "active")
    assert neutron.http.delete(f"/ports/{gone['id']}").status_code == 204

    assert _rescue(api, "flatfail")["provision_state"] == "rescue failed"
    assert neutron.port(kept["id"])["binding:host_id"] == ""
    assert api.detach("flatfail", gone["id"]).status_code == 204

    assert api.provision("flatfail", "unrescue")["provision_state"] == "active"
    assert neutron.port(kept["id"])["binding:host_id"] == node["uuid"]


def test_a_rescue_neutron_cannot_bind_leaves_no_rescuing_port(
    api: Metalwire, neutron: Neutron
) -> None:
    """The rescuing port of a port on a switch Neutron does not know cannot be bound: the
    rescue fails (``rescue failed``, Neutron's reason in ``last_error``), the port created
    on the rescuing network is deleted and, as in Ironic, the VIFs stay unbound. An unrescue
    binds them again."""
    mac = "52:54:00:3b:00:03"
    relaxed = {"fail_on_binding_failure": False, "local_link": UNKNOWN_SWITCH}
    vif = _agent_rescue_node(api, neutron, "rescuefail", mac, **relaxed)
    node = api.get("/v1/nodes/rescuefail")
    strict = [{"op": "add", "path": "/driver_info/fail_on_binding_failure", "value": True}]
    assert api.http.patch("/v1/nodes/rescuefail", json=strict).status_code == 200
    rescue = {"target": "rescue", "rescue_password": "s3cret"}

    response = api.http.put("/v1/nodes/rescuefail/states/provision", json=rescue)

    assert response.status_code == 202, response.text
    shown = settled_node(lambda: api.get("/v1/nodes/rescuefail"))
    assert shown["provision_state"] == "rescue failed"
    assert "binding_failed" in shown["last_error"]
    assert "rescue_password" not in shown["instance_info"]
    assert neutron.ports_on("mw-tenant-p2", mac) == []
    assert "rescuing_vif_port_id" not in ports_of(api, "rescuefail")[mac]["internal_info"]
    assert neutron.port(vif["id"])["binding:host_id"] == ""
    assert _drift_of(api, "rescuefail") == {vif["id"]: "binding_mismatch"}

    relax = [{"op": "add", "path": "/driver_info/fail_on_binding_failure", "value": False}]
    assert api.http.patch("/v1/nodes/rescuefail", json=relax).status_code == 200
    assert api.provision("rescuefail", "unrescue")["provision_state"] == "active"
    assert neutron.port(vif["id"])["binding:host_id"] == node["uuid"]


# -- inspection ------------------------------------------------------------------------------


def _inspected_node(
    api: Metalwire, name: str, interface: str, port: tuple[str, Json], **info: Any
) -> Json:
    """A manageable node with the ``agent`` inspect interface booting over PXE, one port."""
    node = api.node(
        name,
        interface,
        inspect_interface="agent",
        boot_interface="pxe",
        driver_info={**AGENT_RAMDISK, **info},
    )
    api.port(node, *port)
    api.provision(name, "manage")
    return node


def test_an_agent_inspection_needs_an_inspection_network_neutron_knows(
    api: Metalwire, neutron: Neutron
) -> None:
    """As Ironic's: the inspection network a node names must be one Neutron has; refused
    before anything changes, and said by validate."""
    _inspected_node(
        api,
        "inspectunknown",
        "neutron",
        ("52:54:00:3c:00:01", link("Ethernet44/1")),
        inspection_network="mw-no-such",
    )

    response = api.http.put("/v1/nodes/inspectunknown/states/provision", json=provision("inspect"))

    assert response.status_code == 400, response.text
    reason = "inspection_network with name or UUID mw-no-such was not found"
    assert fault(response) == reason
    shown = api.get("/v1/nodes/inspectunknown")
    assert (shown["provision_state"], shown["last_error"]) == ("manageable", None)
    assert api.get("/v1/nodes/inspectunknown/validate")["inspect"] == {
        "result": False,
        "reason": reason,
    }


@pytest.mark.parametrize("interface", ["neutron", "flat"])
def test_an_agent_inspection_boots_on_the_inspection_network_until_aborted(
    api: Metalwire, neutron: Neutron, interface: str
) -> None:
    """As Ironic's ``agent`` inspection: the node's PXE port gets a port on its inspection
    network, bound to the node, while it waits in ``inspect wait``; an abort deletes it."""
    name = f"inspect{interface}"
    mac, local_link = {
        "neutron": ("52:54:00:3c:00:02", link("Ethernet44/2")),
        "flat": ("52:54:00:3c:00:03", link("Ethernet44/3")),
    }[interface]
    node = _inspected_node(
        api, name, interface, (mac, local_link), inspection_network="mw-tenant-p2"
    )

    response = api.http.put(f"/v1/nodes/{name}/states/provision", json=provision("inspect"))

    assert response.status_code == 202, response.text
    shown = settled_node(lambda: api.get(f"/v1/nodes/{name}"))
    assert (shown["provision_state"], shown["last_error"]) == ("inspect wait", None)
    [inspection_port] = neutron.ports_on("mw-tenant-p2", mac)
    assert inspection_port["binding:host_id"] == node["uuid"]
    assert inspection_port["binding:vnic_type"] == "baremetal"
    assert (
        ports_of(api, name)[mac]["internal_info"]["inspection_vif_port_id"]
        == (inspection_port["id"])
    )
    if interface == "neutron":
        assert inspection_port["binding:profile"]["local_link_information"] == [local_link]
        assert _drift_of(api, name) == {}, "an inspection port is no orphan"

    response = api.http.put(f"/v1/nodes/{name}/states/provision", json=provision("abort"))

    assert response.status_code == 202, response.text
    shown = settled_node(lambda: api.get(f"/v1/nodes/{name}"))
    assert (shown["provision_state"], shown["last_error"]) == (
        "inspect failed",
        "Inspection was aborted by request.",
    )
    assert neutron.ports_on("mw-tenant-p2", mac) == []
    assert "inspection_vif_port_id" not in ports_of(api, name)[mac]["internal_info"]
    events = [e["event"] for e in api.get(f"/v1/nodes/{name}/history?detail=true")["history"]]
    since = events[events.index("inspect started from manageable") :]
    assert [e for e in since if e.startswith(f"{interface}.")] == [
        f"{interface}.add_inspection_network done",
        f"{interface}.remove_inspection_network done",
    ]


def test_the_ramdisks_report_ends_the_inspection_and_a_vif_binds_with_the_link_it_learned(
    api: Metalwire, neutron: Neutron
) -> None:
    """The report deletes the inspection port; the port the inspection created for the
    interface the ramdisk booted from, with the switch's LLDP advertisement as its link,
    is the one a deploy binds the VIF with."""
    booted, learned = "52:54:00:3c:00:21", link("Ethernet44/21")
    _inspected_node(
        api,
        "reported",
        "neutron",
        ("52:54:00:3c:00:20", link("Ethernet44/20")),
        inspection_network="mw-tenant-p2",
    )
    api.provision("reported", "inspect")
    assert neutron.ports_on("mw-tenant-p2", "52:54:00:3c:00:20") != []
    tlvs = [
        [1, "04" + learned["switch_id"].replace(":", "")],
        [2, "05" + learned["port_id"].encode().hex()],
        [5, learned["switch_info"].encode().hex()],
    ]
    body = inspection.report(
        interfaces=[
            inspection.interface("eth0", "52:54:00:3c:00:20"),
            inspection.interface("eth1", booted, "192.0.2.31", tlvs),
        ],
        boot={"pxe_interface": booted},
    )

    latest = {"X-OpenStack-Ironic-API-Version": "latest"}
    response = api.http.post("/v1/continue_inspection", json=body, headers=latest)

    assert response.status_code == 202, response.text
    shown = api.get("/v1/nodes/reported")
    assert (shown["provision_state"], shown["last_error"]) == ("manageable", None)
    assert neutron.ports_on("mw-tenant-p2", "52:54:00:3c:00:20") == []
    created = ports_of(api, "reported")[booted]
    assert (created["pxe_enabled"], created["local_link_connection"]) == (True, learned)

    old = ports_of(api, "reported")["52:54:00:3c:00:20"]
    assert api.http.delete(f"/v1/ports/{old['uuid']}").status_code == 204
    vif = neutron.vif("mw-tenant-p1")
    assert api.attach("reported", vif["id"]).status_code == 204
    assert api.provision("reported", "provide", "active")["provision_state"] == "active"

    port = neutron.wait_status(vif["id"], "ACTIVE")
    assert port["mac_address"] == booted
    assert port["binding:profile"] == {"local_link_information": [learned]}


def test_an_inspection_neutron_cannot_bind_fails_and_leaves_no_inspection_port(
    api: Metalwire, neutron: Neutron
) -> None:
    """A port on a switch Neutron does not know cannot be bound: as Ironic's, the inspection
    fails to start (``inspect failed``, Neutron's reason in ``last_error``) and what was
    created on the inspection network is deleted."""
    _inspected_node(
        api,
        "inspectfail",
        "neutron",
        ("52:54:00:3c:00:04", UNKNOWN_SWITCH),
        inspection_network="mw-tenant-p2",
        fail_on_binding_failure=True,
    )
    mac = "52:54:00:3c:00:04"

    response = api.http.put("/v1/nodes/inspectfail/states/provision", json=provision("inspect"))

    assert response.status_code == 202, response.text
    shown = settled_node(lambda: api.get("/v1/nodes/inspectfail"))
    assert shown["provision_state"] == "inspect failed"
    assert shown["last_error"].startswith(
        "Failed to inspect hardware. Reason: unable to start inspection: "
    )
    assert "binding_failed" in shown["last_error"]
    assert neutron.ports_on("mw-tenant-p2", mac) == []
    assert "inspection_vif_port_id" not in ports_of(api, "inspectfail")[mac]["internal_info"]


def test_a_rescue_failing_once_its_ramdisk_is_up_is_cleaned_up_as_ironic_does(
    api: Metalwire, neutron: Neutron
) -> None:
    """As Ironic's rescue error handler: a rescue that fails after its ramdisk came up (here:
    no VIF left to put back on the tenant network) powers the node off, runs the rescue
    interface's clean-up (the rescue password fields dropped, the rescuing network removed)
    and leaves the node in ``rescue failed`` with the reason in ``last_error``."""
    mac = "52:54:00:3b:00:05"
    vif = _agent_rescue_node(api, neutron, "rescuelate", mac, local_link=link("Ethernet43/5"))
    assert _rescue(api, "rescuelate")["provision_state"] == "rescue"
    assert api.detach("rescuelate", vif["id"]).status_code == 204

    shown = _rescue(api, "rescuelate", "an0ther")

    assert (shown["provision_state"], shown["power_state"]) == ("rescue failed", "power off")
    assert "No VIF is attached" in shown["last_error"]
    assert not {"rescue_password", "hashed_rescue_password"} & set(shown["instance_info"])
    assert _network_events(api, "rescuelate", "rescue started from rescue") == [
        "neutron.unconfigure_tenant_networks done",
        "neutron.add_rescuing_network done",
        "neutron.remove_rescuing_network done",
        "neutron.remove_rescuing_network done",  # the clean-up after the failure
    ]
    assert neutron.ports_on("mw-tenant-p2", mac) == []
    assert "rescuing_vif_port_id" not in ports_of(api, "rescuelate")[mac]["internal_info"]


def test_a_failed_rescue_of_a_node_that_must_stay_on_is_not_cleaned_up(
    api: Metalwire, neutron: Neutron
) -> None:
    """As Ironic's rescue error handler, which cannot power off a node whose
    ``disable_power_off`` is set and then skips the clean-up: the node stays on, and
    ``last_error`` says why nothing was cleaned up."""
    vif = _agent_rescue_node(
        api, neutron, "rescueon", "52:54:00:3b:00:06", local_link=link("Ethernet43/6")
    )
    assert api.detach("rescueon", vif["id"]).status_code == 204
    stay_on = [{"op": "replace", "path": "/disable_power_off", "value": True}]
    newer = {"X-OpenStack-Ironic-API-Version": "1.95"}
    assert api.http.patch("/v1/nodes/rescueon", json=stay_on, headers=newer).status_code == 200

    shown = _rescue(api, "rescueon")

    assert (shown["provision_state"], shown["power_state"]) == ("rescue failed", "power on")
    assert "not cleaned up: node " in shown["last_error"]
    assert "(rescueon) has disable_power_off set, so it was not powered off" in shown["last_error"]
    assert _network_events(api, "rescueon", "rescue started from active")[-1] == (
        "neutron.remove_rescuing_network done"  # by the rescue, none by a clean-up
    )
    assert "rescue_password" not in shown["instance_info"]


# -- the binding an attach seeds -------------------------------------------------------------


@pytest.fixture(scope="module")
def routed(neutron: Neutron) -> Json:
    """A routed provider network: a segment (and subnet) on physnet1 and one on physnet2."""
    subnets = {"physnet1": "10.37.1.0/24", "physnet2": "10.37.2.0/24"}
    return neutron.create_routed_network("mw-routed", subnets)


def test_an_attach_seeds_the_binding_so_a_routed_network_gives_the_vif_an_address(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer, routed: Json
) -> None:
    """Nova creates a VIF with no host (its Ironic driver binds nothing), so on a routed
    network Neutron defers its address until it knows where the port is. As Ironic, an
    attach to a node that is not deployed tells it: host = the node, vnic type baremetal,
    an empty profile. Neutron then allocates an address of the node's segment, which Nova
    reads for the instance's network configuration before the deploy."""
    node = api.node("routed")
    api.port(node, "52:54:00:37:00:01", link("Ethernet37/1"), physical_network="physnet1")
    api.provision("routed", "manage", "provide")
    # As networking-baremetal's agent reports it: the node reaches the physnet1 segment.
    neutron_server.map_host_to_segment(node["uuid"], routed["segments_by_physnet"]["physnet1"])
    vif = neutron.vif("mw-routed")
    assert vif["fixed_ips"] == []  # deferred until Neutron knows the host

    response = api.attach("routed", vif["id"])

    assert response.status_code == 204, response.text
    port = neutron.port(vif["id"])
    assert [ip["ip_address"].rsplit(".", 1)[0] for ip in port["fixed_ips"]] == ["10.37.1"]
    assert (port["binding:host_id"], port["binding:profile"]) == (node["uuid"], {})

    # The deploy binds it with its link; the undeploy unbinds it, and the address stays.
    assert api.provision("routed", "active")["provision_state"] == "active"
    port = neutron.wait_status(vif["id"], "ACTIVE")
    assert port["binding:profile"]["local_link_information"] == [link("Ethernet37/1")]
    assert api.provision("routed", "deleted")["provision_state"] == "available"
    port = neutron.port(vif["id"])
    assert_unbound(port, vif["mac_address"])
    assert [ip["ip_address"].rsplit(".", 1)[0] for ip in port["fixed_ips"]] == ["10.37.1"]


def test_an_attach_neutron_cannot_seed_fails_and_changes_nothing(
    api: Metalwire, neutron: Neutron, routed: Json
) -> None:
    """A node no segment of the routed network reaches cannot get an address there: as
    Ironic's, the attach fails (Neutron's refusal named), and what it did is undone."""
    node = api.node("unrouted")
    api.port(node, "52:54:00:37:00:02", link("Ethernet37/2"), physical_network="physnet1")
    api.provision("unrouted", "manage", "provide")
    vif = neutron.vif("mw-routed")

    response = api.attach("unrouted", vif["id"])

    assert response.status_code == 502, response.text
    assert "HostNotConnectedToAnySegment" in fault(response)
    assert f"seed the binding of VIF port {vif['id']}" in fault(response)
    assert api.vifs("unrouted") == []
    port = neutron.port(vif["id"])
    assert_unbound(port, vif["mac_address"])
    assert port["fixed_ips"] == []


def test_a_vif_bound_elsewhere_gets_the_seed_and_the_node_mac_and_a_detach_unbinds_it(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer
) -> None:
    """A VIF already bound to another host (a tool that binds the ports it creates) is
    unbound and seeded to the node, and keeps the node port's MAC (Ironic 39 resets it to
    one Neutron generates when it unbinds such a port, until the deploy sets it again).
    A detach from a node that is not deployed unbinds it and gives it back its MAC, in
    every provision state (Ironic 39 unbinds only in active, deleting and available)."""
    node = api.node("prebound")
    api.port(node, "52:54:00:3a:00:01", link("Ethernet41/1"), physical_network="physnet1")
    api.provision("prebound", "manage")
    vif = neutron.vif("mw-tenant-p1")
    elsewhere = {
        "binding:host_id": "compute-9",
        "binding:vnic_type": "baremetal",
        "binding:profile": {"local_link_information": [link("Ethernet41/9")]},
    }
    response = neutron.http.put(f"/ports/{vif['id']}", json={"port": elsewhere})
    assert response.status_code == 200, response.text
    neutron.wait_status(vif["id"], "ACTIVE")

    response = api.attach("prebound", vif["id"])

    assert response.status_code == 204, response.text
    port = neutron.port(vif["id"])
    assert (port["binding:host_id"], port["binding:profile"]) == (node["uuid"], {})
    assert port["mac_address"] == "52:54:00:3a:00:01"
    assert "delete port Ethernet41/9" in neutron_server.fake_switch_commands()

    assert api.get("/v1/nodes/prebound")["provision_state"] == "manageable"
    assert api.detach("prebound", vif["id"]).status_code == 204
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


# -- hot-plug on an active node --------------------------------------------------------------


def test_an_undeploy_while_the_deploy_waits_removes_the_provisioning_port(
    api: Metalwire, neutron: Neutron
) -> None:
    """Nova deletes the instance while a direct deploy waits for its agent: the undeploy runs
    from wait call-back, deletes the provisioning port and leaves the VIF unbound, detached."""
    node = api.node("waiting", deploy_interface="direct", instance_info=DIRECT_IMAGE)
    api.port(node, "52:54:00:30:00:05", link("Ethernet21/5"))
    vif = neutron.vif("mw-tenant-p1")
    api.provision("waiting", "manage", "provide")
    assert api.attach("waiting", vif["id"]).status_code == 204
    shown = api.provision("waiting", "active")
    assert shown["provision_state"] == "wait call-back"
    assert len(neutron.ports_on("mw-provision")) == 1

    shown = api.provision("waiting", "deleted")

    assert (shown["provision_state"], shown["instance_info"]) == ("available", {})
    assert neutron.ports_on("mw-provision") == []
    assert api.vifs("waiting") == []
    assert neutron.port(vif["id"])["binding:host_id"] == ""


def test_hot_plug_binds_at_once_and_detach_unbinds(
    api: Metalwire, neutron: Neutron, hot: Json
) -> None:
    vif = neutron.vif("mw-tenant-p1")
    h1 = ports_of(api, "hot")["52:54:00:31:00:01"]
    response = api.attach("hot", vif["id"], port_uuid=h1["uuid"])
    assert response.status_code == 204, response.text
    port = neutron.wait_status(vif["id"], "ACTIVE")
    assert port["mac_address"] == "52:54:00:31:00:01"
    assert port["binding:host_id"] == hot["uuid"]
    assert port["binding:vnic_type"] == "baremetal"
    assert port["binding:profile"] == {
        "local_link_information": [link("Ethernet22/1")],
        "physical_network": "physnet1",
    }

    response = api.detach("hot", vif["id"])
    assert response.status_code == 204, response.text
    assert api.vifs("hot") == []
    port = neutron.port(vif["id"])
    assert_unbound(port, vif["mac_address"])
    assert port["status"] == "DOWN"


def test_portgroup_binding_sends_every_link_and_the_bond(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer, hot: Json
) -> None:
    vif = neutron.vif("mw-tenant-p1")
    bond = api.get("/v1/portgroups/bond-hot")
    response = api.attach("hot", vif["id"], portgroup_uuid=bond["uuid"])
    assert response.status_code == 204, response.text
    port = neutron.wait_status(vif["id"], "ACTIVE")
    assert port["mac_address"] == "52:54:00:31:00:10"
    assert port["binding:host_id"] == hot["uuid"]
    assert port["binding:profile"] == {
        "local_link_information": [
            link("Ethernet23/1"),
            link("Ethernet23/2", SW2.name, SW2.mac_address),
        ],
        "local_group_information": {
            "id": bond["uuid"],
            "name": "bond-hot",
            "bond_mode": "802.3ad",
            "bond_properties": {"bond_miimon": 100},
        },
        "physical_network": "physnet1",
    }
    commands = " ".join(neutron_server.fake_switch_commands())
    assert "plug port Ethernet23/1" in commands and "plug port Ethernet23/2" in commands

    assert api.detach("hot", vif["id"]).status_code == 204
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_failed_binding_is_a_clear_error_and_leaves_nothing(
    api: Metalwire, neutron: Neutron, hot: Json
) -> None:
    vif = neutron.vif("mw-tenant-p1")
    h2 = ports_of(api, "hot")["52:54:00:31:00:02"]
    response = api.attach("hot", vif["id"], port_uuid=h2["uuid"])
    assert response.status_code == 502, response.text
    message = fault(response)
    assert f"Attaching VIF {vif['id']} to port {h2['uuid']}" in message
    assert f"Neutron PUT /v2.0/ports/{vif['id']} (bind VIF port {vif['id']}" in message
    assert "binding:vif_type is binding_failed" in message
    assert "Everything already done was undone." in message

    assert api.vifs("hot") == []
    assert "tenant_vif_port_id" not in ports_of(api, "hot")["52:54:00:31:00:02"]["internal_info"]
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])
    assert api.get("/v1/nodes/hot")["provision_state"] == "active"
    history = api.get("/v1/nodes/hot/history?detail=true")["history"]
    assert any(e["severity"] == "ERROR" and vif["id"] in e["event"] for e in history)


# -- physical networks and MAC changes -------------------------------------------------------


def test_a_node_whose_driver_info_allows_binding_failures_takes_a_vif_neutron_cannot_bind(
    api: Metalwire, neutron: Neutron
) -> None:
    """As in Ironic, ``driver_info["fail_on_binding_failure"]`` false (here the string an
    operator's CLI sends) tells the neutron interface not to wait for a binding: a VIF on a
    switch Neutron does not know is attached, its binding failed in Neutron."""
    node = api.node("lenient", driver_info={"fail_on_binding_failure": "false"})
    api.port(node, "52:54:00:31:00:51", link("Ethernet22/51"))
    unknown = api.port(node, "52:54:00:31:00:52", UNKNOWN_SWITCH, pxe_enabled=False)
    api.provision("lenient", "manage", "provide")
    api.deploy_with("lenient", neutron.vif("mw-tenant-p1")["id"])
    vif = neutron.vif("mw-tenant-p1")

    response = api.attach("lenient", vif["id"], port_uuid=unknown["uuid"])

    assert response.status_code == 204, response.text
    assert api.vifs("lenient") == [vif["id"]]
    port = neutron.port(vif["id"])
    assert (port["binding:vif_type"], port["binding:host_id"]) == ("binding_failed", node["uuid"])


def test_physical_networks_choose_the_port(api: Metalwire, neutron: Neutron) -> None:
    node = api.node("phys")
    q1 = api.port(node, "52:54:00:32:00:01", link("Ethernet24/1"), physical_network="physnet1")
    q2 = api.port(
        node,
        "52:54:00:32:00:02",
        link("Ethernet24/2", SW2.name, SW2.mac_address),
        physical_network="physnet2",
    )
    on_p2, on_p1, another_p2 = (
        neutron.vif("mw-tenant-p2"),
        neutron.vif("mw-tenant-p1"),
        neutron.vif("mw-tenant-p2"),
    )

    # A MAC Neutron refuses (another port of the network has it): nothing is left behind.
    squatter = neutron.vif("mw-tenant-p1", mac_address=q1["address"])
    response = api.attach("phys", on_p1["id"])
    assert response.status_code == 502, response.text
    message = fault(response)
    assert f"Neutron PUT /v2.0/ports/{on_p1['id']} (set MAC of VIF port" in message
    assert "HTTP 409 MacAddressInUse" in message
    assert api.vifs("phys") == []
    assert neutron.port(on_p1["id"])["mac_address"] == on_p1["mac_address"]
    assert neutron.http.delete(f"/ports/{squatter['id']}").status_code == 204

    assert api.attach("phys", on_p2["id"]).status_code == 204
    assert neutron.port(on_p2["id"])["mac_address"] == q2["address"]
    assert api.attach("phys", on_p1["id"]).status_code == 204
    assert neutron.port(on_p1["id"])["mac_address"] == q1["address"]
    shown = ports_of(api, "phys")
    assert shown[q2["address"]]["internal_info"]["tenant_vif_port_id"] == on_p2["id"]
    assert shown[q1["address"]]["internal_info"]["tenant_vif_port_id"] == on_p1["id"]

    response = api.attach("phys", another_p2["id"])
    assert response.status_code == 400, response.text
    message = fault(response)
    assert f"port {q1['uuid']}" in message and "physical network physnet1" in message
    assert f"is busy with VIF {on_p2['id']}" in message
    assert neutron.port(another_p2["id"])["mac_address"] == another_p2["mac_address"]

    # A new MAC on a port with a VIF goes to the VIF's Neutron port too.
    response = api.http.patch(
        f"/v1/ports/{q2['uuid']}",
        json=[{"op": "replace", "path": "/address", "value": "52:54:00:32:00:22"}],
    )
    assert response.status_code == 200, response.text
    assert neutron.port(on_p2["id"])["mac_address"] == "52:54:00:32:00:22"

    for vif in (on_p2, on_p1):
        assert api.detach("phys", vif["id"]).status_code == 204
        assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_unknown_vif_is_refused(api: Metalwire, hot: Json) -> None:
    missing = "0b8ad9a2-7ac6-4e8c-8a34-2f0d4c3f5e61"
    response = api.attach("hot", missing)
    assert response.status_code == 400, response.text
    assert f"Neutron has no port {missing}" in fault(response)
    assert api.vifs("hot") == []


# -- flat with Neutron -----------------------------------------------------------------------


def test_flat_binds_the_vifs_to_the_node_at_deploy(api: Metalwire, neutron: Neutron) -> None:
    """As Ironic's ``flat``: a deploy binds each VIF with the node's UUID as host, the
    ``baremetal`` vnic type and the port's MAC, and no profile (no switch port is moved on
    a flat network); the compute host Nova records in instance_info plays no part."""
    node = api.node("flatn", "flat", instance_info={"nova_host_id": "compute-7"})
    api.port(node, "52:54:00:33:00:01", link("Ethernet25/1"))
    vif = neutron.vif("mw-tenant-p1")
    api.provision("flatn", "manage", "provide")

    assert api.attach("flatn", vif["id"]).status_code == 204
    port = neutron.port(vif["id"])
    assert port["mac_address"] == "52:54:00:33:00:01"
    assert (port["binding:host_id"], port["binding:profile"]) == (node["uuid"], {})

    assert api.provision("flatn", "active")["provision_state"] == "active"
    port = neutron.port(vif["id"])
    assert port["binding:host_id"] == node["uuid"]
    assert port["binding:vnic_type"] == "baremetal"
    assert port["binding:profile"] == {}
    assert port["mac_address"] == "52:54:00:33:00:01"

    assert api.provision("flatn", "deleted")["provision_state"] == "available"
    assert api.vifs("flatn") == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_flat_hot_plug_binds_with_the_links_and_a_rebuild_binds_without(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer
) -> None:
    """As Ironic's ``flat`` (its hot-plug is the ``neutron`` interface's): a VIF attached
    to an active node is bound with the port's links, physical network and client-id, so
    that networking-generic-switch wires the switch port, but the attach neither waits for
    ACTIVE nor fails when Neutron cannot bind. A rebuild unbinds the VIFs before its flat
    binding, which has no profile, as Ironic's deploy does."""
    node = api.node("flathot", "flat")
    api.port(node, "52:54:00:33:00:41", link("Ethernet25/41"))
    api.port(
        node,
        "52:54:00:33:00:42",
        link("Ethernet25/42"),
        pxe_enabled=False,
        physical_network="physnet1",
        extra={"client-id": CLIENT_ID},
    )
    api.port(node, "52:54:00:33:00:43", UNKNOWN_SWITCH, pxe_enabled=False)
    api.provision("flathot", "manage", "provide")
    api.deploy_with("flathot", neutron.vif("mw-tenant-p1")["id"])
    by_mac = ports_of(api, "flathot")

    hot_vif = neutron.vif("mw-tenant-p1")
    target = by_mac["52:54:00:33:00:42"]["uuid"]
    response = api.attach("flathot", hot_vif["id"], port_uuid=target)
    assert response.status_code == 204, response.text
    port = neutron.wait_status(hot_vif["id"], "ACTIVE")
    assert (port["binding:host_id"], port["binding:vnic_type"]) == (node["uuid"], "baremetal")
    assert port["binding:profile"] == {
        "local_link_information": [link("Ethernet25/42")],
        "physical_network": "physnet1",
    }
    assert port["mac_address"] == "52:54:00:33:00:42"
    assert client_id_options(port) == [{"opt_name": "61", "opt_value": CLIENT_ID}]
    assert any("plug port Ethernet25/42" in c for c in neutron_server.fake_switch_commands())

    # No switch Neutron knows: the binding fails, and the VIF is attached all the same.
    failing_vif = neutron.vif("mw-tenant-p1")
    target = by_mac["52:54:00:33:00:43"]["uuid"]
    response = api.attach("flathot", failing_vif["id"], port_uuid=target)
    assert response.status_code == 204, response.text
    assert failing_vif["id"] in api.vifs("flathot")
    assert neutron.port(failing_vif["id"])["binding:vif_type"] == "binding_failed"
    # Unless the node's driver_info says a binding failure is fatal, as in Ironic.
    assert api.detach("flathot", failing_vif["id"]).status_code == 204
    patch = [{"op": "add", "path": "/driver_info/fail_on_binding_failure", "value": True}]
    assert api.http.patch("/v1/nodes/flathot", json=patch).status_code == 200
    response = api.attach("flathot", failing_vif["id"], port_uuid=target)
    assert response.status_code == 502, response.text
    assert "binding_failed" in fault(response)
    assert failing_vif["id"] not in api.vifs("flathot")
    assert_unbound(neutron.port(failing_vif["id"]), failing_vif["mac_address"])

    assert api.provision("flathot", "rebuild")["provision_state"] == "active"
    port = neutron.port(hot_vif["id"])
    assert (port["binding:host_id"], port["binding:profile"]) == (node["uuid"], {})
    assert "delete port Ethernet25/42" in neutron_server.fake_switch_commands()

    assert api.provision("flathot", "deleted")["provision_state"] == "available"
    assert_unbound(neutron.port(hot_vif["id"]), hot_vif["mac_address"])


def test_a_flat_deploy_gives_a_bound_vif_whose_mac_drifted_the_node_port_s_mac(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer
) -> None:
    """A VIF's Neutron port whose MAC was changed behind metalwire's back, and that is bound
    again (here with a link, which genericswitch binds; in production networking-baremetal
    binds a flat network's seed with none): Neutron refuses a MAC change on a bound port
    (409 PortBound), so the deploy unbinds it, sets the MAC and binds it to the node, as
    Ironic's update_port_address does around a MAC change."""
    node = api.node("flat-drift", "flat")
    api.port(node, "52:54:00:33:00:21", link("Ethernet25/21"))
    vif = neutron.vif("mw-tenant-p1")
    api.provision("flat-drift", "manage", "provide")
    assert api.attach("flat-drift", vif["id"]).status_code == 204

    unbind = {"binding:host_id": "", "binding:profile": {}}
    for fields in (
        unbind,
        {"mac_address": "52:54:00:33:00:29"},
        {
            "binding:host_id": node["uuid"],
            "binding:vnic_type": "baremetal",
            "binding:profile": {"local_link_information": [link("Ethernet25/29")]},
        },
    ):
        response = neutron.http.put(f"/ports/{vif['id']}", json={"port": fields})
        assert response.status_code == 200, response.text
    assert neutron.wait_status(vif["id"], "ACTIVE")["binding:vif_type"] == "other"

    assert api.provision("flat-drift", "active")["provision_state"] == "active"
    port = neutron.port(vif["id"])
    assert port["mac_address"] == "52:54:00:33:00:21"
    assert (port["binding:host_id"], port["binding:vnic_type"]) == (node["uuid"], "baremetal")
    assert port["binding:profile"] == {}
    assert "delete port Ethernet25/29" in neutron_server.fake_switch_commands()


def test_a_flat_deploy_without_a_vif_fails(api: Metalwire) -> None:
    """As Ironic's ``flat``: the node would boot on the network of its VIFs; with none
    attached the deploy fails, saying so, instead of leaving the node without a network."""
    node = api.node("flat-novif", "flat")
    api.port(node, "52:54:00:33:00:07", link("Ethernet25/7"))
    api.provision("flat-novif", "manage", "provide")

    response = api.http.put("/v1/nodes/flat-novif/states/provision", json={"target": "active"})
    assert response.status_code == 202, response.text
    shown = settled_node(lambda: api.get("/v1/nodes/flat-novif"))
    assert shown["provision_state"] == "deploy failed"
    assert "Failed to bind any flat network port" in shown["last_error"]
    assert "no VIF is attached" in shown["last_error"]


# -- InfiniBand client-id --------------------------------------------------------------------

#: An InfiniBand port's DHCP client identifier (its ``extra["client-id"]``).
CLIENT_ID = "ff:00:00:00:00:00:02:00:00:02:c9:00:00:02:c9:03:00:a1:b2:c3"


def client_id_options(port: Json) -> list[Json]:
    """The DHCP option 61 (client identifier) of a Neutron port."""
    options = port.get("extra_dhcp_opts") or []
    return [
        {"opt_name": o["opt_name"], "opt_value": o["opt_value"]}
        for o in options
        if o["opt_name"] == "61"
    ]


def test_client_id_reaches_neutron_on_the_provisioning_port_and_the_bound_vif(
    api: Metalwire, neutron: Neutron
) -> None:
    """A port's extra/client-id is the DHCP client identifier the node's firmware (InfiniBand)
    sends: every Neutron port bound for it carries it as DHCP option 61, or DHCP answers no."""
    node = api.node("ib", deploy_interface="direct", instance_info=DIRECT_IMAGE)
    api.port(node, "52:54:00:34:00:01", link("Ethernet35/1"), extra={"client-id": CLIENT_ID})
    vif = neutron.vif("mw-tenant-p1")
    api.provision("ib", "manage", "provide")
    assert api.attach("ib", vif["id"]).status_code == 204

    assert api.provision("ib", "active")["provision_state"] == "wait call-back"
    [provisioning] = neutron.ports_on("mw-provision")
    assert client_id_options(provisioning) == [{"opt_name": "61", "opt_value": CLIENT_ID}]
    assert api.provision("ib", "deleted")["provision_state"] == "available"

    patch = [{"op": "replace", "path": "/deploy_interface", "value": "fake"}]
    assert api.http.patch("/v1/nodes/ib", json=patch).status_code == 200
    assert api.attach("ib", vif["id"]).status_code == 204
    assert api.provision("ib", "active")["provision_state"] == "active"
    port = neutron.wait_status(vif["id"], "ACTIVE")
    assert client_id_options(port) == [{"opt_name": "61", "opt_value": CLIENT_ID}]

    # A new client-id (or none) follows to the attached VIF's Neutron port.
    ib_port = ports_of(api, "ib")["52:54:00:34:00:01"]
    new_id = CLIENT_ID.replace("a1:b2:c3", "d4:e5:f6")
    patch = [{"op": "replace", "path": "/extra/client-id", "value": new_id}]
    response = api.http.patch(f"/v1/ports/{ib_port['uuid']}", json=patch)
    assert response.status_code == 200, response.text
    assert client_id_options(neutron.port(vif["id"])) == [{"opt_name": "61", "opt_value": new_id}]
    patch = [{"op": "remove", "path": "/extra/client-id"}]
    response = api.http.patch(f"/v1/ports/{ib_port['uuid']}", json=patch)
    assert response.status_code == 200, response.text
    assert client_id_options(neutron.port(vif["id"])) == []


def test_flat_cleans_on_the_cleaning_network(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer
) -> None:
    """As in Ironic, ``flat`` boots the cleaning ramdisk on ``[neutron] cleaning_network``:
    a Neutron port bound to the node's PXE port for the cleaning, deleted afterwards."""
    node = api.node("flatclean", "flat")
    api.port(node, "52:54:00:33:00:05", link("Ethernet36/1"))

    shown = api.provision("flatclean", "manage", "clean")

    assert shown["provision_state"] == "manageable"
    assert wait_for(
        lambda: "plug port Ethernet36/1" in " ".join(neutron_server.fake_switch_commands())
    )
    history = api.get("/v1/nodes/flatclean/history?detail=true")["history"]
    events = [e["event"] for e in history]
    assert "flat.add_cleaning_network done" in events
    assert neutron.ports_on("mw-clean") == []
    info = ports_of(api, "flatclean")["52:54:00:33:00:05"]["internal_info"]
    assert "cleaning_vif_port_id" not in info


def test_flat_cleans_on_a_cleaning_port_neutron_cannot_bind_unless_the_node_forbids_it(
    api: Metalwire, neutron: Neutron
) -> None:
    """As in Ironic, a ``flat`` node's cleaning port need not be bound (a flat network's
    mechanism driver may not know the node's link): cleaning goes on. With
    ``driver_info["fail_on_binding_failure"]`` true it must be, and cleaning fails,
    leaving no port on the cleaning network."""
    node = api.node("flatclean-nolink", "flat")
    api.port(node, "52:54:00:33:00:06", UNKNOWN_SWITCH)

    shown = api.provision("flatclean-nolink", "manage", "clean")
    assert shown["provision_state"] == "manageable"
    assert neutron.ports_on("mw-clean") == []

    patch = [{"op": "add", "path": "/driver_info/fail_on_binding_failure", "value": True}]
    assert api.http.patch("/v1/nodes/flatclean-nolink", json=patch).status_code == 200
    response = api.http.put("/v1/nodes/flatclean-nolink/states/provision", json=provision("clean"))
    assert response.status_code == 202, response.text
    shown = settled_node(lambda: api.get("/v1/nodes/flatclean-nolink"))
    assert shown["provision_state"] == "clean failed"
    assert "binding_failed" in shown["last_error"]
    assert neutron.ports_on("mw-clean") == []


def test_a_deployed_nodes_port_keeps_its_mac_unless_in_maintenance(
    api: Metalwire, neutron: Neutron, hot: Json
) -> None:
    """As Ironic: a new MAC for an active node's port is refused (409), since the bound VIF
    depends on it; maintenance lets an operator mend a replaced NIC."""
    h1 = ports_of(api, "hot")["52:54:00:31:00:01"]
    new_mac = [{"op": "replace", "path": "/address", "value": "52:54:00:31:00:09"}]
    response = api.http.patch(f"/v1/ports/{h1['uuid']}", json=new_mac)
    assert response.status_code == 409, response.text
    assert f"Cannot change the address of port {h1['uuid']}" in fault(response)

    maintenance = [{"op": "replace", "path": "/maintenance", "value": True}]
    assert api.http.patch("/v1/nodes/hot", json=maintenance).status_code == 200
    try:
        response = api.http.patch(f"/v1/ports/{h1['uuid']}", json=new_mac)
        assert response.status_code == 200, response.text
        back = [{"op": "replace", "path": "/address", "value": h1["address"]}]
        assert api.http.patch(f"/v1/ports/{h1['uuid']}", json=back).status_code == 200
    finally:
        maintenance[0]["value"] = False
        assert api.http.patch("/v1/nodes/hot", json=maintenance).status_code == 200


def test_a_deployed_nodes_port_keeps_its_connectivity_unless_in_maintenance(
    api: Metalwire, neutron: Neutron, hot: Json
) -> None:
    """As Ironic: an active neutron node's port keeps its link, PXE flag, physical network
    and portgroup (409, nothing stored); maintenance lets an operator re-cable it."""
    h1 = ports_of(api, "hot")["52:54:00:31:00:01"]
    relinked = [{"op": "add", "path": "/local_link_connection/port_id", "value": "Ethernet22/9"}]
    response = api.http.patch(f"/v1/ports/{h1['uuid']}", json=relinked)
    assert response.status_code == 409, response.text
    assert f"Port {h1['uuid']} cannot change its local_link_connection" in fault(response)
    assert ports_of(api, "hot")["52:54:00:31:00:01"] == h1

    maintenance = [{"op": "replace", "path": "/maintenance", "value": True}]
    assert api.http.patch("/v1/nodes/hot", json=maintenance).status_code == 200
    try:
        response = api.http.patch(f"/v1/ports/{h1['uuid']}", json=relinked)
        assert response.status_code == 200, response.text
        link = h1["local_link_connection"]
        back = [{"op": "replace", "path": "/local_link_connection", "value": link}]
        assert api.http.patch(f"/v1/ports/{h1['uuid']}", json=back).status_code == 200
    finally:
        maintenance[0]["value"] = False
        assert api.http.patch("/v1/nodes/hot", json=maintenance).status_code == 200
