"""Keystone tokens for the Neutron client: getting one, renewing it on 401, and the catalog.

:class:`KeystoneTokens` authenticates with the ``[neutron]`` options by keystoneauth's plugin
names (``password``/``v3password``, ``v3applicationcredential``, ``token``/``v3token`` with
``auth_url``), caches the token until shortly before it expires and keeps the catalog that
came with it, from which :meth:`KeystoneTokens.endpoint` picks Neutron's URL by
``service_type``, ``service_name``, ``valid_interfaces`` and ``region_name``.

:class:`KeystoneTokenAuth` is the ``httpx.Auth`` flow that sends the token, and when the
service answers 401, gets a new token once and sends the request again.

Failures raise :class:`~metalwire.errors.NetworkError` (502, or 503 when Keystone could not
be reached or answered 503) whose message names the Neutron call and the Keystone request;
the caller's ``masked`` hides every credential in it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator
from datetime import datetime
from typing import Any

import httpx

from metalwire import redact
from metalwire.config import NeutronOptions
from metalwire.errors import NetworkError
from metalwire.networking.retries import RetryPolicy, send_with_retries

BAD_GATEWAY = 502
UNAVAILABLE = 503
#: A token this close to its expiry is renewed before it is sent.
EXPIRY_MARGIN = 30.0

Json = dict[str, Any]


class KeystoneTokens:
    """A Keystone token and its catalog, fetched on first use and renewed on demand.

    Thread-safe: one token serves every thread; a token refused by a service is dropped
    once, however many threads saw the refusal.
    """

    def __init__(
        self,
        options: NeutronOptions,
        http: httpx.Client,
        policy: RetryPolicy,
        masked: Callable[[str], str],
        explain: Callable[[httpx.TransportError | httpx.Response], str],
    ) -> None:
        self.options = options
        self._http = http
        self._policy = policy
        self._masked = masked
        self._explain = explain
        base, userinfo = redact.split_credentials(options.auth_url.rstrip("/"))
        self.url = (base if base.endswith("/v3") else base + "/v3") + "/auth/tokens"
        self._basic_auth = None if userinfo is None else httpx.BasicAuth(*userinfo)
        self._lock = threading.Lock()
        self._token: str | None = None
        self._expires: float = float("inf")
        self._catalog: list[Any] = []

    @property
    def current(self) -> str | None:
        """The cached token, if any (for masking)."""
        return self._token

    def token(self, call: str) -> str:
        with self._lock:
            if self._token is None or time.time() > self._expires - EXPIRY_MARGIN:
                self._token, self._expires, self._catalog = self._authenticate(call)
            return self._token

    def forget(self, refused: str) -> None:
        """Drop ``refused`` so that the next :meth:`token` fetches a new one."""
        with self._lock:
            if self._token == refused:
                self._token = None

    def endpoint(self, call: str) -> str:
        """Neutron's URL from the catalog of the current token."""
        self.token(call)
        opts = self.options
        services = [
            s
            for s in self._catalog
            if isinstance(s, dict)
            and s.get("type") == opts.service_type
            and (not opts.service_name or s.get("name") == opts.service_name)
        ]
        endpoints = [e for s in services for e in s.get("endpoints") or [] if isinstance(e, dict)]
        for interface in opts.valid_interfaces:
            for endpoint in endpoints:
                region = endpoint.get("region_id") or endpoint.get("region")
                if endpoint.get("interface") == interface and (
                    not opts.region_name or region == opts.region_name
                ):
                    return str(endpoint.get("url") or "")
        found = sorted(
            f"{e.get('interface')}@{e.get('region_id') or e.get('region')}" for e in endpoints
        )
        wanted = f"service type {opts.service_type!r}"
        if opts.service_name:
            wanted += f", name {opts.service_name!r}"
        wanted += f", interface {' or '.join(opts.valid_interfaces)}"
        if opts.region_name:
            wanted += f", region {opts.region_name!r}"
        raise NetworkError(
            f"{call} failed: the Keystone catalog has no Neutron endpoint with {wanted} "
            f"([neutron] endpoint_override is empty; "
            f"{'endpoints of that service: ' + ', '.join(found) if found else 'no such service'}"
            ").",
            BAD_GATEWAY,
        )

    def _authenticate(self, call: str) -> tuple[str, float, list[Any]]:
        opts = self.options
        what = f"{call} failed: Keystone {opts.auth_type} authentication (POST {self.url})"
        if not opts.auth_url:
            raise NetworkError(
                f"{call} failed: [neutron] auth_type is {opts.auth_type} but auth_url is not set.",
                BAD_GATEWAY,
            )
        try:
            response = send_with_retries(
                lambda: self._http.request(
                    "POST", self.url, json=self._request_body(), auth=self._basic_auth
                ),
                call=what,
                idempotent=True,  # another token does no harm
                policy=self._policy,
                explain=self._explain,
            )
        except httpx.TransportError as exc:
            raise NetworkError(
                f"{what}: Keystone is unreachable: {self._explain(exc)}.", UNAVAILABLE
            ) from None
        token: str | None = response.headers.get("X-Subject-Token")
        if response.status_code >= 400 or not token:
            reason = self._explain(response) if response.status_code >= 400 else "no token"
            raise NetworkError(
                f"{what}: {reason}", UNAVAILABLE if response.status_code == 503 else BAD_GATEWAY
            )
        body = _json_object(response).get("token")
        body = body if isinstance(body, dict) else {}
        catalog = body.get("catalog")
        return token, _expiry(body.get("expires_at")), catalog if isinstance(catalog, list) else []

    def _request_body(self) -> Json:
        opts = self.options
        identity: Json
        if opts.auth_type == "v3applicationcredential":
            credential = {"id": opts.application_credential_id}
            identity = {
                "methods": ["application_credential"],
                "application_credential": {
                    **credential,
                    "secret": opts.application_credential_secret,
                },
            }
            return {"auth": {"identity": identity}}  # the credential carries its own scope
        if opts.auth_type in ("token", "v3token"):
            identity = {"methods": ["token"], "token": {"id": opts.token}}
        else:
            user = {
                "name": opts.username,
                "domain": {"name": opts.user_domain_name},
                "password": opts.password,
            }
            identity = {"methods": ["password"], "password": {"user": user}}
        auth: Json = {"identity": identity}
        if opts.project_name:
            auth["scope"] = {
                "project": {"name": opts.project_name, "domain": {"name": opts.project_domain_name}}
            }
        return {"auth": auth}


