"""Version discovery and microversion negotiation through HTTP."""

from __future__ import annotations

import pytest

from metalwire.api_versions import MAX_MINOR
from tests.conftest import ABOVE_LATEST, LATEST, Api, fault, routing_error

VERSION_HEADERS = (
    "X-OpenStack-Ironic-API-Minimum-Version",
    "X-OpenStack-Ironic-API-Maximum-Version",
    "X-OpenStack-Ironic-API-Version",
    "OpenStack-API-Version",
)


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
    assert v1["version"] == LATEST
    assert v1["links"] == [{"href": "http://testserver/v1/", "rel": "self"}]


def test_v1_root_has_version_and_resource_links(api: Api) -> None:
    body = api.get("/v1/").json()
    assert body["version"]["version"] == LATEST
    assert body["nodes"][0]["href"] == "http://testserver/v1/nodes/"
    assert body["chassis"] == [
        {"href": "http://testserver/v1/chassis/", "rel": "self"},
        {"href": "http://testserver/chassis/", "rel": "bookmark"},
    ]
    assert "portgroups" in body
    assert "portgroups" not in api.get("/v1/", version="1.22").json()
    assert body["conductors"] == [
        {"href": "http://testserver/v1/conductors/", "rel": "self"},
        {"href": "http://testserver/conductors/", "rel": "bookmark"},
    ]
    assert "conductors" not in api.get("/v1/", version="1.48").json()


def test_every_answer_of_a_resource_carries_min_and_max_headers(api: Api) -> None:
    unknown_node = "/v1/nodes/2b9b7c1e-0c1e-4c1e-8c1e-0c1e0c1e0c1e"
    for resp in (api.client.get("/"), api.get("/v1/nodes"), api.get(unknown_node)):
        assert resp.headers["X-OpenStack-Ironic-API-Minimum-Version"] == "1.1"
        assert resp.headers["X-OpenStack-Ironic-API-Maximum-Version"] == LATEST


def test_no_header_means_version_1_1(api: Api) -> None:
    resp = api.client.get("/v1/nodes")
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.1"


@pytest.mark.parametrize("minor", range(1, MAX_MINOR + 1))
def test_every_version_up_to_max_is_accepted(api: Api, minor: int) -> None:
    resp = api.get("/v1/nodes", version=f"1.{minor}")
    assert resp.status_code == 200
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == f"1.{minor}"
    assert resp.headers["OpenStack-API-Version"] == f"baremetal 1.{minor}"


def test_latest_selects_the_maximum(api: Api) -> None:
    resp = api.get("/v1/nodes", version="latest")
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == LATEST


def test_generic_openstack_api_version_header(api: Api) -> None:
    resp = api.client.get("/v1/nodes", headers={"OpenStack-API-Version": "baremetal 1.50"})
    assert resp.status_code == 200
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.50"


@pytest.mark.parametrize("value", [ABOVE_LATEST, "1.0", "1.116"])
def test_minor_version_out_of_range_is_406_naming_the_range(api: Api, value: str) -> None:
    resp = api.get("/v1/nodes", version=value)
    assert resp.status_code == 406
    error = routing_error(resp)
    assert error["title"] == "Not Acceptable"
    assert f"Version {value} was requested" in error["description"]
    assert f"[1.1, {LATEST}]" in error["description"]
    assert resp.headers["X-OpenStack-Ironic-API-Minimum-Version"] == "1.1"
    assert resp.headers["X-OpenStack-Ironic-API-Maximum-Version"] == LATEST
    assert "X-OpenStack-Ironic-API-Version" not in resp.headers
    assert "OpenStack-API-Version" not in resp.headers


def test_another_major_version_is_406_naming_the_range(api: Api) -> None:
    resp = api.get("/v1/nodes", version="2.1")
    assert resp.status_code == 406
    error = routing_error(resp)
    assert "Version 2.1 was requested" in error["description"]
    assert "major version 1" in error["description"]
    assert resp.headers["X-OpenStack-Ironic-API-Maximum-Version"] == LATEST
    assert "X-OpenStack-Ironic-API-Version" not in resp.headers


