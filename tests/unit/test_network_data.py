"""The rules of a node's network_data (``api/network_data.py``), one at a time: each case was
sent to Ironic 39 too, which takes or refuses it alike."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.api.network_data import check_document, check_patch_values
from metalwire.errors import InvalidParameterValue

LINK = {"id": "eth0", "type": "phy", "ethernet_mac_address": "52:54:00:00:00:01"}


def document(
    link: dict[str, Any] | None = None,
    network: dict[str, Any] | None = None,
    service: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "links": [LINK if link is None else link],
        "networks": [] if network is None else [network],
        "services": [] if service is None else [service],
    }


def ipv4(**values: Any) -> dict[str, Any]:
    return {"id": "n", "type": "ipv4", "link": "eth0", "network_id": "net", **values}


def ipv6(**values: Any) -> dict[str, Any]:
    return {"id": "n", "type": "ipv6", "link": "eth0", "network_id": "net", **values}


TAKEN = [
    document(),
    document({**LINK, "mtu": None, "colour": "kept"}),
    document({**LINK, "ethernet_mac_address": "AA-bb:CC-dd:EE-ff"}),
    document(
        {
            "id": "v",
            "type": "vlan",
            "vlan_mac_address": LINK["ethernet_mac_address"],
            "vlan_link": "eth0",
            "vlan_id": 5.0,
        }
    ),
    document(network=ipv4(ip_address="192.0.2.005", netmask="255.255.255.254")),
    document(network=ipv4(netmask="0.0.0.0")),
    document(network=ipv6(ip_address="2001:db8::5/64", netmask="ffff:ffff::")),
    document(network=ipv6(ip_address="fe80::5%eth0")),
    document(network=ipv6(ip_address="::ffff:192.0.2.1")),
    document(service={"type": "dns", "address": "2001:db8::53"}),
]

REFUSED = [
    ({"links": [], "networks": []}, "services missing"),
    (document({**LINK, "mtu": 0}), "links[0].mtu"),
    (document({**LINK, "mtu": True}), "links[0].mtu"),
    (document({**LINK, "type": "ethernet"}), "links[0].type"),
    (
        document(
            {
                "id": "b",
                "type": "bond",
                "ethernet_mac_address": LINK["ethernet_mac_address"],
                "bond_mode": "802.3ad",
            }
        ),
        "bond_links missing",
    ),
    (document(network=ipv4(netmask="255.255.255.255")), "networks[0].netmask"),
    (
        document(
            network=ipv4(
                routes=[{"network": "10.0.0.01", "netmask": "255.0.0.0", "gateway": "10.0.0.1"}]
            )
        ),
        "routes[0].network",
    ),
    (document(network=ipv6(ip_address="2001:db8::5/128")), "networks[0].ip_address"),
    (document(network=ipv6(ip_address="2001:db8::5%eth0")), "networks[0].ip_address"),
    (document(network=ipv6(netmask="ffff::/64")), "networks[0].netmask"),
    (document(network=ipv4(ip_address="2001:db8::5")), "networks[0].ip_address"),
    (document(service={"type": "ntp", "address": "192.0.2.1"}), "services[0].type"),
]


@pytest.mark.parametrize("value", TAKEN)
def test_what_ironic_takes_is_taken(value: dict[str, Any]) -> None:
    check_document(value, empty_allowed=False)


@pytest.mark.parametrize(("value", "named"), REFUSED)
def test_what_ironic_refuses_is_refused_naming_where(value: Any, named: str) -> None:
    with pytest.raises(InvalidParameterValue, match="Invalid network_data") as refused:
        check_document(value, empty_allowed=True)
    assert named in str(refused.value)


@pytest.mark.parametrize("empty", [None, {}])
def test_empty_is_taken_at_create_and_refused_as_a_patch_value(empty: Any) -> None:
    check_document(empty, empty_allowed=True)
    with pytest.raises(InvalidParameterValue, match="remove the field"):
        check_patch_values([{"op": "replace", "path": "/network_data", "value": empty}])


def test_a_patch_inside_network_data_or_removing_it_is_left_to_the_result() -> None:
    check_patch_values([{"op": "remove", "path": "/network_data"}])
    check_patch_values([{"op": "add", "path": "/network_data/links/-", "value": {}}])
    check_patch_values("not a patch")
