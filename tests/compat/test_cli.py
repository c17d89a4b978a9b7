"""The ``baremetal`` and ``openstack baremetal`` programs, unmodified, against a real server.

Each program runs as a process of its own with ``--os-auth-type none --os-endpoint URL``, a
throwaway HOME and no ``OS_*`` variable, forked from one that has imported it
(``tests/support/preforked.py``; the first test below checks that this gives what a new
interpreter gives). Each scenario runs for both programs side by side, and independent
commands of a scenario run at once.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import chain
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.clients import Cli, CliResult, random_mac, run_all, unique
from tests.support import inspection
from tests.support.helpers import AGENT_RAMDISK, settled_node
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

PROGRAMS = ("baremetal", "openstack")


@pytest.fixture(scope="module")
def clis(compat_server: MetalwireServer, cli_env: dict[str, str]) -> list[Cli]:
    return [Cli(program, compat_server.url, cli_env) for program in PROGRAMS]


def for_each_program(clis: list[Cli], scenario: Callable[[Cli], None]) -> None:
    """Run ``scenario`` once per program, concurrently; re-raise what any run raised."""
    with ThreadPoolExecutor(max_workers=len(clis)) as pool:
        futures = [pool.submit(scenario, cli) for cli in clis]
    failures = [error for future in futures if (error := future.exception()) is not None]
    if len(failures) == 1:
        raise failures[0]
    if failures:
        raise BaseExceptionGroup("the scenario failed for several programs", failures)


@pytest.fixture(scope="module")
def baremetal_once(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    """``baremetal`` without its retries of a 409 (5 more attempts, 2 s apart, by default).

    ``openstack baremetal`` has no option to turn them off, so 409s are checked with this.
    """
    return Cli("baremetal", compat_server.url, cli_env, options=["--max-retries", "0"])


def make_node(http: httpx.Client, **fields: Any) -> dict[str, Any]:
    resp = http.post("/v1/nodes", json={"driver": "fake-hardware", "name": unique("cli"), **fields})
    assert resp.status_code == 201, resp.text
    return dict(resp.json())


def make_port(http: httpx.Client, node: dict[str, Any], **fields: Any) -> dict[str, Any]:
    body = {"node_uuid": node["uuid"], "address": random_mac(), **fields}
    resp = http.post("/v1/ports", json=body)
    assert resp.status_code == 201, resp.text
    return dict(resp.json())


def failed_with(result: CliResult, status: int, *fragments: str) -> None:
    assert result.returncode != 0, result.describe()
    assert f"HTTP {status}" in result.stderr, result.describe()
    for fragment in fragments:
        assert fragment in result.stderr, result.describe()


def test_a_forked_program_prints_and_exits_as_a_new_interpreter_does(
    clis: list[Cli], baremetal_once: Cli, http: httpx.Client
) -> None:
    node = make_node(http)
    commands = [
        ("node", "show", node["uuid"], "-f", "json", "-c", "uuid", "-c", "driver"),
        ("port", "create", "not-a-mac", "--node", node["uuid"]),  # 400, on stderr
        ("node", "show", "no-such-node"),  # 404
        ("port", "list", "--no-such-option"),  # refused by the program itself
        # last, once the prefork server has imported cliff: the epilog naming the plugin comes
        # from the package map it worked out before the fork (prefork_server._fill_cliff)
        ("node", "list", "--help"),
    ]
    for cli in [*clis, baremetal_once]:
        for command in commands:
            forked, executed = cli.run(*command), cli.run_exec(*command)
            both = (forked.describe(), executed.describe())
            assert forked.returncode == executed.returncode, both
            assert forked.stdout == executed.stdout, both
            assert _without_request_ids(forked.stderr) == _without_request_ids(executed.stderr)
    assert cli.run("node", "show", node["uuid"], "-f", "value", "-c", "driver").stdout == (
        "fake-hardware\n"
    )


def _without_request_ids(text: str) -> str:
    return re.sub(r"req-[0-9a-f-]{36}", "req-...", text)


def node_lifecycle(cli: Cli, http: httpx.Client) -> None:
    name = unique("cli-node")
    created = cli.json(
        "node", "create", "--driver", "fake-hardware", "--name", name,
        "--property", "cpus=4", "--extra", "rack=r1", "--extra", "row=a",
    )  # fmt: skip
    uuid = created["uuid"]
    assert created["name"] == name
    assert created["driver"] == "fake-hardware"
    assert created["provision_state"] == "enroll"
    assert created["properties"] == {"cpus": 4}
    assert created["extra"] == {"rack": "r1", "row": "a"}

    renamed = unique("cli-node")
    cli.ok("node", "set", name, "--name", renamed, "--property", "memory_mb=2048",
           "--extra", "rack=r2", "--description", "from the cli")  # fmt: skip
    assert http.get(f"/v1/nodes/{uuid}").json()["description"] == "from the cli"
    cli.ok("node", "unset", renamed, "--extra", "row", "--description")

    show, listing = cli.run_all(
        ["node", "show", uuid, "-f", "json"],
        ["node", "list", "-f", "json"],
    )
    shown = show.json()
    assert shown["uuid"] == uuid
    assert shown["name"] == renamed
    assert shown["properties"] == {"cpus": 4, "memory_mb": 2048}
    assert shown["extra"] == {"rack": "r2"}
    assert shown["description"] is None
    rows = {row["uuid"]: row for row in listing.json()}
    assert rows[uuid] == {
        "uuid": uuid,
        "name": renamed,
        "instance_uuid": None,
        "power_state": None,
        "provision_state": "enroll",
        "maintenance": False,
    }

    deleted = cli.ok("node", "delete", renamed)
    assert renamed in deleted.stdout + deleted.stderr
    assert http.get(f"/v1/nodes/{uuid}").status_code == 404


def port_and_port_group_lifecycle(cli: Cli, http: httpx.Client) -> None:
    node = make_node(http)
    group_name = unique("bond")
    group_address, port_address = random_mac(), random_mac()
    group = cli.json(
        "port", "group", "create", "--node", node["uuid"], "--name", group_name,
        "--address", group_address, "--mode", "802.3ad", "--property", "miimon=100",
    )  # fmt: skip
    assert (group["name"], group["address"], group["node_uuid"]) == (
        group_name,
        group_address,
        node["uuid"],
    )
    assert (group["mode"], group["properties"]) == ("802.3ad", {"miimon": 100})

    port = cli.json(
        "port", "create", port_address, "--node", node["uuid"], "--port-group", group["uuid"],
        "--physical-network", "physnet1", "--extra", "slot=2",
        "--local-link-connection", "switch_id=00:11:22:33:44:55",
        "--local-link-connection", "port_id=Eth1/7",
    )  # fmt: skip
    assert (port["address"], port["node_uuid"]) == (port_address, node["uuid"])
    assert port["portgroup_uuid"] == group["uuid"]
    assert port["physical_network"] == "physnet1"
    assert port["local_link_connection"] == {"switch_id": "00:11:22:33:44:55", "port_id": "Eth1/7"}

    port_list, port_show, group_list, group_show = cli.run_all(
        ["port", "list", "--node", node["uuid"], "-f", "json"],
        ["port", "show", port["uuid"], "-f", "json"],
        ["port", "group", "list", "--node", node["uuid"], "-f", "json"],
        ["port", "group", "show", group_name, "-f", "json"],
    )
    assert port_list.json() == [{"uuid": port["uuid"], "address": port_address}]
    shown = port_show.json()
    assert (shown["uuid"], shown["extra"]) == (port["uuid"], {"slot": 2})
    assert group_list.json() == [
        {"uuid": group["uuid"], "address": group_address, "name": group_name}
    ]
    shown_group = group_show.json()
    assert (shown_group["uuid"], shown_group["mode"]) == (group["uuid"], "802.3ad")

    cli.ok("port", "delete", port["uuid"])
    cli.ok("port", "group", "delete", group_name)
    assert http.get(f"/v1/ports/{port['uuid']}").status_code == 404
    assert http.get(f"/v1/portgroups/{group['uuid']}").status_code == 404


def vif_attach_list_detach(cli: Cli, http: httpx.Client) -> None:
    node = make_node(http)
    first, second = make_port(http, node), make_port(http, node)
    group, bond = (
        http.post("/v1/portgroups", json={"node_uuid": node["uuid"]}).json() for _ in range(2)
    )
    make_port(http, node, portgroup_uuid=group["uuid"])
    make_port(http, node, portgroup_uuid=bond["uuid"])
    vif_port, vif_group, vif_bond = unique("vif-port"), unique("vif-group"), unique("vif-bond")

    cli.ok("node", "vif", "attach", node["name"], vif_port, "--port-uuid", second["uuid"],
           "--vif-info", "tag=blue")  # fmt: skip
    cli.ok("node", "vif", "attach", node["uuid"], vif_group,
           "--vif-info", f"portgroup_uuid={group['uuid']}")  # fmt: skip
    cli.ok("node", "vif", "attach", node["uuid"], vif_bond, "--portgroup-uuid", bond["uuid"])

    listing, too_old = run_all(
        (cli, ["node", "vif", "list", node["uuid"], "-f", "json"]),
        (cli.at("1.27"), ["node", "vif", "list", node["uuid"]]),
    )
    assert sorted(row["id"] for row in listing.json()) == sorted([vif_port, vif_group, vif_bond])
    bond_info = http.get(f"/v1/portgroups/{bond['uuid']}").json()["internal_info"]
    assert bond_info["tenant_vif_port_id"] == vif_bond
    failed_with(too_old, 404, "could not be found")
    assert too_old.stdout == ""

    internal = http.get(f"/v1/ports/{second['uuid']}").json()["internal_info"]
    assert internal["tenant_vif_port_id"] == vif_port
    untouched = http.get(f"/v1/ports/{first['uuid']}").json()["internal_info"]
    assert "tenant_vif_port_id" not in untouched
    group_info = http.get(f"/v1/portgroups/{group['uuid']}").json()["internal_info"]
    assert group_info["tenant_vif_port_id"] == vif_group

    cli.ok("node", "vif", "detach", node["uuid"], vif_port)
    left = http.get(f"/v1/nodes/{node['uuid']}/vifs").json()["vifs"]
    assert sorted(v["id"] for v in left) == sorted([vif_group, vif_bond])


def test_port_and_port_group_lists_page_from_a_marker(
    baremetal_once: Cli, http: httpx.Client
) -> None:
    node = make_node(http)
    ports = [make_port(http, node) for _ in range(3)]
    groups = [
        http.post("/v1/portgroups", json={"node_uuid": node["uuid"]}).json() for _ in range(3)
    ]
    after_first, last_group, past_the_end = baremetal_once.run_all(
        ["port", "list", "--node", node["uuid"], "--marker", ports[0]["uuid"], "--limit", "1",
         "-f", "json"],
        ["port", "group", "list", "--node", node["uuid"], "--marker", groups[1]["uuid"],
         "-f", "json"],
        ["port", "list", "--node", node["uuid"], "--marker", ports[2]["uuid"], "-f", "json"],
    )  # fmt: skip
    assert [p["uuid"] for p in after_first.json()] == [ports[1]["uuid"]]
    assert [g["uuid"] for g in last_group.json()] == [groups[2]["uuid"]]
    assert past_the_end.json() == []
    unknown = baremetal_once.run("port", "list", "--marker", str(uuid.uuid4()))
    failed_with(unknown, 404, "could not be found")


def test_conflicts_fail_with_409(baremetal_once: Cli, http: httpx.Client) -> None:
    node, other = make_node(http), make_node(http)
    port = make_port(http, node)
    make_port(http, other)
    vif = unique("vif")
    assert http.post(f"/v1/nodes/{node['uuid']}/vifs", json={"id": vif}).status_code == 204

    duplicate_mac, vif_elsewhere = baremetal_once.run_all(
        ["port", "create", port["address"], "--node", other["uuid"]],
        ["node", "vif", "attach", other["uuid"], vif],
    )
    failed_with(duplicate_mac, 409, port["address"])
    failed_with(vif_elsewhere, 409, vif)
    assert http.get(f"/v1/nodes/{other['uuid']}/vifs").json() == {"vifs": []}
    assert len(http.get("/v1/ports", params={"address": port["address"]}).json()["ports"]) == 1


def test_node_create_show_list_set_unset_delete(clis: list[Cli], http: httpx.Client) -> None:
    for_each_program(clis, lambda cli: node_lifecycle(cli, http))


def test_port_and_port_group_create_list_show_delete(clis: list[Cli], http: httpx.Client) -> None:
    for_each_program(clis, lambda cli: port_and_port_group_lifecycle(cli, http))


def test_node_vif_attach_list_detach(clis: list[Cli], http: httpx.Client) -> None:
    for_each_program(clis, lambda cli: vif_attach_list_detach(cli, http))


def test_a_ports_physical_network_is_checked_as_ironic_checks_it(
    baremetal_once: Cli, http: httpx.Client
) -> None:
    """An empty physical network is a 400; from 1.102 a member port's is its portgroup's."""
    node = make_node(http)
    port = make_port(http, node)
    group = http.post("/v1/portgroups", json={"node_uuid": node["uuid"]}).json()
    member = make_port(http, node, portgroup_uuid=group["uuid"])
    at_1_115 = baremetal_once.at("1.115")
    empty, alone = at_1_115.run_all(
        ["port", "create", random_mac(), "--node", node["uuid"], "--physical-network", ""],
        ["port", "set", member["uuid"], "--physical-network", "physnet9"],
    )
    failed_with(empty, 400, "physical_network")
    failed_with(alone, 400, f"member of portgroup {group['uuid']}")
    at_1_115.ok("port", "set", port["uuid"], "--physical-network", "physnet9")
    shown = {p["uuid"]: p["physical_network"] for p in make_list(http, node)}
    assert shown == {port["uuid"]: "physnet9", member["uuid"]: None}


def test_an_available_nodes_port_is_rewired_only_in_maintenance_as_in_ironic(
    baremetal_once: Cli, http: httpx.Client
) -> None:
    """Past manageable, a port's link, PXE flag, physical network and portgroup are kept
    (409 naming the port, the node and its state) until the node is in maintenance."""
    node = make_node(http)
    port = make_port(http, node)
    for verb in ("manage", "provide"):
        resp = http.put(f"/v1/nodes/{node['uuid']}/states/provision", json={"target": verb})
        assert resp.status_code == 202, resp.text
        settled_node(lambda: dict(http.get(f"/v1/nodes/{node['uuid']}").json()))

    refused, unplugged = baremetal_once.run_all(
        ["port", "set", port["uuid"], "--physical-network", "physnet9"],
        ["port", "set", port["uuid"], "--pxe-disabled"],
    )
    failed_with(refused, 409, f"Port {port['uuid']}", "physical_network", "'available'")
    failed_with(unplugged, 409, "pxe_enabled", "maintenance")
    assert http.get(f"/v1/ports/{port['uuid']}").json() == port

    baremetal_once.ok("node", "maintenance", "set", node["uuid"])
    baremetal_once.ok("port", "set", port["uuid"], "--physical-network", "physnet9")
    assert http.get(f"/v1/ports/{port['uuid']}").json()["physical_network"] == "physnet9"


def make_list(http: httpx.Client, node: dict[str, Any]) -> list[dict[str, Any]]:
    resp = http.get("/v1/ports/detail", params={"node": node["uuid"]})
    assert resp.status_code == 200, resp.text
    return list(resp.json()["ports"])


def pxe_on_ports_of_a_bond_without_standalone_ports(cli: Cli, http: httpx.Client) -> None:
    """On a noop node, as Ironic's noop interface, a member port of a portgroup without
    standalone ports may be PXE-enabled: ``port set --pxe-enabled``, a PXE-enabled port
    joining it, ``port group set --unsupport-standalone-ports`` under one, and a port created
    in it without ``--pxe-enabled`` (PXE-enabled, as Ironic stores it). (Each was answered
    409, which the client tried five times more, 2 s apart, before failing.)"""
    node = make_node(http, network_interface="noop")
    group = cli.json(
        "port", "group", "create", "--node", node["uuid"], "--unsupport-standalone-ports"
    )
    member = cli.json(
        "port", "create", random_mac(), "--node", node["uuid"], "--port-group", group["uuid"],
        "--pxe-enabled", "false",
    )  # fmt: skip
    alone = make_port(http, node)
    created = cli.json(
        "port", "create", random_mac(), "--node", node["uuid"], "--port-group", group["uuid"]
    )
    cli.ok("port", "set", member["uuid"], "--pxe-enabled")
    cli.ok("port", "set", alone["uuid"], "--port-group", group["uuid"])
    members = {p["uuid"]: (p["portgroup_uuid"], p["pxe_enabled"]) for p in make_list(http, node)}
    assert members == {port["uuid"]: (group["uuid"], True) for port in (member, alone, created)}, (
        members
    )
    cli.ok("port", "group", "set", group["uuid"], "--support-standalone-ports")
    cli.ok("port", "group", "set", group["uuid"], "--unsupport-standalone-ports")
    shown = http.get(f"/v1/portgroups/{group['uuid']}").json()
    assert shown["standalone_ports_supported"] is False


def test_a_noop_nodes_bonded_ports_may_be_pxe_enabled_as_in_ironic(
    clis: list[Cli], http: httpx.Client
) -> None:
    for_each_program(clis, lambda cli: pxe_on_ports_of_a_bond_without_standalone_ports(cli, http))


def test_a_flat_nodes_bonded_ports_stay_pxe_disabled_as_in_ironic(
    baremetal_once: Cli, http: httpx.Client
) -> None:
    """flat keeps the rule, as Ironic's flat: 409 naming the port or portgroup, nothing
    stored. A port created in such a portgroup without --pxe-enabled does not boot by PXE
    (Ironic stores it PXE-enabled); one created with --pxe-enabled true is refused on any
    interface, as Ironic's API refuses it."""
    node = make_node(http, network_interface="flat")
    noop = make_node(http, network_interface="noop")
    group = baremetal_once.json(
        "port", "group", "create", "--node", node["uuid"], "--unsupport-standalone-ports"
    )
    noop_group = http.post(
        "/v1/portgroups", json={"node_uuid": noop["uuid"], "standalone_ports_supported": False}
    ).json()
    member = make_port(http, node, portgroup_uuid=group["uuid"], pxe_enabled=False)
    alone = make_port(http, node)
    enabled, joined, *created = baremetal_once.run_all(
        ["port", "set", member["uuid"], "--pxe-enabled"],
        ["port", "set", alone["uuid"], "--port-group", group["uuid"]],
        *(
            ["port", "create", random_mac(), "--node", bond["node_uuid"],
             "--port-group", bond["uuid"], "--pxe-enabled", "true"]
            for bond in (group, noop_group)
        ),
        ["port", "create", random_mac(), "--node", node["uuid"], "--port-group", group["uuid"],
         "-f", "json"],
    )  # fmt: skip
    failed_with(enabled, 409, member["uuid"], "standalone ports")
    failed_with(joined, 409, alone["uuid"], "standalone ports")
    failed_with(created[0], 409, group["uuid"], "standalone ports")
    failed_with(created[1], 409, noop_group["uuid"], "standalone ports")
    quiet = created[2].json()
    baremetal_once.ok("port", "group", "set", group["uuid"], "--support-standalone-ports")
    baremetal_once.ok("port", "set", alone["uuid"], "--port-group", group["uuid"])
    refused = baremetal_once.run(
        "port", "group", "set", group["uuid"], "--unsupport-standalone-ports"
    )
    failed_with(refused, 409, alone["uuid"], "pxe_enabled true")
    assert {(p["uuid"], p["pxe_enabled"]) for p in make_list(http, node)} == {
        (member["uuid"], False),
        (alone["uuid"], True),
        (quiet["uuid"], False),
    }


