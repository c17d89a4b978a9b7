"""bench/run.py's HTTP client: one keep-alive connection per worker, and the retries
openstacksdk's bare-metal proxy makes."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import httpx
from run_stats import OpStats

VERSION_HEADER = "X-OpenStack-Ironic-API-Version"

# Same policy as openstacksdk's bare-metal proxy on top of keystoneauth: 409 (node
# locked) and 503 (no conductor) are retried up to 5 times; the delay honours an
# integer Retry-After header, otherwise it starts at 0.5 s and doubles (max 60 s).
RETRIABLE = (409, 503)
MAX_RETRIES = 5
FIRST_DELAY = 0.5
MAX_DELAY = 60.0
# Requests cut by a dropped keep-alive connection are sent again on a new one, at most
# twice, and counted apart ("reconnects").
MAX_RECONNECTS = 2


class Api:
    """One worker's keep-alive connection, with openstacksdk-style 409/503 retries.

    Requests go straight to an httpx transport: the httpx.Client layer (cookies, auth,
    hooks, URL merging) roughly doubles the client's CPU cost per request, and the
    client shares the machine's cores with the server under test.
    """

    def __init__(self, url: str, api_version: str, timeout: float, token: str = "") -> None:
        self.base = url
        self.headers = {VERSION_HEADER: api_version, "Accept": "application/json"}
        if token:
            self.headers["X-Auth-Token"] = token
        self.extensions: dict[str, Any] = {"timeout": httpx.Timeout(timeout).as_dict()}
        self.transport = httpx.HTTPTransport(
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1)
        )

    def close(self) -> None:
        self.transport.close()

    def send(self, method: str, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        request = httpx.Request(
            method, self.base + path, headers=self.headers, json=body, extensions=self.extensions
        )
        resp = self.transport.handle_request(request)
        try:
            resp.read()
        finally:
            resp.close()
        return resp

    def warm(self) -> None:
        with contextlib.suppress(httpx.HTTPError):
            self.send("GET", "/")

    def call(
        self,
        stats: OpStats,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        ok: tuple[int, ...] = (200, 201, 202, 204),
        record: bool = True,
    ) -> httpx.Response | None:
        """Send one logical request (retries included); None on a transport error."""
        start = time.perf_counter()
        delay = FIRST_DELAY
        retries_left = MAX_RETRIES
        reconnects_left = MAX_RECONNECTS
        try:
            while True:
                try:
                    resp = self.send(method, path, body)
                except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError):
                    # A keep-alive connection the server dropped: reconnect and resend.
                    if reconnects_left <= 0:
                        raise
                    reconnects_left -= 1
                    stats.reconnects += 1
                    continue
                code = resp.status_code
                if code in RETRIABLE:
                    stats.seen[code] += 1
                    if retries_left > 0:
                        wait: float | None = None
                        retry_after = resp.headers.get("Retry-After")
                        if retry_after:
                            with contextlib.suppress(ValueError):
                                wait = float(int(retry_after))
                        if wait is None:
                            wait = delay
                            delay = min(delay * 2.0, MAX_DELAY)
                        retries_left -= 1
                        stats.retries += 1
                        time.sleep(wait)
                        continue
                break
        except httpx.HTTPError as exc:
            stats.fail(f"{method} {path}: {type(exc).__name__}: {exc}")
            return None
        if code in ok:
            if record:
                stats.latencies.append(time.perf_counter() - start)
        else:
            stats.fail(f"{method} {path}: HTTP {code}: {resp.text[:200]}")
        return resp
