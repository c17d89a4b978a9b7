"""The ``baremetal`` CLI's boolean flags, which it sends as strings, against a real server.

``port create --pxe-enabled`` passes its argument through as typed; ``port set``,
``port unset --is-smartnic``, ``port group set`` and ``node set`` send ``"True"`` or
``"False"`` in their patches; the create commands send JSON booleans. Every result is
read back with ``show -f json``, where it must be a JSON boolean.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.compat.clients import Cli, random_mac, unique
from tests.compat.test_cli import PROGRAMS, failed_with, for_each_program, make_node, make_port
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

# Both key sets, so the link information is valid whether or not the port is a Smart NIC.
LLC = {"switch_id": "00:11:22:33:44:55", "port_id": "Eth1/9", "hostname": "host-a"}


@pytest.fixture(scope="module")
def clis(compat_server: MetalwireServer, cli_env: dict[str, str]) -> list[Cli]:
    return [Cli(program, compat_server.url, cli_env) for program in PROGRAMS]


def show(cli: Cli, kind: tuple[str, ...], ident: str) -> dict[str, Any]:
    return dict(cli.json(*kind, "show", ident))


def port_create_pxe_enabled_spellings(cli: Cli, http: httpx.Client) -> None:
    node = make_node(http)
    spellings = [("true", True), ("false", False), (" YES ", True), ("Off", False)]
    results = cli.run_all(
        *(
            ["port", "create", random_mac(), "--node", node["uuid"], "--pxe-enabled", word,
             "-f", "json"]
            for word, _ in spellings
        ),
        ["port", "create", random_mac(), "--node", node["uuid"], "--pxe-enabled", "maybe"],
    )  # fmt: skip
    *created, invalid = results
    for (word, expected), result in zip(spellings, created, strict=True):
        assert result.json()["pxe_enabled"] is expected, (word, result.describe())
    failed_with(invalid, 400, "pxe_enabled", "'maybe'", "'yes'")
    ports = http.get("/v1/ports", params={"node": node["uuid"]}).json()["ports"]
    assert len(ports) == len(spellings)

    showings = cli.run_all(*(["port", "show", r.json()["uuid"], "-f", "json"] for r in created))
    for (word, expected), result in zip(spellings, showings, strict=True):
        assert result.json()["pxe_enabled"] is expected, word


def port_set_and_unset_booleans(cli: Cli, http: httpx.Client) -> None:
    node = make_node(http)
    smartnic = cli.json(
        "port", "create", random_mac(), "--node", node["uuid"], "--is-smartnic",
        "--local-link-connection", "port_id=Eth1/3", "--local-link-connection", "hostname=host-b",
    )  # fmt: skip
    assert smartnic["is_smartnic"] is True
    assert show(cli, ("port",), smartnic["uuid"])["is_smartnic"] is True

    port = make_port(http, node, local_link_connection=LLC)
    assert (port["pxe_enabled"], port["is_smartnic"]) == (True, False)
    cli.ok("port", "set", port["uuid"], "--pxe-disabled", "--is-smartnic")
    after = show(cli, ("port",), port["uuid"])
    assert after["pxe_enabled"] is False
    assert after["is_smartnic"] is True

    cli.ok("port", "set", port["uuid"], "--pxe-enabled")
    cli.ok("port", "unset", port["uuid"], "--is-smartnic")
    after = show(cli, ("port",), port["uuid"])
    assert after["pxe_enabled"] is True
    assert after["is_smartnic"] is False


def port_group_standalone_ports(cli: Cli, http: httpx.Client) -> None:
    node = make_node(http)
    group = cli.json(
        "port", "group", "create", "--node", node["uuid"], "--name", unique("bond"),
        "--unsupport-standalone-ports",
    )  # fmt: skip
    assert group["standalone_ports_supported"] is False
    cli.ok("port", "group", "set", group["uuid"], "--support-standalone-ports")
    assert show(cli, ("port", "group"), group["uuid"])["standalone_ports_supported"] is True
    cli.ok("port", "group", "set", group["uuid"], "--unsupport-standalone-ports")
    assert show(cli, ("port", "group"), group["uuid"])["standalone_ports_supported"] is False


def deployed(http: httpx.Client, uuid: str) -> None:
    """Bring a node to ``active``: Ironic lets only a deployed node be protected."""
    for target in ("manage", "provide", "active"):
        resp = http.put(f"/v1/nodes/{uuid}/states/provision", json={"target": target})
        assert resp.status_code == 202, resp.text
    assert http.get(f"/v1/nodes/{uuid}").json()["provision_state"] == "active"


def node_boolean_flags(cli: Cli, http: httpx.Client) -> None:
    name = unique("cli-bools")
    node = cli.json("node", "create", "--driver", "fake-hardware", "--name", name,
                    "--automated-clean")  # fmt: skip
    assert node["automated_clean"] is True
    deployed(http, node["uuid"])

    cli.ok("node", "set", name, "--retired", "--retired-reason", "old", "--protected",
           "--no-automated-clean")  # fmt: skip
    after = show(cli, ("node",), name)
    assert after["retired"] is True
    assert after["protected"] is True
    assert after["automated_clean"] is False

    cli.ok("node", "set", name, "--automated-clean")
    cli.ok("node", "unset", name, "--protected", "--retired")
    after = show(cli, ("node",), name)
    assert after["automated_clean"] is True
    assert after["protected"] is False
    assert after["retired"] is None  # nullable, as in Ironic

    cli.ok("node", "maintenance", "set", name, "--reason", "disk")
    after = show(cli, ("node",), name)
    assert (after["maintenance"], after["maintenance_reason"]) == (True, "disk")
    cli.ok("node", "maintenance", "unset", name)
    assert show(cli, ("node",), name)["maintenance"] is False


def test_port_create_takes_pxe_enabled_as_typed(clis: list[Cli], http: httpx.Client) -> None:
    for_each_program(clis, lambda cli: port_create_pxe_enabled_spellings(cli, http))


def test_port_set_and_unset_boolean_flags(clis: list[Cli], http: httpx.Client) -> None:
    for_each_program(clis, lambda cli: port_set_and_unset_booleans(cli, http))


def test_port_group_standalone_ports_flags(clis: list[Cli], http: httpx.Client) -> None:
    for_each_program(clis, lambda cli: port_group_standalone_ports(cli, http))


def test_node_boolean_flags(clis: list[Cli], http: httpx.Client) -> None:
    for_each_program(clis, lambda cli: node_boolean_flags(cli, http))
