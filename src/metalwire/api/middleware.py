"""Per-request plumbing: microversion, request id, version headers, one log line, 500s."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from metalwire.api import microversion as mv
from metalwire.context import new_request_id
from metalwire.errors import NotAcceptable

LOG = logging.getLogger("metalwire.api.access")
REQUEST_ID_HEADER = "x-openstack-request-id"


def _error_body(status: int, message: str) -> bytes:
    fault = {
        "faultcode": "Client" if status < 500 else "Server",
        "faultstring": message,
        "debuginfo": None,
    }
    return json.dumps({"error_message": json.dumps(fault)}).encode()


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
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
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
                extra = mv.response_headers(version)
                extra[REQUEST_ID_HEADER] = request_id
                raw = [(k.lower().encode(), v.encode()) for k, v in extra.items()]
                message = {**message, "headers": [*message.get("headers", []), *raw]}
            await send(message)

        try:
            try:
                version = mv.from_headers(
                    headers.get(mv.IRONIC_HEADER.lower()), headers.get(mv.GENERIC_HEADER.lower())
                )
            except NotAcceptable as exc:
                await self._send_error(send_with_headers, 406, exc.message)
                return
            state["api_version"] = version
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
            LOG.info(
                "%s %s%s %s %.1fms v%s [%s]",
                scope.get("method"),
                path,
                f"?{query}" if query else "",
                status,
                (time.perf_counter() - started) * 1000,
                version or "-",
                request_id,
            )

    @staticmethod
    async def _send_error(send: Send, status: int, message: str) -> None:
        body = _error_body(status, message)
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
