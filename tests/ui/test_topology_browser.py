"""The topology page in a real browser against a real ``metalwire serve``: what an operator
looks for (the bond and its members, the VIF on the bond, a free NIC, the physical networks),
attaching a VIF from the page, and logging in with http_basic."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from metalwire.config import env_name
from tests.auth.conftest import htpasswd_line
from tests.conftest import LATEST
from tests.support.server import MetalwireServer
from tests.ui.conftest import LAPTOP, PHONE

pytestmark = pytest.mark.server

BOND_MACS = ("52:54:00:aa:00:01", "52:54:00:aa:00:02")
FREE_MAC = "52:54:00:bb:00:09"
TIMEOUT_MS = 15_000


def enrol(url: str, auth: tuple[str, str] | None = None) -> dict[str, str]:
    """A node with a bond of two ports on physnet-a carrying VIF tenant-a, and a free NIC on
    physnet-b; a second node so that the search has something to leave out."""
    with httpx.Client(
        base_url=url, headers={"X-OpenStack-Ironic-API-Version": LATEST}, auth=auth
    ) as api:

        def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
            resp = api.post(path, json=body)
            assert resp.status_code in (201, 204), resp.text
            return dict(resp.json()) if resp.status_code == 201 else {}

        node = post(
            "/v1/nodes",
            {"driver": "fake-hardware", "name": "compute-0", "network_interface": "flat"},
        )
        post("/v1/nodes", {"driver": "fake-hardware", "name": "storage-7"})
        bond = post(
            "/v1/portgroups",
            {
                "node_uuid": node["uuid"],
                "name": "bond0",
                "address": BOND_MACS[0],
                "mode": "802.3ad",
            },
        )
        for number, mac in enumerate(BOND_MACS, start=1):
            post(
                "/v1/ports",
                {
                    "node_uuid": node["uuid"],
                    "portgroup_uuid": bond["uuid"],
                    "address": mac,
                    "physical_network": "physnet-a",
                    "pxe_enabled": number == 1,
                    "local_link_connection": {
                        "switch_id": "0a:1b:2c:3d:4e:5f",
                        "port_id": f"Ethernet1/{number}",
                        "switch_info": "leaf-12",
                    },
                },
            )
        free = post(
            "/v1/ports",
            {
                "node_uuid": node["uuid"],
                "address": FREE_MAC,
                "physical_network": "physnet-b",
                "pxe_enabled": False,
                "local_link_connection": {
                    "switch_id": "0a:1b:2c:3d:4e:60",
                    "port_id": "Ethernet7/3",
                    "switch_info": "leaf-13",
                },
            },
        )
        post(f"/v1/nodes/{node['uuid']}/vifs", {"id": "tenant-a", "portgroup_uuid": bond["uuid"]})
    return {"node": node["uuid"], "bond": bond["uuid"], "free_port": free["uuid"]}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[MetalwireServer, dict[str, str]]]:
    with MetalwireServer(tmp_path / "server") as server:
        yield server, enrol(server.url)


def test_node_list_shows_counts_and_finds_a_node_by_mac_or_vif(
    browser: Any, served: tuple[MetalwireServer, dict[str, str]], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    server, ids = served
    page = browser.new_page(viewport=LAPTOP)
    page.goto(f"{server.url}/ui/")
    row = page.locator(f"tr[data-node='{ids['node']}']")
    row.wait_for(timeout=TIMEOUT_MS)
    cells = row.locator("td")
    assert cells.nth(0).inner_text().startswith("compute-0")
    assert cells.nth(1).inner_text() == ids["node"]
    assert cells.nth(3).inner_text() == "flat"
    assert [cells.nth(i).inner_text() for i in (4, 5, 6)] == ["3", "1", "1"]
    assert "physnet-a" in cells.nth(7).inner_text()
    page.screenshot(path=str(tmp_path / "laptop-nodes.png"), full_page=True)
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(tmp_path / "phone-nodes.png"), full_page=True)

    # The search runs on the server: each answer replaces the rows when it comes.
    page.fill("#search", FREE_MAC.upper().replace(":", "-"))
    expect(row).to_contain_text(f"matched MAC {FREE_MAC}", timeout=TIMEOUT_MS)
    assert page.locator("tbody tr").count() == 1
    page.fill("#search", "tenant-a")
    expect(row).to_contain_text("matched VIF tenant-a", timeout=TIMEOUT_MS)
    assert page.locator("tbody tr").count() == 1
    page.fill("#search", "storage")
    expect(page.locator(f"tr[data-node='{ids['node']}']")).to_have_count(0, timeout=TIMEOUT_MS)
    assert page.locator(".count").inner_text() == "1 node matches"
    page.close()


def test_node_page_shows_the_bond_its_members_the_vif_and_the_free_nic(
    browser: Any, served: tuple[MetalwireServer, dict[str, str]], tmp_path: Path
) -> None:
    server, ids = served
    page = browser.new_page(viewport=LAPTOP)
    page.goto(f"{server.url}/ui/")
    page.click("text=compute-0")  # followed inside the page, not by loading another
    bond = page.locator(f"[data-portgroup='{ids['bond']}']")
    bond.wait_for(timeout=TIMEOUT_MS)
    assert page.url == f"{server.url}/ui/nodes/compute-0"

    assert bond.locator("h3").inner_text() == "bond0"
    assert "tenant-a" in bond.locator(".card-state .vif").inner_text()
    members = bond.locator("tr.port td.mac")
    assert members.all_inner_texts() == list(BOND_MACS)
    assert bond.locator(".card-title .physnet").inner_text() == "physnet-a"
    first = bond.locator(f"tr[data-mac='{BOND_MACS[0]}']")
    assert "Ethernet1/1" in first.inner_text()
    assert "leaf-12" in first.inner_text()
    assert "0a:1b:2c:3d:4e:5f" in first.inner_text()
    assert first.locator("td[data-label='PXE']").inner_text() == "PXE"
    assert "bond's VIF" in first.inner_text()

    free = page.locator(f"tr[data-port='{ids['free_port']}']")
    assert free.locator(".free").inner_text() == "free"
    assert free.locator(".physnet").inner_text() == "physnet-b"
    assert free.locator("td[data-label='PXE']").inner_text() == "no PXE"
    # Different physical networks look different, not only read differently.
    colours = {
        page.locator(f"[data-mac='{mac}'] .physnet").get_attribute("class")
        for mac in (BOND_MACS[0], FREE_MAC)
    }
    assert len(colours) == 2

    history = page.locator("#history .event")
    assert "tenant-a" in history.first.inner_text()
    page.screenshot(path=str(tmp_path / "laptop-node.png"), full_page=True)
    page.set_viewport_size(PHONE)
    assert bond.locator("tr.port td.mac").all_inner_texts() == list(BOND_MACS)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], "the phone layout scrolls sideways"
    page.screenshot(path=str(tmp_path / "phone-node.png"), full_page=True)
    page.close()


def attach_from_the_page(page: Any, vif: str) -> None:
    """Type the VIF id and attach: through the dry-run preview when the server explains
    placements, directly when it has no dry-run; a refusal is left on the page."""
    page.fill("#vif-id", vif)
    page.click("#vif-submit")
    page.wait_for_selector("#vif-confirm, #notice:not([hidden]), .preview.bad", timeout=TIMEOUT_MS)
    if page.locator("#vif-confirm").count():
        page.click("#vif-confirm")


def test_attach_and_detach_from_the_page_update_it_without_a_reload(
    browser: Any, served: tuple[MetalwireServer, dict[str, str]], tmp_path: Path
) -> None:
    server, ids = served
    page = browser.new_page(viewport=LAPTOP)
    page.goto(f"{server.url}/ui/nodes/{ids['node']}")
    free = page.locator(f"tr[data-port='{ids['free_port']}']")
    free.locator(".free").wait_for(timeout=TIMEOUT_MS)
    page.evaluate("window.stillTheSameDocument = true")

    attach_from_the_page(page, "tenant-b")
    free.locator(".vif", has_text="tenant-b").wait_for(timeout=TIMEOUT_MS)
    assert free.locator(".free").count() == 0
    assert page.evaluate("window.stillTheSameDocument") is True
    page.locator("#history .event", has_text="tenant-b").first.wait_for(timeout=TIMEOUT_MS)
    with httpx.Client(headers={"X-OpenStack-Ironic-API-Version": LATEST}) as api:
        vifs = api.get(f"{server.url}/v1/nodes/{ids['node']}/vifs").json()["vifs"]
    assert {v["id"] for v in vifs} == {"tenant-a", "tenant-b"}
    page.screenshot(path=str(tmp_path / "laptop-attached.png"), full_page=True)

    page.click("[data-detach='tenant-b']")
    page.click("[data-detach='tenant-b']")  # the second click confirms
    free.locator(".free").wait_for(timeout=TIMEOUT_MS)
    assert "VIF tenant-b detached." in page.locator("#notice").inner_text()
    assert page.evaluate("window.stillTheSameDocument") is True
    page.close()


def test_a_refused_attach_is_explained_on_the_page(
    browser: Any, served: tuple[MetalwireServer, dict[str, str]]
) -> None:
    server, ids = served
    page = browser.new_page(viewport=LAPTOP)
    page.goto(f"{server.url}/ui/nodes/{ids['node']}")
    page.locator("#vif-id").wait_for(timeout=TIMEOUT_MS)
    attach_from_the_page(page, "tenant-a")  # already on the bond
    refusal = page.locator(".preview.bad, #notice.tone-bad").first
    refusal.wait_for(timeout=TIMEOUT_MS)
    assert "tenant-a" in refusal.inner_text()
    assert page.locator(f"tr[data-port='{ids['free_port']}'] .free").count() == 1
    page.close()


def refused_navigation(page: Any, url: str) -> bool:
    """Whether the browser was refused the page for want of credentials: headless Chromium
    has no login prompt to show, so it gives up on the Basic challenge."""
    from playwright.sync_api import Error

    try:
        return bool(page.goto(url).status == 401)
    except Error as exc:
        return "ERR_INVALID_AUTH_CREDENTIALS" in str(exc)


def basic_server(tmp_path: Path, password: str) -> MetalwireServer:
    """A server with http_basic, user ``alice`` with ``password``."""
    users = tmp_path / "htpasswd"
    users.write_text(htpasswd_line("alice", password) + "\n")
    env = {
        env_name("DEFAULT", "auth_strategy"): "http_basic",
        env_name("DEFAULT", "http_basic_auth_user_file"): str(users),
    }
    return MetalwireServer(tmp_path / "server", env=env)


def test_with_http_basic_the_browser_logs_in(browser: Any, tmp_path: Path) -> None:
    with basic_server(tmp_path, "s3cret") as server:
        ids = enrol(server.url, auth=("alice", "s3cret"))
        anonymous = browser.new_context()
        assert refused_navigation(anonymous.new_page(), f"{server.url}/ui/")
        anonymous.close()

        context = browser.new_context(
            viewport=PHONE, http_credentials={"username": "alice", "password": "s3cret"}
        )
        page = context.new_page()
        page.goto(f"{server.url}/ui/nodes/compute-0")
        bond = page.locator(f"[data-portgroup='{ids['bond']}']")
        bond.wait_for(timeout=TIMEOUT_MS)
        assert "tenant-a" in bond.locator(".card-state .vif").inner_text()
        attach_from_the_page(page, "tenant-c")
        page.locator(f"tr[data-port='{ids['free_port']}'] .vif", has_text="tenant-c").wait_for(
            timeout=TIMEOUT_MS
        )
        page.screenshot(path=str(tmp_path / "phone-http-basic.png"), full_page=True)
        context.close()


def test_credentials_in_the_address_work_and_are_never_shown(browser: Any, tmp_path: Path) -> None:
    with basic_server(tmp_path, "url-s3cret") as server:
        ids = enrol(server.url, auth=("alice", "url-s3cret"))
        context = browser.new_context(viewport=LAPTOP)
        page = context.new_page()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(server.url.replace("http://", "http://alice:url-s3cret@") + "/ui/")
        row = page.locator("a", has_text="compute-0")
        row.wait_for(timeout=TIMEOUT_MS)
        row.click()  # the page routes itself to the node's page
        page.locator(f"[data-portgroup='{ids['bond']}']").wait_for(timeout=TIMEOUT_MS)
        assert page.locator(".error").count() == 0
        assert "url-s3cret" not in page.content()
        assert "url-s3cret" not in page.url  # the address bar no longer shows them
        # The API calls the page builds never carry them.
        api_calls = [url for url in requested if "/v1/" in url]
        assert api_calls and [url for url in api_calls if "url-s3cret" in url] == []
        context.close()


def answer_dry_runs(page: Any, body: dict[str, Any]) -> list[dict[str, str]]:
    """Answer the page's dry-run requests with ``body`` (the shape metalwire's dry-run attach
    gives, docs/api-ref/vifs.md); every other request goes on to the server. Returns the
    headers of each attach request that reached the server."""
    reached: list[dict[str, str]] = []

    def handle(route: Any) -> None:
        request = route.request
        if request.method == "POST" and request.headers.get("x-metalwire-dry-run") == "true":
            route.fulfill(status=200, json=body)
            return
        if request.method == "POST":
            reached.append(dict(request.headers))
        route.continue_()

    page.route("**/v1/nodes/*/vifs", handle)
    return reached


def test_a_dry_run_explanation_is_shown_before_anything_is_attached(
    browser: Any, served: tuple[MetalwireServer, dict[str, str]], tmp_path: Path
) -> None:
    server, ids = served
    page = browser.new_page(viewport=LAPTOP)
    reached = answer_dry_runs(
        page,
        {
            "dry_run": True,
            "vif_id": "tenant-b",
            "physical_networks": ["physnet-b"],
            "chooses_target": True,
            "target": {"type": "port", "uuid": ids["free_port"], "address": FREE_MAC},
            "error": None,
            "refused": [
                {
                    "type": "portgroup",
                    "uuid": ids["bond"],
                    "reason": "busy",
                    "message": f"portgroup {ids['bond']} (bond0) carries VIF tenant-a",
                    "vif": "tenant-a",
                }
            ],
        },
    )
    page.goto(f"{server.url}/ui/nodes/compute-0")
    page.locator("#vif-id").wait_for(timeout=TIMEOUT_MS)
    page.fill("#vif-id", "tenant-b")
    page.click("#vif-submit")
    preview = page.locator(".preview")
    preview.wait_for(timeout=TIMEOUT_MS)
    assert f"Would go on port {FREE_MAC}." in preview.inner_text()
    assert "bond bond0" in preview.locator(".refused").inner_text()
    assert "carries VIF tenant-a" in preview.locator(".refused").inner_text()
    assert reached == []  # nothing was written yet
    free = page.locator(f"tr[data-port='{ids['free_port']}']")
    assert free.locator(".free").count() == 1
    page.screenshot(path=str(tmp_path / "laptop-preview.png"), full_page=True)

    page.click("#vif-confirm")
    free.locator(".vif", has_text="tenant-b").wait_for(timeout=TIMEOUT_MS)
    assert len(reached) == 1
    assert "x-metalwire-dry-run" not in reached[0]
    page.close()


def test_a_dry_run_that_would_fail_offers_no_attach(
    browser: Any, served: tuple[MetalwireServer, dict[str, str]]
) -> None:
    server, ids = served
    page = browser.new_page(viewport=LAPTOP)
    message = f"No free port on node {ids['node']} for VIF tenant-z: port ... is on physnet-b"
    reached = answer_dry_runs(
        page,
        {
            "dry_run": True,
            "target": None,
            "error": {"code": 400, "type": "NoFreePhysicalPort", "message": message},
            "refused": [],
        },
    )
    page.goto(f"{server.url}/ui/nodes/compute-0")
    page.locator("#vif-id").wait_for(timeout=TIMEOUT_MS)
    page.fill("#vif-id", "tenant-z")
    page.click("#vif-submit")
    refusal = page.locator(".preview.bad")
    refusal.wait_for(timeout=TIMEOUT_MS)
    assert f"This attach would fail: {message}" in refusal.inner_text()
    assert page.locator("#vif-confirm").count() == 0
    assert reached == []
    page.close()


def dry_run_requests(page: Any) -> list[str]:
    """The URL of every request the page sends with the dry-run header."""
    sent: list[str] = []
    page.on(
        "request",
        lambda request: (
            sent.append(request.url) if "x-metalwire-dry-run" in request.headers else None
        ),
    )
    return sent


def test_a_server_that_announces_no_dry_run_is_never_sent_one(
    browser: Any, served: tuple[MetalwireServer, dict[str, str]]
) -> None:
    from playwright.sync_api import expect

    server, ids = served
    page = browser.new_page(viewport=LAPTOP)
    # As Ironic answers a path it does not have: a server that would ignore the header.
    page.route(
        "**/v1/metalwire",
        lambda route: route.fulfill(status=404, json={"error_message": "{}"}),
    )
    sent = dry_run_requests(page)
    page.goto(f"{server.url}/ui/nodes/compute-0")
    expect(page.locator("#vif-submit")).to_have_text("Attach", timeout=TIMEOUT_MS)
    assert "No preview available" in page.locator("#attach-result").inner_text()
    page.fill("#vif-id", "tenant-b")
    page.click("#vif-submit")
    free = page.locator(f"tr[data-port='{ids['free_port']}']")
    free.locator(".vif", has_text="tenant-b").wait_for(timeout=TIMEOUT_MS)
    assert sent == []
    page.close()


@pytest.mark.parametrize(
    ("status", "body"), [(204, None), (200, {"vifs": []})], ids=["204", "200-not-a-dry-run"]
)
def test_an_answer_to_a_preview_that_is_not_one_is_said_so(
    browser: Any,
    served: tuple[MetalwireServer, dict[str, str]],
    status: int,
    body: dict[str, Any] | None,
) -> None:
    server, _ids = served
    page = browser.new_page(viewport=LAPTOP)

    def answer(route: Any) -> None:
        if route.request.headers.get("x-metalwire-dry-run") == "true":
            if body is None:
                route.fulfill(status=status)
            else:
                route.fulfill(status=status, json=body)
            return
        route.continue_()

    page.route("**/v1/nodes/*/vifs", answer)
    page.goto(f"{server.url}/ui/nodes/compute-0")
    page.locator("#vif-id").wait_for(timeout=TIMEOUT_MS)
    page.fill("#vif-id", "tenant-b")
    page.click("#vif-submit")
    notice = page.locator("#notice:not([hidden])")
    notice.wait_for(timeout=TIMEOUT_MS)
    assert f"No preview: the server answered {status} without a dry-run explanation" in (
        notice.inner_text()
    )
    assert page.locator("#vif-confirm").count() == 0
    assert page.locator(".preview").count() == 0
    page.close()
