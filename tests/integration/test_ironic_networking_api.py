"""The ironic-networking interface through a real ``metalwire serve``: its switch file, the
400s of a port's switchport configuration, and what it says without the [switch] extra."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from metalwire.networking.ironic_networking import generic_switch_installed
from tests.support.generic_switch import GenericSwitchRunner
from tests.support.helpers import fault, settled_node, skip_or_fail
from tests.support.server import MetalwireServer, free_port

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
SWITCH_FILE = """\
[switch:tor-1]
driver_type = generic-switch
device_type = netmiko_ovs_linux
address = 127.0.0.1
username = root
key_file = /nonexistent/key
mac_address = 00:00:5e:00:53:01
allowed_vlans = 100-200
"""


def _env(switch_file: Path) -> dict[str, str]:
    return {
        "METALWIRE_ENABLED_NETWORK_INTERFACES": "noop,flat,neutron,ironic-networking",
        "METALWIRE_IRONIC_NETWORKING_SWITCH_CONFIG_FILE": str(switch_file),
    }


@pytest.fixture
def client(tmp_path: Path) -> Any:
    switch_file = tmp_path / "switches.ini"
    switch_file.write_text(SWITCH_FILE)
    with (
        MetalwireServer(tmp_path / "server", env=_env(switch_file)) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as http,
    ):
        yield http


def _node_with_port(client: httpx.Client, **port: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    resp = client.post(
        "/v1/nodes",
        json={"name": "n1", "driver": "fake-hardware", "network_interface": "ironic-networking"},
    )
    assert resp.status_code == 201, resp.text
    node = resp.json()
    body = {
        "node_uuid": node["uuid"],
        "address": "52:54:00:12:34:56",
        "local_link_connection": {"switch_id": "00:00:5e:00:53:01", "port_id": "swp1"},
        **port,
    }
    resp = client.post("/v1/ports", json=body)
    assert resp.status_code == 201, resp.text
    return node, resp.json()


def _patch_switchport(client: httpx.Client, port: str, value: Any) -> httpx.Response:
    patch = [{"op": "add", "path": "/extra/switchport", "value": value}]
    return client.patch(f"/v1/ports/{port}", json=patch)


@pytest.mark.server
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"mode": "bogus", "native_vlan": 100}, "Invalid switchport configuration for port"),
        ({"mode": "access", "native_vlan": 5000}, "Invalid switchport configuration for port"),
        ({"mode": "access", "native_vlan": 100, "x": 1}, "Invalid switchport configuration"),
        (
            {"mode": "trunk", "native_vlan": 100, "allowed_vlans": [150]},
            "PXE-enabled ports must use 'access' mode",
        ),
        (
            {"mode": "access", "native_vlan": 999},
            "VLANs [999] are not allowed for port {port} switchport on switch 00:00:5e:00:53:01",
        ),
    ],
)
def test_a_bad_switchport_patch_is_a_400_and_stores_nothing(
    client: httpx.Client, value: Any, message: str
) -> None:
    _, port = _node_with_port(client, extra={"note": "kept"})

    resp = _patch_switchport(client, port["uuid"], value)

    assert resp.status_code == 400, resp.text
    assert message.format(port=port["uuid"]) in fault(resp)
    assert client.get(f"/v1/ports/{port['uuid']}").json()["extra"] == {"note": "kept"}


@pytest.mark.server
def test_a_good_switchport_patch_is_stored(client: httpx.Client) -> None:
    _, port = _node_with_port(client, pxe_enabled=False)
    trunk = {"mode": "trunk", "native_vlan": 100, "allowed_vlans": [150, 200]}

    resp = _patch_switchport(client, port["uuid"], trunk)

    assert resp.status_code == 200, resp.text
    assert resp.json()["extra"] == {"switchport": trunk}


@pytest.mark.server
def test_a_port_on_a_switch_the_file_lacks_is_refused(client: httpx.Client) -> None:
    _, port = _node_with_port(client, local_link_connection={"switch_id": "tor-9", "port_id": "e1"})

    resp = _patch_switchport(client, port["uuid"], {"mode": "access", "native_vlan": 100})

    assert resp.status_code == 400, resp.text
    assert "names switch 'tor-9', which is not in the switch file" in fault(resp)
    assert "switches: tor-1" in fault(resp)


@pytest.mark.server
@pytest.mark.skipif(generic_switch_installed(), reason="the [switch] extra is installed here")
def test_without_the_switch_extra_the_server_starts_and_a_vif_attach_names_the_extra(
    client: httpx.Client,
) -> None:
    node, _ = _node_with_port(client)

    resp = client.post(f"/v1/nodes/{node['uuid']}/vifs", json={"id": str(uuid.uuid4())})

    assert resp.status_code == 400, resp.text
    assert "install metalwire's [switch] extra (pip install 'metalwire[switch]')" in fault(resp)


@pytest.mark.server
@pytest.mark.parametrize("made", [False, True], ids=["missing", "not-executable"])
def test_an_interpreter_option_that_names_no_program_is_named_at_attach(
    tmp_path: Path, made: bool
) -> None:
    python = tmp_path / "venv" / "bin" / "python"
    if made:
        python.parent.mkdir(parents=True)
        python.write_text("")  # mode 0644
    switch_file = tmp_path / "switches.ini"
    switch_file.write_text(SWITCH_FILE)
    env = {**_env(switch_file), "METALWIRE_IRONIC_NETWORKING_GENERIC_SWITCH_PYTHON": str(python)}
    with (
        MetalwireServer(tmp_path / "server", env=env) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
    ):
        node, _ = _node_with_port(client)
        resp = client.post(f"/v1/nodes/{node['uuid']}/vifs", json={"id": str(uuid.uuid4())})

    assert resp.status_code == 400, resp.text
    what = "is not an executable file" if made else "does not exist"
    assert f"[ironic_networking] generic_switch_python {python}, which {what}." in fault(resp)


@pytest.mark.server
def test_an_interpreter_that_cannot_be_run_fails_the_deploy_naming_it(tmp_path: Path) -> None:
    python = tmp_path / "python"
    python.write_text("\x7fELF not really\n")
    python.chmod(0o755)  # an executable file, but no program
    switch_file = tmp_path / "switches.ini"
    switch_file.write_text(SWITCH_FILE)
    env = {
        **_env(switch_file),
        "METALWIRE_IRONIC_NETWORKING_GENERIC_SWITCH_PYTHON": str(python),
        "METALWIRE_IRONIC_NETWORKING_PROVISIONING_NETWORK": "access/native_vlan=100",
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
    }
    with (
        MetalwireServer(tmp_path / "server", env=env) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
    ):
        node, _ = _node_with_port(client)
        for target in ("manage", "provide", "active"):
            resp = client.put(f"/v1/nodes/{node['uuid']}/states/provision", json={"target": target})
            assert resp.status_code == 202, resp.text
        shown = settled_node(lambda: client.get(f"/v1/nodes/{node['uuid']}").json(), timeout=60)

    assert shown["provision_state"] == "deploy failed", shown
    said = f"the switch worker {python} cannot be run: Exec format error"
    assert said in shown["last_error"], shown["last_error"]


def test_serve_refuses_a_bad_switch_file_naming_its_line(tmp_path: Path) -> None:
    switch_file = tmp_path / "switches.ini"
    switch_file.write_text(SWITCH_FILE.replace("100-200", "100-200,5000"))
    result = subprocess.run(
        [sys.executable, "-m", "metalwire.cli.main", "serve", "--port", str(free_port())],
        cwd=tmp_path,
        env={**_env(switch_file), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 2, result.stderr
    assert f"switch file {switch_file} line 8: switch 'tor-1': allowed_vlans" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.server
def test_a_stored_port_id_a_switch_would_run_fails_the_node_validation(tmp_path: Path) -> None:
    # stored while its switch was not in the switch file: metalwire programmed none for it
    switch_file = tmp_path / "switches.ini"
    switch_file.write_text(SWITCH_FILE)
    link = {"switch_id": "tor-2", "port_id": "swp1;reboot"}
    runner = GenericSwitchRunner()
    if runner.missing:
        skip_or_fail(runner.missing)
    python = str(runner.venv / "bin" / "python")
    env = {**_env(switch_file), "METALWIRE_IRONIC_NETWORKING_GENERIC_SWITCH_PYTHON": python}
    server = MetalwireServer(tmp_path / "server", env=env)
    with server, httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as http:
        _, port = _node_with_port(http, local_link_connection=link)
        assert http.get("/v1/nodes/n1/validate").json()["network"]["result"] is True
    tor2 = SWITCH_FILE.replace("tor-1", "tor-2").replace("mac_address = 00:00:5e:00:53:01\n", "")
    switch_file.write_text(SWITCH_FILE + "\n" + tor2)
    with server, httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as http:
        network = http.get("/v1/nodes/n1/validate").json()["network"]

    assert network["result"] is False
    assert f"Port {port['uuid']} local_link_connection port_id 'swp1;reboot'" in network["reason"]
    assert "letters, digits and _.:/- only" in network["reason"]


@pytest.mark.server
def test_a_switch_is_named_by_name_only_on_an_ironic_networking_node(
    client: httpx.Client,
) -> None:
    """Elsewhere a switch_id is a MAC address or an OpenFlow datapath ID, as Ironic's schema
    has it (400 naming the switch_id, the port and the node's interface; nothing stored)."""
    by_name = {"switch_id": "tor-1", "port_id": "swp1"}
    wired, port = _node_with_port(client, local_link_connection=by_name)
    resp = client.post("/v1/nodes", json={"name": "n2", "driver": "fake-hardware"})
    assert resp.status_code == 201, resp.text
    plain = resp.json()
    assert plain["network_interface"] == "flat"
    by_mac = {"switch_id": "00:00:5e:00:53:01", "port_id": "swp2"}
    created = client.post(
        "/v1/ports",
        json={
            "node_uuid": plain["uuid"],
            "address": "52:54:00:12:34:57",
            "local_link_connection": by_mac,
        },
    )
    assert created.status_code == 201, created.text
    other = created.json()

    refused = [
        client.post(
            "/v1/ports",
            json={
                "node_uuid": plain["uuid"],
                "address": "52:54:00:12:34:58",
                "local_link_connection": by_name,
            },
        ),
        client.patch(
            f"/v1/ports/{other['uuid']}",
            json=[{"op": "replace", "path": "/local_link_connection", "value": by_name}],
        ),
        client.patch(
            f"/v1/ports/{port['uuid']}",
            json=[{"op": "replace", "path": "/node_uuid", "value": plain["uuid"]}],
        ),
        client.patch(
            f"/v1/nodes/{wired['uuid']}",
            json=[{"op": "replace", "path": "/network_interface", "value": "noop"}],
        ),
    ]
    for resp in refused:
        assert resp.status_code == 400, resp.text
        assert "Expected a MAC address or OpenFlow datapath ID but received 'tor-1'" in fault(resp)
    assert "'flat'" in fault(refused[0]) and "'noop'" in fault(refused[3])
    assert port["uuid"] in fault(refused[2]) and port["uuid"] in fault(refused[3])
    assert client.get("/v1/ports", params={"address": "52:54:00:12:34:58"}).json()["ports"] == []
    assert client.get(f"/v1/ports/{other['uuid']}").json()["local_link_connection"] == by_mac
    assert client.get(f"/v1/ports/{port['uuid']}").json()["node_uuid"] == wired["uuid"]
    shown = client.get(f"/v1/nodes/{wired['uuid']}").json()
    assert shown["network_interface"] == "ironic-networking"
