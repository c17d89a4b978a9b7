"""A benchmark prototype: tokens validated by keystonemiddleware behind an ASGI->WSGI hop.

keystonemiddleware's ``auth_token.AuthProtocol`` is a WSGI filter. To put it in front of
metalwire's ASGI application the way an ASGI->WSGI bridge (a2wsgi, Starlette's old
``WSGIMiddleware``) would, every request's headers become a WSGI environ, the filter runs in a
worker thread with a tiny inner WSGI application behind it, and that application captures the
``X-Identity-Status``, ``X-User-Id``, ``X-Roles``, ``OpenStack-System-Scope``... headers the
filter set (it strips any the client sent). The result becomes metalwire's
:class:`~metalwire.api.auth.identity.Identity`, so this object has the contract of
``metalwire.api.auth.strategy.Strategy`` and can replace the ``keystone`` strategy in a
server (``bench/serve_with_bridge.py``).

The filter is configured from the same ``[keystone_authtoken]`` values as metalwire's own
validator, with ``memcached_servers`` unset (its in-process token cache) and
``delay_auth_decision`` on, so that the 401 keeps metalwire's error body and challenge. It is
a measurement aid, not a production strategy: see docs/architecture.md ("Authentication").
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterable
from typing import Any

import anyio.to_thread
from keystonemiddleware import auth_token

from metalwire.api.auth.identity import Identity
from metalwire.api.auth.strategy import Unauthenticated
from metalwire.config import KeystoneAuthtokenOptions
from metalwire.errors import Invalid, NetworkError

LOG = logging.getLogger(__name__)

Environ = dict[str, Any]
StartResponse = Callable[..., Any]

# The headers keystonemiddleware sets for the application behind it, as WSGI environ keys.
_CAPTURED = (
    "HTTP_X_IDENTITY_STATUS",
    "HTTP_X_USER_ID",
    "HTTP_X_USER_NAME",
    "HTTP_X_PROJECT_ID",
    "HTTP_X_PROJECT_NAME",
    "HTTP_X_ROLES",
    "HTTP_OPENSTACK_SYSTEM_SCOPE",  # "all" for a system-scoped token
    "HTTP_X_SERVICE_IDENTITY_STATUS",
    "HTTP_X_SERVICE_ROLES",
)
_CAPTURE_KEY = "metalwire.bench.captured"


def middleware_conf(options: KeystoneAuthtokenOptions) -> dict[str, str]:
    """``[keystone_authtoken]`` as keystonemiddleware's paste-style local configuration."""
    if not options.auth_url or not options.username or not options.password:
        raise Invalid(
            "[keystone_authtoken] auth_url, username and password are required by the "
            "keystonemiddleware bridge"
        )
    conf = {
        "auth_url": options.auth_url,
        "auth_type": options.auth_type,
        "username": options.username,
        "password": options.password,
        "project_name": options.project_name,
        "user_domain_name": options.user_domain_name,
        "project_domain_name": options.project_domain_name,
        "www_authenticate_uri": options.www_authenticate_uri or options.auth_url,
        # Our test Keystone registers only its public endpoint.
        "interface": "public",
        "token_cache_time": str(int(options.token_cache_time)),
        "http_connect_timeout": str(int(options.http_connect_timeout)),
        "http_request_max_retries": str(options.http_request_max_retries),
        "insecure": str(options.insecure),
        # metalwire answers the 401 itself, with its own body and challenge.
        "delay_auth_decision": "true",
        # A service token is kept apart, as metalwire's own validator does; any valid one.
        "service_token_roles_required": "false",
        "include_service_catalog": "false",
    }
    if options.cafile:
        conf["cafile"] = options.cafile
    return conf


def _capturing_app(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
    """The inner WSGI application: keeps what keystonemiddleware told it, answers 204."""
    holder: dict[str, str] = environ[_CAPTURE_KEY]
    for key in _CAPTURED:
        value = environ.get(key)
        if value is not None:
            holder[key] = value
    start_response("204 No Content", [])
    return []


def _environ(headers: dict[bytes, bytes], holder: dict[str, str]) -> Environ:
    """A minimal WSGI environ carrying every request header, as a bridge would build it."""
    environ: Environ = {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": "/",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "6385",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        _CAPTURE_KEY: holder,
    }
    for name, value in headers.items():
        key = "HTTP_" + name.decode("latin-1").upper().replace("-", "_")
        if key in ("HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH"):
            key = key[5:]
        environ[key] = value.decode("latin-1")
    return environ


def _roles(value: str | None) -> frozenset[str]:
    return frozenset(role for role in (value or "").split(",") if role)


def identity_from_captured(captured: dict[str, str]) -> Identity:
    """The identity keystonemiddleware confirmed; raises :class:`Unauthenticated` otherwise."""
    if captured.get("HTTP_X_IDENTITY_STATUS") != "Confirmed":
        raise Unauthenticated("The X-Auth-Token token is invalid, expired or revoked.")
    service_status = captured.get("HTTP_X_SERVICE_IDENTITY_STATUS")
    if service_status is not None and service_status != "Confirmed":
        raise Unauthenticated("The X-Service-Token token is invalid, expired or revoked.")
    return Identity(
        user_id=captured.get("HTTP_X_USER_ID"),
        user_name=captured.get("HTTP_X_USER_NAME"),
        project_id=captured.get("HTTP_X_PROJECT_ID"),
        project_name=captured.get("HTTP_X_PROJECT_NAME"),
        roles=_roles(captured.get("HTTP_X_ROLES")),
        system_scope=captured.get("HTTP_OPENSTACK_SYSTEM_SCOPE"),
        service_roles=_roles(captured.get("HTTP_X_SERVICE_ROLES")),
    )


class KeystonemiddlewareBridge:
    """A metalwire strategy that asks keystonemiddleware, in a worker thread, per request."""

    name = "keystone"  # the policy and the logs see the keystone strategy

    def __init__(self, options: KeystoneAuthtokenOptions) -> None:
        conf = middleware_conf(options)
        self._challenge = f'Keystone uri="{conf["www_authenticate_uri"]}"'.encode()
        self._filter = auth_token.AuthProtocol(_capturing_app, conf)

    def challenge(self) -> bytes:
        return self._challenge

    async def authenticate(self, headers: dict[bytes, bytes]) -> Identity:
        if not headers.get(b"x-auth-token"):  # the message metalwire's own validator gives
            raise Unauthenticated("Authentication required: send a Keystone token (X-Auth-Token).")
        # Every request crosses into a thread, cached token or not: the filter is synchronous.
        captured = await anyio.to_thread.run_sync(self._call_filter, headers)
        return identity_from_captured(captured)

    def _call_filter(self, headers: dict[bytes, bytes]) -> dict[str, str]:
        holder: dict[str, str] = {}
        status: list[str] = []

        def start_response(line: str, _headers: list[tuple[str, str]], *_exc: Any) -> None:
            status.append(line)

        body = self._filter(_environ(headers, holder), start_response)
        b"".join(body)  # a WSGI answer is complete once its body is consumed
        close = getattr(body, "close", None)
        if close is not None:
            close()
        if status and status[0].startswith("503"):
            LOG.error("keystonemiddleware could not validate a token: %s", status[0])
            raise NetworkError("The identity service is unavailable; try again later.")
        return holder
