"""A real HTTP server on loopback whose answers come from a Python function, for client tests.

``with FakeHttp(answer) as fake: fake.url`` — ``answer(request)`` returns ``(status,
headers, body)`` where a ``dict`` body is sent as JSON; ``fake.requests`` records every
request (method, path, headers, parsed JSON body) in arrival order. Optional TLS: pass an
``ssl.SSLContext`` made for a server.
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


Answer = Callable[[Received], tuple[int, dict[str, str], "dict[str, Any] | bytes"]]


class FakeHttp:
    def __init__(self, answer: Answer, tls: ssl.SSLContext | None = None) -> None:
        self.answer = answer
        self.requests: list[Received] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                received = Received(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    json.loads(raw) if raw else None,
                )
                fake.requests.append(received)
                status, headers, body = fake.answer(received)
                content = json.dumps(body).encode() if isinstance(body, dict) else body
                self.send_response(status)
                if isinstance(body, dict):
                    self.send_header("Content-Type", "application/json")
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        scheme = "https" if tls is not None else "http"
        self.url = f"{scheme}://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> FakeHttp:
        self._thread.start()
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
