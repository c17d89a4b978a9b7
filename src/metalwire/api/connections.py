"""Connection limits of ``metalwire serve``: slow or silent clients cannot hold the server.

uvicorn closes a keep-alive connection that stays idle after a response
(``timeout_keep_alive``) and answers 503 once ``limit_concurrency`` connections are open, but
it gives a connection that never completes its request headers all the time it wants: a
thousand silent sockets then hold every file descriptor and every slot of the cap. The
protocol here adds the header read deadline: from the moment a connection opens, or its last
response completes, the next request's headers must arrive within ``header_timeout``
seconds, or the connection is closed.

Neither parser bounds a request head: a client could send one header of a hundred megabytes
and the parser would hold it all. The protocol here counts the bytes of the head still being
received and, past ``[api] max_header_total_size``, answers 431 and closes the connection
before the request reaches the application (the middleware checks each header line and their
count, :func:`metalwire.api.middleware.check_head`).

Near the cap, idle connections give way: a connection that opens while ``limit_concurrency``
connections are open closes the one idle the longest (no request in progress: silent since it
opened, or waiting after a response), so clients reopening idle sockets cannot keep a working
client out. Only when every connection is busy with a request is a new request refused.

Over the cap, uvicorn's own answer is a plain-text 503; the protocol here answers the
request, at the same moment and by the same count, with metalwire's JSON error body naming
the limit, the version headers and ``Retry-After``, and closes the connection.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

import h11
from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from metalwire.api import errors
from metalwire.api import microversion as mv
from metalwire.api.retry_after import from_ironicclient
from metalwire.context import new_request_id
from metalwire.errors import ConnectionLimitReached, HeadersTooLarge, MetalwireError
from metalwire.logsafe import printable

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


LOG = logging.getLogger(__name__)
# A slot frees as soon as any connection closes; a client should come back soon, not hammer.
RETRY_AFTER_SECONDS = 1


@functools.cache
def over_capacity_answer(limit: int) -> Callable[[Scope, Receive, Send], Any]:
    """The ASGI app that answers a request over the cap of ``limit`` connections."""
    error = ConnectionLimitReached(
        f"metalwire is serving its maximum of {limit} connections ([api] max_connections); "
        "retry later."
    )
    body = errors.fault_body(error.code, error.message)
    fixed = [
        (b"content-type", b"application/json"),
        (b"content-length", b"%d" % len(body)),
        (b"connection", b"close"),  # the refused client gives its slot back at once
        *((k.lower().encode(), v.encode()) for k, v in mv.response_headers(None).items()),
    ]
    retry_after = (b"retry-after", b"%d" % RETRY_AFTER_SECONDS)

    async def answer(scope: Scope, receive: Receive, send: Send) -> None:
        request_id = new_request_id()
        method, path = printable(scope["method"]), printable(scope["path"])
        LOG.warning("%s %s refused [%s]: %s", method, path, request_id, error)
        # Answered before the application, hence before RetryAfterForIronicclient: as it
        # does for every other 503, no Retry-After for python-ironicclient.
        retry = [] if from_ironicclient(scope) else [retry_after]
        headers = [*fixed, *retry, (b"x-openstack-request-id", request_id.encode())]
        await send({"type": "http.response.start", "status": error.code, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return answer


def open_connections(connections: set[Any]) -> int:
    """The connections not being closed (a closed one stays in uvicorn's set a moment)."""
    return sum(1 for c in connections if not c.transport.is_closing())


class IdleGivesWay:
    """At the cap, a new connection closes the connection idle the longest."""

    limit_concurrency: int | None
    connections: set[Any]
    cycle: Any
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    idle_since: float = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self.idle_since = self.loop.time()
        limit = self.limit_concurrency
        at_cap = limit is not None and len(self.connections) >= limit
        if at_cap and open_connections(self.connections) >= (limit or 0):
            self._close_longest_idle()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        self.idle_since = self.loop.time()

    def is_idle(self) -> bool:
        return (self.cycle is None or self.cycle.response_complete) and (
            not self.transport.is_closing()
        )

    def _close_longest_idle(self) -> None:
        idle = [c for c in self.connections if c is not self and c.is_idle()]
        if idle:
            oldest = min(idle, key=lambda c: c.idle_since)
            LOG.info("closing an idle connection: [api] max_connections are open")
            oldest.transport.close()


class CapAnswer:
    """Over ``limit_concurrency``, answer with :func:`over_capacity_answer` instead of
    uvicorn's plain text. Both protocols decide, by the same count as here, while parsing:
    uvicorn's own check (which counts connections already closed) is switched off for that
    parse and ``app`` swapped for ours when over."""

    app: Any
    limit_concurrency: int | None
    connections: set[Any]
    tasks: set[Any]

    def _parse_with_cap_answer(self, parse: Callable[[], None]) -> None:
        limit = self.limit_concurrency
        if limit is None or (len(self.connections) < limit and len(self.tasks) < limit):
            parse()
            return
        app = self.app
        if open_connections(self.connections) >= limit or len(self.tasks) >= limit:
            self.app = over_capacity_answer(limit)
        self.limit_concurrency = None
        try:
            parse()
        finally:
            self.app, self.limit_concurrency = app, limit


def raw_error_answer(error: MetalwireError) -> bytes:
    """A whole HTTP response carrying ``error`` as metalwire's JSON error, for the protocol
    to write itself when the request never reaches the application; it closes the
    connection."""
    body = errors.fault_body(error.code, error.message)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", b"%d" % len(body)),
        (b"connection", b"close"),
        *((k.lower().encode(), v.encode()) for k, v in mv.response_headers(None).items()),
        (b"x-openstack-request-id", new_request_id().encode()),
    ]
    status = b"HTTP/1.1 %d %s\r\n" % (error.code, HTTPStatus(error.code).phrase.encode())
    return status + b"".join(b"%s: %s\r\n" % pair for pair in headers) + b"\r\n" + body


