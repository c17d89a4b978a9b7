"""A portgroup's own physical network (1.102) in VIF selection, through a real ``metalwire
serve`` and a real Neutron: the VIF's network chooses the portgroup on its physical network,
the binding names it, and the no-free-port answer says why the portgroup was refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.neutron.clients import SW2, Json, Metalwire, Neutron, link
from tests.neutron.interface_fixtures import (  # noqa: F401  (the shared module fixtures)
    fixture_api,
    fixture_neutron,
    fixture_server,
)
from tests.support.helpers import fault

AT_1_102 = {"X-OpenStack-Ironic-API-Version": "1.102"}


@pytest.fixture(scope="module")
def new_api(api: Metalwire) -> Iterator[Metalwire]:
    api.http.headers.update(AT_1_102)
    yield api
    api.http.headers.update({"X-OpenStack-Ironic-API-Version": "1.78"})


def test_a_portgroups_physical_network_chooses_it_for_a_vif(
    new_api: Metalwire,
    neutron: Neutron,
) -> None:
    mw = new_api
    node = mw.node("pg-physnet")
    standalone = mw.port(
        node, "52:54:00:41:00:01", link("Ethernet30/1"), physical_network="physnet1"
    )
    bond = mw.portgroup(
        node,
        name="bond-p2",
        address="52:54:00:41:00:10",
        mode="802.3ad",
        physical_network="physnet2",
    )
    assert bond["physical_network"] == "physnet2"
    for address, member in (
        ("52:54:00:41:00:11", link("Ethernet31/1")),
        ("52:54:00:41:00:12", link("Ethernet31/2", SW2.name, SW2.mac_address)),
    ):
        mw.port(
            node,
            address,
            member,
            pxe_enabled=False,
            physical_network="physnet2",
            portgroup_uuid=bond["uuid"],
        )
    mw.provision("pg-physnet", "manage", "provide")
    mw.deploy_with("pg-physnet", neutron.vif("mw-tenant-p2")["id"])

    on_p2, on_p1, again_p2 = (
        neutron.vif("mw-tenant-p2"),
        neutron.vif("mw-tenant-p1"),
        neutron.vif("mw-tenant-p2"),
    )
    assert mw.attach("pg-physnet", on_p2["id"]).status_code == 204
    assert mw.get(f"/v1/portgroups/{bond['uuid']}")["internal_info"] == {
        "tenant_vif_port_id": on_p2["id"]
    }
    bound = neutron.wait_status(on_p2["id"], "ACTIVE")
    assert bound["mac_address"] == bond["address"]
    assert bound["binding:profile"]["physical_network"] == "physnet2"

    assert mw.attach("pg-physnet", on_p1["id"]).status_code == 204
    assert neutron.port(on_p1["id"])["mac_address"] == standalone["address"]

    refused = mw.attach("pg-physnet", again_p2["id"])
    assert refused.status_code == 400, refused.text
    message = fault(refused)
    assert f"portgroup {bond['uuid']}" in message
    assert f"is busy with VIF {on_p2['id']}" in message
    assert (
        f"port {standalone['uuid']} (52:54:00:41:00:01) is on physical network physnet1, "
        "the VIF needs physnet2"
    ) in message

    # Detached, the portgroup moves to physnet1 with its members: a physnet2 VIF has no
    # place, and the answer says the portgroup is on the wrong physical network.
    assert mw.detach("pg-physnet", on_p2["id"]).status_code == 204
    moved = mw.http.patch(
        f"/v1/portgroups/{bond['uuid']}",
        json=[{"op": "replace", "path": "/physical_network", "value": "physnet1"}],
    )
    assert moved.status_code == 200, moved.text
    members = mw.get(f"/v1/portgroups/{bond['uuid']}/ports/detail")["ports"]
    assert {m["physical_network"] for m in members} == {"physnet1"}
    refused = mw.attach("pg-physnet", again_p2["id"])
    assert refused.status_code == 400, refused.text
    message = fault(refused)
    assert (
        f"portgroup {bond['uuid']} (52:54:00:41:00:10) is on physical network physnet1, "
        "the VIF needs physnet2"
    ) in message

    assert mw.detach("pg-physnet", on_p1["id"]).status_code == 204
    _check_dry_run_names_the_portgroups_physnet(mw, bond, neutron.vif("mw-tenant-p1"))


def _check_dry_run_names_the_portgroups_physnet(mw: Metalwire, bond: Json, vif: Json) -> None:
    response = mw.http.post(
        "/v1/nodes/pg-physnet/vifs",
        json={"id": vif["id"]},
        headers={"X-Metalwire-Dry-Run": "true"},
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["target"]["uuid"] == bond["uuid"]
    assert answer["target"]["physical_network"] == "physnet1"
