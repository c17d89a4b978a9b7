"""``/healthcheck`` as oslo.middleware answers it in Ironic, through a real server."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import anyio
import httpx
import pytest

from metalwire.api.healthcheck import DatabaseCheck
from metalwire.config import load_config
from metalwire.db.engine import Database
from tests.auth.conftest import htpasswd_line
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server


def test_health_check_answers_without_credentials_as_oslo_middleware(tmp_path: Path) -> None:
    users = tmp_path / "htpasswd"
    users.write_text(htpasswd_line("alice", "s3cret") + "\n")
    env = {
        "METALWIRE_AUTH_STRATEGY": "http_basic",
        "METALWIRE_HTTP_BASIC_AUTH_USER_FILE": str(users),
    }
    with (
        MetalwireServer(tmp_path / "data", env=env) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        get = client.get("/healthcheck")
        head = client.head("/healthcheck")
        as_json = client.get("/healthcheck", headers={"Accept": "application/json"})
        post = client.post("/healthcheck")
        protected = client.get("/v1/nodes")
    assert (get.status_code, get.text) == (200, "OK")
    assert get.headers["content-type"] == "text/plain; charset=UTF-8"
    assert get.headers["x-openstack-request-id"].startswith("req-")
    assert "x-openstack-ironic-api-version" not in get.headers
    assert (head.status_code, head.content) == (204, b"")
    assert as_json.json() == {"detailed": False, "reasons": ["OK"]}
    assert (post.status_code, post.headers["allow"]) == (405, "GET, HEAD")
    assert protected.status_code == 401  # only the health check skips authentication


def test_health_check_is_off_or_moved_or_detailed_as_configured(tmp_path: Path) -> None:
    config = tmp_path / "metalwire.conf"
    config.write_text("[healthcheck]\npath = /health\ndetailed = true\n")
    with MetalwireServer(tmp_path / "a", config=config) as server:
        moved = httpx.get(server.url + "/healthcheck")
        detailed = httpx.get(server.url + "/health", headers={"Accept": "application/json"})
    env = {"METALWIRE_HEALTHCHECK_ENABLED": "false"}
    with MetalwireServer(tmp_path / "b", env=env) as server:
        off = httpx.get(server.url + "/healthcheck")
    assert moved.status_code == 404
    body = detailed.json()
    assert body["detailed"] is True and body["reasons"][0]["reason"] == "OK"
    assert {"python_version", "platform", "now"} <= set(body)
    assert off.status_code == 404
    assert json.loads(off.json()["error_message"])["code"] == 404


class CountingDatabase(Database):
    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.pings = 0
        self.release = threading.Event()

    def ping(self) -> None:
        self.pings += 1
        self.release.wait(5)
        super().ping()


def test_concurrent_probes_share_one_database_query_a_second(tmp_path: Path) -> None:
    db = CountingDatabase(f"sqlite:///{tmp_path / 'metalwire.db'}")
    check = DatabaseCheck(db, timeout=5)

    async def probes() -> list[bool]:
        results: list[bool] = []

        async def probe() -> None:
            results.append((await check.result()).available)

        async with anyio.create_task_group() as group:
            for _ in range(20):
                group.start_soon(probe)
            await anyio.sleep(0.2)
            db.release.set()
        results.append((await check.result()).available)  # within the second: cached
        return results

    try:
        assert anyio.run(probes) == [True] * 21
    finally:
        db.dispose()
    assert db.pings == 1


def test_a_database_that_does_not_answer_in_time_is_unhealthy(tmp_path: Path) -> None:
    db = CountingDatabase(f"sqlite:///{tmp_path / 'metalwire.db'}")
    check = DatabaseCheck(db, timeout=0.2)
    try:
        result = anyio.run(check.result)
    finally:
        db.release.set()
        db.dispose()
    assert not result.available
    assert result.reason == "The database is unavailable"
    assert "within 0.2 s" in result.details


def test_an_ironic_healthcheck_section_is_accepted_with_its_oslo_middleware_options(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ironic_conf = tmp_path / "ironic.conf"
    ironic_conf.write_text(
        "[healthcheck]\nenabled = true\nbackends = disable_by_file\n"
        "disable_by_file_path = /var/run/ironic/healthcheck_disable\n"
    )
    conf = load_config(str(ironic_conf), environ={})
    assert conf.healthcheck.enabled and conf.healthcheck.path == "/healthcheck"
    assert "[healthcheck] backends is an Ironic option metalwire does not use" in caplog.text
