"""``set`` and ``unset`` flags of the unmodified ``baremetal`` program that Ironic 39 takes and
metalwire refused, against a real server."""

from __future__ import annotations

import pytest

from tests.compat.clients import Cli, random_mac, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

# the server's [DEFAULT] default_network_interface (MetalwireServer sets none)
DEFAULT_NETWORK_INTERFACE = "flat"


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_reset_network_interface_gives_the_default_back(baremetal: Cli) -> None:
    node = unique("reset")
    create = ("node", "create", "--driver", "fake-hardware", "--network-interface", "noop")
    baremetal.ok(*create, "--name", node)

    reset = baremetal.run("node", "set", node, "--reset-network-interface")

    assert reset.returncode == 0, reset.describe()
    shown = baremetal.json("node", "show", node, "--fields", "network_interface")
    assert shown["network_interface"] == DEFAULT_NETWORK_INTERFACE
    baremetal.ok("node", "delete", node)


def test_a_link_may_name_the_host_instead_of_the_switch(baremetal: Cli) -> None:
    node = unique("link")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    uuid = baremetal.json("node", "show", node)["uuid"]
    port = baremetal.json("port", "create", random_mac(), "--node", uuid)["uuid"]
    link = ("--local-link-connection", "port_id=Eth3", "--local-link-connection", "hostname=h3")

    linked = baremetal.run("port", "set", port, *link)

    assert linked.returncode == 0, linked.describe()
    shown = baremetal.json("port", "show", port, "--fields", "local_link_connection")
    assert shown["local_link_connection"] == {"port_id": "Eth3", "hostname": "h3"}
    baremetal.ok("node", "delete", node)


@pytest.mark.parametrize(
    ("items", "named"),
    [(("port_id=Eth1", "network_type=bogus"), "network_type"), (("port_id=5",), "port_id")],
)
def test_a_link_value_ironic_refuses_is_refused(
    baremetal: Cli, items: tuple[str, ...], named: str
) -> None:
    """The program sends ``port_id=5`` as the number 5, which Ironic's schema refuses."""
    node = unique("badlink")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    uuid = baremetal.json("node", "show", node)["uuid"]
    port = baremetal.json("port", "create", random_mac(), "--node", uuid)["uuid"]
    link = ["--local-link-connection", "switch_id=aa:bb:cc:dd:ee:ff"]
    for item in items:
        link += ["--local-link-connection", item]

    refused = baremetal.run("port", "set", port, *link)

    assert refused.returncode != 0, refused.describe()
    assert "HTTP 400" in refused.stderr and named in refused.stderr, refused.describe()
    shown = baremetal.json("port", "show", port, "--fields", "local_link_connection")
    assert shown["local_link_connection"] == {}
    baremetal.ok("node", "delete", node)


def test_a_switch_mac_is_kept_in_lower_case(baremetal: Cli) -> None:
    """As Ironic, which hands Neutron's binding the switch_id as it keeps it."""
    node = unique("mac")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    uuid = baremetal.json("node", "show", node)["uuid"]
    link = ["--local-link-connection", "switch_id=AA:BB:CC:DD:EE:0F"]
    link += ["--local-link-connection", "port_id=Ethernet1/1"]

    created = baremetal.json("port", "create", random_mac(), "--node", uuid, *link)

    assert created["local_link_connection"]["switch_id"] == "aa:bb:cc:dd:ee:0f"
    baremetal.ok("node", "delete", node)


def test_a_smart_nic_port_is_created_with_its_hosts_link_or_none(baremetal: Cli) -> None:
    """``port create --is-smartnic`` with a link that does not name the host is refused, as
    Ironic checks it on create; with the host's link, or no link, it is taken."""
    node = unique("smartnic")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    uuid = baremetal.json("node", "show", node)["uuid"]
    smartnic = ("--node", uuid, "--is-smartnic")

    switch = ("--local-link-connection", "port_id=Eth1", "--local-link-connection",
              "switch_id=aa:bb:cc:dd:ee:ff")  # fmt: skip
    refused = baremetal.run("port", "create", random_mac(), *smartnic, *switch)
    assert refused.returncode != 0, refused.describe()
    assert "HTTP 400" in refused.stderr and "hostname" in refused.stderr, refused.describe()
    unmanaged = ("--local-link-connection", "network_type=unmanaged")
    refused = baremetal.run("port", "create", random_mac(), *smartnic, *unmanaged)
    assert refused.returncode != 0, refused.describe()
    assert "HTTP 400" in refused.stderr and "Smart NIC" in refused.stderr, refused.describe()

    host = ("--local-link-connection", "port_id=rep0", "--local-link-connection", "hostname=h1")
    created = baremetal.json("port", "create", random_mac(), *smartnic, *host)
    assert (created["is_smartnic"], created["local_link_connection"]) == (
        True,
        {"port_id": "rep0", "hostname": "h1"},
    )
    bare = baremetal.json("port", "create", random_mac(), *smartnic)
    assert (bare["is_smartnic"], bare["local_link_connection"]) == (True, {})
    baremetal.ok("node", "delete", node)


def test_a_links_network_type_needs_1_64(baremetal: Cli) -> None:
    node = unique("nettype")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    uuid = baremetal.json("node", "show", node)["uuid"]
    link = ("--local-link-connection", "network_type=unmanaged")

    early = baremetal.at("1.63").run("port", "create", random_mac(), "--node", uuid, *link)
    assert early.returncode != 0, early.describe()
    # the program words a 406 itself: the operation is not supported at that version
    assert "not supported by the requested version" in early.stderr, early.describe()

    taken = baremetal.at("1.64").json("port", "create", random_mac(), "--node", uuid, *link)
    assert taken["local_link_connection"] == {"network_type": "unmanaged"}
    listed = baremetal.json("port", "list", "--node", uuid)
    assert [p["uuid"] for p in listed] == [taken["uuid"]]  # the refused one was not made
    baremetal.ok("node", "delete", node)
