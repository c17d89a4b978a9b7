"""Requests sent through a keystoneauth1 session: Keystone tokens, HTTP Basic, TLS options.

``Client(url, session=session)`` sends every request through ``session``, so its auth plugin
(password, token, application credential, ``http_basic``, ``none``), its CA bundle,
``insecure`` flag and client certificate apply, and its debug log (which hashes tokens and
``Authorization``) replaces httpx's. :func:`client_from_session` finds the ``baremetal``
endpoint in the session's catalog, as Nova's ironic driver and the OpenStack clients do.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import httpx
from keystoneauth1 import exceptions as ks_exc

from metalwire.client import exceptions as exc

SERVICE_TYPE = "baremetal"
# Headers requests sets itself for its own connection.
_HOP_HEADERS = frozenset({"host", "connection", "content-length", "transfer-encoding"})


class KeystoneSessionTransport(httpx.BaseTransport):
    """An httpx transport that sends each request with a keystoneauth1 ``session``.

    A 401 from the API makes the session fetch a new token and try once more (keystoneauth's
    re-authentication). Raises httpx.ConnectError / ConnectTimeout / ReadTimeout for a
    connection that fails (the client turns them into APIConnectionError), and
    :class:`~metalwire.client.exceptions.AuthenticationError` when the session's plugin cannot
    authenticate (Keystone refused the credentials, or options are missing).
    """

    def __init__(self, session: Any) -> None:
        self.session = session

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self._log_in()
        body = request.read()
        try:
            answer = self.session.request(
                str(request.url),
                request.method,
                headers={
                    name: value
                    for name, value in request.headers.items()
                    if name.lower() not in _HOP_HEADERS
                },
                data=body or None,
                raise_exc=False,
                timeout=_timeout(request),
            )
        except ks_exc.ConnectTimeout as error:
            raise httpx.ConnectTimeout(str(error), request=request) from error
        except (ks_exc.ConnectFailure, ks_exc.SSLError, ks_exc.UnknownConnectionError) as error:
            raise httpx.ConnectError(str(error), request=request) from error
        except ks_exc.RequestTimeout as error:
            raise httpx.ReadTimeout(str(error), request=request) from error
        except ks_exc.ClientException as error:
            raise exc.AuthenticationError(f"Authentication failed: {error}") from error
        # requests has decoded the body already: the encoding header no longer applies.
        headers = [
            (name, value)
            for name, value in answer.headers.items()
            if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")
        ]
        return httpx.Response(answer.status_code, headers=headers, content=answer.content)

    def _log_in(self) -> None:
        """Get the plugin's credentials (a token from Keystone, unless one is cached) before
        sending, so that an identity service that cannot be reached is named as such, and not
        as the API the request was for."""
        if getattr(self.session, "auth", None) is None:
            return  # no plugin: nothing to log in to
        with _identity_errors():
            self.session.get_auth_headers()


@contextlib.contextmanager
def _identity_errors() -> Iterator[None]:
    """keystoneauth's errors as the client's: an identity service that cannot be reached is
    named as such, a refused login is an AuthenticationError. EndpointNotFound passes."""
    try:
        yield
    except ks_exc.EndpointNotFound:
        raise
    except ks_exc.ConnectionError as error:
        raise exc.APIConnectionError(
            f"Cannot reach the identity service: {error}", method="POST", url="", sent=False
        ) from error
    except ks_exc.ClientException as error:
        raise exc.AuthenticationError(f"Authentication failed: {error}") from error


def _timeout(request: httpx.Request) -> float | None:
    timeouts = request.extensions.get("timeout") or {}
    value = timeouts.get("read")
    return float(value) if value is not None else None


def endpoint_from_session(
    session: Any, *, interface: str = "public", region_name: str | None = None
) -> str:
    """The ``baremetal`` endpoint the session's auth plugin knows: from the Keystone catalog,
    or the fixed endpoint of the ``none`` and ``http_basic`` plugins.

    Raises AuthenticationError when the session cannot authenticate, and
    :class:`~metalwire.client.exceptions.EndpointNotFound` when the catalog has no such
    endpoint.
    """
    try:
        with _identity_errors():
            url = session.get_endpoint(
                service_type=SERVICE_TYPE, interface=interface, region_name=region_name
            )
    except ks_exc.EndpointNotFound:
        url = None
    if not url:
        where = f" in region {region_name}" if region_name else ""
        raise exc.EndpointNotFound(
            f"The Keystone catalog has no {interface} {SERVICE_TYPE} endpoint{where}: give "
            "the endpoint with --os-endpoint, or register metalwire as service type "
            f"{SERVICE_TYPE}."
        )
    return str(url)