@pytest.mark.parametrize("value", ["abc", "1.x", "1", "1.2.3", "v1.2", "baremetal 1.2"])
def test_malformed_version_is_406_without_version_headers(api: Api, value: str) -> None:
    resp = api.get("/v1/nodes", version=value)
    assert resp.status_code == 406
    error = routing_error(resp)
    assert error["description"] == (
        f"Invalid value for X-OpenStack-Ironic-API-Version header: {value!r}. "
        'Expected "1.N" or "latest".'
    )
    for header in VERSION_HEADERS:
        assert header not in resp.headers
    assert resp.headers["x-openstack-request-id"].startswith("req-")


def test_malformed_generic_header_is_406_naming_that_header(api: Api) -> None:
    resp = api.client.get("/v1/nodes", headers={"OpenStack-API-Version": "baremetal one"})
    assert resp.status_code == 406
    assert (
        "Invalid value for OpenStack-API-Version header: 'one'"
        in (routing_error(resp)["description"])
    )


def test_an_empty_version_header_means_the_minimum(api: Api) -> None:
    resp = api.client.get("/v1/nodes", headers={"X-OpenStack-Ironic-API-Version": ""})
    assert resp.status_code == 200
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.1"


def test_openstack_api_version_wins_over_the_ironic_header(api: Api) -> None:
    resp = api.client.get(
        "/v1/nodes",
        headers={
            "X-OpenStack-Ironic-API-Version": "1.30",
            "OpenStack-API-Version": "baremetal 1.50",
        },
    )
    assert resp.status_code == 200
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.50"


def test_openstack_api_version_for_another_service_leaves_the_ironic_header(api: Api) -> None:
    resp = api.client.get(
        "/v1/nodes",
        headers={"X-OpenStack-Ironic-API-Version": "1.30", "OpenStack-API-Version": "compute 2.1"},
    )
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.30"


def test_comma_folded_openstack_api_version_is_searched_for_baremetal(api: Api) -> None:
    resp = api.client.get(
        "/v1/nodes", headers={"OpenStack-API-Version": "compute 2.1, baremetal 1.50"}
    )
    assert resp.status_code == 200
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.50"


def test_openstack_api_version_on_several_lines_is_folded(api: Api) -> None:
    headers = [
        ("OpenStack-API-Version", "baremetal 1.40"),
        ("OpenStack-API-Version", "compute 2.1"),
    ]
    resp = api.client.get("/v1/nodes", headers=headers)
    assert resp.status_code == 200
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.40"


def test_unknown_path_is_404_in_the_routing_error_body(api: Api) -> None:
    for path in ("/v1/nowhere", "/nowhere", "/v1/nodes/some-node/nowhere"):
        resp = api.get(path)
        assert resp.status_code == 404, path
        error = routing_error(resp)
        assert error == {
            "code": 404,
            "title": "Not Found",
            "description": "The resource could not be found.",
        }
        for header in VERSION_HEADERS:
            assert header not in resp.headers, (path, header)


