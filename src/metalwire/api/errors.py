"""The one place where errors become HTTP responses, in Ironic's error body.

``{"error_message": "<JSON text of {faultcode, faultstring, debuginfo}>"}``: Ironic's clients
parse the inner JSON text to show the message. No traceback ever reaches a client.
"""

from __future__ import annotations

import json
import logging

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException

from metalwire.errors import MetalwireError

LOG = logging.getLogger(__name__)


def fault_body(status: int, message: str) -> bytes:
    """The error body Ironic's clients parse, as bytes."""
    fault = {
        "faultcode": "Client" if status < 500 else "Server",
        "faultstring": message,
        "debuginfo": None,
    }
    return json.dumps({"error_message": json.dumps(fault)}).encode()


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return Response(
        fault_body(status, message),
        status_code=status,
        headers=headers,
        media_type="application/json",
    )


def _request_id(request: Request) -> str:
    return str(getattr(request.state, "request_id", "-"))


def client_message(exc: MetalwireError, request_id: str, method: str, path: str) -> str:
    """What the client is told about a catalog error; server-side failures are logged."""
    if exc.code >= 500:
        LOG.error("%s %s failed [%s]: %s", method, path, request_id, exc)
    if exc.safe:
        return exc.message
    return f"An internal error occurred; request id {request_id}."


async def on_metalwire_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, MetalwireError)
    message = client_message(exc, _request_id(request), request.method, request.url.path)
    return error_response(exc.code, message)


_HTTP_MESSAGES = {
    404: "The resource could not be found.",
    405: "The method {method} is not allowed for this resource.",
}


def method_not_allowed(method: str) -> str:
    return _HTTP_MESSAGES[405].format(method=method)


async def on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    template = _HTTP_MESSAGES.get(exc.status_code)
    message = template.format(method=request.method) if template else str(exc.detail)
    return error_response(exc.status_code, message, dict(exc.headers or {}))


async def on_validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err.get('loc', ()))}: {err.get('msg')}" for err in exc.errors()
    )
    return error_response(400, f"Invalid request: {problems}")


async def on_unexpected_error(request: Request, exc: Exception) -> Response:
    LOG.exception(
        "Unexpected error in %s %s [%s]", request.method, request.url.path, _request_id(request)
    )
    return error_response(500, f"An internal error occurred; request id {_request_id(request)}.")
