"""The 400s of ``ironic-networking`` bonds through a real ``metalwire serve`` (no switch is
reached: every refusal comes before a command): a portgroup's ``extra.lag`` is checked when
it changes, its members when the node is validated."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.server import MetalwireServer

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
SWITCH_FILE = """\
[switch:tor-{n}]
driver_type = generic-switch
device_type = netmiko_ovs_linux
address = 127.0.0.1
username = root
key_file = /nonexistent/key
"""
LAG = {"mode": "access", "aggregation_mode": "static"}


@pytest.fixture
def client(tmp_path: Path) -> Any:
    switch_file = tmp_path / "switches.ini"
    switch_file.write_text(SWITCH_FILE.format(n=1) + "\n" + SWITCH_FILE.format(n=2))
    env = {
        "METALWIRE_ENABLED_NETWORK_INTERFACES": "noop,flat,ironic-networking",
        "METALWIRE_IRONIC_NETWORKING_SWITCH_CONFIG_FILE": str(switch_file),
        # a python that exists: the driver counts as installed, and no switch is reached
        "METALWIRE_IRONIC_NETWORKING_GENERIC_SWITCH_PYTHON": "/bin/false",
    }
    with (
        MetalwireServer(tmp_path / "server", env=env) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as http,
    ):
        yield http


def _bond(client: httpx.Client, links: list[dict[str, str]]) -> tuple[str, list[str]]:
    resp = client.post(
        "/v1/nodes",
        json={"name": "n1", "driver": "fake-hardware", "network_interface": "ironic-networking"},
    )
    assert resp.status_code == 201, resp.text
    node = resp.json()["uuid"]
    resp = client.post("/v1/portgroups", json={"node_uuid": node, "extra": {"lag": LAG}})
    assert resp.status_code == 201, resp.text
    group = resp.json()["uuid"]
    ports = []
    for number, link in enumerate(links, start=1):
        body = {
            "node_uuid": node,
            "portgroup_uuid": group,
            "address": f"52:54:00:00:02:0{number}",
            "local_link_connection": link,
        }
        resp = client.post("/v1/ports", json=body)
        assert resp.status_code == 201, resp.text
        ports.append(resp.json()["uuid"])
    return group, ports


@pytest.mark.server
@pytest.mark.parametrize(
    ("second", "reason"),
    [
        ({}, "has no local_link_connection with switch_id and port_id"),
        ({"switch_id": "tor-2", "port_id": "swp2"}, "all members of a bond must be on one"),
        ({"switch_id": "tor-9", "port_id": "swp2"}, "names switch 'tor-9', which is not in"),
    ],
)
def test_a_bond_member_that_does_not_fit_is_refused_naming_the_portgroup_and_port(
    client: httpx.Client, second: dict[str, str], reason: str
) -> None:
    group, ports = _bond(client, [{"switch_id": "tor-1", "port_id": "swp1"}, second])

    shown = client.get("/v1/nodes/n1/validate").json()["network"]

    assert shown["result"] is False
    assert (
        f"Portgroup {group} has a LAG configuration but its member port {ports[1]}"
        in (shown["reason"])
    )
    assert reason in shown["reason"]


@pytest.mark.server
def test_a_bad_lag_patch_is_a_400_naming_the_portgroup(client: httpx.Client) -> None:
    group, _ = _bond(client, [{"switch_id": "tor-1", "port_id": "swp1"}])
    patch = [{"op": "add", "path": "/extra/lag", "value": {"mode": "access"}}]

    resp = client.patch(f"/v1/portgroups/{group}", json=patch)

    assert resp.status_code == 400, resp.text
    assert f"Invalid LAG configuration for portgroup {group}: 'aggregation_mode' is required" in (
        resp.text
    )
    shown = client.get(f"/v1/portgroups/{group}").json()
    assert shown["extra"] == {"lag": LAG}
