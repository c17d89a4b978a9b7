"""``metalwire port set|unset`` and ``metalwire portgroup set|unset`` against a real server:
the day-two changes of a NIC or a bond (its switch link, physical network, PXE flag, group,
node) without leaving the metalwire program."""

from __future__ import annotations

from typing import Any

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import mac, unique

PORT_FIELDS = (
    "portgroup_uuid",
    "physical_network",
    "pxe_enabled",
    "extra",
    "local_link_connection",
    "description",
    "vendor",
    "category",
    "available_for_dynamic_portgroup",
    "is_smartnic",
)


def _port(mw: Client, ident: str) -> dict[str, Any]:
    shown = mw.get_port(ident).to_dict()
    return {name: shown[name] for name in PORT_FIELDS}


def test_port_set_gives_every_field_create_does_and_unset_takes_them_back(
    cli: Run, mw: Client
) -> None:
    node = mw.create_node("fake-hardware", name=unique("set"))
    group = mw.create_portgroup(node.uuid, name=unique("bond"))
    name = unique("nic")
    port = mw.create_port(node.uuid, mac(), name=name)

    done = cli(
        "port", "set", name, "--port-group", group.name or "", "--physical-network", "fabric-a",
        "--pxe-enabled", "no", "--extra", "rack=4", "--extra", 'tags=["a"]',
        "--local-link-connection", "switch_id=0a:1b:2c:3d:4e:5f",
        "--local-link-connection", "port_id=Eth1/2", "--local-link-connection", "hostname=h1",
        "--description", "left NIC", "--vendor", "acme", "--category", "storage",
        "--available-for-dynamic-portgroup", "false", "--is-smartnic",
    )  # fmt: skip
    assert (done.code, done.stdout, done.stderr) == (0, "", "")
    assert _port(mw, port.uuid) == {
        "portgroup_uuid": group.uuid,
        "physical_network": "fabric-a",
        "pxe_enabled": False,
        "extra": {"rack": 4, "tags": ["a"]},
        "local_link_connection": {
            "switch_id": "0a:1b:2c:3d:4e:5f",
            "port_id": "Eth1/2",
            "hostname": "h1",
        },
        "description": "left NIC",
        "vendor": "acme",
        "category": "storage",
        "available_for_dynamic_portgroup": False,
        "is_smartnic": True,
    }
    shown = mw.get_port(port.uuid)  # the client's typed view of the same fields
    assert (shown.name, shown.description, shown.vendor, shown.category) == (
        name,
        "left NIC",
        "acme",
        "storage",
    )
    assert (shown.is_smartnic, shown.available_for_dynamic_portgroup) == (True, False)

    undone = cli(
        "port", "unset", port.uuid, "--port-group", "--physical-network", "--extra", "rack",
        "--local-link-connection", "hostname", "--description", "--vendor", "--category",
        "--is-smartnic",
    )  # fmt: skip
    assert (undone.code, undone.stdout, undone.stderr) == (0, "", "")
    assert _port(mw, port.uuid) == {
        "portgroup_uuid": None,
        "physical_network": None,
        "pxe_enabled": False,
        "extra": {"tags": ["a"]},
        "local_link_connection": {"switch_id": "0a:1b:2c:3d:4e:5f", "port_id": "Eth1/2"},
        "description": None,
        "vendor": None,
        "category": None,
        "available_for_dynamic_portgroup": False,
        "is_smartnic": False,
    }
    assert cli("port", "set", name, "--pxe-enabled", "true").code == 0
    assert mw.get_port(name).pxe_enabled is True
    assert cli("port", "unset", name, "--name").code == 0
    assert mw.get_port(port.uuid).name is None


def test_port_set_moves_a_port_to_another_node_named_by_name_with_a_new_address(
    cli: Run, mw: Client
) -> None:
    first = mw.create_node("fake-hardware", name=unique("from"))
    second = mw.create_node("fake-hardware", name=unique("to"))
    port = mw.create_port(first.uuid, mac())
    address = mac()

    done = cli("port", "set", port.uuid, "--node", second.name or "", "--address", address)
    assert done.code == 0, done.stderr
    moved = mw.get_port(port.uuid)
    assert (moved.node_uuid, moved.address) == (second.uuid, address)


