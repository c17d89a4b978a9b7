"""The client commands of the real ``metalwire`` program against a real server."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from metalwire.client import Client
from tests.cli.conftest import Run, clean_env, run_metalwire
from tests.client.util import mac, unique, vif_namer
from tests.conftest import ABOVE_LATEST, LATEST
from tests.support.server import MetalwireServer, free_port

v = vif_namer()


def test_node_create_prints_a_field_value_table(cli: Run) -> None:
    name = unique("cli")
    result = cli(
        "node",
        "create",
        "--driver",
        "fake-hardware",
        "--name",
        name,
        "--property",
        "cpus=8",
        "--property",
        "arch=x86_64",
        "--extra",
        "rack=r1",
    )
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("+-") and lines[1].split() == ["|", "Field", "|", "Value", "|"]
    assert "| name " in result.stdout and f" {name} " in result.stdout
    assert '{"arch": "x86_64", "cpus": 8}' in result.stdout
    fields = [line.split("|")[1].strip() for line in lines[3:-1]]
    assert fields == sorted(fields)
    assert "links" not in fields


def test_node_list_table_json_yaml_and_value(cli: Run, mw: Client) -> None:
    group = unique("rc")
    names = sorted(unique("list") for _ in range(3))
    for name in names:
        mw.create_node("fake-hardware", name=name, resource_class=group)

    table = cli("node", "list", "--resource-class", group)
    assert table.code == 0, table.stderr
    header = table.stdout.splitlines()[1]
    assert [h.strip() for h in header.strip("|").split("|")] == [
        "UUID",
        "Name",
        "Instance UUID",
        "Power State",
        "Provisioning State",
        "Maintenance",
    ]
    assert all(name in table.stdout for name in names)
    assert "| enroll " in table.stdout

    as_json = cli("node", "list", "--resource-class", group, "-f", "json", "--sort", "name")
    rows = json.loads(as_json.stdout)
    assert [r["Name"] for r in rows] == names
    assert rows[0]["Provisioning State"] == "enroll"
    assert rows[0]["Maintenance"] is False

    as_yaml = cli("node", "list", "--resource-class", group, "-f", "yaml", "--sort", "name:desc")
    assert [r["Name"] for r in yaml.safe_load(as_yaml.stdout)] == names[::-1]

    value = cli(
        "node",
        "list",
        "--resource-class",
        group,
        "-f",
        "value",
        "-c",
        "Name",
        "--sort",
        "name",
        "--limit",
        "2",
    )
    assert value.stdout.splitlines() == names[:2]
    for kind in ("node", "port", "portgroup"):  # 0 is no limit, as for the baremetal command
        everything = cli(kind, "list", "-f", "value", "-c", "UUID")
        unlimited = cli(kind, "list", "-f", "value", "-c", "UUID", "--limit", "0")
        assert (unlimited.code, unlimited.stdout) == (0, everything.stdout), unlimited.stderr
    unlimited_nodes = cli("node", "list", "--resource-class", group, "--limit", "0", "-f", "json")
    assert [r["Name"] for r in json.loads(unlimited_nodes.stdout)] == sorted(names)

    long = cli("node", "list", "--resource-class", group, "--long", "-f", "json")
    assert {r["Resource Class"] for r in json.loads(long.stdout)} == {group}
    fields = cli(
        "node", "list", "--resource-class", group, "--fields", "name", "driver", "-f", "json"
    )
    assert json.loads(fields.stdout)[0].keys() == {"Name", "Driver"}

    empty = cli("node", "list", "--resource-class", unique("none"))
    assert (empty.code, empty.stdout) == (0, "")
    assert cli("node", "list", "--resource-class", unique("none"), "-f", "json").stdout == "[]\n"


def test_node_commands_show_the_bmc_password_masked(cli: Run) -> None:
    name = unique("bmc")
    outputs = [
        cli(
            "node",
            "create",
            "--driver",
            "ipmi",
            "--name",
            name,
            "--driver-info",
            "ipmi_password=calvin",
            "--driver-info",
            "ipmi_address=192.0.2.7",
        ),
        cli("node", "show", name),
        cli("node", "set", name, "--driver-info", "ipmi_port=623"),
        cli("node", "show", name, "-f", "yaml"),
        cli("node", "list", "--long", "-f", "json"),
    ]
    for result in outputs:
        assert result.code == 0, result.stderr
        assert "calvin" not in result.stdout + result.stderr
    shown = json.loads(cli("node", "show", name, "-f", "json", "-c", "driver_info").stdout)
    assert shown["driver_info"] == {
        "ipmi_address": "192.0.2.7",
        "ipmi_password": "******",
        "ipmi_port": 623,
    }


def test_node_show_set_unset_delete(cli: Run, mw: Client) -> None:
    name = unique("show")
    node = mw.create_node("fake-hardware", name=name)
    result = cli(
        "node",
        "set",
        name,
        "--description",
        "rack 4",
        "--property",
        "cpus=16",
        "--extra",
        'tags=["a", "b"]',
        "--driver-info",
        "ipmi_address=192.0.2.1",
        "--owner",
        "ops",
    )
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    shown = json.loads(cli("node", "show", name, "-f", "json").stdout)
    assert shown["description"] == "rack 4"
    assert shown["properties"] == {"cpus": 16}
    assert shown["extra"] == {"tags": ["a", "b"]}
    assert shown["driver_info"] == {"ipmi_address": "192.0.2.1"}
    assert shown["owner"] == "ops"

    assert cli("node", "unset", node.uuid, "--description", "--property", "cpus").code == 0
    value = cli("node", "show", name, "-f", "value", "-c", "description", "-c", "properties")
    assert value.stdout.splitlines() == ["None", "{}"]
    picked = cli("node", "show", name, "--fields", "uuid", "name", "-f", "json")
    assert json.loads(picked.stdout) == {"name": name, "uuid": node.uuid}

    nothing = cli("node", "set", name)
    assert nothing.code == 2 and "nothing to set" in nothing.stderr

    ghost = unique("ghost")
    deleted = cli("node", "delete", name, ghost)
    assert deleted.code == 1
    assert deleted.stdout == f"Deleted node {name}\n"
    assert f"Failed to delete node {ghost}: Node {ghost} could not be found." in deleted.stderr


def test_errors_exit_1_with_the_server_message(cli: Run) -> None:
    ghost = unique("ghost")
    result = cli("node", "show", ghost)
    assert result.code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"metalwire: Node {ghost} could not be found. (HTTP 404)")
    assert "Request-ID: req-" in result.stderr

    bad = cli("node", "create", "--driver", "no-such-driver")
    assert bad.code == 1
    assert "Driver no-such-driver could not be found" in bad.stderr

    usage = cli("node", "list", "-f", "xml")
    assert usage.code == 2 and "invalid choice" in usage.stderr
    column = cli("node", "list", "-c", "Colour")
    assert column.code == 2 and "No such column: Colour" in column.stderr
    version = cli("node", "list", "--api-version", ABOVE_LATEST)
    assert version.code == 1
    served = f"{ABOVE_LATEST} was requested but the server supports only 1.1 to {LATEST}"
    assert served in version.stderr


def test_a_call_newer_than_the_pinned_version_names_the_version_it_needs(cli: Run) -> None:
    """It read "VIFs requires API version 1.28" (and "Portgroups requires ...")."""
    vifs = cli("node", "vif", "list", unique("pinned"), "--api-version", "1.20")
    assert vifs.code == 1
    assert vifs.stderr == (
        "metalwire: API version 1.28 or later is needed for VIFs; this connection uses 1.20.\n"
    )
    portgroups = cli("portgroup", "list", "--api-version", "1.20")
    assert portgroups.code == 1
    assert "API version 1.23 or later is needed for portgroups;" in portgroups.stderr


def test_endpoint_from_url_option_and_environment(server: MetalwireServer) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}"
    by_env = run_metalwire("node", "list", env=clean_env(METALWIRE_URL=server.url))
    assert by_env.code == 0, by_env.stderr
    by_os_endpoint = run_metalwire("node", "list", env=clean_env(OS_ENDPOINT=server.url))
    assert by_os_endpoint.code == 0, by_os_endpoint.stderr
    precedence = run_metalwire(
        "node", "list", "--url", server.url, env=clean_env(METALWIRE_URL=nowhere)
    )
    assert precedence.code == 0, precedence.stderr

    refused = run_metalwire(
        "node", "list", "--max-retries", "0", env=clean_env(METALWIRE_URL=nowhere)
    )
    assert refused.code == 1
    assert refused.stderr.startswith(f"metalwire: Cannot reach {nowhere}/")


def test_an_endpoint_ending_in_v1_means_the_service_root(server: MetalwireServer) -> None:
    """As the baremetal command takes it: OS_ENDPOINT or a catalog often ends in /v1."""
    by_option = run_metalwire("node", "list", "--url", f"{server.url}/v1", env=clean_env())
    assert by_option.code == 0, by_option.stderr
    by_env = run_metalwire("node", "list", env=clean_env(OS_ENDPOINT=f"{server.url}/v1/"))
    assert by_env.code == 0, by_env.stderr
    with Client(f"{server.url}/v1/") as client:
        assert client.url == server.url
        assert client.list_nodes(limit=1) is not None


def test_port_and_portgroup_commands(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("nics"))
    bond_name = unique("bond")
    bond_mac = mac()
    created = cli(
        "portgroup",
        "create",
        "--node",
        node.name or "",
        "--name",
        bond_name,
        "--address",
        bond_mac,
        "--mode",
        "802.3ad",
        "--property",
        "miimon=100",
        "-f",
        "json",
    )
    assert created.code == 0, created.stderr
    bond = json.loads(created.stdout)
    assert bond["node_uuid"] == node.uuid and bond["mode"] == "802.3ad"

    address = mac()
    port_out = cli(
        "port",
        "create",
        address,
        "--node",
        node.name or "",
        "--port-group",
        bond_name,
        "--local-link-connection",
        "switch_id=0a:1b:2c:3d:4e:5f",
        "--local-link-connection",
        "port_id=Eth1/2",
        "--pxe-enabled",
        "false",
        "-f",
        "json",
    )
    assert port_out.code == 0, port_out.stderr
    port = json.loads(port_out.stdout)
    assert port["portgroup_uuid"] == bond["uuid"]
    assert port["pxe_enabled"] is False
    assert port["local_link_connection"]["port_id"] == "Eth1/2"

    listed = cli("port", "list", "--node", node.uuid)
    assert [h.strip() for h in listed.stdout.splitlines()[1].strip("|").split("|")] == [
        "UUID",
        "Address",
    ]
    assert address in listed.stdout
    by_group = json.loads(cli("port", "list", "--port-group", bond["uuid"], "-f", "json").stdout)
    assert by_group == [{"UUID": port["uuid"], "Address": address}]
    by_mac = cli("port", "show", "--address", address, "-f", "value", "-c", "uuid")
    assert by_mac.stdout.strip() == port["uuid"]
    assert cli("port", "show", "--address", mac()).code == 1

    groups = json.loads(cli("portgroup", "list", "--node", node.uuid, "-f", "json").stdout)
    assert groups == [{"UUID": bond["uuid"], "Address": bond_mac, "Name": bond_name}]
    assert cli("portgroup", "show", bond_name, "-f", "value", "-c", "mode").stdout == "802.3ad\n"

    assert cli("port", "delete", port["uuid"]).stdout == f"Deleted port {port['uuid']}\n"
    gone = cli("port", "show", port["uuid"])
    assert gone.code == 1 and "could not be found" in gone.stderr
    assert cli("portgroup", "delete", bond_name).stdout == f"Deleted port group {bond_name}\n"


def test_port_and_portgroup_create_take_the_newer_fields(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("newer"))
    group = cli(
        "portgroup", "create", "--node", node.uuid, "--name", unique("pg"),
        "--physical-network", "fabric-a", "--category", "storage", "-f", "json",
    )  # fmt: skip
    assert group.code == 0, group.stderr
    bond = json.loads(group.stdout)
    assert (bond["physical_network"], bond["category"]) == ("fabric-a", "storage")

    name = unique("nic")
    created = cli(
        "port", "create", mac(), "--node", node.uuid, "--name", name,
        "--description", "left NIC", "--vendor", "acme", "--category", "storage",
        "--available-for-dynamic-portgroup", "no", "--physical-network", "fabric-a",
        "-f", "json",
    )  # fmt: skip
    assert created.code == 0, created.stderr
    port = json.loads(created.stdout)
    assert (port["name"], port["description"], port["vendor"], port["category"]) == (
        name,
        "left NIC",
        "acme",
        "storage",
    )
    assert port["available_for_dynamic_portgroup"] is False
    refused = cli(
        "port", "create", mac(), "--node", node.uuid, "--available-for-dynamic-portgroup", "maybe"
    )
    assert refused.code == 2 and "expected true or false, got 'maybe'" in refused.stderr


def test_vif_commands(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("vif"))
    mw.create_port(node.uuid, mac())
    target = mw.create_port(node.uuid, mac())
    name = node.name or ""

    attach = cli(
        "node",
        "vif",
        "attach",
        name,
        v("vif-cli"),
        "--port-uuid",
        target.uuid,
        "--vif-info",
        "network_id=net-1",
    )
    assert (attach.code, attach.stderr) == (0, "")
    assert attach.stdout == (
        f"VIF {v('vif-cli')} attached to port {target.uuid} ({target.address}) of node {name}\n"
    )
    assert mw.get_port(target.uuid).vif_id == v("vif-cli")

    listed = cli("node", "vif", "list", name)
    assert listed.stdout.splitlines()[1].split() == ["|", "ID", "|"]
    assert f"| {v('vif-cli')} |" in listed.stdout
    assert json.loads(cli("node", "vif", "list", name, "-f", "json").stdout) == [
        {"ID": v("vif-cli")}
    ]

    again = cli("node", "vif", "attach", name, v("vif-cli"))
    assert again.code == 1
    assert "already attached" in again.stderr and "(HTTP 409)" in again.stderr

    both = cli(
        "node",
        "vif",
        "attach",
        name,
        v("vif-x"),
        "--port-uuid",
        target.uuid,
        "--portgroup-uuid",
        target.uuid,
    )
    assert both.code == 2 and "not allowed with argument" in both.stderr

    detached = cli("node", "vif", "detach", name, v("vif-cli"))
    assert detached.code == 0
    assert detached.stdout.startswith(f"VIF {v('vif-cli')} detached from port {target.uuid} ")
    assert cli("node", "vif", "list", name, "-f", "value").stdout == ""
    not_attached = cli("node", "vif", "detach", name, v("vif-cli"))
    assert not_attached.code == 1 and "not attached" in not_attached.stderr


def test_vif_attach_and_detach_name_the_chosen_portgroup_or_port_in_json(
    cli: Run, mw: Client
) -> None:
    node = mw.create_node("fake-hardware", name=unique("vif-json"))
    bond = mw.create_portgroup(node.uuid, name=unique("bond"), address=mac())
    mw.create_port(node.uuid, mac(), portgroup_uuid=bond.uuid)
    nic = mw.create_port(node.uuid, mac())

    first = cli("node", "vif", "attach", node.uuid, v("vif-j1"), "-f", "json")
    assert first.code == 0, first.stderr
    assert json.loads(first.stdout) == {
        "node": node.uuid,
        "vif": v("vif-j1"),
        "attached": "portgroup",
        "uuid": bond.uuid,
        "address": bond.address,
        "name": bond.name,
    }
    second = cli("node", "vif", "attach", node.uuid, v("vif-j2"), "-f", "json")
    assert json.loads(second.stdout) == {  # the same keys for a port: a port has no name here
        "node": node.uuid,
        "vif": v("vif-j2"),
        "attached": "port",
        "uuid": nic.uuid,
        "address": nic.address,
        "name": None,
    }

    detached = cli("node", "vif", "detach", node.uuid, v("vif-j1"), "-f", "value", "-c", "uuid")
    assert (detached.code, detached.stdout) == (0, f"{bond.uuid}\n")


def test_provision_and_maintenance_commands(cli: Run, mw: Client) -> None:
    name = unique("prov")
    mw.create_node("fake-hardware", name=name)

    def state() -> str | None:
        return mw.get_node(name).provision_state

    early = cli("node", "deploy", name)
    assert early.code == 1 and '"active" can not be performed' in early.stderr
    for command, expected in (
        ("manage", "manageable"),
        ("provide", "available"),
        ("deploy", "active"),
        ("undeploy", "available"),
    ):
        result = cli("node", command, name)
        assert (result.code, result.stderr) == (0, ""), command
        assert state() == expected

    assert cli("node", "maintenance", "set", name, "--reason", "fan failure").code == 0
    node = mw.get_node(name)
    assert node.maintenance and node.maintenance_reason == "fan failure"
    assert cli("node", "maintenance", "unset", name).code == 0
    assert mw.get_node(name).maintenance is False
    ghost = unique("ghost")
    partial = cli("node", "maintenance", "set", name, ghost)
    assert partial.code == 1 and f"Failed to set maintenance on node {ghost}" in partial.stderr
    assert mw.get_node(name).maintenance is True


def test_an_unknown_column_is_refused_when_the_list_is_empty_too(tmp_path: Path) -> None:
    with MetalwireServer(tmp_path / "empty") as empty:
        env = clean_env(METALWIRE_URL=empty.url)
        assert run_metalwire("node", "list", env=env).stdout == ""  # nothing enrolled
        column = run_metalwire("node", "list", "-c", "Colour", env=env)
    assert column.code == 2 and "No such column: Colour" in column.stderr


def test_an_unknown_column_is_refused_by_vif_list_and_audit_when_empty_too(
    cli: Run, mw: Client
) -> None:
    """A misspelt -c passed while nothing was listed, and failed once something was."""
    node = mw.create_node("fake-hardware", name=unique("cols"))
    vifs = cli("node", "vif", "list", node.uuid, "-c", "Id")
    assert vifs.code == 2, vifs.stderr
    assert "No such column: Id. Columns are: ID." in vifs.stderr
    latest = cli("audit", "--latest", "-c", "Node")
    assert latest.code == 2, latest.stderr
    assert "No such column: Node. Columns are: Kind, Node UUID," in latest.stderr
    assert cli("node", "vif", "list", node.uuid, "-c", "ID").code == 0


def test_a_wrong_column_on_a_command_that_changes_is_refused_before_the_change(
    cli: Run, mw: Client, tmp_path: Path
) -> None:
    """A usage error (exit status 2) means nothing was done: a misspelt -c used to attach,
    detach or enrol first and then exit 2, so that running the command again failed or
    enrolled twice."""
    node = mw.create_node("fake-hardware", name=unique("cols-change"))
    mw.create_port(node.uuid, mac())
    attach = cli("node", "vif", "attach", node.uuid, v("vif-c"), "-c", "target_uuid")
    assert attach.code == 2, attach.stderr
    assert mw.vif_list(node.uuid) == []  # nothing attached
    expected = "No such column: target_uuid. Columns are: node, vif, attached, uuid, address, name."
    assert expected in attach.stderr
    mw.vif_attach(node.uuid, v("vif-c"))
    detach = cli("node", "vif", "detach", node.uuid, v("vif-c"), "-c", "vif_id")
    assert detach.code == 2, detach.stderr
    assert mw.vif_list(node.uuid) == [v("vif-c")]

    name = unique("cols-file")
    enrol_file = tmp_path / "one.yaml"
    enrol_file.write_text(yaml.safe_dump({"nodes": [{"name": name, "driver": "fake-hardware"}]}))
    enrol = cli("create", str(enrol_file), "-c", "Name")
    assert enrol.code == 2, enrol.stderr
    assert "No such column: Name. Columns are: Node, UUID," in enrol.stderr
    assert mw.list_nodes(fields=["name"]) and name not in {n.name for n in mw.list_nodes()}

    repair = cli("audit", "--repair", "-c", "Fixed")
    assert repair.code == 2, repair.stderr
    assert "No such column: Fixed." in repair.stderr


def test_a_wrong_column_after_a_create_says_the_resource_was_created(cli: Run) -> None:
    """The fields of a created resource are the server's: the -c is checked once it exists,
    and the answer says so instead of a usage error."""
    name = unique("cols-node")
    created = cli("node", "create", "--driver", "fake-hardware", "--name", name, "-c", "nom")
    assert created.code == 1, created.stderr
    assert "No such column: nom." in created.stderr
    shown = cli("node", "show", name, "-f", "value", "-c", "uuid")
    assert shown.code == 0
    uuid = shown.stdout.strip()
    assert f"metalwire: the node was created all the same: {uuid}" in created.stderr


def test_port_show_and_delete_take_a_port_name_as_their_help_says(cli: Run, mw: Client) -> None:
    """Their help said UUID only, while a name (API 1.88) works."""
    node = mw.create_node("fake-hardware", name=unique("named-port"))
    name = unique("nic")
    mw.create_port(node.uuid, mac(), name=name)
    helps = {a: " ".join(cli("port", a, "--help").stdout.split()) for a in ("show", "delete")}
    assert "UUID or name (API 1.88) of the port" in helps["show"]
    assert "UUIDs or names (API 1.88) of ports" in helps["delete"]
    assert cli("port", "show", name, "-f", "value", "-c", "name").stdout == f"{name}\n"
    assert cli("port", "delete", name).stdout == f"Deleted port {name}\n"
