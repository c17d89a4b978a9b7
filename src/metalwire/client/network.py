"""The network transport of :class:`metalwire.client.Client`."""

from __future__ import annotations

import ssl
import threading

import httpx


class NetworkTransport(httpx.BaseTransport):
    """httpx's network transport, whose TLS context is made at the first ``https`` request.

    httpx prepares a TLS context for every client, reading the whole CA bundle (tens of
    milliseconds of CPU, a good part of a short CLI run), though a client of an ``http://``
    endpoint never uses it. Here plain requests go through a transport whose TLS context
    trusts no certificate (so it could verify none), and the first ``https`` request makes
    httpx's default one, which verifies as httpx always does.
    """

    def __init__(self) -> None:
        self._plain = httpx.HTTPTransport(verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
        self._tls: httpx.HTTPTransport | None = None
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` over the network (TLS for an ``https`` URL)."""
        if request.url.scheme != "https":
            return self._plain.handle_request(request)
        with self._lock:
            if self._tls is None:
                self._tls = httpx.HTTPTransport()
            tls = self._tls
        return tls.handle_request(request)

    def close(self) -> None:
        """Close the pooled connections of both."""
        self._plain.close()
        with self._lock:
            if self._tls is not None:
                self._tls.close()