def test_a_switch_named_by_name_is_refused_off_ironic_networking_as_in_ironic(
    baremetal_once: Cli, http: httpx.Client
) -> None:
    """A flat node's port names its switch by MAC address or datapath ID (400 otherwise,
    with Ironic's words; nothing stored); a MAC in any case or a datapath ID is taken."""
    node = make_node(http)
    link = ("--local-link-connection", "port_id=swp1")
    by_name, by_mac, by_datapath = baremetal_once.run_all(
        ["port", "create", random_mac(), "--node", node["uuid"], *link,
         "--local-link-connection", "switch_id=tor-1"],
        ["port", "create", random_mac(), "--node", node["uuid"], *link,
         "--local-link-connection", "switch_id=00:00:5E:00:53:01", "-f", "json"],
        ["port", "create", random_mac(), "--node", node["uuid"], *link,
         "--local-link-connection", "switch_id=0000AABBCCDDEEFF", "-f", "json"],
    )  # fmt: skip
    failed_with(by_name, 400, "Expected a MAC address or OpenFlow datapath ID", "'tor-1'")
    assert by_mac.json()["local_link_connection"]["switch_id"] == "00:00:5e:00:53:01"
    assert by_datapath.json()["local_link_connection"]["switch_id"] == "0000aabbccddeeff"
    port = by_mac.json()["uuid"]
    relinked = baremetal_once.run("port", "set", port, "--local-link-connection", "switch_id=tor-1")
    failed_with(relinked, 400, "'tor-1'", port)
    assert len(make_list(http, node)) == 2
    assert http.get(f"/v1/ports/{port}").json()["local_link_connection"]["switch_id"] == (
        "00:00:5e:00:53:01"
    )


