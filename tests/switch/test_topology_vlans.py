"""The topology page of an ``ironic-networking`` node in a real browser, against a real
``metalwire serve`` driving the emulated switch: each port's VLAN as metalwire set it (from
the stored record: loading the page logs in to no switch), and the attach preview listing the
switch commands before the attach sends them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.server import MetalwireServer
from tests.support.switch import EmulatedSwitch, PortVlan
from tests.switch.conftest import HEADERS, _serve
from tests.switch.test_ironic_networking_states import _node, _provision
from tests.ui.conftest import LAPTOP
from tests.ui.conftest import browser as browser  # the headless Chromium fixture

TENANT, IDLE = 200, 999
TIMEOUT_MS = 30_000


@pytest.fixture
def served(emulated_switch: EmulatedSwitch, tmp_path: Path) -> Iterator[MetalwireServer]:
    env = {"METALWIRE_IRONIC_NETWORKING_VIF_NETWORKS": f"tenant-a:{TENANT}"}
    with _serve(tmp_path, emulated_switch, **env) as server:
        yield server


def _logins(switch: EmulatedSwitch) -> int:
    return switch.log("sshd").count("Accepted publickey")


def test_the_page_shows_each_ports_vlan_and_previews_the_switch_commands(
    browser: Any, emulated_switch: EmulatedSwitch, served: MetalwireServer, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    switch = emulated_switch
    with httpx.Client(base_url=served.url, headers=HEADERS, timeout=120) as http:
        port = _node(http, "topo", "ramdisk", "swp1")
        _provision(http, "topo", "active")
    assert switch.port_vlan("swp1") == PortVlan(tag=IDLE, vlan_mode="access", trunks=())
    before = _logins(switch)

    page = browser.new_page(viewport=LAPTOP)
    page.goto(f"{served.url}/ui/nodes/topo")
    row = page.locator(f"tr[data-port='{port['uuid']}']")
    row.wait_for(timeout=TIMEOUT_MS)
    assert row.locator("td.vlan").inner_text() == f"access {IDLE}"
    assert "VLAN" in page.locator("table.ports thead").inner_text()
    assert _logins(switch) == before  # the page read the stored record, not the switch

    page.fill("#vif-id", "vif-a")
    page.fill("#vif-network", "tenant-a")
    page.click("#vif-submit")
    preview = page.locator(".preview .switch-port[data-port-id='swp1']")
    preview.wait_for(timeout=TIMEOUT_MS)
    assert f"access {IDLE} → access {TENANT}" in preview.inner_text()
    assert preview.locator("pre.commands").inner_text().splitlines() == [
        "ovs-vsctl set port swp1 vlan_mode=access",
        f"ovs-vsctl set port swp1 tag={TENANT}",
    ]
    assert switch.port_vlan("swp1").tag == IDLE  # nothing sent
    page.screenshot(path=str(tmp_path / "switch-preview.png"), full_page=True)

    page.click("#vif-confirm")
    expect(row.locator("td.vlan")).to_have_text(f"access {TENANT}", timeout=TIMEOUT_MS)
    assert switch.port_vlan("swp1") == PortVlan(tag=TENANT, vlan_mode="access", trunks=())
    page.close()
