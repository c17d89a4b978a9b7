"""Pure rules of the neutron interface: binding profiles, physical networks, error text."""

from __future__ import annotations

import httpx
import pytest

from metalwire.db.models import Port, Portgroup
from metalwire.errors import NetworkError
from metalwire.networking.neutron_client import NeutronPort, network_physnets, neutron_error_text
from metalwire.networking.neutron_ports import (
    Rollback,
    binding_fields,
    binding_host,
    binding_profile,
    local_group_information,
    rolled_back,
    same_mac,
)

SW1 = {"switch_id": "00:00:5e:00:53:01", "port_id": "Ethernet1/1", "switch_info": "sw1"}
SW2 = {"switch_id": "00:00:5e:00:53:02", "port_id": "Ethernet1/2", "switch_info": "sw2"}


def port(link: dict[str, str], physnet: str | None = None, group_id: int | None = None) -> Port:
    return Port(
        id=1,
        uuid="port-1",
        address="52:54:00:00:00:01",
        local_link_connection=link,
        physical_network=physnet,
        portgroup_id=group_id,
    )


def bond(**fields: object) -> Portgroup:
    values: dict[str, object] = {
        "id": 7,
        "uuid": "pg-7",
        "name": "bond0",
        "mode": "802.3ad",
        "properties": {"miimon": 100, "bond_xmit_hash_policy": "layer3+4"},
    }
    values.update(fields)
    return Portgroup(**values)


def test_port_profile_has_its_link_only() -> None:
    assert binding_profile(port(SW1)) == {"local_link_information": [SW1]}


def test_port_profile_names_its_physical_network() -> None:
    profile = binding_profile(port(SW1, "physnet1"), (), "physnet1")
    assert profile == {"local_link_information": [SW1], "physical_network": "physnet1"}


def test_portgroup_profile_lists_every_member_link_and_the_group() -> None:
    members = [port(SW1, group_id=7), port(SW2, group_id=7)]
    profile = binding_profile(bond(), members, "physnet2")
    assert profile["local_link_information"] == [SW1, SW2]
    assert profile["local_group_information"] == {
        "id": "pg-7",
        "name": "bond0",
        "bond_mode": "802.3ad",
        "bond_properties": {"bond_miimon": 100, "bond_xmit_hash_policy": "layer3+4"},
    }
    assert profile["physical_network"] == "physnet2"


def test_profile_is_a_copy_of_the_link() -> None:
    link = dict(SW1)
    profile = binding_profile(port(link))
    profile["local_link_information"][0]["port_id"] = "changed"
    assert link == SW1


def test_group_information_of_a_bare_portgroup() -> None:
    info = local_group_information(bond(name=None, mode=None, properties={}))
    assert info == {"id": "pg-7", "name": None, "bond_mode": None, "bond_properties": {}}


def test_binding_fields_bind_a_baremetal_port_to_the_host() -> None:
    assert binding_fields("node-1", {"local_link_information": []}) == {
        "binding:vnic_type": "baremetal",
        "binding:host_id": "node-1",
        "binding:profile": {"local_link_information": []},
    }


@pytest.mark.parametrize(
    ("network", "physnets"),
    [
        ({"provider:physical_network": "physnet1"}, {"physnet1"}),
        ({"provider:physical_network": None}, set()),
        ({}, set()),
        (
            {
                "segments": [
                    {"provider:physical_network": "physnet1"},
                    {"provider:physical_network": "physnet2"},
                    {"provider:physical_network": None, "provider:network_type": "vxlan"},
                ]
            },
            {"physnet1", "physnet2"},
        ),
    ],
)
def test_network_physnets_reads_both_shapes(network: dict[str, object], physnets: set[str]) -> None:
    assert network_physnets(network) == physnets


def test_neutron_error_text_quotes_neutron_error() -> None:
    response = httpx.Response(
        409, json={"NeutronError": {"type": "PortBound", "message": "port is bound", "detail": ""}}
    )
    assert neutron_error_text(response) == "HTTP 409 PortBound: port is bound"


def test_neutron_error_text_without_a_neutron_body_describes_it_without_quoting() -> None:
    assert neutron_error_text(httpx.Response(500, text="boom\n  bang")) == (
        "HTTP 500 Internal Server Error (not a Neutron error answer: 11 bytes of text/plain)"
    )
    assert neutron_error_text(httpx.Response(502, text="x")) == (
        "HTTP 502 Bad Gateway (not a Neutron error answer: 1 byte of text/plain)"
    )


def test_port_from_json_reads_the_binding() -> None:
    port = NeutronPort.from_json(
        {
            "id": "p",
            "network_id": "n",
            "mac_address": "fa:16:3e:00:00:01",
            "status": "ACTIVE",
            "binding:host_id": "node",
            "binding:vnic_type": "baremetal",
            "binding:vif_type": "other",
            "binding:profile": {"local_link_information": [SW1]},
        }
    )
    assert port.bound and port.vif_type == "other" and port.profile["local_link_information"]
    assert not NeutronPort.from_json({"id": "q", "binding:host_id": ""}).bound


def test_same_mac_ignores_case() -> None:
    assert same_mac("52:54:00:AA:00:01", "52:54:00:aa:00:01")
    assert not same_mac(None, "52:54:00:aa:00:01")


def test_rollback_runs_newest_first_and_reports_failures() -> None:
    done: list[str] = []
    rollback = Rollback()
    rollback.add("forget", lambda: done.append("forget"))

    def broken() -> None:
        raise NetworkError("Neutron PUT /v2.0/ports/p (restore MAC) failed: HTTP 500 x")

    rollback.add("restore MAC", broken)
    rollback.add("unbind", lambda: done.append("unbind"))
    failures = rollback.run()
    assert done == ["unbind", "forget"]
    assert failures == ["restore MAC: Neutron PUT /v2.0/ports/p (restore MAC) failed: HTTP 500 x"]
    assert rollback.run() == []


def test_rolled_back_error_keeps_the_status_and_says_what_was_undone() -> None:
    cause = NetworkError("Neutron PUT /v2.0/ports/p (bind) failed: HTTP 500 x", 502)
    clean = rolled_back("Attaching VIF p failed", cause, [])
    assert clean.code == 502
    assert str(clean) == (
        "Attaching VIF p failed: Neutron PUT /v2.0/ports/p (bind) failed: HTTP 500 x. "
        "Everything already done was undone."
    )
    partial = rolled_back("Attaching VIF p failed", cause, ["unbind VIF port p: gone"])
    assert "Undoing the steps already done failed too: unbind VIF port p: gone" in str(partial)


def test_a_smart_nic_port_binds_to_its_link_s_host_as_smart_nic() -> None:
    smart = port({"port_id": "rep0-0", "hostname": "nic-host"})
    smart.is_smartnic = True
    assert binding_host("node-1", smart) == ("nic-host", "smart-nic")


def test_other_ports_and_portgroups_bind_to_the_node_as_baremetal() -> None:
    assert binding_host("node-1", port(SW1)) == ("node-1", "baremetal")
    assert binding_host("node-1", bond()) == ("node-1", "baremetal")