def test_managing_an_ipmi_node_without_its_bmc_address_fails_and_says_why(
    clis: list[Cli], http: httpx.Client
) -> None:
    """Ironic's verification: the node stays in enroll, and last_error names the key."""

    def scenario(cli: Cli) -> None:
        node = make_node(http, driver="ipmi")
        failed = cli.run("node", "manage", "--wait", "60", node["uuid"])
        assert failed.returncode != 0, failed.describe()
        assert "unexpected stable state enroll" in failed.stderr, failed.describe()
        shown = cli.json("node", "show", node["uuid"])
        assert shown["provision_state"] == "enroll"
        assert "driver_info/ipmi_address" in shown["last_error"]

        cli.ok("node", "set", node["uuid"], "--driver-info", "ipmi_address=192.0.2.40")
        cli.ok("node", "manage", "--wait", "60", node["uuid"])
        shown = cli.json("node", "show", node["uuid"])
        assert (shown["provision_state"], shown["last_error"]) == ("manageable", None)

    for_each_program(clis, scenario)


def test_node_inspect_waits_for_manageable_and_an_agent_inspection_is_aborted(
    clis: list[Cli], http: httpx.Client
) -> None:
    """``node inspect --wait``: fake-hardware's ``fake`` inspect interface finishes at once,
    as in Ironic 39; an ``agent`` one (on a PXE boot interface and the noop network
    interface) waits in ``inspect wait`` until ``node abort``."""

    def scenario(cli: Cli) -> None:
        node = make_node(http)
        cli.ok("node", "manage", "--wait", "60", node["uuid"])

        cli.ok("node", "inspect", "--wait", "60", node["uuid"])

        shown = cli.json("node", "show", node["uuid"])
        assert (shown["provision_state"], shown["last_error"]) == ("manageable", None)
        assert shown["inspection_finished_at"] is not None

        # an agent inspection boots the deploy ramdisk from a port, here with nothing to set
        # up on the network
        make_port(http, node)
        agent = ("--inspect-interface", "agent", "--boot-interface", "ipxe")
        ramdisk = [("--driver-info", f"{key}={value}") for key, value in AGENT_RAMDISK.items()]
        cli.ok("node", "set", node["uuid"], *agent, "--network-interface", "noop", *chain(*ramdisk))
        cli.ok("node", "inspect", node["uuid"])
        assert cli.json("node", "show", node["uuid"])["provision_state"] == "inspect wait"
        cli.ok("node", "abort", node["uuid"])
        shown = cli.json("node", "show", node["uuid"])
        assert (shown["provision_state"], shown["last_error"]) == (
            "inspect failed",
            "Inspection was aborted by request.",
        )

    for_each_program(clis, scenario)