def test_a_port_set_the_server_refuses_changes_nothing_and_says_why(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("refused"))
    port = mw.create_port(node.uuid, mac())
    before = _port(mw, port.uuid)

    # A Smart NIC's link names its host; the physical network of the same command is not kept.
    refused = cli(
        "port", "set", port.uuid, "--physical-network", "fabric-a", "--is-smartnic",
        "--local-link-connection", "port_id=Eth1",
    )  # fmt: skip
    assert refused.code == 1
    assert "HTTP 400" in refused.stderr and "hostname" in refused.stderr, refused.stderr
    assert _port(mw, port.uuid) == before

    missing = cli("port", "unset", port.uuid, "--extra", "nothing-here")
    assert missing.code == 1 and "/extra/nothing-here" in missing.stderr, missing.stderr
    unknown = cli("port", "set", port.uuid, "--port-group", unique("no-such-group"))
    assert unknown.code == 1 and "could not be found" in unknown.stderr, unknown.stderr
    assert _port(mw, port.uuid) == before


def test_portgroup_set_gives_every_field_create_does_and_unset_takes_them_back(
    cli: Run, mw: Client
) -> None:
    node = mw.create_node("fake-hardware", name=unique("bonds"))
    other = mw.create_node("fake-hardware", name=unique("bonds"))
    group = mw.create_portgroup(node.uuid, name=unique("bond"))
    renamed, address = unique("bond"), mac()

    done = cli(
        "portgroup", "set", group.name or "", "--name", renamed, "--address", address,
        "--mode", "802.3ad", "--physical-network", "fabric-a", "--category", "storage",
        "--extra", "rack=4", "--extra", "row=b", "--property", "miimon=100",
        "--unsupport-standalone-ports",
    )  # fmt: skip
    assert (done.code, done.stdout, done.stderr) == (0, "", "")
    shown = mw.get_portgroup(group.uuid)
    assert (shown.name, shown.address, shown.mode) == (renamed, address, "802.3ad")
    assert (shown.physical_network, shown.category) == ("fabric-a", "storage")
    assert (shown.extra, shown.properties) == ({"rack": 4, "row": "b"}, {"miimon": 100})
    assert shown.standalone_ports_supported is False

    undone = cli(
        "portgroup", "unset", renamed, "--address", "--physical-network", "--category",
        "--extra", "rack", "--property", "miimon",
    )  # fmt: skip
    assert (undone.code, undone.stdout, undone.stderr) == (0, "", "")
    shown = mw.get_portgroup(group.uuid)
    assert (shown.name, shown.address, shown.physical_network, shown.category) == (
        renamed,
        None,
        None,
        None,
    )
    assert (shown.extra, shown.properties, shown.mode) == ({"row": "b"}, {}, "802.3ad")

    assert cli("portgroup", "set", renamed, "--support-standalone-ports").code == 0
    assert mw.get_portgroup(group.uuid).standalone_ports_supported is True
    moved = cli("portgroup", "set", renamed, "--node", other.name or "")
    assert moved.code == 0, moved.stderr
    assert mw.get_portgroup(group.uuid).node_uuid == other.uuid
    assert cli("portgroup", "unset", renamed, "--name").code == 0
    assert mw.get_portgroup(group.uuid).name is None


def test_set_and_unset_without_an_option_are_usage_errors(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("nothing"))
    port = mw.create_port(node.uuid, mac())
    group = mw.create_portgroup(node.uuid)
    for command in (
        ("port", "set", port.uuid),
        ("port", "unset", port.uuid),
        ("portgroup", "set", group.uuid),
        ("portgroup", "unset", group.uuid),
    ):
        result = cli(*command)
        verb = command[1]
        assert result.code == 2 and f"nothing to {verb}" in result.stderr, (command, result)
    refused = cli("port", "set", port.uuid, "--pxe-enabled", "maybe")
    assert refused.code == 2 and "expected true or false, got 'maybe'" in refused.stderr
    both = cli(
        "portgroup", "set", group.uuid, "--support-standalone-ports",
        "--unsupport-standalone-ports",
    )  # fmt: skip
    assert both.code == 2 and "not allowed with argument" in both.stderr, both.stderr
