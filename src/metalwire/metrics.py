"""The Prometheus metrics every layer records, in prometheus_client's default registry.

Shared by every layer, like :mod:`metalwire.errors`: the API counts requests, the RPC API VIF
operations, the conductor node-lock waits, provision verbs and network events, the Neutron
client its calls.
``/metrics`` (:mod:`metalwire.api.metrics`) serves them together with the database pool
gauges, read at scrape time. A server of one process counts in memory. The worker processes
of one server (``[api] api_workers``) share their counts: prometheus_client's multiprocess
mode keeps them in files of the directory the supervisor names in ``PROMETHEUS_MULTIPROC_DIR``,
and whichever worker answers a scrape sums them all (the pool gauges are that worker's
alone). Separate servers have separate counts and are scraped one by one.

Labels are bounded: routes are path templates (``/v1/nodes/{node_ident}``), never raw paths;
results are ``success`` or an error class of the catalog; Neutron operations are a method and
a resource template (``PUT /ports/{id}``).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import Counter, Histogram

# Requests take milliseconds; lock waits and Neutron calls up to the configured timeouts.
_FAST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_SLOW_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

REQUESTS = Counter(
    "metalwire_http_requests",
    "HTTP requests answered, by route template, method and status.",
    ("route", "method", "status"),
)
REQUEST_SECONDS = Histogram(
    "metalwire_http_request_duration_seconds",
    "Time from receiving an HTTP request to the end of its answer, by route template, method "
    "and status.",
    ("route", "method", "status"),
    buckets=_FAST_BUCKETS,
)
VIF_OPERATIONS = Counter(
    "metalwire_vif_operations",
    "VIF requests (attach, detach, list, attach_dry_run; other for a method the VIF paths "
    "do not serve), each counted once, by node network interface and result (success, or "
    "the error's class; requests refused for their API version, method, authorization, "
    "headers or body included), and the attach and detach a port's or portgroup's "
    "extra/vif_port_id change asks for, by the outcome of that change: a client's retry is "
    "another request, the server's own retries after a database conflict are not.",
    ("operation", "network_interface", "result"),
)
LOCK_WAIT_SECONDS = Histogram(
    "metalwire_node_lock_wait_seconds",
    "Time an operation waited for a node's lock (in this process, then across processes).",
    buckets=_FAST_BUCKETS,
)
NEUTRON_SECONDS = Histogram(
    "metalwire_neutron_request_duration_seconds",
    "Time of one Neutron call, its retries included, by operation.",
    ("operation",),
    buckets=_SLOW_BUCKETS,
)
NEUTRON_ERRORS = Counter(
    "metalwire_neutron_request_errors",
    "Neutron calls that failed, by operation and reason (unreachable, the HTTP status, or "
    "bad_body).",
    ("operation", "reason"),
)

DATABASE_ERRORS = Counter(
    "metalwire_database_errors",
    "Database failures that are expected conditions, by reason: unavailable (cannot connect, "
    "connection lost, not ready; answered 503), not_ready_retried (an operation run again "
    "while the server was not ready, e.g. a Galera membership change), conflict_retried (a "
    "deadlock or serialization failure run again), conflict (one that outlasted the "
    "retries; 503) and busy (SQLite: no write turn, or the file locked by another process, "
    "within [database] sqlite_write_wait; 503).",
    ("reason",),
)
PROVISION_OPERATIONS = Counter(
    "metalwire_provision_operations",
    "Provision verbs that ran their steps (abort of a wait state included; a call-back "
    "timeout is no verb and is not counted), by verb, node network interface and the state "
    "they left the node in (the target, a wait state, or the failed state).",
    ("verb", "network_interface", "state"),
)
PROVISION_SECONDS = Histogram(
    "metalwire_provision_duration_seconds",
    "Time a provision verb's steps took, from its acceptance to its end, by verb and node "
    "network interface.",
    ("verb", "network_interface"),
    buckets=(*_SLOW_BUCKETS, 120.0, 300.0, 600.0),
)
NETWORK_EVENTS = Counter(
    "metalwire_network_events",
    "Events the network service posted to /v1/events and this process took, by event "
    "(network.bind_port, network.unbind_port, network.delete_port).",
    ("event",),
)


@functools.cache
def vif_operation(operation: str, network_interface: str, result: str) -> Counter:
    """The counter of one (operation, interface, result), looked up once: the values are few."""
    return VIF_OPERATIONS.labels(operation, network_interface, result)


def observe_lock_wait(seconds: float) -> None:
    LOCK_WAIT_SECONDS.observe(seconds)


def provision_ended(verb: str, network_interface: str, state: str, seconds: float) -> None:
    """Count a provision verb whose steps ended, leaving the node in ``state``."""
    PROVISION_OPERATIONS.labels(verb, network_interface, state).inc()
    PROVISION_SECONDS.labels(verb, network_interface).observe(seconds)


def neutron_operation(method: str, path: str) -> str:
    """``PUT /ports/{id}`` for ``PUT /ports/5f0c...``: the resource, never its id."""
    parts = path.split("?", 1)[0].strip("/").split("/")
    return f"{method} /{parts[0]}" + ("/{id}" if len(parts) > 1 else "")


@contextmanager
def neutron_call(operation: str) -> Iterator[None]:
    """Time a Neutron call; ``neutron_failed`` counts its failure."""
    started = time.perf_counter()
    try:
        yield
    finally:
        NEUTRON_SECONDS.labels(operation).observe(time.perf_counter() - started)


def network_event(event: str) -> None:
    NETWORK_EVENTS.labels(event).inc()


def neutron_failed(operation: str, reason: str) -> None:
    NEUTRON_ERRORS.labels(operation, reason).inc()