def test_node_inspect_of_a_no_inspect_node_fails_and_says_why(
    clis: list[Cli], http: httpx.Client
) -> None:
    def scenario(cli: Cli) -> None:
        node = make_node(http, inspect_interface="no-inspect")
        cli.ok("node", "manage", "--wait", "60", node["uuid"])

        failed = cli.run("node", "inspect", "--wait", "60", node["uuid"])

        assert failed.returncode != 0, failed.describe()
        assert "does not support inspect" in failed.stderr, failed.describe()
        assert cli.json("node", "show", node["uuid"])["provision_state"] == "manageable"

    for_each_program(clis, scenario)


def test_node_clean_with_a_step_the_node_does_not_offer_fails_and_names_it(
    clis: list[Cli], http: httpx.Client
) -> None:
    """``node clean --clean-steps``: fake-hardware offers no ``deploy.no_such_step``, so the
    cleaning fails in ``clean failed`` naming it, as Ironic 39's conductor fails it; a step
    its fake vendor interface offers cleans the node."""

    def scenario(cli: Cli) -> None:
        node = make_node(http)
        cli.ok("node", "manage", "--wait", "60", node["uuid"])
        unknown = '[{"interface": "deploy", "step": "no_such_step"}]'

        failed = cli.run("node", "clean", "--wait", "60", node["uuid"], "--clean-steps", unknown)

        assert failed.returncode != 0, failed.describe()
        assert "clean failed" in failed.stderr, failed.describe()
        shown = cli.json("node", "show", node["uuid"])
        assert (shown["provision_state"], shown["last_error"]) == (
            "clean failed",
            f"Cannot clean node {node['uuid']}: node does not support this clean step: "
            "{'interface': 'deploy', 'step': 'no_such_step'}",
        )

        cli.ok("node", "manage", "--wait", "60", node["uuid"])
        offered = '[{"interface": "vendor", "step": "log_passthrough"}]'
        cli.ok("node", "clean", "--wait", "60", node["uuid"], "--clean-steps", offered)
        shown = cli.json("node", "show", node["uuid"])
        assert (shown["provision_state"], shown["last_error"]) == ("manageable", None)

    for_each_program(clis, scenario)


