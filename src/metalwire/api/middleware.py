"""The request pipeline every request goes through, the VIF endpoints' fast door included.

Per request, once: the microversion (406 if not served), the request id, the request context
(``RequestContext`` in the request state: the request id; the auth layer behind this one
puts in the user and project its strategy verified, never a client's headers), the
body-size limit (``[api] max_request_body_size``: 413 before the body is read when
``Content-Length`` says so, or as soon as a streamed body grows past it), the head limits
(``[api] max_header_size``, ``max_header_count``, ``max_header_total_size``: 431 before
authentication), the body deadline (``[api] body_timeout``: 408, and the connection closed,
when the body is not all in by then; a client that leaves mid-body is logged at INFO and
counted as status 499, not as a server error), the version headers
of the response, one access log line and a 500 for anything unexpected. Errors are rendered by
:func:`metalwire.api.errors.render`, whoever raises them.

Also what every route shares: a NUL character in the URL (which PostgreSQL cannot compare)
is a 400 before any route runs, ``HEAD`` is answered as ``GET`` without a body, and below
1.91 a path's ``.json`` suffix is stripped (:func:`without_json_suffix`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from metalwire.api import errors
from metalwire.api import microversion as mv
from metalwire.context import IDENTITY_SCOPE_KEY, RequestContext, new_request_id
from metalwire.errors import (
    HeadersTooLarge,
    InvalidParameterValue,
    MetalwireError,
    RequestTimeout,
    RequestTooLarge,
)
from metalwire.logsafe import printable

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


# The request-state key set when the client disconnected before its request was answered.
CLIENT_GONE = "client_gone"
# The status a request whose client left is logged and counted with (nginx's "client closed").
CLIENT_GONE_STATUS = 499


@dataclass(frozen=True)
class RequestLimits:
    """What one request may send: the ``[api]`` options of the same names."""

    max_body_size: int = DEFAULT_MAX_BODY_SIZE
    max_header_size: int = 16384
    max_header_total_size: int = 65536
    max_header_count: int = 100
    body_timeout: float = 30.0


def guarded(
    receive: Receive, limits: RequestLimits, counted: bool, state: dict[str, Any]
) -> Receive:
    """``receive`` with the body deadline (RequestTimeout, 408) and, when ``counted`` (no
    Content-Length said the size), RequestTooLarge (413) once the body passes the limit. A
    disconnect before the body is complete is noted in ``state`` under :data:`CLIENT_GONE`."""
    received = 0
    complete = False
    deadline = asyncio.get_running_loop().time() + limits.body_timeout

    async def receive_guarded() -> Message:
        nonlocal received, complete
        if complete:  # the body is in: what follows (a disconnect) may take any time
            return await receive()
        try:
            async with asyncio.timeout_at(deadline):
                message = await receive()
        except TimeoutError:
            raise RequestTimeout(
                f"The request body was not received within {limits.body_timeout:g} seconds "
                "([api] body_timeout)."
            ) from None
        if message["type"] == "http.disconnect":
            state[CLIENT_GONE] = True
            return message
        complete = not message.get("more_body", False)
        received += len(message.get("body", b""))
        if counted and received > limits.max_body_size:
            raise too_large(limits.max_body_size)
        return message

    return receive_guarded


def check_head(scope: Scope, count: int, longest: int, total: int, limits: RequestLimits) -> None:
    """Refuse (431) a request line or header line, or all of them, over the limits."""
    line = len(scope.get("raw_path") or b"") + len(scope.get("query_string", b"")) + 16
    if count > limits.max_header_count:
        problem = f"{count} headers, more than the {limits.max_header_count} accepted"
        option = "max_header_count"
    elif max(longest, line) > limits.max_header_size:
        problem = f"a line longer than the {limits.max_header_size} bytes accepted"
        option = "max_header_size"
    elif total + line > limits.max_header_total_size:
        problem = f"headers larger than the {limits.max_header_total_size} bytes accepted"
        option = "max_header_total_size"
    else:
        return
    raise HeadersTooLarge(f"The request has {problem} ([api] {option}).")


class ApiMiddleware:
    """Pure ASGI, so it adds no task switch per request."""

    def __init__(self, app: ASGIApp, limits: RequestLimits | None = None) -> None:
        self.app = app
        self.limits = limits or RequestLimits()

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
        chunked = False
        count = longest = total = 0
        for key, value in scope["headers"]:  # ASGI servers give header names in lower case
            count += 1
            size = len(key) + len(value) + 4  # "name: value\r\n"
            total += size
            if size > longest:
                longest = size
            if key == b"content-length":
                length = value
            elif key == b"transfer-encoding":
                chunked = True
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
                if status == RequestTimeout.code:  # the rest of the body may never come
                    raw.append((b"connection", b"close"))
                message = {**message, "headers": [*message.get("headers", []), *raw]}
            elif head and message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        try:
            try:
                check_head(scope, count, longest, total, self.limits)
                version = mv.from_headers(ironic_header, generic_header)
                state["api_version"] = version
                check_url(scope)
                if ironic_header is not None and 0 < version.minor < mv.NO_JSON_SUFFIX:
                    scope = without_json_suffix(scope, state)
                # Who asked is not known yet: the auth layer puts the verified identity in.
                state["context"] = RequestContext(request_id=request_id)
                limit = self.limits.max_body_size
                sized = length is not None and length.isdigit()
                if sized and int(length or b"0") > limit:
                    raise too_large(limit, int(length or b"0"))
                if chunked or (length is not None and length != b"0"):  # a body is coming
                    receive = guarded(receive, self.limits, not sized, state)
            except MetalwireError as exc:
                answer = errors.render(exc, request_id, method, scope["path"])
                await errors.send_error(send_with_headers, answer, state)
                return
            await self.app(scope, receive, send_with_headers)
        except Exception:
            if state.get(CLIENT_GONE) and not response_started:
                LOG.info("client disconnected before its request was answered [%s]", request_id)
                status = CLIENT_GONE_STATUS
                return
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
            # Every field a client chose is escaped: a line feed in it cannot forge a line.
            LOG.info(
                "%s %s%s %s %.1fms v%s [%s] user %s project %s",
                printable(method),
                printable(path),
                f"?{printable(query)}" if query else "",
                status,
                (time.perf_counter() - started) * 1000,
                version or "-",
                request_id,
                printable(getattr(who, "user_id", None) or "-"),
                printable(getattr(who, "project_id", None) or "-"),
            )


# The request-state key set when a path's ``.json`` suffix was stripped (see below).
JSON_SUFFIX = "json_suffix"
_SUFFIX = ".json"


def without_json_suffix(scope: Scope, state: dict[str, Any]) -> Scope:
    """Before 1.91, a path ending in ``.json`` (a trailing slash aside) is answered without it,
    as Ironic did for clients that asked for JSON that way; only when the client named the
    version in Ironic's own header, as Ironic checks. A node, portgroup, allocation or deploy
    template named by what is left is then also looked for with the suffix
    (:data:`JSON_SUFFIX`): its name may end in ``.json``."""
    path = scope["path"].rstrip("/")
    if not path.endswith(_SUFFIX):
        return scope
    state[JSON_SUFFIX] = True
    path = path.removesuffix(_SUFFIX)
    raw = (scope.get("raw_path") or scope["path"].encode()).rstrip(b"/").removesuffix(b".json")
    return {**scope, "path": path, "raw_path": raw}


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
