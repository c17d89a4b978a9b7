"""The one place where errors become HTTP responses, in Ironic's two error bodies.

Both wrap a JSON text in ``{"error_message": "<JSON text>"}``, which Ironic's clients parse:

- an object's error (a catalog error raised by a handler): ``{"faultcode", "faultstring",
  "debuginfo"}``, as Ironic's API methods answer;
- a routing error (``routing`` in the catalog: no such path, method or microversion):
  ``{"code", "title", "description"}``, as Ironic's router answers. Such answers carry no
  version headers, except a 406 for a well-formed version outside the served range, which
  names the range.

No traceback ever reaches a client. :func:`render` builds every error answer; the ASGI
components send it with :func:`send_error`, the FastAPI handlers with :func:`error_response`.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import Send

from metalwire.api import not_served
from metalwire.errors import (
    DatabaseFailure,
    Invalid,
    MetalwireError,
    MethodNotAllowed,
    RouteNotFound,
    VersionNotAcceptable,
)
from metalwire.logsafe import printable

LOG = logging.getLogger(__name__)

# The request-state key by which an error answer tells the middleware to add no version headers.
NO_VERSION_HEADERS = "no_version_headers"


@dataclass(frozen=True)
class ErrorAnswer:
    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...]  # besides the content type and length
    version_headers: bool


def fault_body(status: int, message: str) -> bytes:
    """The error body of an object's error, as bytes."""
    fault = {
        "faultcode": "Client" if status < 500 else "Server",
        "faultstring": message,
        "debuginfo": None,
    }
    return json.dumps({"error_message": json.dumps(fault)}).encode()


def routing_body(status: int, description: str) -> bytes:
    """The error body of a routing error, as bytes."""
    error = {"code": status, "title": HTTPStatus(status).phrase, "description": description}
    return json.dumps({"error_message": json.dumps(error)}).encode()


def client_message(exc: MetalwireError, request_id: str, method: str, path: str) -> str:
    """What the client is told about a catalog error; server-side failures are logged."""
    if exc.code >= 500 and not isinstance(exc, DatabaseFailure):  # logged where detected
        LOG.error("%s %s failed [%s]: %s", method, printable(path), request_id, exc)
    if exc.safe:
        return exc.message
    return f"An internal error occurred; request id {request_id}."


def render(exc: MetalwireError, request_id: str, method: str, path: str) -> ErrorAnswer:
    """The answer to a catalog error: status, body, headers, and whether version headers go."""
    message = client_message(exc, request_id, method, path)
    if not exc.routing:
        retry = getattr(exc, "retry_after", None)
        headers = (("retry-after", str(retry)),) if retry is not None else ()
        return ErrorAnswer(exc.code, fault_body(exc.code, message), headers, version_headers=True)
    headers = (("allow", ", ".join(exc.allowed)),) if isinstance(exc, MethodNotAllowed) else ()
    names_range = isinstance(exc, VersionNotAcceptable) and exc.names_range
    return ErrorAnswer(exc.code, routing_body(exc.code, message), headers, names_range)


async def send_error(send: Send, answer: ErrorAnswer, state: dict[str, Any]) -> None:
    """Send an error answer from a plain ASGI component."""
    if not answer.version_headers:
        state[NO_VERSION_HEADERS] = True
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", b"%d" % len(answer.body)),
        *((k.encode(), v.encode()) for k, v in answer.headers),
    ]
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": answer.body})


def error_response(request: Request, exc: MetalwireError) -> Response:
    """An error answer as a response of a FastAPI handler."""
    answer = render(exc, _request_id(request), request.method, request.url.path)
    if not answer.version_headers:
        setattr(request.state, NO_VERSION_HEADERS, True)
    return Response(
        answer.body,
        status_code=answer.status,
        headers=dict(answer.headers),
        media_type="application/json",
    )


def _request_id(request: Request) -> str:
    return str(getattr(request.state, "request_id", "-"))


async def on_metalwire_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, MetalwireError)
    return error_response(request, exc)


def allowed_methods(request: Request) -> list[str]:
    """Every method the routes at this path take (HEAD is implied by GET), sorted."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        if match is not Match.NONE:
            methods |= getattr(route, "methods", None) or set()
    methods.discard("HEAD")
    return sorted(methods)


# A path below a node's states or management that no route answers.
_NODE_ACTION = re.compile(r"/v1/nodes/[^/]+/(states|management)/([^/]+)")


class _HttpError(MetalwireError):
    safe = True

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.code = status


async def on_http_error(request: Request, exc: Exception) -> Response:
    """The router's 404 and 405 (with every method of the path), and any other HTTP error."""
    assert isinstance(exc, HTTPException)
    error: MetalwireError
    if exc.status_code == 404:
        path = request.url.path
        action = _NODE_ACTION.fullmatch(path)
        if action is not None:  # Ironic's router: a 405 below a node's states or management
            error = MethodNotAllowed(
                request.method,
                (),
                f"There is no {action[2]!r} below a node's {action[1]}: no method is allowed "
                "at this path.",
            )
        else:
            why = not_served.message_for(path)
            error = RouteNotFound(why or "The resource could not be found.")
    elif exc.status_code == 405:
        error = MethodNotAllowed(request.method, allowed_methods(request))
    else:
        error = _HttpError(exc.status_code, str(exc.detail))
    return error_response(request, error)


async def on_validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err.get('loc', ()))}: {err.get('msg')}" for err in exc.errors()
    )
    return error_response(request, Invalid(f"Invalid request: {problems}"))
