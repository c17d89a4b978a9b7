"""The OpenAPI paths come from the routes' own declarations (api/route_docs.py)."""

from __future__ import annotations

import pytest
from fastapi import APIRouter, Request, Response

from metalwire.api import route_docs
from metalwire.api.openapi_operations import WRITE, query
from metalwire.api.route_docs import FIELDS, Door, UndocumentedRoute, doc, lists, paths, ref
from metalwire.api.route_table import api_routes


def _router() -> APIRouter:
    return APIRouter(prefix="/v1/nodes")


def test_a_route_registered_without_documentation_is_refused() -> None:
    router = _router()

    @router.get("/{ident}/secret")
    def secret(request: Request, ident: str) -> dict[str, str]:
        return {}

    with pytest.raises(UndocumentedRoute, match=r"GET /v1/nodes/\{ident\}/secret"):
        paths(router.routes)


def test_every_route_of_the_application_is_documented() -> None:
    paths(api_routes(), ())  # raises for the first undocumented one


def test_a_door_without_documentation_is_refused() -> None:
    with pytest.raises(UndocumentedRoute, match="DELETE /v1/nodes"):
        paths((), [Door("DELETE", "/v1/nodes/{ident}/vifs/{vif}", 204, {})])


def test_a_path_parameter_nobody_described_is_refused() -> None:
    router = _router()

    @router.get("/{ident}/gizmos/{gizmo}", openapi_extra=doc("g", "G.", "nodes", ok="G."))
    def gizmo(request: Request, ident: str, gizmo: str) -> dict[str, str]:
        return {}

    with pytest.raises(UndocumentedRoute, match="'gizmo' has no description"):
        paths(router.routes)


def test_two_declarations_of_one_operation_are_refused() -> None:
    router = _router()
    declared = doc("getNode", "Show a node.", "nodes", ok="The node.")

    @router.get("/{ident}", openapi_extra=declared)
    def one(request: Request, ident: str) -> dict[str, str]:
        return {}

    @router.get("/{ident}", openapi_extra=declared)
    def two(request: Request, ident: str) -> dict[str, str]:
        return {}

    with pytest.raises(UndocumentedRoute, match="registered twice"):
        paths(router.routes)


def test_the_operation_says_what_the_declaration_and_the_route_say() -> None:
    router = _router()
    color = query("color", {"type": "string"}, "Only gizmos of this color.")

    @router.put(
        "/{ident}/gizmo",
        status_code=202,
        openapi_extra=doc(
            "setGizmo",
            "Set a node's gizmo; the fake hardware has none.",
            "nodes",
            ok="Accepted.",
            errors=WRITE,
            query=(color,),
            body={"type": "object"},
            body_required=False,
            since=99,
        ),
    )
    def set_gizmo(request: Request, ident: str) -> Response:
        return Response(status_code=202)

    operation = paths(router.routes)["/v1/nodes/{ident}/gizmo"]["put"]
    assert operation["operationId"] == "setGizmo"
    assert operation["summary"] == "Set a node's gizmo (1.99); the fake hardware has none."
    assert operation["tags"] == ["nodes"]
    names = [p.get("name") or p["$ref"].rsplit("/", 1)[-1] for p in operation["parameters"]]
    assert names == ["IronicApiVersion", "OpenStackApiVersion", "ident", "color"]
    assert operation["parameters"][2]["in"] == "path"
    assert operation["parameters"][2]["description"] == "The node's UUID or name."
    # The success status is the route's own status_code; the errors the declared ones.
    assert set(operation["responses"]) == {"202", *(str(code) for code in WRITE)}
    assert operation["responses"]["202"]["description"] == "Accepted."
    assert "content" not in operation["responses"]["202"]
    assert operation["requestBody"] == {
        "required": False,
        "content": {"application/json": {"schema": {"type": "object"}}},
    }


def test_a_list_has_a_detail_twin_and_a_trailing_slash_twin() -> None:
    router = _router()
    plain, detail = lists("listGizmos", "gizmos", "nodes", "NodeList", (FIELDS,))

    @router.get("", openapi_extra=plain)
    @router.get("/", openapi_extra=plain)
    def list_gizmos(request: Request) -> dict[str, str]:
        return {}

    @router.get("/detail", openapi_extra=detail)
    def list_gizmos_detail(request: Request) -> dict[str, str]:
        return {}

    found = paths(router.routes)
    assert found["/v1/nodes"]["get"]["operationId"] == "listGizmos"
    assert found["/v1/nodes/"]["get"]["operationId"] == "listGizmosSlash"
    assert found["/v1/nodes/detail"]["get"]["operationId"] == "listGizmosDetail"
    assert found["/v1/nodes/detail"]["get"]["summary"] == "List gizmos with every field."
    body = found["/v1/nodes"]["get"]["responses"]["200"]["content"]["application/json"]
    assert body["schema"] == ref("NodeList")
    names = [p.get("name") for p in found["/v1/nodes"]["get"]["parameters"]]
    assert names[-2:] == ["fields", "detail"]
    assert "detail" not in [p.get("name") for p in found["/v1/nodes/detail"]["get"]["parameters"]]


def test_the_summary_names_the_first_version_before_the_first_clause_ends() -> None:
    declared = doc("x", "A node's history.", "nodes", ok="x", since=78)[route_docs.KEY]
    assert declared.summary_text() == "A node's history (1.78)."
    undated = doc("x", "A node's history.", "nodes", ok="x")[route_docs.KEY]
    assert undated.summary_text() == "A node's history."