class KeystoneTokenAuth(httpx.Auth):
    """Sends the Keystone token as ``X-Auth-Token``; on a 401, a new token once, then resends.

    ``call`` names the Neutron call in the message of a failed authentication.
    """

    def __init__(
        self, tokens: KeystoneTokens, call: str, basic: tuple[str, str] | None = None
    ) -> None:
        self._tokens = tokens
        self._call = call
        self._basic = None if basic is None else httpx.BasicAuth(*basic)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if self._basic is not None:
            request = next(self._basic.auth_flow(request))
        token = self._tokens.token(self._call)
        request.headers["X-Auth-Token"] = token
        response = yield request
        if response.status_code == 401:
            self._tokens.forget(token)
            headers = request.headers.copy()
            headers["X-Auth-Token"] = self._tokens.token(self._call)
            yield httpx.Request(
                request.method, request.url, headers=headers, content=request.read()
            )


class HeadersAuth(httpx.Auth):
    """Fixed headers (``X-Roles`` or a static ``X-Auth-Token``), and HTTP Basic if given."""

    def __init__(self, headers: dict[str, str], basic: tuple[str, str] | None = None) -> None:
        self._headers = headers
        self._basic = None if basic is None else httpx.BasicAuth(*basic)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if self._basic is not None:
            request = next(self._basic.auth_flow(request))
        request.headers.update(self._headers)
        yield request


def _json_object(response: httpx.Response) -> Json:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _expiry(value: object) -> float:
    """Seconds since the epoch of Keystone's ``expires_at``; never, if it cannot be read."""
    if not isinstance(value, str):
        return float("inf")
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return float("inf")