PG = "1be26c0b-03f2-4d2e-ae87-c02d7f33c124"
MISSING = "0e0e0e0e-1111-4222-8333-444444444444"
# Every resource served from a version, asked at the version before it, and how Ironic 39
# answers there: from its router (the routing error body, no version headers) or from the
# resource's handler, which exists at every version (the fault body, with them).
ROUTER, HANDLER = "router", "handler"
BELOW_THEIR_VERSION = [
    ("GET", "/v1/portgroups", "1.22", "1.23", HANDLER),
    ("GET", "/v1/portgroups/", "1.22", "1.23", HANDLER),
    ("GET", "/v1/portgroups/detail", "1.22", "1.23", HANDLER),
    ("GET", f"/v1/portgroups/{PG}", "1.22", "1.23", HANDLER),
    ("POST", "/v1/portgroups", "1.22", "1.23", HANDLER),
    ("PATCH", f"/v1/portgroups/{PG}", "1.22", "1.23", HANDLER),
    ("DELETE", f"/v1/portgroups/{PG}", "1.22", "1.23", HANDLER),
    ("GET", f"/v1/portgroups/{PG}/ports", "1.23", "1.24", ROUTER),
    ("GET", f"/v1/portgroups/{PG}/ports", "1.22", "1.24", ROUTER),
    ("GET", f"/v1/portgroups/{PG}/ports/detail", "1.23", "1.24", ROUTER),
    ("GET", "/v1/nodes/n1/portgroups", "1.23", "1.24", ROUTER),
    ("GET", "/v1/nodes/n1/portgroups/detail", "1.23", "1.24", ROUTER),
    ("GET", "/v1/nodes/n1/vifs", "1.27", "1.28", ROUTER),
    ("POST", "/v1/nodes/n1/vifs", "1.27", "1.28", ROUTER),
    ("DELETE", f"/v1/nodes/n1/vifs/{MISSING}", "1.27", "1.28", ROUTER),
    ("PUT", "/v1/nodes/n1/management/inject_nmi", "1.28", "1.29", HANDLER),
    ("GET", "/v1/volume", "1.31", "1.32", HANDLER),
    ("GET", "/v1/volume/", "1.31", "1.32", HANDLER),
    ("GET", "/v1/nodes/n1/volume", "1.31", "1.32", HANDLER),
    ("GET", "/v1/volume/connectors", "1.31", "1.32", ROUTER),
    ("POST", "/v1/volume/connectors", "1.31", "1.32", ROUTER),
    ("GET", f"/v1/volume/connectors/{MISSING}", "1.31", "1.32", ROUTER),
    ("PATCH", f"/v1/volume/targets/{MISSING}", "1.31", "1.32", ROUTER),
    ("DELETE", f"/v1/volume/targets/{MISSING}", "1.31", "1.32", ROUTER),
    ("GET", "/v1/nodes/n1/volume/connectors", "1.31", "1.32", ROUTER),
    ("GET", "/v1/nodes/n1/volume/targets", "1.31", "1.32", ROUTER),
    ("GET", "/v1/nodes/n1/history", "1.77", "1.78", ROUTER),
    ("GET", f"/v1/nodes/n1/history/{MISSING}", "1.77", "1.78", ROUTER),
    ("GET", "/v1/conductors", "1.48", "1.49", HANDLER),
    ("GET", "/v1/conductors/any-host", "1.48", "1.49", HANDLER),
    ("GET", "/v1/shards", "1.81", "1.82", HANDLER),
    ("GET", "/v1/nodes/n1/firmware", "1.85", "1.86", ROUTER),
    ("POST", "/v1/nodes/n1/vmedia", "1.88", "1.89", ROUTER),
    ("DELETE", "/v1/nodes/n1/vmedia", "1.88", "1.89", ROUTER),
    ("GET", "/v1/nodes/n1/vmedia", "1.92", "1.93", HANDLER),
    ("GET", "/v1/nodes/n1/vmedia", "1.88", "1.89", ROUTER),
    # Ironic 39 fails with a 500 here (an allowed difference of the differential tier)
    ("GET", "/v1/nodes/n1/children", "1.82", "1.83", ROUTER),
]
BODIES = {"POST": {"node_uuid": "n1"}, "PATCH": [{"op": "add", "path": "/extra/a", "value": 1}]}


