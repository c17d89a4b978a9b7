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


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a header read deadline of ``header_timeout`` seconds."""

    header_timeout: float = 60.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_header_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        deadline = getattr(self, "_header_deadline", None)
        if deadline is not None:
            deadline.cancel()
        super().connection_lost(exc)

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


def protocol_with(header_timeout: float) -> type[HeaderDeadlineProtocol]:
    """The protocol class uvicorn is given (``http=``), with the configured deadline."""
    return type(
        "ConfiguredHeaderDeadlineProtocol",
        (HeaderDeadlineProtocol,),
        {"header_timeout": header_timeout},
    )
