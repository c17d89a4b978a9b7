"""Exceptions raised by :mod:`metalwire.client`.

Every exception the client raises is a :class:`MetalwireClientError`; catch it to handle them
all. The tree:

    MetalwireClientError
    +-- APIConnectionError          no HTTP answer arrived (refused, DNS, reset, TLS, timeout)
    |   +-- APITimeoutError         the connect, write or read timeout ran out
    +-- AuthenticationError         the keystoneauth session could not log in (credentials
    |                               refused, options missing)
    +-- EndpointNotFound            the catalog has no baremetal endpoint
    +-- VersionError
    |   +-- VersionNegotiationError no microversion both sides support, or the pinned one is
    |   |                           outside the server's range
    |   +-- FeatureNotSupported     the negotiated microversion is too old for the call
    |   +-- DryRunNotSupported      the server is not metalwire: it would attach for real
    +-- InvalidResponse             the server answered something that is not its API
    +-- ProvisionStateError         a node waited for ended its verb in another state, or
    |                               did not reach the state in time
    +-- HTTPError                   the server answered with an error status (any 4xx or 5xx)
        +-- BadRequest (400)        invalid input, or a state or VIF the node cannot take
        +-- Unauthorized (401)      no credentials, or ones the server refused; also an
        |                           AuthenticationError
        +-- Forbidden (403)         the policy does not allow the user this action
        +-- NotFound (404)          no such node, port, portgroup or resource path
        +-- NotAcceptable (406)     microversion or field not served at this version
        +-- Conflict (409)          clash with existing state
        |   +-- NodeLocked          the node was busy with another operation; safe to retry
        |   +-- VifAlreadyAttached  the VIF is attached already (here or on another node)
        +-- ServerError (5xx)
            +-- ServiceUnavailable (503)  the service or a network backend was unavailable

Every :class:`HTTPError` carries the status (``status_code``), the server's message
(``faultstring``), the request id of the failed call (``request_id``, from the
``x-openstack-request-id`` header) and the request's ``method`` and ``url``. The class of a 409
is chosen from the server's message, as Ironic has one status for all of them.

Which errors are retried is decided by :class:`metalwire.client.RetryPolicy`: connection
failures before anything was sent, 503 and :class:`NodeLocked`; never
:class:`VifAlreadyAttached` nor any other 409.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

REQUEST_ID_HEADER = "x-openstack-request-id"

_NODE_LOCKED = re.compile(r"\bis locked by host\b|\bnode .* is locked\b", re.IGNORECASE)
_ALREADY_ATTACHED = re.compile(r"\balready attached\b", re.IGNORECASE)


class MetalwireClientError(Exception):
    """Base of every error raised by :mod:`metalwire.client`."""


class APIConnectionError(MetalwireClientError):
    """The request got no HTTP answer: connection refused, name lookup, reset or timeout.

    ``sent`` is False when the failure happened before any byte of the request left, so the
    server cannot have acted on it.
    """

    def __init__(self, message: str, *, method: str, url: str, sent: bool) -> None:
        super().__init__(message)
        self.method = method
        self.url = url
        self.sent = sent


class APITimeoutError(APIConnectionError):
    """A connect, write or read timeout ran out."""


class AuthenticationError(MetalwireClientError):
    """The keystoneauth session could not authenticate: Keystone refused the credentials, or
    the auth plugin lacks an option it needs."""


class EndpointNotFound(MetalwireClientError):
    """The session's catalog has no ``baremetal`` endpoint for the interface and region."""


class VersionError(MetalwireClientError):
    """A problem with API microversions."""


class VersionNegotiationError(VersionError):
    """Client and server have no microversion in common, or the pinned one is not served."""


class FeatureNotSupported(VersionError):
    """The negotiated microversion is older than the one a call needs."""

    def __init__(self, feature: str, required: str, negotiated: str) -> None:
        super().__init__(
            f"API version {required} or later is needed for {feature}; this connection uses "
            f"{negotiated}."
        )
        self.feature = feature
        self.required = required
        self.negotiated = negotiated


class DryRunNotSupported(VersionError):
    """The server does not name itself metalwire; a dry-run attach was not sent, since a
    server ignoring the header (Ironic) would attach the VIF."""


class InvalidResponse(MetalwireClientError):
    """A successful status with a body that is not what the API returns."""