@pytest.mark.parametrize(("method", "path", "version", "since", "answered_by"), BELOW_THEIR_VERSION)
def test_a_resource_below_its_version_is_404_in_the_body_ironic_answers_it_with(
    api: Api, method: str, path: str, version: str, since: str, answered_by: str
) -> None:
    node = api.node(name="n1")
    api.portgroup(node, uuid=PG)
    resp = api.client.request(
        method, path, headers=api.headers(version), json=BODIES.get(method, {})
    )
    assert resp.status_code == 404, resp.text
    why = f"The resource could not be found at API version {version}; it exists from {since}."
    if answered_by == ROUTER:
        assert routing_error(resp)["description"] == why
        assert not [header for header in VERSION_HEADERS if header in resp.headers]
    else:
        assert fault(resp) == why
        assert resp.headers["X-OpenStack-Ironic-API-Version"] == version
    assert api.get(f"/v1/portgroups/{PG}").status_code == 200  # nothing was changed


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/v1/nodes", "GET, POST"),
        ("DELETE", "/v1/nodes", "GET, POST"),
        ("PUT", "/v1/nodes/n1", "DELETE, GET, PATCH"),
        ("POST", "/v1/nodes/n1/maintenance", "DELETE, PUT"),
        ("PUT", "/v1/nodes/n1/vifs", "GET, POST"),
        ("DELETE", "/v1/nodes/n1/vifs", "GET, POST"),
        ("GET", "/v1/nodes/n1/vifs/v1", "DELETE"),
    ],
)
def test_wrong_method_is_405_with_every_method_of_the_path(
    api: Api, method: str, path: str, allow: str
) -> None:
    resp = api.client.request(method, path, headers=api.headers())
    assert resp.status_code == 405
    assert resp.headers["Allow"] == allow
    error = routing_error(resp)
    assert error["title"] == "Method Not Allowed"
    assert error["description"] == (
        f"The method {method} is not allowed for this resource; it allows {allow}."
    )
    for header in VERSION_HEADERS:
        assert header not in resp.headers


def test_an_object_error_keeps_the_faultstring_body_and_version_headers(api: Api) -> None:
    resp = api.get("/v1/nodes/no-such-node")
    assert resp.status_code == 404
    assert fault(resp) == "Node no-such-node could not be found."
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == LATEST


def test_request_id_header_on_every_response(api: Api) -> None:
    resp = api.get("/v1/nodes")
    assert resp.headers["x-openstack-request-id"].startswith("req-")


# Below 1.37 Ironic 39 routes /v1/nodes/{node}/traits as the node's own path: a GET is 406, a
# PUT 405 (routing body), a DELETE 404 (fault body); from 1.37 the traits are served.
@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/v1/nodes/n1/traits", 406),
        ("PUT", "/v1/nodes/n1/traits", 405),
        ("PUT", "/v1/nodes/n1/traits/CUSTOM_A", 405),
        ("DELETE", "/v1/nodes/n1/traits", 404),
        ("DELETE", "/v1/nodes/n1/traits/CUSTOM_A", 404),
    ],
)
def test_traits_below_1_37_are_answered_as_ironic_does(
    api: Api, method: str, path: str, status: int
) -> None:
    api.node(name="n1")
    body = {"traits": ["CUSTOM_A"]} if path.endswith("/traits") and method == "PUT" else None
    resp = api.client.request(method, path, headers=api.headers("1.36"), json=body)
    assert resp.status_code == status, resp.text
    if status == 405:
        assert routing_error(resp)["code"] == 405
    else:
        assert fault(resp) in (
            "Request not acceptable. /v1/nodes/{node}/traits requires API version 1.37 or later; "
            "the request used 1.36.",
            "Resource could not be found.",
        )
    assert api.get("/v1/nodes/n1/traits", version="1.37").status_code == 200


def test_fields_below_1_8_is_406(api: Api) -> None:
    resp = api.get("/v1/nodes?fields=uuid", version="1.7")
    assert resp.status_code == 406
    assert fault(resp) == (
        "Request not acceptable. The fields query parameter requires API version 1.8 or later; "
        "the request used 1.7."
    )
    assert api.get("/v1/nodes?fields=uuid", version="1.8").status_code == 200