def test_node_clean_and_service_hold_at_a_hold_step_until_node_unhold(
    clis: list[Cli], http: httpx.Client
) -> None:
    """``node clean --clean-steps`` with the conductor's ``power_off`` and ``hold`` steps:
    the node is powered off and held in ``clean hold`` showing the step; ``node unhold``
    runs the rest. ``node service --service-steps`` holds in ``service hold`` the same."""

    def scenario(cli: Cli) -> None:
        node = make_node(http)["uuid"]
        cli.ok("node", "manage", "--wait", "60", node)
        steps = (
            '[{"interface": "power", "step": "power_off"}, '
            '{"interface": "deploy", "step": "hold"}, '
            '{"interface": "power", "step": "power_on"}]'
        )
        cli.ok("node", "clean", node, "--clean-steps", steps)
        held = cli.json("node", "show", node)
        assert (held["provision_state"], held["power_state"]) == ("clean hold", "power off")
        assert held["clean_step"] == {"interface": "deploy", "step": "hold"}

        cli.ok("node", "unhold", node)
        done = cli.json("node", "show", node)
        assert (done["provision_state"], done["power_state"]) == ("manageable", "power on")

        cli.ok("node", "provide", "--wait", "60", node)
        cli.ok("node", "deploy", "--wait", "60", node)
        cli.ok(
            "node", "service", node, "--service-steps", '[{"interface": "deploy", "step": "hold"}]'
        )
        assert cli.json("node", "show", node)["provision_state"] == "service hold"
        cli.ok("node", "unhold", node)
        assert cli.json("node", "show", node)["provision_state"] == "active"

    for_each_program(clis, scenario)


