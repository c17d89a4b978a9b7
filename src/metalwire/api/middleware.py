"""Per-request plumbing: microversion, request id, version headers, one log line, 500s.

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

from metalwire.api import microversion as mv
from metalwire.api.errors import fault_body
from metalwire.context import IDENTITY_SCOPE_KEY, new_request_id
from metalwire.errors import InvalidParameterValue, NotAcceptable

LOG = logging.getLogger("metalwire.api.access")
REQUEST_ID_HEADER = "x-openstack-request-id"


_IRONIC_KEY = mv.IRONIC_HEADER.lower().encode()
_GENERIC_KEY = mv.GENERIC_HEADER.lower().encode()
_REQUEST_ID_KEY = REQUEST_ID_HEADER.encode()


@functools.cache
def _version_headers(version: mv.Version | None) -> tuple[tuple[bytes, bytes], ...]:
    """The raw version headers of a response, built once per version."""
    return tuple((k.lower().encode(), v.encode()) for k, v in mv.response_headers(version).items())


class ApiMiddleware:
    """Pure ASGI, so it adds no task switch per request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

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
        ironic_header = generic_header = None
        for key, value in scope["headers"]:  # ASGI servers give header names in lower case
            if key == _IRONIC_KEY:
                ironic_header = value.decode("latin-1")
            elif key == _GENERIC_KEY:
                generic_header = value.decode("latin-1")
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
                raw = [*_version_headers(version), (_REQUEST_ID_KEY, request_id.encode())]
                message = {**message, "headers": [*message.get("headers", []), *raw]}
            elif head and message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        try:
            try:
                version = mv.from_headers(ironic_header, generic_header)
            except NotAcceptable as exc:
                await self._send_error(send_with_headers, 406, exc.message)
                return
            state["api_version"] = version
            try:
                check_url(scope)
            except InvalidParameterValue as exc:
                await self._send_error(send_with_headers, exc.code, exc.message)
                return
            await self.app(scope, receive, send_with_headers)
        except Exception:
            LOG.exception("Unhandled error [%s]", request_id)
            if not response_started:
                await self._send_error(
                    send_with_headers, 500, f"An internal error occurred; request id {request_id}."
                )
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

    @staticmethod
    async def _send_error(send: Send, status: int, message: str) -> None:
        body = fault_body(status, message)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


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