class HeadSizeLimit:
    """Refuses with 431 a request head still arriving past ``max_head_bytes``."""

    max_head_bytes: int = 65536
    transport: asyncio.Transport

    def data_received(self, data: bytes) -> None:
        if self.transport.is_closing():  # refused: what is still in flight is dropped
            return
        self._count_head(len(data))
        super().data_received(data)  # type: ignore[misc]
        if self._pending_head_bytes() > self.max_head_bytes and not self.transport.is_closing():
            error = HeadersTooLarge(
                f"The request headers are larger than the {self.max_head_bytes} bytes "
                "accepted ([api] max_header_total_size)."
            )
            LOG.warning("connection refused: %s", error)
            self.transport.write(raw_error_answer(error))
            self.transport.close()

    def _count_head(self, received: int) -> None:
        """Counts the bytes received while a head is incomplete (for parsers that do not)."""

    def _pending_head_bytes(self) -> int:
        """The bytes of a request head received and not complete yet."""
        raise NotImplementedError


class HttpToolsHeadSizeLimit(HeadSizeLimit):
    # httptools keeps no count: the bytes of every chunk received while the head is
    # incomplete are counted, from the end of the previous request.
    _head_bytes = 0
    _in_head = True

    def _count_head(self, received: int) -> None:
        if self._in_head:
            self._head_bytes += received

    def _pending_head_bytes(self) -> int:
        return self._head_bytes if self._in_head else 0

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()  # type: ignore[misc]

    def on_message_complete(self) -> None:
        super().on_message_complete()  # type: ignore[misc]
        self._in_head, self._head_bytes = True, 0


class H11HeadSizeLimit(HeadSizeLimit):
    conn: h11.Connection

    def _pending_head_bytes(self) -> int:
        # What h11 holds unparsed is a head unless it is reading a body.
        if self.conn.their_state is h11.SEND_BODY:
            return 0
        return len(self.conn.trailing_data[0])


class HttpToolsCapAnswer(CapAnswer):
    def on_headers_complete(self) -> None:  # where httptools starts a request's cycle
        self._parse_with_cap_answer(super().on_headers_complete)  # type: ignore[misc]


class H11CapAnswer(CapAnswer):
    def handle_events(self) -> None:  # where h11 starts the cycles of the requests received
        self._parse_with_cap_answer(super().handle_events)  # type: ignore[misc]


# h11 refuses a head larger than its own limit with a plain-text 400; it is set this far above
# ours (one read of the event loop) so that ours always decides first.
H11_HEAD_SLACK = 256 * 1024 + 1


def protocol_with(
    header_timeout: float,
    parser: type[asyncio.Protocol] | None = None,
    max_head_bytes: int = 65536,
) -> type[asyncio.Protocol]:
    """The protocol class uvicorn is given (``http=``), with the configured deadline, the
    head size limit and the JSON answer over the cap, on ``parser`` (one of uvicorn's two
    protocols): by default the httptools one when it is installed, as uvicorn itself would
    pick, else h11 (give uvicorn ``h11_max_incomplete_event_size`` = ``max_head_bytes +
    H11_HEAD_SLACK``)."""
    if parser is None:
        parser = H11Protocol if HttpToolsProtocol is None else HttpToolsProtocol
    if parser is H11Protocol:
        mixins: tuple[type, ...] = (H11CapAnswer, H11HeadSizeLimit)
    else:
        mixins = (HttpToolsCapAnswer, HttpToolsHeadSizeLimit)
    bases = (*mixins, IdleGivesWay, HeaderDeadline, parser)
    attributes = {"header_timeout": header_timeout, "max_head_bytes": max_head_bytes}
    return type("HeaderDeadlineProtocol", bases, attributes)
