"""A node's ``network_data`` through the unmodified ``baremetal`` program against a real
server: ``node create`` / ``node set --network-data FILE`` stored any object, however far from
the network_data.json format Ironic 39 checks it against; now what Ironic refuses is a 400
naming the entry and what is wrong with it, and nothing of the command is stored."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

NETWORK_DATA: dict[str, Any] = {
    "links": [
        {"id": "eth0", "type": "phy", "ethernet_mac_address": "52:54:00:12:34:56", "mtu": 9000},
        {
            "id": "bond0",
            "type": "bond",
            "ethernet_mac_address": "52:54:00:12:34:57",
            "bond_mode": "802.3ad",
            "bond_links": ["eth0"],
        },
        {
            "id": "vlan42",
            "type": "vlan",
            "vlan_mac_address": "52:54:00:12:34:57",
            "vlan_link": "bond0",
            "vlan_id": 42,
        },
    ],
    "networks": [
        {
            "id": "provisioning",
            "type": "ipv4",
            "link": "vlan42",
            "network_id": "net-42",
            "ip_address": "192.0.2.10",
            "netmask": "255.255.255.0",
            "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "192.0.2.1"}],
        },
        {"id": "v6", "type": "ipv6_slaac", "link": "eth0", "network_id": "net-6"},
    ],
    "services": [{"type": "dns", "address": "2001:db8::53"}],
}


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def _file(tmp_path: Path, document: Any) -> str:
    path = tmp_path / "network-data.json"
    path.write_text(json.dumps(document))
    return str(path)


def _with(change: tuple[str, int, str, Any]) -> dict[str, Any]:
    section, index, key, value = change
    document = copy.deepcopy(NETWORK_DATA)
    document[section][index][key] = value
    return document


BAD = [
    (("links", 0, "ethernet_mac_address", "52:54:00:12:34"), "links[0].ethernet_mac_address"),
    (("links", 1, "bond_mode", "lacp"), "links[1].bond_mode"),
    (("links", 2, "vlan_id", "42"), "links[2].vlan_id"),
    (("networks", 0, "netmask", "255.255.0.255"), "networks[0].netmask"),
    (("networks", 0, "type", "ipv5"), "networks[0].type"),
    (("services", 0, "address", "dns.example.com"), "services[0].address"),
]


def test_a_network_data_file_in_the_format_is_stored(baremetal: Cli, tmp_path: Path) -> None:
    node = unique("nd")
    create = ("node", "create", "--driver", "fake-hardware", "--name", node)

    baremetal.ok(*create, "--network-data", _file(tmp_path, NETWORK_DATA))

    assert baremetal.json("node", "show", node)["network_data"] == NETWORK_DATA
    baremetal.ok("node", "unset", node, "--network-data")
    assert baremetal.json("node", "show", node)["network_data"] == {}
    baremetal.ok("node", "delete", node)


@pytest.mark.parametrize(("change", "named"), BAD)
def test_node_create_refuses_network_data_ironic_refuses(
    baremetal: Cli, tmp_path: Path, change: tuple[str, int, str, Any], named: str
) -> None:
    node = unique("nd")
    create = ("node", "create", "--driver", "fake-hardware", "--name", node)

    refused = baremetal.run(*create, "--network-data", _file(tmp_path, _with(change)))

    assert refused.returncode != 0, refused.describe()
    assert "HTTP 400" in refused.stderr and named in refused.stderr, refused.describe()
    assert baremetal.run("node", "show", node).returncode != 0  # no node was made


@pytest.mark.parametrize(("change", "named"), BAD)
def test_node_set_refuses_network_data_ironic_refuses_and_changes_nothing(
    baremetal: Cli, tmp_path: Path, change: tuple[str, int, str, Any], named: str
) -> None:
    node = unique("nd")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)

    refused = baremetal.run(
        "node",
        "set",
        node,
        "--description",
        "changed",
        "--network-data",
        _file(tmp_path, _with(change)),
    )

    assert refused.returncode != 0, refused.describe()
    assert "HTTP 400" in refused.stderr and named in refused.stderr, refused.describe()
    shown = baremetal.json("node", "show", node)
    assert (shown["network_data"], shown["description"]) == ({}, None)
    baremetal.ok("node", "delete", node)


def test_node_set_refuses_an_empty_network_data_as_ironic(baremetal: Cli, tmp_path: Path) -> None:
    """Ironic 39 takes ``{}`` at create but not as the whole value of a PATCH: the way to
    empty it is ``node unset --network-data``, which the message names."""
    node = unique("nd")
    create = ("node", "create", "--driver", "fake-hardware", "--name", node)
    baremetal.ok(*create, "--network-data", _file(tmp_path, NETWORK_DATA))

    refused = baremetal.run("node", "set", node, "--network-data", _file(tmp_path, {}))

    assert refused.returncode != 0, refused.describe()
    assert "HTTP 400" in refused.stderr and "remove the field" in refused.stderr
    assert baremetal.json("node", "show", node)["network_data"] == NETWORK_DATA
    baremetal.ok("node", "delete", node)
