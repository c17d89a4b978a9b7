"""Version discovery and microversion negotiation through HTTP."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Api, fault


@pytest.fixture
def database() -> str:
    """Version handling never reaches the database: SQLite alone is enough here."""
    return "sqlite"


def test_root_lists_v1_with_version_range(api: Api) -> None:
    resp = api.client.get("/")
    assert resp.status_code == 200
    body = resp.json()
    assert body["default_version"]["id"] == "v1"
    (v1,) = body["versions"]
    assert v1["status"] == "CURRENT"
    assert v1["min_version"] == "1.1"
    assert v1["version"] == "1.78"
    assert v1["links"] == [{"href": "http://testserver/v1/", "rel": "self"}]


def test_v1_root_has_version_and_resource_links(api: Api) -> None:
    body = api.get("/v1/").json()
    assert body["version"]["version"] == "1.78"
    assert body["nodes"][0]["href"] == "http://testserver/v1/nodes/"
    assert "portgroups" in body
    assert "portgroups" not in api.get("/v1/", version="1.22").json()


def test_every_response_carries_min_and_max_headers(api: Api) -> None:
    for resp in (api.client.get("/"), api.get("/v1/nodes"), api.get("/v1/nowhere")):
        assert resp.headers["X-OpenStack-Ironic-API-Minimum-Version"] == "1.1"
        assert resp.headers["X-OpenStack-Ironic-API-Maximum-Version"] == "1.78"


def test_no_header_means_version_1_1(api: Api) -> None:
    resp = api.client.get("/v1/nodes")
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.1"


@pytest.mark.parametrize("minor", range(1, 79))
def test_every_version_up_to_max_is_accepted(api: Api, minor: int) -> None:
    resp = api.get("/v1/nodes", version=f"1.{minor}")
    assert resp.status_code == 200
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == f"1.{minor}"
    assert resp.headers["OpenStack-API-Version"] == f"baremetal 1.{minor}"


def test_latest_selects_the_maximum(api: Api) -> None:
    resp = api.get("/v1/nodes", version="latest")
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.78"


def test_generic_openstack_api_version_header(api: Api) -> None:
    resp = api.client.get("/v1/nodes", headers={"OpenStack-API-Version": "baremetal 1.50"})
    assert resp.status_code == 200
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.50"


@pytest.mark.parametrize("value", ["1.79", "1.0", "2.1", "abc", "1.x", ""])
def test_out_of_range_or_malformed_version_is_406(api: Api, value: str) -> None:
    resp = (
        api.get("/v1/nodes", version=value)
        if value
        else api.client.get("/v1/nodes", headers={"X-OpenStack-Ironic-API-Version": ""})
    )
    assert resp.status_code == 406
    assert resp.headers["content-type"] == "application/json"
    body = json.loads(resp.json()["error_message"])
    assert body["faultcode"] == "Client"
    assert body["debuginfo"] is None
    assert ("1.1" in body["faultstring"] and "1.78" in body["faultstring"]) or (
        "Invalid value" in body["faultstring"]
    )


def test_unknown_route_is_404_in_ironic_error_body(api: Api) -> None:
    resp = api.get("/v1/nowhere")
    assert resp.status_code == 404
    assert fault(resp) == "The resource could not be found."


def test_wrong_method_is_405_in_ironic_error_body(api: Api) -> None:
    resp = api.client.put("/v1/nodes", headers=api.headers())
    assert resp.status_code == 405
    assert "PUT" in fault(resp)


def test_request_id_header_on_every_response(api: Api) -> None:
    resp = api.get("/v1/nodes")
    assert resp.headers["x-openstack-request-id"].startswith("req-")
