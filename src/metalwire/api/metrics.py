"""``GET /metrics``: the server's Prometheus metrics, and the request metrics themselves.

Three pure ASGI components, wired by :func:`metalwire.api.app.create_app` when
``[metrics] enabled``:

* :class:`RequestMetrics`, outermost, counts and times every request by route template,
  method and status, whoever answers it (the router, the VIF endpoints, the auth layer, the
  pipeline's own errors);
* :class:`RouteRecorder`, innermost, notes which route the router matched, for the former;
* :class:`MetricsEndpoint` answers ``/metrics``: behind the auth layer by default, in front of
  it with ``[metrics] public``. Ironic has no such endpoint; the numbers say how busy the
  service is and which nodes' operations fail, so they are not given to anyone who asks:
  behind the auth layer, a scrape also needs the rule ``metalwire:metrics:get``.

The database pool gauges are read from the engine at scrape time (:class:`PoolCollector`).

The worker processes of one ``metalwire serve`` (``[api] api_workers``) keep their counters
and histograms in files of a directory the supervisor names in ``PROMETHEUS_MULTIPROC_DIR``
(prometheus_client's multiprocess mode): whichever worker answers a scrape sums them all.
The pool and audit gauges are the answering worker's.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from metalwire import metrics
from metalwire.api import errors
from metalwire.api.auth.identity import from_scope
from metalwire.api.auth.policy import Policy
from metalwire.api.middleware import CLIENT_GONE, CLIENT_GONE_STATUS
from metalwire.api.paths import routed
from metalwire.api.routes.vifs import vif_route
from metalwire.conductor.audit import KINDS
from metalwire.conductor.audit_runner import LatestAudit
from metalwire.db.engine import Database
from metalwire.errors import PolicyForbidden

PATH = "/metrics"
#: Where the workers of one server keep their metrics (prometheus_client reads it at import).
MULTIPROCESS_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
#: Where the component that answered a request puts the route template it served.
ROUTE_STATE_KEY = "metalwire.route"
UNMATCHED = "unmatched"
# Any other method a client makes up is counted as "other", so no client adds series at will.
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class PoolCollector(Collector):
    """The database connection pool, as the engine reports it when scraped."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def collect(self) -> Iterable[Metric]:
        # On a database server reads have a pool of their own (db/engine.py): the gauges
        # then carry pool="write" or pool="read"; on SQLite, one pool, no label.
        pools: list[tuple[list[str], Any]] = [([], self.db.engine.pool)]
        if self.db.read_engine is not self.db.engine:
            pools = [(["write"], self.db.engine.pool), (["read"], self.db.read_engine.pool)]
        values = {
            "size": "Connections the pool keeps open (pool_size).",
            "checkedout": "Connections in use now.",
            "checkedin": "Open connections idle in the pool.",
            "overflow": "Connections opened beyond the pool's size (negative: not yet opened).",
        }
        for name, help_text in values.items():
            label_names = ["pool"] if len(pools) > 1 else []
            gauge = GaugeMetricFamily(f"metalwire_db_pool_{name}", help_text, labels=label_names)
            for labels, pool in pools:
                read = getattr(pool, name, None)
                if callable(read):  # not every pool class counts (SQLite's in-memory pools)
                    gauge.add_metric(labels, float(read()))
            if gauge.samples:
                yield gauge


class AuditCollector(Collector):
    """The findings of this process's latest drift audit, per kind, when scraped."""

    def __init__(self, latest: LatestAudit) -> None:
        self.latest = latest

    def collect(self) -> Iterable[Metric]:
        report = self.latest.report()
        found = GaugeMetricFamily(
            "metalwire_audit_findings",
            "Findings of the latest drift audit of this process, per kind.",
            labels=["kind"],
        )
        counts = self.latest.counts_by_kind()
        for kind in KINDS:
            found.add_metric([kind], float(counts.get(kind, 0)))
        yield found
        when = GaugeMetricFamily(
            "metalwire_audit_last_run_timestamp_seconds",
            "When the latest drift audit of this process ran (0: none yet).",
        )
        when.add_metric([], report.checked_at.timestamp() if report is not None else 0.0)
        yield when