class ProvisionStateError(MetalwireClientError):
    """The node did not reach the provision state waited for: its verb ended in another
    state (``state``, with the node's ``last_error``), or the wait ran out."""

    def __init__(self, message: str, *, state: str, last_error: str | None) -> None:
        super().__init__(message)
        self.state = state
        self.last_error = last_error


class HTTPError(MetalwireClientError):
    """The server answered with an error status; the base of every status-specific error."""

    def __init__(
        self,
        faultstring: str,
        *,
        status_code: int,
        request_id: str | None = None,
        method: str = "",
        url: str = "",
        debuginfo: str | None = None,
    ) -> None:
        self.faultstring = faultstring
        self.status_code = status_code
        self.request_id = request_id
        self.method = method
        self.url = url
        self.debuginfo = debuginfo
        super().__init__(str(self))

    def __str__(self) -> str:
        text = f"{self.faultstring} (HTTP {self.status_code})"
        if self.request_id:
            text += f" (Request-ID: {self.request_id})"
        return text


class BadRequest(HTTPError):
    """400: the input is invalid, or the node cannot do this in its current state."""


class Unauthorized(HTTPError, AuthenticationError):
    """401: the request had no credentials, or the server refused them (a wrong HTTP Basic
    password, an expired token). Caught by ``except AuthenticationError`` as well, like a
    refused Keystone login."""


class Forbidden(HTTPError):
    """403: the user may not do this (the policy rule is named in the message), or the node
    is protected from it."""


class NotFound(HTTPError):
    """404: the node, port, portgroup or path does not exist (at this microversion)."""


class NotAcceptable(HTTPError):
    """406: the microversion is not served, or a field needs a newer one."""


class Conflict(HTTPError):
    """409: the request clashes with existing state (duplicate name or MAC, in use...)."""


class NodeLocked(Conflict):
    """409: another operation held the node's lock for longer than the server waited."""


class VifAlreadyAttached(Conflict):
    """409: the VIF is attached already, to this node or another one. Never retried."""


class ServerError(HTTPError):
    """5xx: the server failed."""


class ServiceUnavailable(ServerError):
    """503: the service, or a network backend it depends on, was unavailable."""


def parse_fault(response: httpx.Response) -> tuple[str, str | None]:
    """The ``(faultstring, debuginfo)`` of an error response in Ironic's error body.

    Ironic wraps a JSON text in ``{"error_message": ...}``; other bodies (a proxy's HTML page,
    a plain text) give their text, or the reason phrase when empty. Never raises.
    """
    fallback = response.text.strip() or response.reason_phrase or f"HTTP {response.status_code}"
    try:
        body: Any = response.json()
    except (ValueError, UnicodeDecodeError):
        return fallback, None
    if not isinstance(body, dict):
        return fallback, None
    message: Any = body.get("error_message", body)
    if isinstance(message, str):
        try:
            message = json.loads(message)
        except ValueError:
            return message, None
    if isinstance(message, dict):
        text = (
            message.get("faultstring")
            or message.get("description")  # the router's errors: {code, title, description}
            or message.get("message")
            or message.get("detail")
        )
        debug = message.get("debuginfo")
        if text is not None:
            return str(text), None if debug is None else str(debug)
    return fallback, None


def error_class(status_code: int, faultstring: str) -> type[HTTPError]:
    """The exception class for an error status and the server's message."""
    if status_code == 400:
        return BadRequest
    if status_code == 401:
        return Unauthorized
    if status_code == 403:
        return Forbidden
    if status_code == 404:
        return NotFound
    if status_code == 406:
        return NotAcceptable
    if status_code == 409:
        if _ALREADY_ATTACHED.search(faultstring):
            return VifAlreadyAttached
        if _NODE_LOCKED.search(faultstring):
            return NodeLocked
        return Conflict
    if status_code == 503:
        return ServiceUnavailable
    if status_code >= 500:
        return ServerError
    return HTTPError


def from_response(response: httpx.Response) -> HTTPError:
    """The exception describing an error response (status >= 400)."""
    faultstring, debuginfo = parse_fault(response)
    cls = error_class(response.status_code, faultstring)
    return cls(
        faultstring,
        status_code=response.status_code,
        request_id=response.headers.get(REQUEST_ID_HEADER),
        method=response.request.method,
        url=str(response.request.url),
        debuginfo=debuginfo,
    )
