"""A flood of invented Keystone tokens against a real ``metalwire serve``.

The token validation is metalwire's real code path against the session's real Keystone; only
the slowness is added: Keystone is reached through :class:`SlowKeystone`, a forwarding proxy
in the test process that holds every token validation (``GET /v3/auth/tokens``) for
``DELAY`` seconds, as an overloaded Keystone would. It also counts the validations it is
asked at the same time, and per token. The server runs on PostgreSQL, where the VIF
endpoints read the node's projects in the threads the event loop shares (``asyncio``'s default
pool), the pool the validations used to fill.
"""

from __future__ import annotations

import http.server
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.auth.conftest import Cloud
from tests.conftest import LATEST
from tests.conftest import _emptied as emptied
from tests.support.server import MetalwireServer

pytestmark = [pytest.mark.server, pytest.mark.postgresql]

DELAY = 2.0
MAX_VALIDATIONS = 3


class SlowKeystone(http.server.ThreadingHTTPServer):
    """Forwards to ``upstream``; a token validation waits ``DELAY`` seconds first."""

    daemon_threads = True

    def __init__(self, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _Forward)
        self.upstream = upstream.rstrip("/").removesuffix("/v3")
        self.lock = threading.Lock()
        self.validating = 0
        self.most_validating = 0
        self.validations: Counter[str] = Counter()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v3"


class _Forward(http.server.BaseHTTPRequestHandler):
    server: SlowKeystone
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _forward(self) -> None:
        proxy = self.server
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        subject = self.headers.get("x-subject-token")
        validation = self.command == "GET" and urlsplit(self.path).path == "/v3/auth/tokens"
        if validation and subject:
            with proxy.lock:
                proxy.validating += 1
                proxy.most_validating = max(proxy.most_validating, proxy.validating)
                proxy.validations[subject] += 1
            time.sleep(DELAY)
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host",)}
            resp = httpx.request(
                self.command, proxy.upstream + self.path, headers=headers, content=body, timeout=30
            )
        finally:
            if validation and subject:
                with proxy.lock:
                    proxy.validating -= 1
        self.send_response(resp.status_code)
        for key, value in resp.headers.items():
            if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(key, value)
        self.send_header("content-length", str(len(resp.content)))
        self.end_headers()
        self.wfile.write(resp.content)

    do_GET = do_POST = do_HEAD = do_DELETE = do_PATCH = _forward


@pytest.fixture
def slow_keystone(cloud: Cloud) -> Iterator[SlowKeystone]:
    proxy = SlowKeystone(cloud.keystone.url)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    yield proxy
    proxy.shutdown()
    proxy.server_close()


def test_invented_tokens_do_not_delay_a_cached_token_and_keystone_is_asked_boundedly(
    tmp_path: Path,
    cloud: Cloud,
    persona_tokens: dict[str, str],
    slow_keystone: SlowKeystone,
    postgresql_url: str,
) -> None:
    env = cloud.env()
    env["METALWIRE_KEYSTONE_AUTHTOKEN_AUTH_URL"] = slow_keystone.url
    env["METALWIRE_KEYSTONE_AUTHTOKEN_MAX_CONCURRENT_VALIDATIONS"] = str(MAX_VALIDATIONS)
    env["METALWIRE_KEYSTONE_AUTHTOKEN_NEGATIVE_CACHE_TIME"] = "60"  # outlasts the flood
    admin = {
        "X-Auth-Token": persona_tokens["system_admin"],
        "X-OpenStack-Ironic-API-Version": LATEST,
    }
    database = emptied(postgresql_url)
    with MetalwireServer(tmp_path / "data", database=database, env=env) as server:
        node = httpx.post(
            f"{server.url}/v1/nodes", json={"driver": "fake-hardware"}, headers=admin, timeout=30
        )
        assert node.status_code == 201, node.text  # the admin's token is now cached
        vifs = f"{server.url}/v1/nodes/{node.json()['uuid']}/vifs"
        assert httpx.get(vifs, headers=admin, timeout=30).status_code == 200

        def invented(token: str) -> int:
            resp = httpx.get(f"{server.url}/v1/nodes", headers={"X-Auth-Token": token}, timeout=60)
            return resp.status_code

        garbage = [uuid.uuid4().hex for _ in range(18)]
        with ThreadPoolExecutor(len(garbage)) as flood:
            refused = [flood.submit(invented, token) for token in garbage]
            time.sleep(0.3)  # the flood is waiting on Keystone
            began = time.monotonic()
            served = httpx.get(vifs, headers=admin, timeout=60)
            cached_seconds = time.monotonic() - began
            assert [r.result() for r in refused] == [401] * len(garbage)
        assert served.status_code == 200, served.text
        # On a free machine about 0.05 s; without the fix, 18 / 6 shared threads x DELAY.
        assert cached_seconds < DELAY, f"the cached token's request took {cached_seconds:.2f} s"
        assert slow_keystone.most_validating <= MAX_VALIDATIONS

        # A refused token is refused again at once, without asking Keystone.
        began = time.monotonic()
        assert invented(garbage[0]) == 401
        assert time.monotonic() - began < DELAY / 2
        assert slow_keystone.validations[garbage[0]] == 1

        # Concurrent requests with one new invented token share one validation.
        shared = uuid.uuid4().hex
        with ThreadPoolExecutor(10) as same:
            assert list(same.map(invented, [shared] * 10)) == [401] * 10
        assert slow_keystone.validations[shared] == 1
