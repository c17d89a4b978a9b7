"""The topology page in a real browser shows a dynamic portgroup (trait-based networking) as
such: the preview says it would build one of which ports, the node page marks the bond it
built and lists its members, the node list and its JSON count it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import LATEST
from tests.integration.test_tbn_attach import RULES
from tests.support.server import MetalwireServer
from tests.ui.conftest import LAPTOP
from tests.ui.test_topology_browser import TIMEOUT_MS

pytestmark = pytest.mark.server

GROUPED = ("52:54:00:7d:00:01", "52:54:00:7d:00:02")
LOOSE = "52:54:00:7d:00:09"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[MetalwireServer, dict[str, str]]]:
    """Node ``tbn-ui`` (trait CUSTOM_DYNAMIC) with two groupable ports and one that is not."""
    rules = tmp_path / "tbn.yaml"
    rules.write_text(RULES)
    env = {
        "METALWIRE_CONDUCTOR_ENABLE_TRAIT_BASED_NETWORKING": "true",
        "METALWIRE_CONDUCTOR_TRAIT_BASED_NETWORKING_CONFIG_FILE": str(rules),
    }
    with (
        MetalwireServer(tmp_path / "server", env=env) as server,
        httpx.Client(
            base_url=server.url, headers={"X-OpenStack-Ironic-API-Version": LATEST}
        ) as api,
    ):
        body = {"driver": "fake-hardware", "name": "tbn-ui", "network_interface": "flat",
                "instance_info": {"traits": ["CUSTOM_DYNAMIC"]}}  # fmt: skip
        node = api.post("/v1/nodes", json=body).json()["uuid"]
        ids = {"node": node}
        for mac in (*GROUPED, LOOSE):
            port = {"node_uuid": node, "address": mac, "category": "network",
                    "physical_network": "physnet1",
                    "available_for_dynamic_portgroup": mac != LOOSE}  # fmt: skip
            resp = api.post("/v1/ports", json=port)
            assert resp.status_code == 201, resp.text
            ids[mac] = resp.json()["uuid"]
        yield server, ids


def test_the_page_previews_builds_and_marks_a_dynamic_bond(
    browser: Any, served: tuple[MetalwireServer, dict[str, str]], tmp_path: Path
) -> None:
    server, ids = served
    page = browser.new_page(viewport=LAPTOP)
    page.goto(f"{server.url}/ui/nodes/tbn-ui")
    page.locator("#vif-id").wait_for(timeout=TIMEOUT_MS)
    assert page.locator("[data-dynamic]").count() == 0

    # The preview (the server's real dry run) names the bond it would build and its ports.
    page.fill("#vif-id", "tenant-dyn")
    page.click("#vif-submit")
    preview = page.locator(".preview")
    preview.wait_for(timeout=TIMEOUT_MS)
    text = preview.locator(".chosen").inner_text()
    assert text.startswith("Would build a dynamic bond of port "), text
    assert all(mac in text for mac in GROUPED) and LOOSE not in text, text
    assert page.locator("[data-dynamic]").count() == 0  # nothing built yet

    page.click("#vif-confirm")
    bond = page.locator("[data-dynamic='true']")
    bond.wait_for(timeout=TIMEOUT_MS)
    assert bond.locator(".kind").text_content() == "dynamic bond"
    badge = bond.locator(".badge-dynamic")
    assert badge.inner_text() == "dynamic"
    assert "detaching the VIF deletes it" in (badge.get_attribute("title") or "")
    assert "tenant-dyn" in bond.locator(".card-state .vif").inner_text()
    assert sorted(bond.locator("tr.port td.mac").all_inner_texts()) == sorted(GROUPED)
    loose = page.locator(f"tr[data-port='{ids[LOOSE]}']")
    assert loose.locator(".free").inner_text() == "free"
    page.screenshot(path=str(tmp_path / "laptop-dynamic-bond.png"), full_page=True)

    # The node list and the JSON it reads count the dynamic portgroup.
    page.goto(f"{server.url}/ui/")
    row = page.locator(f"tr[data-node='{ids['node']}']")
    row.wait_for(timeout=TIMEOUT_MS)
    assert row.locator("td[data-label='Portgroups']").inner_text() == "1 (1 dynamic)"
    with httpx.Client(headers={"X-OpenStack-Ironic-API-Version": LATEST}) as api:
        (summary,) = api.get(f"{server.url}/v1/metalwire/node_summaries").json()["nodes"]
        (group,) = api.get(f"{server.url}/v1/nodes/tbn-ui/portgroups/detail").json()["portgroups"]
    assert (summary["portgroups"], summary["dynamic_portgroups"]) == (1, 1)
    assert group["dynamic_portgroup"] is True

    # Detached from the page, the bond goes and its ports are free again.
    page.goto(f"{server.url}/ui/nodes/tbn-ui")
    page.click("[data-detach='tenant-dyn']")
    page.click("[data-detach='tenant-dyn']")  # the second click confirms
    page.locator(f"tr[data-port='{ids[GROUPED[0]]}'] .free").wait_for(timeout=TIMEOUT_MS)
    assert page.locator("[data-dynamic]").count() == 0
    page.close()
