"""The topology page's node list with more nodes than one page, in a real browser against a
real ``metalwire serve``: the list asks for one page at a time and finds a node through the
server by MAC, VIF id or part of its name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import LATEST
from tests.support.server import MetalwireServer
from tests.ui.conftest import LAPTOP

pytestmark = pytest.mark.server

NODES = 120
PAGE = 50
TIMEOUT_MS = 15_000
VIF_ON_99 = "vif-on-rack-099"


def mac_of(number: int) -> str:
    return f"52:54:01:00:{number >> 8:02x}:{number & 255:02x}"


def enrol_rack(url: str) -> list[str]:
    """``NODES`` flat nodes rack-000, rack-001, ... with one port each, and a VIF on the port
    of rack-099; the nodes' UUIDs in order."""
    uuids = []
    with httpx.Client(base_url=url, headers={"X-OpenStack-Ironic-API-Version": LATEST}) as api:
        for number in range(NODES):
            node = api.post(
                "/v1/nodes",
                json={
                    "driver": "fake-hardware",
                    "name": f"rack-{number:03d}",
                    "network_interface": "flat",
                },
            )
            assert node.status_code == 201, node.text
            uuids.append(node.json()["uuid"])
            port = api.post(
                "/v1/ports",
                json={
                    "node_uuid": uuids[-1],
                    "address": mac_of(number),
                    "physical_network": "physnet-a",
                },
            )
            assert port.status_code == 201, port.text
        attached = api.post(f"/v1/nodes/{uuids[99]}/vifs", json={"id": VIF_ON_99})
        assert attached.status_code == 204, attached.text
    return uuids


@pytest.fixture(scope="module")
def rack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MetalwireServer, list[str]]]:
    with MetalwireServer(tmp_path_factory.mktemp("rack")) as server:
        yield server, enrol_rack(server.url)


def api_requests(page: Any) -> list[str]:
    """The path and query of every API request the page makes from now on."""
    seen: list[str] = []

    def record(request: Any) -> None:
        url = httpx.URL(request.url)
        if url.path.startswith("/v1/"):
            seen.append(url.raw_path.decode())

    page.on("request", record)
    return seen


def test_the_list_shows_one_page_and_loads_the_next_on_request(
    browser: Any, rack: tuple[MetalwireServer, list[str]], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    server, uuids = rack
    page = browser.new_page(viewport=LAPTOP)
    asked = api_requests(page)
    page.goto(f"{server.url}/ui/")
    rows = page.locator("tbody tr[data-node]")
    expect(rows).to_have_count(PAGE, timeout=TIMEOUT_MS)
    assert rows.first.get_attribute("data-node") == uuids[0]
    first = page.locator(f"tr[data-node='{uuids[0]}'] td")
    assert [first.nth(i).inner_text() for i in (4, 5, 6)] == ["1", "0", "0"]
    assert "physnet-a" in first.nth(7).inner_text()
    # One request for the page and its counts: none per node, no port or portgroup list.
    assert [path for path in asked if "node_summaries" in path] == [
        f"/v1/metalwire/node_summaries?limit={PAGE}"
    ]
    assert not [p for p in asked if p.startswith(("/v1/ports", "/v1/portgroups", "/v1/nodes"))]
    assert page.locator(".count").inner_text() == f"{PAGE} nodes shown, more to load"
    page.screenshot(path=str(tmp_path / "laptop-first-page.png"), full_page=True)

    page.click("#load-more")
    expect(rows).to_have_count(2 * PAGE, timeout=TIMEOUT_MS)
    assert rows.nth(PAGE).get_attribute("data-node") == uuids[PAGE]
    page.click("#load-more")
    expect(rows).to_have_count(NODES, timeout=TIMEOUT_MS)
    assert rows.last.get_attribute("data-node") == uuids[-1]
    assert page.locator("#load-more").count() == 0
    assert page.locator(".count").inner_text() == f"{NODES} nodes"
    assert len([path for path in asked if "node_summaries" in path]) == 3
    page.close()


def test_the_search_finds_a_node_by_mac_vif_or_part_of_its_name(
    browser: Any, rack: tuple[MetalwireServer, list[str]], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    server, uuids = rack
    page = browser.new_page(viewport=LAPTOP)
    page.goto(f"{server.url}/ui/")
    rows = page.locator("tbody tr[data-node]")
    expect(rows).to_have_count(PAGE, timeout=TIMEOUT_MS)

    page.fill("#search", mac_of(117).upper().replace(":", "-"))
    expect(rows).to_have_count(1, timeout=TIMEOUT_MS)
    found = page.locator(f"tr[data-node='{uuids[117]}']")
    assert found.locator("td").first.inner_text().startswith("rack-117")
    assert f"matched MAC {mac_of(117)}" in found.inner_text()
    assert page.url.endswith("/ui/?q=" + mac_of(117).upper().replace(":", "-"))

    page.fill("#search", VIF_ON_99)
    expect(page.locator(f"tr[data-node='{uuids[99]}']")).to_contain_text(
        f"matched VIF {VIF_ON_99}", timeout=TIMEOUT_MS
    )
    expect(rows).to_have_count(1)
    assert page.locator(f"tr[data-node='{uuids[99]}'] td").nth(6).inner_text() == "1"

    page.fill("#search", "CK-11")  # rack-110 ... rack-119
    expect(rows).to_have_count(10, timeout=TIMEOUT_MS)
    assert page.locator(f"tr[data-node='{uuids[117]}']").count() == 1
    assert page.locator(".count").inner_text() == "10 nodes match"
    page.screenshot(path=str(tmp_path / "laptop-search.png"), full_page=True)

    page.fill("#search", "no-such-node")
    expect(page.locator("td.empty")).to_have_text("No node matches this search.")
    page.fill("#search", "")
    expect(rows).to_have_count(PAGE, timeout=TIMEOUT_MS)
    page.close()


def test_a_search_in_the_address_is_run_when_the_page_opens(
    browser: Any, rack: tuple[MetalwireServer, list[str]]
) -> None:
    from playwright.sync_api import expect

    server, uuids = rack
    page = browser.new_page(viewport=LAPTOP)
    page.goto(f"{server.url}/ui/?q={VIF_ON_99}")
    expect(page.locator("tbody tr[data-node]")).to_have_count(1, timeout=TIMEOUT_MS)
    assert page.locator(f"tr[data-node='{uuids[99]}']").count() == 1
    assert page.input_value("#search") == VIF_ON_99
    page.close()
