"""The OpenAPI document: served at /openapi.json, committed, and describing every route."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from schemathesis.specs.openapi.definitions import OPENAPI_31

from metalwire.api.routes.vifs import DOORS, vif_route
from tests.conftest import Api

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "api-ref" / "openapi.json"


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def test_served_document_is_the_committed_one(client: TestClient) -> None:
    resp = client.get("/openapi.json")
    assert resp.status_code == 200
    assert resp.headers["content-type"] == "application/json"
    assert resp.content == COMMITTED.read_bytes(), (
        "docs/api-ref/openapi.json is stale: regenerate it with "
        "`python -m metalwire.api.openapi docs/api-ref/openapi.json`"
    )


def test_document_is_valid_openapi_3_1(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    assert document["openapi"].startswith("3.1.")
    jsonschema.Draft202012Validator(OPENAPI_31).validate(document)


def test_every_route_is_described(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    described = {
        (method.upper(), _shape(path))
        for path, item in document["paths"].items()
        for method in item
    }
    app = client.app
    assert hasattr(app, "routes")
    served = {
        (method, _shape(route.path))
        for route in app.routes
        if isinstance(route, APIRoute)
        for method in route.methods
    }
    served |= {(door.method, _shape(door.path)) for door in DOORS}
    assert served - described == set(), "routes missing from the document"
    assert described - served == set(), "the document describes routes nobody serves"


def test_every_operation_documents_the_version_headers_and_both_error_forms(
    client: TestClient,
) -> None:
    document = client.get("/openapi.json").json()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            names = {p["$ref"].rsplit("/", 1)[-1] for p in operation["parameters"] if "$ref" in p}
            assert {"IronicApiVersion", "OpenStackApiVersion"} <= names, (method, path)
            assert "406" in operation["responses"], (method, path)
    error = document["components"]["schemas"]["Error"]["properties"]["error_message"]
    validator = jsonschema.Draft202012Validator(error)
    fault = {"faultcode": "Client", "faultstring": "Node x could not be found.", "debuginfo": None}
    routing = {"code": 404, "title": "Not Found", "description": "The resource could not be found."}
    for inner in (fault, routing):
        validator.validate(json.dumps(inner))
        validator.validate(inner)


def test_the_vif_doors_are_the_paths_vif_endpoints_answers() -> None:
    for door in DOORS:
        concrete = door.path.replace("{ident}", "node-1").replace("{vif}", "vif-1")
        assert vif_route(concrete) == door.path
    assert {door.method for door in DOORS} == {"GET", "POST", "DELETE"}


def test_port_create_schema_takes_every_switch_id_the_api_takes(client: TestClient) -> None:
    """A MAC address and an OpenFlow datapath ID on any node, and a switch name (accepted on
    an ironic-networking node) fit the document's local_link_connection; a network_type
    the API refuses does not."""
    api = Api(client)
    document = client.get("/openapi.json").json()
    link = document["components"]["schemas"]["PortCreate"]["properties"]["local_link_connection"]
    validator = jsonschema.Draft202012Validator(link)
    node = api.node()
    for n, switch_id in enumerate(("AA:bb:cc:dd:ee:0f", "aa-bb-cc-dd-ee-0f", "00000A0B0C0D0E0F")):
        value = {"switch_id": switch_id, "port_id": "Ethernet1/1"}
        resp = api.post(
            "/v1/ports",
            {
                "node_uuid": node["uuid"],
                "address": f"52:54:00:00:0a:{n:02x}",
                **{"local_link_connection": value},
            },
        )
        assert resp.status_code == 201, resp.text
        validator.validate(value)
    validator.validate({"switch_id": "leaf-1", "port_id": "Ethernet1/1"})
    assert not validator.is_valid({"switch_id": "leaf-1", "network_type": "bogus"})


def _conforms(document: dict[str, Any], schema: str, value: Any) -> None:
    """``value`` fits ``#/components/schemas/<schema>`` of ``document``."""
    jsonschema.Draft202012Validator(
        {**document, "$ref": f"#/components/schemas/{schema}"}
    ).validate(value)


def test_detailed_history_entries_fit_the_document_at_every_version(client: TestClient) -> None:
    """A detailed entry shows its project from 1.113 and its states and duration from 1.115,
    as Ironic 39's do: the document describes them."""
    api = Api(client)
    document = client.get("/openapi.json").json()
    node = api.node()["uuid"]
    assert api.put(f"/v1/nodes/{node}/states/provision", {"target": "manage"}).status_code == 202
    for version in ("1.78", "1.113", "1.115"):
        entries = api.get(f"/v1/nodes/{node}/history?detail=true", version=version).json()
        assert entries["history"], version
        for entry in entries["history"]:
            _conforms(document, "HistoryEntry", entry)
            one = api.get(f"/v1/nodes/{node}/history/{entry['uuid']}", version=version)
            _conforms(document, "HistoryEntry", one.json())
    assert {"project", "state", "target_provision_state", "duration_seconds"} <= set(entry)
