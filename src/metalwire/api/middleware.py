"""The request pipeline every request goes through, the VIF endpoints' fast door included.

Per request, once: the microversion (406 if not served), the request id, the request context
(``RequestContext`` in the request state: the request id; the auth layer behind this one
puts in the user and project its strategy verified, never a client's headers), the
body-size limit (``[api] max_request_body_size``: 413 before the body is read when
``Content-Length`` says so, or as soon as a streamed body grows past it), the version headers
of the response, one access log line and a 500 for anything unexpected. Errors are rendered by
:func:`metalwire.api.errors.render`, whoever raises them.

Also the two things every route shares: a NUL character in the URL (which PostgreSQL cannot
compare) is a 400 before any route runs, and ``HEAD`` is answered as ``GET`` without a body.
"""

from __future__ import annotations

import functools
import logging
import time
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from metalwire.api import errors
from metalwire.api import microversion as mv
from metalwire.context import IDENTITY_SCOPE_KEY, RequestContext, new_request_id
from metalwire.errors import InvalidParameterValue, MetalwireError, RequestTooLarge

LOG = logging.getLogger("metalwire.api.access")
REQUEST_ID_HEADER = "x-openstack-request-id"
# Ironic's own older name of the same header, which it still sends beside it (1.107 names the
# X- one in the version list; neither depends on the request's version).
COMPAT_REQUEST_ID_HEADER = "openstack-request-id"
# Ironic's (oslo.middleware's) default limit.
DEFAULT_MAX_BODY_SIZE = 114_688


_IRONIC_KEY = mv.IRONIC_HEADER.lower().encode()
_GENERIC_KEY = mv.GENERIC_HEADER.lower().encode()
_REQUEST_ID_KEY = REQUEST_ID_HEADER.encode()
_COMPAT_REQUEST_ID_KEY = COMPAT_REQUEST_ID_HEADER.encode()


@functools.cache
def _version_headers(version: mv.Version | None) -> tuple[tuple[bytes, bytes], ...]:
    """The raw version headers of a response, built once per version."""
    return tuple((k.lower().encode(), v.encode()) for k, v in mv.response_headers(version).items())


def _folded(earlier: str | None, value: bytes) -> str:
    """A header's value, several lines of it joined with commas."""
    text = value.decode("latin-1")
    return text if earlier is None else f"{earlier},{text}"


def too_large(limit: int, size: int | None = None) -> RequestTooLarge:
    body = "The request body" if size is None else f"The request body of {size} bytes"
    return RequestTooLarge(
        f"{body} is larger than the {limit} bytes accepted ([api] max_request_body_size)."
    )


def limited(receive: Receive, limit: int) -> Receive:
    """``receive``, raising RequestTooLarge (413) once the body read so far passes ``limit``."""
    received = 0

    async def receive_within_limit() -> Message:
        nonlocal received
        message = await receive()
        received += len(message.get("body", b""))
        if received > limit:
            raise too_large(limit)
        return message

    return receive_within_limit


class ApiMiddleware:
    """Pure ASGI, so it adds no task switch per request."""

    def __init__(self, app: ASGIApp, max_body_size: int = DEFAULT_MAX_BODY_SIZE) -> None:
        self.app = app
        self.max_body_size = max_body_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = new_request_id()
        method = scope["method"]
        head = method == "HEAD"
        if head:
            scope = {**scope, "method": "GET"}
        ironic_header: str | None = None
        generic_header: str | None = None
        length: bytes | None = None
        for key, value in scope["headers"]:  # ASGI servers give header names in lower case
            if key == b"content-length":
                length = value
            elif key == _IRONIC_KEY:
                ironic_header = _folded(ironic_header, value)
            elif key == _GENERIC_KEY:
                generic_header = _folded(generic_header, value)
        version: mv.Version | None = None
        status = 500
        response_started = False
        state: dict[str, Any] = scope.setdefault("state", {})
        state["request_id"] = request_id

        async def send_with_headers(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                raw = [
                    (_REQUEST_ID_KEY, request_id.encode()),
                    (_COMPAT_REQUEST_ID_KEY, request_id.encode()),
                ]
                if not state.get(errors.NO_VERSION_HEADERS):
                    raw += _version_headers(version)
                message = {**message, "headers": [*message.get("headers", []), *raw]}
            elif head and message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        try:
            try:
                version = mv.from_headers(ironic_header, generic_header)
                state["api_version"] = version
                check_url(scope)
                # Who asked is not known yet: the auth layer puts the verified identity in.
                state["context"] = RequestContext(request_id=request_id)
                if length is not None and length.isdigit():
                    if int(length) > self.max_body_size:
                        raise too_large(self.max_body_size, int(length))
                else:  # a streamed body: counted as it comes
                    receive = limited(receive, self.max_body_size)
            except MetalwireError as exc:
                answer = errors.render(exc, request_id, method, scope["path"])
                await errors.send_error(send_with_headers, answer, state)
                return
            await self.app(scope, receive, send_with_headers)
        except Exception:
            LOG.exception("Unhandled error [%s]", request_id)
            if not response_started:
                answer = errors.render(
                    MetalwireError("unhandled error"), request_id, method, scope["path"]
                )
                await errors.send_error(send_with_headers, answer, state)
        finally:
            path = scope.get("path", "")
            query = scope.get("query_string", b"").decode("latin-1")
            who = scope.get(IDENTITY_SCOPE_KEY)  # set by the auth layer once it verified it
            LOG.info(
                "%s %s%s %s %.1fms v%s [%s] user %s project %s",
                method,
                path,
                f"?{query}" if query else "",
                status,
                (time.perf_counter() - started) * 1000,
                version or "-",
                request_id,
                getattr(who, "user_id", None) or "-",
                getattr(who, "project_id", None) or "-",
            )


def check_url(scope: Scope) -> None:
    """Refuse a NUL character in the path or a query parameter (400 naming where)."""
    if "\x00" in scope["path"]:
        raise InvalidParameterValue(
            f"Invalid URL path {scope['path']!r}: it contains a NUL character."
        )
    query: bytes = scope.get("query_string", b"")
    if b"%00" not in query and b"\x00" not in query:
        return
    for key, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if "\x00" in key or "\x00" in value:
            raise InvalidParameterValue(
                f"Invalid query parameter {key!r}: it contains a NUL character."
            )
