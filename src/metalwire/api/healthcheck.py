"""``GET``/``HEAD /healthcheck``, as Ironic serves it through oslo.middleware's Healthcheck.

Unauthenticated, in front of the request pipeline (the probe of a load balancer needs no
microversion, identity or access log line); counted in the request metrics. Healthy means
the database answers ``SELECT 1`` within ``[healthcheck] database_timeout``; the result is
reused for :data:`CACHE_SECONDS`, and one check runs at a time, so any number of probes cost
the database at most one query a second.

Answers, as oslo.middleware's: ``GET`` 200 with ``OK`` (``text/plain``), 503 with the reason;
``HEAD`` 204 or 503 without a body; ``Accept: application/json`` gets ``{"detailed": false,
"reasons": [...]}``, and with ``[healthcheck] detailed`` the reasons' details (the database
error) and the Python version and platform too.
"""

from __future__ import annotations

import json
import logging
import platform
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import anyio
import anyio.to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from metalwire.api.metrics import ROUTE_STATE_KEY
from metalwire.config import HealthcheckOptions
from metalwire.context import new_request_id
from metalwire.db.engine import Database
from metalwire.errors import DatabaseFailure

LOG = logging.getLogger(__name__)
CACHE_SECONDS = 1.0


@dataclass(frozen=True)
class CheckResult:
    available: bool
    reason: str
    details: str = ""


class DatabaseCheck:
    """Whether the database answers, asked at most once per CACHE_SECONDS."""

    def __init__(self, db: Database, timeout: float) -> None:
        self.db = db
        self.timeout = timeout
        self._result: CheckResult | None = None
        self._checked_at = 0.0
        self._lock: anyio.Lock | None = None  # made on the event loop that uses it

    def _fresh(self) -> CheckResult | None:
        if self._result is not None and time.monotonic() - self._checked_at < CACHE_SECONDS:
            return self._result
        return None

    async def result(self) -> CheckResult:
        cached = self._fresh()
        if cached is not None:
            return cached
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:  # the probes arriving meanwhile share this check's result
            cached = self._fresh()
            if cached is not None:
                return cached
            result = await self._ask()
            self._result, self._checked_at = result, time.monotonic()
            return result

    async def _ask(self) -> CheckResult:
        with anyio.move_on_after(self.timeout):
            try:
                # Abandoned at the timeout: the engine's connect timeout ends the thread.
                await anyio.to_thread.run_sync(self.db.ping, abandon_on_cancel=True)
            except DatabaseFailure as exc:  # logged where it was detected
                return CheckResult(False, "The database is unavailable", str(exc))
            except Exception as exc:
                LOG.warning("health check: the database query failed: %s", exc)
                return CheckResult(False, "The database query failed", str(exc))
            return CheckResult(True, "OK")
        return CheckResult(
            False,
            "The database is unavailable",
            f"no answer to SELECT 1 within {self.timeout:g} s",
        )


def _wants_json(scope: Scope) -> bool:
    for key, value in scope["headers"]:
        if key == b"accept":
            text = value.decode("latin-1")
            return "application/json" in text and "text/plain" not in text
    return False


class Healthcheck:
    """Answers the health check path; hands every other request on."""

    def __init__(self, app: ASGIApp, db: Database, options: HealthcheckOptions) -> None:
        self.app = app
        self.path = options.path
        self.detailed = options.detailed
        self.check = DatabaseCheck(db, options.database_timeout)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})[ROUTE_STATE_KEY] = self.path
        method = scope["method"]
        headers = [(b"x-openstack-request-id", new_request_id().encode())]
        if method not in ("GET", "HEAD"):
            headers += [(b"allow", b"GET, HEAD"), (b"content-length", b"0")]
            await send({"type": "http.response.start", "status": 405, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        result = await self.check.result()
        if method == "HEAD":
            status, body, content_type = (204 if result.available else 503), b"", "text/plain"
        else:
            status = 200 if result.available else 503
            body, content_type = self._body(result, _wants_json(scope))
        headers += [
            (b"content-type", f"{content_type}; charset=UTF-8".encode()),
            (b"content-length", b"%d" % len(body)),
            (b"cache-control", b"no-store"),
        ]
        if not result.available:
            headers.append((b"retry-after", str(DatabaseFailure.retry_after).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _body(self, result: CheckResult, as_json: bool) -> tuple[bytes, str]:
        if not as_json:
            return result.reason.encode(), "text/plain"
        document: dict[str, object] = {"detailed": self.detailed, "reasons": [result.reason]}
        if self.detailed:
            document["reasons"] = [
                {"reason": result.reason, "details": result.details, "class": "DatabaseCheck"}
            ]
            document["python_version"] = sys.version
            document["platform"] = platform.platform()
            document["now"] = str(datetime.now(UTC).replace(tzinfo=None))
        return json.dumps(document, indent=4, sort_keys=True).encode(), "application/json"