class MetricsEndpoint:
    """Answers ``GET /metrics`` in the Prometheus text format; hands on every other path."""

    def __init__(self, app: ASGIApp, db: Database, audit: LatestAudit | None = None) -> None:
        self.app = app
        self.registry = REGISTRY
        if os.environ.get(MULTIPROCESS_DIR_VARIABLE):  # one of several workers
            self.registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(self.registry)  # type: ignore[no-untyped-call]
        self.pool_registry = CollectorRegistry(auto_describe=True)
        self.pool_registry.register(PoolCollector(db))
        if audit is not None:
            self.pool_registry.register(AuditCollector(audit))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != PATH:
            await self.app(scope, receive, send)
            return
        scope["state"][ROUTE_STATE_KEY] = PATH
        if scope["method"] != "GET":
            headers = [(b"allow", b"GET"), (b"content-length", b"0")]
            await send({"type": "http.response.start", "status": 405, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        refused = _refusal(scope)
        if refused is not None:
            await errors.send_error(send, refused, scope["state"])
            return
        body = generate_latest(self.registry) + generate_latest(self.pool_registry)
        headers = [
            (b"content-type", CONTENT_TYPE_LATEST.encode()),
            (b"content-length", b"%d" % len(body)),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _refusal(scope: Scope) -> errors.ErrorAnswer | None:
    """The 403 of a scrape the policy refuses; None when allowed, or when in front of the
    auth layer (``[metrics] public``: no identity was verified)."""
    who = from_scope(scope)
    app = scope.get("app")
    policy: Policy | None = getattr(getattr(app, "state", None), "policy", None)
    if who is None or policy is None:
        return None
    try:
        policy.authorize("metalwire:metrics:get", who)
    except PolicyForbidden as exc:
        request_id = str(scope["state"].get("request_id", "-"))
        return errors.render(exc, request_id, scope["method"], PATH)
    return None


class RouteRecorder:
    """Innermost: after the router ran, notes the template of the route it matched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            route = scope.get("route")
            state = scope.get("state")
            if route is not None and state is not None:
                state[ROUTE_STATE_KEY] = getattr(route, "path", UNMATCHED)


def route_template(scope: Scope) -> str:
    """The template of the route a request was for, when the router did not say (the VIF
    endpoints, or a request refused before routing, e.g. 401 or 406)."""
    path = scope["path"]
    if path == PATH:
        return PATH
    vif = vif_route(path)
    if vif is not None:
        return vif
    probe = {**scope, "path": routed(path), "method": scope["method"]}
    app = scope.get("app")
    partial = None
    for route in getattr(getattr(app, "router", None), "routes", ()):
        match, _ = route.matches(probe)
        if match is Match.FULL:  # as the router: a full match first, else the first partial
            return str(getattr(route, "path", UNMATCHED))
        if match is Match.PARTIAL and partial is None:
            partial = str(getattr(route, "path", UNMATCHED))
    return partial or UNMATCHED


_ANSWERED = "metrics_answered"


class RequestMetrics:
    """Outermost: counts and times every HTTP request by route template, method, status."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        # The labelled series, looked up once each: the label values are few (templates).
        self._series: dict[tuple[str, str, str], tuple[Any, Any]] = {}

    def _observe(self, route: str, method: str, status: int, seconds: float) -> None:
        labels = (route, method, str(status))
        series = self._series.get(labels)
        if series is None:
            series = (metrics.REQUESTS.labels(*labels), metrics.REQUEST_SECONDS.labels(*labels))
            self._series[labels] = series
        series[0].inc()
        series[1].observe(seconds)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        state: dict[str, Any] = scope.setdefault("state", {})
        status = 500
        # A mount (the topology page's assets) moves its prefix into root_path as it routes.
        root_path = scope.get("root_path", "")

        async def send_noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                state[_ANSWERED] = True
            await send(message)

        try:
            await self.app(scope, receive, send_noting_status)
        finally:
            if state.get(CLIENT_GONE) and not state.get(_ANSWERED):  # not the server's failure
                status = CLIENT_GONE_STATUS
            route = state.get(ROUTE_STATE_KEY) or route_template({**scope, "root_path": root_path})
            method = scope["method"] if scope["method"] in _METHODS else "other"
            self._observe(route, method, status, time.perf_counter() - started)
