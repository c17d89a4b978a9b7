"""Starlette's TestClient with one thread hop per request instead of about eight.

The TestClient runs the application on an event loop in a thread of its own and crosses to
it for every ASGI message and every piece of the exchange (about 4 ms a request here, more
than most requests cost the application). Inside ``with AppClient(app) as client:`` this
one runs each whole exchange (request, response, body) in a single call to that loop, then
hands back the finished response; the application, its lifespan and its background tasks
run on the same loop as under the TestClient. An exception the application raises is raised
to the caller, as the TestClient's ``raise_server_exceptions`` does. Responses are read
whole before they are returned: nothing under test streams.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import anyio
import httpx
from starlette.testclient import TestClient
from starlette.types import Message


class _OneHopTransport(httpx.BaseTransport):
    def __init__(self, owner: AppClient, fallback: httpx.BaseTransport) -> None:
        self.owner = owner
        self.fallback = fallback  # the TestClient's, outside ``with`` (no loop running)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        portal = self.owner.portal
        if portal is None or request.url.scheme not in ("http", "https"):
            return self.fallback.handle_request(request)
        request.read()
        status, headers, body = portal.call(self.owner.exchange, request)
        return httpx.Response(status, headers=headers, content=body, request=request)

    def close(self) -> None:
        self.fallback.close()


class AppClient(TestClient):
    """A TestClient whose requests inside ``with`` take one hop to the application's loop."""

    __test__ = False

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        starlette_transport = self._transport
        # The peer address and root path the TestClient was given, as it puts them in scopes.
        self.peer: tuple[str, int] = starlette_transport.client  # type: ignore[attr-defined]
        self.root_path: str = starlette_transport.root_path  # type: ignore[attr-defined]
        self._transport = _OneHopTransport(self, starlette_transport)

    async def exchange(self, request: httpx.Request) -> tuple[int, list[tuple[str, str]], bytes]:
        """Run the application on one request; its status, headers and whole body."""
        url = request.url
        headers = [(b"host", url.netloc)] if "host" not in request.headers else []
        headers += [(k.lower().encode(), v.encode()) for k, v in request.headers.multi_items()]
        default_port = 443 if url.scheme == "https" else 80
        scope = {
            "type": "http",
            "http_version": "1.1",
            "method": request.method,
            "path": unquote(url.path),
            "raw_path": url.raw_path.split(b"?", 1)[0],
            "root_path": self.root_path,
            "scheme": url.scheme,
            "query_string": url.query,
            "headers": headers,
            "client": self.peer,
            "server": [url.raw_host.decode("ascii"), url.port or default_port],
            "extensions": {"http.response.debug": {}},
            "state": self.app_state.copy(),
        }
        body = request.content
        sent_request = False
        done = anyio.Event()
        started: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def receive() -> Message:
            nonlocal sent_request
            if not sent_request:
                sent_request = True
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                assert not started, "two http.response.start messages"
                started.update(message)
            elif message["type"] == "http.response.body":
                assert started, "http.response.body before http.response.start"
                chunks.append(bytes(message.get("body", b"")))
                if not message.get("more_body", False):
                    done.set()

        try:
            await self.app(scope, receive, send)
        finally:
            done.set()
        if not started:
            raise AssertionError("the application sent no response")
        response_headers = [(k.decode(), v.decode()) for k, v in started.get("headers", [])]
        content = b"" if request.method == "HEAD" else b"".join(chunks)
        return int(started["status"]), response_headers, content
