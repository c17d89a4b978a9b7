"""Outermost ASGI layer: makes the request being served known to the log records
(:data:`metalwire.logs.REQUEST_STATE`), so each line logged while serving it, in the event
loop or a worker thread, names its request id, user and project."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from metalwire.logs import REQUEST_STATE


class LogContext:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # The request's state dict: the pipeline puts the request id and, once verified,
        # the user and project (its "context") into it as the request goes in.
        token = REQUEST_STATE.set(scope.setdefault("state", {}))
        try:
            await self.app(scope, receive, send)
        finally:
            REQUEST_STATE.reset(token)