def test_node_inventory_save_shows_what_the_inspection_ramdisk_reported(
    clis: list[Cli], http: httpx.Client, tmp_path: Path
) -> None:
    """An ``agent`` inspection ended by the ramdisk's report (posted as IPA posts it);
    ``node inventory save`` prints the inventory and plugin data stored, as from Ironic."""

    def scenario(cli: Cli) -> None:
        node = make_node(http)
        port = make_port(http, node)
        agent = ("--inspect-interface", "agent", "--boot-interface", "ipxe")
        ramdisk = [("--driver-info", f"{key}={value}") for key, value in AGENT_RAMDISK.items()]
        cli.ok("node", "set", node["uuid"], *agent, "--network-interface", "noop", *chain(*ramdisk))
        cli.ok("node", "manage", "--wait", "60", node["uuid"])
        cli.ok("node", "inspect", node["uuid"])
        mac = port["address"]
        body = inspection.report(
            interfaces=[inspection.interface("eth0", mac, "192.0.2.17", inspection.SWITCH_LLDP)],
            boot={"pxe_interface": mac},
            bmc_address=None,
            bmc_v6address=None,
        )
        answer = http.post("/v1/continue_inspection", json=body)
        assert answer.status_code == 202, answer.text

        saved = cli.ok("node", "inventory", "save", node["uuid"])

        stored = json.loads(saved.stdout)
        assert stored["inventory"] == body["inventory"]
        assert stored["plugin_data"]["macs"] == [mac]
        to_file = tmp_path / f"{node['uuid']}.json"
        cli.ok("node", "inventory", "save", node["uuid"], "--file", str(to_file))
        assert json.loads(to_file.read_text()) == stored
        shown = cli.json("node", "show", node["uuid"])
        assert (shown["provision_state"], shown["power_state"]) == ("manageable", "power off")

    for_each_program(clis, scenario)
