"""An out-of-tree network interface (examples/audit_network), installed and served for real."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import uuid
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.server import MetalwireServer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "audit_network"
GUIDE = ROOT / "docs" / "network-interfaces.md"
HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
ENABLED = "noop,flat,neutron,audit"


def _installed() -> bool:
    if importlib.util.find_spec("audit_network") is None:
        return False
    return any(ep.name == "audit" for ep in entry_points(group="metalwire.network_interfaces"))


@pytest.fixture(scope="module")
def audit_installed() -> None:
    """Install the example into this interpreter's environment unless it is there already."""
    if _installed():
        return
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(EXAMPLE)],
        capture_output=True,
        text=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        check=False,
    )
    if result.returncode != 0:
        pytest.fail(f"pip install -e {EXAMPLE} failed:\n{result.stdout}\n{result.stderr}")
    importlib.invalidate_caches()


def _fault(resp: httpx.Response) -> str:
    return str(json.loads(resp.json()["error_message"])["faultstring"])


def _audited_node(
    client: httpx.Client, name: str, *addresses: str
) -> tuple[dict[str, Any], list[str]]:
    """A node using the audit interface, with a port per address (their UUIDs)."""
    resp = client.post(
        "/v1/nodes", json={"name": name, "driver": "fake-hardware", "network_interface": "audit"}
    )
    assert resp.status_code == 201, resp.text
    node: dict[str, Any] = resp.json()
    ports = []
    for address in addresses:
        resp = client.post("/v1/ports", json={"node_uuid": node["uuid"], "address": address})
        assert resp.status_code == 201, resp.text
        ports.append(resp.json()["uuid"])
    return node, ports


@pytest.mark.server
def test_audit_interface_attach_list_detach(audit_installed: None, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    env = {"METALWIRE_ENABLED_NETWORK_INTERFACES": ENABLED, "AUDIT_NETWORK_LOG": str(log)}
    vif = str(uuid.uuid4())
    with (
        MetalwireServer(tmp_path / "server", env=env) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
    ):
        node, ports = _audited_node(client, "audited", "52:54:00:ad:00:01", "52:54:00:ad:00:02")
        assert node["network_interface"] == "audit"

        resp = client.post("/v1/nodes/audited/vifs", json={"id": vif, "ticket": "CHG-1234"})
        assert resp.status_code == 204, resp.text
        assert client.get("/v1/nodes/audited/vifs").json() == {"vifs": [{"id": vif}]}
        shown = client.get(f"/v1/ports/{ports[0]}").json()
        assert shown["internal_info"] == {"tenant_vif_port_id": vif}

        # The core's checks hold for an out-of-tree interface too, and nothing is audited.
        resp = client.post("/v1/nodes/audited/vifs", json={"id": vif})
        assert resp.status_code == 409, resp.text
        assert node["uuid"] in _fault(resp)

        resp = client.delete(f"/v1/nodes/audited/vifs/{vif}")
        assert resp.status_code == 204, resp.text
        assert client.get("/v1/nodes/audited/vifs").json() == {"vifs": []}
        resp = client.delete(f"/v1/nodes/audited/vifs/{vif}")
        assert resp.status_code == 400, resp.text

        history = client.get("/v1/nodes/audited/history").json()["history"]
        events = [entry["event"] for entry in history if entry["severity"] == "INFO"]
        assert events == [
            f"VIF {vif} attached to port {ports[0]} (52:54:00:ad:00:01) by audit",
            f"VIF {vif} detached from port {ports[0]} (52:54:00:ad:00:01) by audit",
        ]

    lines: list[dict[str, Any]] = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["event"], line["vif"]) for line in lines] == [("attach", vif), ("detach", vif)]
    attach, detach = lines
    assert attach["node"] == detach["node"] == node["uuid"]
    assert attach["target"] == detach["target"] == "port"
    assert attach["target_uuid"] == detach["target_uuid"] == ports[0]
    assert attach["address"] == "52:54:00:ad:00:01"
    assert attach["info"] == {"ticket": "CHG-1234"}
    assert attach["request_id"].startswith("req-")
    assert attach["request_id"] != detach["request_id"]


@pytest.mark.server
def test_audit_interface_refuses_without_its_log(audit_installed: None, tmp_path: Path) -> None:
    env = {"METALWIRE_ENABLED_NETWORK_INTERFACES": ENABLED}
    with (
        MetalwireServer(tmp_path / "server", env=env) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
    ):
        resp = client.post(
            "/v1/nodes",
            json={"name": "unaudited", "driver": "fake-hardware", "network_interface": "audit"},
        )
        assert resp.status_code == 201, resp.text
        resp = client.post(
            "/v1/ports", json={"node_uuid": resp.json()["uuid"], "address": "52:54:00:ad:00:03"}
        )
        assert resp.status_code == 201, resp.text
        resp = client.post("/v1/nodes/unaudited/vifs", json={"id": "vif-1"})
        assert resp.status_code == 400, resp.text
        assert "AUDIT_NETWORK_LOG" in _fault(resp)
        assert client.get("/v1/nodes/unaudited/vifs").json() == {"vifs": []}


def test_guide_shows_the_example_as_it_is() -> None:
    """docs/network-interfaces.md quotes the example's files; the quotes must match them."""
    guide = GUIDE.read_text()
    quoted = re.findall(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", guide, re.DOTALL)
    assert {name for name, _ in quoted} == {
        "examples/audit_network/pyproject.toml",
        "examples/audit_network/audit_network/__init__.py",
    }
    for name, text in quoted:
        assert text == (ROOT / name).read_text(), f"{GUIDE.name} quotes {name} out of date"


@pytest.mark.server
def test_audit_interface_takes_part_in_the_drift_audit(
    audit_installed: None, tmp_path: Path
) -> None:
    """No Neutron at all: the out-of-tree interface's own audit and repair are served."""
    log = tmp_path / "audit.jsonl"
    env = {"METALWIRE_ENABLED_NETWORK_INTERFACES": ENABLED, "AUDIT_NETWORK_LOG": str(log)}
    vif = str(uuid.uuid4())
    with (
        MetalwireServer(tmp_path / "server", env=env) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
    ):
        node, [port] = _audited_node(client, "drifted", "52:54:00:ad:00:04")
        resp = client.post("/v1/nodes/drifted/vifs", json={"id": vif})
        assert resp.status_code == 204, resp.text

        resp = client.post("/v1/metalwire/audit", json={})  # a GET reads the latest report
        assert resp.status_code == 200, resp.text
        assert resp.json()["findings"] == []

        log.write_text("")  # the log lost its line
        resp = client.post("/v1/metalwire/audit?node=drifted", json={})
        assert resp.status_code == 200, resp.text
        [finding] = resp.json()["findings"]
        assert (finding["kind"], finding["vif_id"], finding["node_uuid"]) == (
            "not_logged",
            vif,
            node["uuid"],
        )
        assert finding["target_uuid"] == port
        assert finding["repair"] == "log the attach"

        resp = client.post("/v1/metalwire/audit/repair", json={})
        assert resp.status_code == 200, resp.text
        body = resp.json()
        assert [(r["vif_id"], r["repaired"]) for r in body["repairs"]] == [(vif, True)]
        assert body["findings"] == []

        history = client.get("/v1/nodes/drifted/history").json()["history"]
        assert any("Drift repaired: logged the attach of VIF" in e["event"] for e in history), (
            history
        )

    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["event"], line["vif"], line["node"]) for line in lines] == [
        ("attach", vif, node["uuid"])
    ]
