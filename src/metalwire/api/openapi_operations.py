"""The building blocks of the OpenAPI document's operations, shared by its modules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metalwire.api import openapi_schemas as s

Schema = dict[str, Any]

READ = (400, 404, 406)
# A list may also be refused: by the policy, or (ports) for filters Ironic will not combine.
LIST = (400, 403, 404, 406)
WRITE = (400, 403, 404, 406, 409, 503)
VIF_CALL = (400, 404, 406, 409, 413, 502, 503)


def json_content(schema: Schema) -> Schema:
    return {"application/json": {"schema": schema}}


def query(name: str, schema: Schema, description: str) -> Schema:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": schema,
        "description": description,
    }


def path_param(name: str, description: str) -> Schema:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "schema": {"type": "string"},
        "description": description,
    }


def responses(
    status: int,
    description: str,
    body: Schema | None,
    errors: Sequence[int],
    headers: Schema | None = None,
    links: Schema | None = None,
) -> Schema:
    ok: Schema = {"description": description, "headers": {**s.version_headers(), **(headers or {})}}
    if body is not None:
        ok["content"] = json_content(body)
    if links:
        ok["links"] = links
    out: Schema = {str(status): ok}
    for code in errors:
        out[str(code)] = s.ref("responses", f"Error{code}")
    return out


def operation(
    op_id: str,
    summary: str,
    tag: str,
    responses: Schema,
    parameters: Sequence[Schema] = (),
    body: Schema | None = None,
    body_required: bool = True,
) -> Schema:
    op: Schema = {
        "operationId": op_id,
        "summary": summary,
        "tags": [tag],
        "parameters": [
            s.ref("parameters", "IronicApiVersion"),
            s.ref("parameters", "OpenStackApiVersion"),
            *parameters,
        ],
        "responses": responses,
    }
    if body is not None:
        op["requestBody"] = {"required": body_required, "content": json_content(body)}
    return op


def paging(sortable: set[str], marker: str = "UUID") -> list[Schema]:
    """The paging parameters; the marker names an object by ``marker`` (its UUID)."""
    keys = sorted(sortable)
    return [
        query("limit", {"type": "integer", "minimum": 1}, "Page size, at most [api] max_limit."),
        query("marker", {"type": "string"}, f"{marker} of the last object of the previous page."),
        query(
            "sort_key",
            {"anyOf": [{"enum": keys}, {"type": "string"}]},
            f"One of {', '.join(keys)}.",
        ),
        query("sort_dir", {"enum": ["asc", "desc"]}, "Sort direction."),
    ]
