"""``GET /metrics`` through HTTP: what is counted, under which labels, and who may read it.

The process's registry is shared by every app a test session builds, so each test compares
a scrape after its requests with one before them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from tests.auth.conftest import htpasswd_line, make_config, open_client
from tests.client.util import mac
from tests.conftest import LATEST, Api
from tests.support.server import MetalwireServer

Labels = dict[str, str]


def scrape(client: TestClient, **kw: Any) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of ``/metrics``, parsed by prometheus_client's own parser."""
    resp = client.get("/metrics", **kw)
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(resp.text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def requests(samples: Any, route: str, method: str, status: int) -> float:
    return value(
        samples, "metalwire_http_requests_total", route=route, method=method, status=str(status)
    )


def test_requests_are_counted_by_route_template_method_and_status(api: Api) -> None:
    node = api.node(name="metered")
    before = scrape(api.client)
    assert api.get(f"/v1/nodes/{node['uuid']}").status_code == 200
    assert api.get("/v1/nodes/metered").status_code == 200
    assert api.get("/v1/nodes/no-such-node").status_code == 404
    after = scrape(api.client)

    route = "/v1/nodes/{ident}"
    assert requests(after, route, "GET", 200) - requests(before, route, "GET", 200) == 2
    assert requests(after, route, "GET", 404) - requests(before, route, "GET", 404) == 1
    latency = "metalwire_http_request_duration_seconds_count"
    labels = {"route": route, "method": "GET", "status": "200"}
    assert value(after, latency, **labels) - value(before, latency, **labels) == 2
    for _name, label_set in after:
        for _key, label in label_set:
            assert node["uuid"] not in label and "metered" not in label


def test_the_topology_page_and_its_assets_are_counted_under_their_routes(api: Api) -> None:
    """The assets were counted as 'unmatched' (with status 200): the static mount's prefix
    had moved into root_path by the time the route was looked up."""
    before = scrape(api.client)
    assert api.client.get("/ui/static/topology.js").status_code == 200
    assert api.client.get("/ui/static/no-such-asset.js").status_code == 404
    assert api.client.get("/ui/nodes/compute-0").status_code == 200
    after = scrape(api.client)
    assert requests(after, "/ui/static", "GET", 200) - requests(before, "/ui/static", "GET", 200)
    assert requests(after, "/ui/static", "GET", 404) - requests(before, "/ui/static", "GET", 404)
    assert requests(after, "unmatched", "GET", 200) == requests(before, "unmatched", "GET", 200)
    page = "/ui/nodes/{node}"
    assert requests(after, page, "GET", 200) - requests(before, page, "GET", 200) == 1


def test_vif_endpoints_are_counted_under_their_own_templates(api: Api) -> None:
    api.port(api.node(name="vif-metered"), "52:54:00:70:00:01")
    vif = str(uuid.uuid4())
    before = scrape(api.client)
    assert api.post("/v1/nodes/vif-metered/vifs", {"id": vif}).status_code == 204
    assert api.get("/v1/nodes/vif-metered/vifs").status_code == 200
    assert api.delete(f"/v1/nodes/vif-metered/vifs/{vif}").status_code == 204
    after = scrape(api.client)

    for route, method, status in (
        ("/v1/nodes/{ident}/vifs", "POST", 204),
        ("/v1/nodes/{ident}/vifs", "GET", 200),
        ("/v1/nodes/{ident}/vifs/{vif}", "DELETE", 204),
    ):
        moved = requests(after, route, method, status) - requests(before, route, method, status)
        assert moved == 1, (route, method)
    assert not any(vif in label for _, labels in after for _, label in labels)


def test_vif_operations_are_counted_by_interface_and_result(api: Api) -> None:
    api.port(api.node(name="vif-ops", network_interface="flat"), "52:54:00:70:00:02")
    api.node(name="vif-ops-bare", network_interface="flat")
    before = scrape(api.client)
    assert api.post("/v1/nodes/vif-ops/vifs", {"id": "op-1"}).status_code == 204
    assert api.post("/v1/nodes/vif-ops/vifs", {"id": "op-2"}).status_code == 400  # port busy
    assert api.post("/v1/nodes/vif-ops-bare/vifs", {"id": "op-3"}).status_code == 400
    assert api.delete("/v1/nodes/vif-ops/vifs/op-1").status_code == 204
    after = scrape(api.client)

    def moved(operation: str, result: str) -> float:
        name = "metalwire_vif_operations_total"
        labels = {"operation": operation, "network_interface": "flat", "result": result}
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("attach", "success") == 1
    assert moved("attach", "NoFreePhysicalPort") == 2
    assert moved("detach", "success") == 1


def vif_count(samples: Any, operation: str, result: str) -> float:
    """The VIF operations counted with ``operation`` and ``result``, whatever the interface."""
    return sum(
        count
        for (name, labels), count in samples.items()
        if name == "metalwire_vif_operations_total"
        and ("operation", operation) in labels
        and ("result", result) in labels
    )


@pytest.mark.server
def test_vif_requests_refused_before_their_call_are_counted_by_outcome(
    server: MetalwireServer,
) -> None:
    """A request the endpoint refused itself (its body, its dry-run header, its VIF id)
    was not counted, while a refusal by the conductor was: an attach without an id
    vanished from the metric."""
    headers = {"X-OpenStack-Ironic-API-Version": LATEST}
    with httpx.Client(base_url=server.url, headers=headers, timeout=30) as http:
        created = http.post("/v1/nodes", json={"driver": "fake-hardware"})
        node = created.json()["uuid"]
        vifs = f"/v1/nodes/{node}/vifs"
        assert http.get(vifs).status_code == 200
        before = scrape(http)  # type: ignore[arg-type]
        refused = [
            http.post(vifs, json={"port_uuid": str(uuid.uuid4())}),
            http.post(vifs, content=b"{", headers={"Content-Type": "application/json"}),
            http.post(vifs, json={}, headers={"X-Metalwire-Dry-Run": "true"}),
            http.post(vifs, json={"id": "v"}, headers={"X-Metalwire-Dry-Run": "maybe"}),
            http.delete(f"{vifs}/not!a-vif"),
        ]
        after = scrape(http)  # type: ignore[arg-type]
    assert [r.status_code for r in refused] == [400] * 5, [r.text for r in refused]

    def moved(operation: str, result: str = "InvalidParameterValue") -> float:
        return vif_count(after, operation, result) - vif_count(before, operation, result)

    assert moved("attach") == 3  # no id, not JSON, a dry-run header neither true nor false
    assert moved("attach_dry_run") == 1
    assert moved("detach") == 1


@pytest.mark.server
def test_vif_requests_below_1_28_and_with_an_unserved_method_are_counted(
    server: MetalwireServer,
) -> None:
    """The version gate's 404 and the method's 405 on the VIF paths were answered without a
    count: an operator saw fewer VIF requests than clients had sent."""
    headers = {"X-OpenStack-Ironic-API-Version": LATEST}
    with httpx.Client(base_url=server.url, headers=headers, timeout=30) as http:
        node = http.post("/v1/nodes", json={"driver": "fake-hardware"}).json()["uuid"]
        vifs = f"/v1/nodes/{node}/vifs"
        old = {"X-OpenStack-Ironic-API-Version": "1.27"}
        before = scrape(http)  # type: ignore[arg-type]
        answers = [
            http.get(vifs, headers=old),
            http.post(vifs, json={"id": "v"}, headers=old),
            http.delete(f"{vifs}/v", headers=old),
            http.put(vifs, json={"id": "v"}),
            http.get(f"{vifs}/v"),
            http.delete(vifs),
        ]
        after = scrape(http)  # type: ignore[arg-type]
    assert [r.status_code for r in answers] == [404] * 3 + [405] * 3, [r.text for r in answers]

    def moved(operation: str, result: str) -> float:
        return vif_count(after, operation, result) - vif_count(before, operation, result)

    for operation in ("list", "attach", "detach"):
        assert moved(operation, "RouteNotFound") == 1, operation
    assert moved("other", "MethodNotAllowed") == 3


@pytest.mark.server
def test_vif_changes_through_extra_vif_port_id_are_counted_as_attach_and_detach(
    server: MetalwireServer,
) -> None:
    """A port's or portgroup's extra/vif_port_id attaches and detaches VIFs through the
    node's network interface, but was never counted as a VIF operation."""
    headers = {"X-OpenStack-Ironic-API-Version": LATEST}
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    with httpx.Client(base_url=server.url, headers=headers, timeout=30) as http:
        node = http.post("/v1/nodes", json={"driver": "fake-hardware"}).json()["uuid"]
        interface = http.get(f"/v1/nodes/{node}").json()["network_interface"]
        before = scrape(http)  # type: ignore[arg-type]
        port = {"node_uuid": node, "address": mac(), "extra": {"vif_port_id": first}}
        created = http.post("/v1/ports", json=port)
        assert created.status_code == 201, created.text
        path = f"/v1/ports/{created.json()['uuid']}"
        replace = [{"op": "replace", "path": "/extra/vif_port_id", "value": second}]
        assert http.patch(path, json=replace).status_code == 200
        other = {"node_uuid": node, "address": mac(), "extra": {"vif_port_id": second}}
        refused = http.post("/v1/ports", json=other)  # the VIF is on the first port
        remove = [{"op": "remove", "path": "/extra/vif_port_id"}]
        assert http.patch(path, json=remove).status_code == 200
        assert http.get(f"/v1/nodes/{node}/vifs").json() == {"vifs": []}
        after = scrape(http)  # type: ignore[arg-type]
    assert refused.status_code == 409, refused.text

    def moved(operation: str, result: str) -> float:
        name = "metalwire_vif_operations_total"
        labels = {"operation": operation, "network_interface": interface, "result": result}
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("attach", "success") == 2  # the create, the replace
    assert moved("detach", "success") == 2  # the replace, the remove
    assert moved("attach", "VifAlreadyAttached") == 1


@pytest.mark.server
def test_each_vif_request_is_counted_once_and_a_retry_again_as_the_help_says(
    server: MetalwireServer,
) -> None:
    headers = {"X-OpenStack-Ironic-API-Version": LATEST}
    with httpx.Client(base_url=server.url, headers=headers, timeout=30) as http:
        node = http.post("/v1/nodes", json={"driver": "fake-hardware"}).json()["uuid"]
        port = {"node_uuid": node, "address": mac()}
        assert http.post("/v1/ports", json=port).status_code == 201
        vif = str(uuid.uuid4())
        assert http.post(f"/v1/nodes/{node}/vifs", json={"id": vif}).status_code == 204
        before = scrape(http)  # type: ignore[arg-type]
        detached = http.delete(f"/v1/nodes/{node}/vifs/{vif}")
        retried = http.delete(f"/v1/nodes/{node}/vifs/{vif}")  # a client sending it again
        response = http.get("/metrics")
        after = scrape(http)  # type: ignore[arg-type]
    assert (detached.status_code, retried.status_code) == (204, 400), retried.text
    assert vif_count(after, "detach", "success") - vif_count(before, "detach", "success") == 1
    not_attached = vif_count(after, "detach", "VifNotAttached")
    assert not_attached - vif_count(before, "detach", "VifNotAttached") == 1
    (family,) = [
        f
        for f in text_string_to_metric_families(response.text)
        if f.name == "metalwire_vif_operations"
    ]
    assert "each counted once" in family.documentation
    assert "a client's retry is another request" in family.documentation


def test_node_lock_waits_are_observed(api: Api) -> None:
    api.port(api.node(name="lock-metered"), "52:54:00:70:00:03")
    before = scrape(api.client)
    assert api.post("/v1/nodes/lock-metered/vifs", {"id": "lk-1"}).status_code == 204
    assert api.delete("/v1/nodes/lock-metered/vifs/lk-1").status_code == 204
    after = scrape(api.client)
    count = "metalwire_node_lock_wait_seconds_count"
    assert value(after, count) - value(before, count) == 2
    assert value(after, "metalwire_node_lock_wait_seconds_sum") >= value(
        before, "metalwire_node_lock_wait_seconds_sum"
    )


def test_the_latest_drift_audit_findings_are_gauges_per_kind(api: Api) -> None:
    from metalwire.conductor.audit import AuditReport, Finding

    samples = scrape(api.client)
    assert value(samples, "metalwire_audit_findings", kind="mac_mismatch") == 0
    assert value(samples, "metalwire_audit_last_run_timestamp_seconds") == 0
    finding = Finding("mac_mismatch", "n-1", None, "vif-1", "p-1", "aa", "bb", "MAC differs")
    api.client.app.state.services.audit.record(AuditReport([finding, finding], 1))  # type: ignore[attr-defined]
    samples = scrape(api.client)
    assert value(samples, "metalwire_audit_findings", kind="mac_mismatch") == 2
    assert value(samples, "metalwire_audit_findings", kind="orphan_port") == 0
    assert value(samples, "metalwire_audit_last_run_timestamp_seconds") > 0


def test_database_pool_gauges_are_read_at_scrape_time(api: Api) -> None:
    samples = scrape(api.client)
    db = api.client.app.state.services.db  # type: ignore[attr-defined]
    # SQLite has one pool; a database server one for writes and one for reads.
    pools = [{}] if db.is_sqlite else [{"pool": "write"}, {"pool": "read"}]
    for labels in pools:
        assert value(samples, "metalwire_db_pool_size", **labels) == 10  # [database] pool_size
        # The scrape itself holds no connection; whatever it reports is a count, not a guess.
        assert value(samples, "metalwire_db_pool_checkedout", **labels) >= 0
        assert ("metalwire_db_pool_checkedin", frozenset(labels.items())) in samples
    if not db.is_sqlite:
        db.dispose()  # every connection closed: the kept ones too, which a start may open
        assert value(scrape(api.client), "metalwire_db_pool_checkedin", pool="read") == 0
        api.client.get("/v1/nodes")  # a read: it takes its connection from the read pool
        assert value(scrape(api.client), "metalwire_db_pool_checkedin", pool="read") == 1


def test_a_request_refused_before_routing_is_counted_under_its_route(
    api: Api, client: TestClient
) -> None:
    before = scrape(client)
    bad_version = client.get("/v1/nodes/x1", headers={"X-OpenStack-Ironic-API-Version": "9.99"})
    assert bad_version.status_code == 406
    after = scrape(client)
    assert (
        requests(after, "/v1/nodes/{ident}", "GET", 406)
        - requests(before, "/v1/nodes/{ident}", "GET", 406)
        == 1
    )


# -- who may read them -------------------------------------------------------------------


@pytest.fixture
def basic_metrics(
    tmp_path: Path, migrated_template: Path, user_file: Path, request: pytest.FixtureRequest
) -> Iterator[TestClient]:
    public = getattr(request, "param", False)
    config = make_config(
        tmp_path,
        migrated_template,
        DEFAULT__auth_strategy="http_basic",
        DEFAULT__http_basic_auth_user_file=str(user_file),
        metrics__public=public,
    )
    yield from open_client(config)


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    path = tmp_path / "htpasswd"
    path.write_text(htpasswd_line("alice", "s3cret") + "\n")
    return path


def test_metrics_need_the_same_credentials_as_the_api(basic_metrics: TestClient) -> None:
    refused = basic_metrics.get("/metrics")
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == 'Basic realm="metalwire"'
    wrong = basic_metrics.get("/metrics", auth=("alice", "wrong"))
    assert wrong.status_code == 401
    samples = scrape(basic_metrics, auth=("alice", "s3cret"))
    # The refusals were counted too, under the endpoint's own route.
    assert requests(samples, "/metrics", "GET", 401) >= 2


@pytest.mark.parametrize("basic_metrics", [True], indirect=True)
def test_public_metrics_are_served_without_credentials_but_nothing_else_is(
    basic_metrics: TestClient,
) -> None:
    assert scrape(basic_metrics)  # no credentials
    assert basic_metrics.get("/v1/nodes").status_code == 401


def test_with_metrics_disabled_there_is_no_endpoint_and_nothing_is_counted(
    tmp_path: Path, migrated_template: Path
) -> None:
    config = make_config(tmp_path, migrated_template, metrics__enabled=False)
    labels = {"route": "/v1/nodes", "method": "POST", "status": "201"}
    for client in open_client(config):
        before = REGISTRY.get_sample_value("metalwire_http_requests_total", labels) or 0.0
        headers = {"X-OpenStack-Ironic-API-Version": LATEST}
        node = client.post("/v1/nodes", json={"driver": "fake-hardware"}, headers=headers)
        assert node.status_code == 201
        assert client.get("/metrics").status_code == 404
        after = REGISTRY.get_sample_value("metalwire_http_requests_total", labels) or 0.0
        assert after == before
