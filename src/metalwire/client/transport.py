"""A synchronous httpx transport that serves requests from an ASGI application in-process.

``Client(url, transport=ASGITransport(app))`` talks to ``app`` without a network or a server
process: each request runs the application on a short-lived event loop in the calling thread.
Use it for tests and tools; a real deployment uses the network transport,
:class:`metalwire.client.network.NetworkTransport`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, cast

import anyio
import httpx

Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [
        MutableMapping[str, Any],
        Callable[[], Awaitable[Message]],
        Callable[[Message], Awaitable[None]],
    ],
    Awaitable[None],
]


class ASGITransport(httpx.BaseTransport):
    """Sends each request to an ASGI ``app`` (e.g. ``metalwire.api.app.create_app(config)``).

    The application's lifespan events are not run. Must not be used from a thread that is
    already running an event loop (raises RuntimeError there).
    """

    def __init__(
        self, app: ASGIApp, root_path: str = "", client: tuple[str, int] = ("127.0.0.1", 50000)
    ) -> None:
        self._inner = httpx.ASGITransport(app=cast(Any, app), root_path=root_path, client=client)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Run the application for ``request``; returns its complete response."""
        body = request.read()

        async def call() -> httpx.Response:
            inner = httpx.Request(
                request.method,
                request.url,
                headers=request.headers,
                content=body,
                extensions=request.extensions,
            )
            response = await self._inner.handle_async_request(inner)
            content = b"".join([chunk async for chunk in response.aiter_raw()])
            await response.aclose()
            return httpx.Response(
                response.status_code,
                headers=response.headers,
                content=content,
                extensions=response.extensions,
            )

        return anyio.run(call)

    def close(self) -> None:
        """Nothing to release: no loop outlives a request."""
