"""The topology page's documents and assets, served by the API behind its authentication."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from metalwire.api.ui.pages import STATIC_DIR, page_html
from tests.auth.conftest import htpasswd_line, make_config, open_client


@pytest.fixture
def ui_client(tmp_path: Path, migrated_template: Path) -> Iterator[TestClient]:
    yield from open_client(make_config(tmp_path, migrated_template))


@pytest.mark.parametrize("path", ["/ui/", "/ui/nodes/compute-0", "/ui/nodes/1be26c0b"])
def test_every_page_path_serves_the_one_document(ui_client: TestClient, path: str) -> None:
    resp = ui_client.get(path)
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/html")
    assert '<base href="/ui/">' in resp.text
    assert 'src="static/topology.js"' in resp.text


def test_the_document_allows_only_its_own_scripts(ui_client: TestClient) -> None:
    policy = ui_client.get("/ui/").headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy


def test_ui_without_slash_redirects_to_the_node_list(ui_client: TestClient) -> None:
    resp = ui_client.get("/ui", follow_redirects=False)
    assert resp.status_code == 308
    assert resp.headers["location"] == "/ui/"


@pytest.mark.parametrize(
    ("asset", "kind"),
    [("topology.js", "javascript"), ("topology.css", "text/css"), ("favicon.svg", "image/svg")],
)
def test_assets_are_served_from_the_package(ui_client: TestClient, asset: str, kind: str) -> None:
    resp = ui_client.get(f"/ui/static/{asset}")
    assert resp.status_code == 200
    assert kind in resp.headers["content-type"]
    assert resp.content == (STATIC_DIR / asset).read_bytes()


def test_the_base_under_a_root_path_is_escaped() -> None:
    assert '<base href="/a&quot;b/ui/">' in page_html('/a"b')


def test_the_script_never_puts_data_into_inner_html() -> None:
    script = (STATIC_DIR / "topology.js").read_text()
    assert "innerHTML" not in script
    assert "outerHTML" not in script
    assert "insertAdjacentHTML" not in script


@pytest.mark.parametrize("path", ["/ui/", "/ui/nodes/n1", "/ui/static/topology.js"])
def test_with_http_basic_the_page_asks_the_browser_to_log_in(
    tmp_path: Path, migrated_template: Path, path: str
) -> None:
    users = tmp_path / "htpasswd"
    users.write_text(htpasswd_line("alice", "s3cret") + "\n")
    config = make_config(
        tmp_path,
        migrated_template,
        DEFAULT__auth_strategy="http_basic",
        DEFAULT__http_basic_auth_user_file=str(users),
    )
    for client in open_client(config):
        refused = client.get(path)
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == 'Basic realm="metalwire"'
        assert client.get(path, auth=("alice", "s3cret")).status_code == 200
