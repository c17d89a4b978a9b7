"""Connection limits of ``metalwire serve``: slow or silent clients cannot hold the server.

uvicorn closes a keep-alive connection that stays idle after a response
(``timeout_keep_alive``) and answers 503 once ``limit_concurrency`` connections are open, but
it gives a connection that never completes its request headers all the time it wants: a
thousand silent sockets then hold every file descriptor and every slot of the cap. The
protocol here adds the header read deadline: from the moment a connection opens, or its last
response completes, the next request's headers must arrive within ``header_timeout``
seconds, or the connection is closed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

try:  # uvicorn's faster parser, which it picks itself when installed ([standard] extra)
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools comes with uvicorn[standard]
    HttpToolsProtocol = None  # type: ignore[assignment,misc]


class HeaderDeadline:
    """A header read deadline of ``header_timeout`` seconds, for either uvicorn protocol.

    Both keep the current request cycle in ``cycle`` and call the hooks below.
    """

    header_timeout: float = 60.0
    cycle: Any
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm_header_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        self._arm_header_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        deadline = getattr(self, "_header_deadline", None)
        if deadline is not None:
            deadline.cancel()
        super().connection_lost(exc)  # type: ignore[misc]

    def _arm_header_deadline(self) -> None:
        previous = getattr(self, "_header_deadline", None)
        if previous is not None:
            previous.cancel()
        self._waited_cycle: Any = self.cycle
        self._header_deadline = self.loop.call_later(self.header_timeout, self._header_overdue)

    def _header_overdue(self) -> None:
        waiting = self.cycle is None or self.cycle.response_complete
        # A new cycle means the headers of a new request arrived: it is being answered.
        if waiting and self.cycle is self._waited_cycle and not self.transport.is_closing():
            self.transport.close()


def protocol_with(header_timeout: float) -> type[asyncio.Protocol]:
    """The protocol class uvicorn is given (``http=``), with the configured deadline: the
    httptools one when it is installed, as uvicorn itself would pick, else h11."""
    base: type[asyncio.Protocol] = H11Protocol if HttpToolsProtocol is None else HttpToolsProtocol
    return type(
        "HeaderDeadlineProtocol", (HeaderDeadline, base), {"header_timeout": header_timeout}
    )
