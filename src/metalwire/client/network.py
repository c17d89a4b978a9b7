"""The network transport of :class:`metalwire.client.Client`, and its TLS settings."""

from __future__ import annotations

import os
import ssl
import threading

import httpx

#: A client certificate: a PEM file holding the certificate and its key, or (certificate, key).
ClientCert = str | tuple[str, str]


def tls_context(verify: bool | str = True, cert: ClientCert | None = None) -> ssl.SSLContext:
    """The TLS context of ``verify`` and ``cert``, which mean what they mean to requests and
    keystoneauth1: ``verify`` False checks no certificate, a path verifies the server's
    certificate against that CA bundle (a file, or a directory of hashed certificates), True
    against httpx's default (certifi's bundle, or $SSL_CERT_FILE / $SSL_CERT_DIR); ``cert`` is
    the client certificate to present.

    Raises ValueError when a file cannot be read or holds no usable certificate or key.
    """
    try:
        if verify is False:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        elif verify is True:
            context = httpx.create_ssl_context()
        elif os.path.isdir(verify):
            context = ssl.create_default_context(capath=verify)
        else:
            context = ssl.create_default_context(cafile=verify)
    except OSError as error:  # ssl.SSLError included
        raise ValueError(f"cannot use the CA bundle {verify}: {error}") from None
    if cert:
        certfile, keyfile = (cert, None) if isinstance(cert, str) else cert
        try:
            context.load_cert_chain(certfile, keyfile)
        except OSError as error:
            with_key = f" with the key {keyfile}" if keyfile else ""
            raise ValueError(
                f"cannot use the client certificate {certfile}{with_key}: {error}"
            ) from None
    return context


class NetworkTransport(httpx.BaseTransport):
    """httpx's network transport, whose TLS context is made at the first ``https`` request.

    httpx prepares a TLS context for every client, reading the whole CA bundle (tens of
    milliseconds of CPU, a good part of a short CLI run), though a client of an ``http://``
    endpoint never uses it. Here plain requests go through a transport whose TLS context
    trusts no certificate (so it could verify none), and the first ``https`` request makes
    httpx's default one, which verifies as httpx always does.

    ``verify`` and ``cert`` (as :func:`tls_context` takes them) replace that default: their
    context is made at once, so that a file that cannot be read raises ValueError here.
    """

    def __init__(self, *, verify: bool | str = True, cert: ClientCert | None = None) -> None:
        self._tls: httpx.HTTPTransport | None = None
        if verify is not True or cert:
            self._tls = httpx.HTTPTransport(verify=tls_context(verify, cert))
        self._plain = httpx.HTTPTransport(verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
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
