"""``keystone``: tokens validated against Keystone with metalwire's own credentials, cached.

A token is checked with ``GET /v3/auth/tokens`` (``X-Subject-Token``), authenticated with the
service user of ``[keystone_authtoken]`` through a keystoneauth1 session (which renews its
own token). A validated token is trusted for ``token_cache_time`` seconds, never past its
expiry, in a bounded cache: the busy VIF path pays one dictionary lookup, not a Keystone call.

Invented tokens must not hold the server: the calls to Keystone run in a pool of their own of
``max_concurrent_validations`` threads (so the threads the request handlers share are never
theirs), concurrent requests with the same token share one call, and a token Keystone refused
is refused again without asking for ``negative_cache_time`` seconds.
``X-Service-Token`` is validated the same way and its roles kept apart, as keystonemiddleware
does. Why not keystonemiddleware itself: docs/architecture.md ("Authentication").
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import logging
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from metalwire.api.auth.identity import Identity
from metalwire.api.auth.strategy import Unauthenticated
from metalwire.config import KeystoneAuthtokenOptions
from metalwire.errors import Invalid, NetworkError

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Cached:
    identity: Identity
    trusted_until: float  # time.monotonic() after which Keystone is asked again
    expires_at: float  # the token's own expiry, as time.time()


class TokenCache:
    """Validated tokens by their SHA-256 (the token itself is never kept), least recently used
    dropped first."""

    def __init__(self, size: int, trust_seconds: float) -> None:
        self.size = size
        self.trust_seconds = trust_seconds
        self._entries: OrderedDict[bytes, _Cached] = OrderedDict()

    @staticmethod
    def key(token: bytes) -> bytes:
        return hashlib.sha256(token).digest()

    def get(self, key: bytes) -> Identity | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if time.monotonic() >= entry.trusted_until or time.time() >= entry.expires_at:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return entry.identity

    def put(self, key: bytes, identity: Identity, expires_at: float) -> None:
        self._entries[key] = _Cached(identity, time.monotonic() + self.trust_seconds, expires_at)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


class RefusedTokens:
    """Tokens Keystone refused, by their SHA-256, for ``seconds``; oldest dropped first."""

    def __init__(self, size: int, seconds: float) -> None:
        self.size = size
        self.seconds = seconds
        self._until: OrderedDict[bytes, float] = OrderedDict()

    def __contains__(self, key: bytes) -> bool:
        until = self._until.get(key)
        if until is None:
            return False
        if time.monotonic() >= until:
            del self._until[key]
            return False
        return True

    def add(self, key: bytes) -> None:
        if self.seconds <= 0:
            return
        self._until[key] = time.monotonic() + self.seconds
        self._until.move_to_end(key)
        while len(self._until) > self.size:
            self._until.popitem(last=False)


def identity_from_token(body: dict[str, Any]) -> tuple[Identity, float]:
    """The identity of a ``GET /v3/auth/tokens`` answer, and the token's expiry."""
    token = body["token"]
    user = token.get("user") or {}
    project = token.get("project") or {}
    system = token.get("system") or {}
    expires = dt.datetime.fromisoformat(token["expires_at"].replace("Z", "+00:00"))
    identity = Identity(
        user_id=user.get("id"),
        user_name=user.get("name"),
        project_id=project.get("id"),
        project_name=project.get("name"),
        roles=frozenset(role["name"] for role in token.get("roles") or ()),
        system_scope="all" if system.get("all") else None,
    )
    return identity, expires.timestamp()


class KeystoneStrategy:
    name = "keystone"

    def __init__(self, options: KeystoneAuthtokenOptions) -> None:
        if not options.auth_url:
            raise Invalid("[keystone_authtoken] auth_url is required with auth_strategy keystone")
        if options.auth_type != "password":
            raise Invalid(
                f"[keystone_authtoken] auth_type {options.auth_type!r}: only 'password' is "
                "supported"
            )
        if not options.username or not options.password:
            raise Invalid(
                "[keystone_authtoken] username and password are required with auth_strategy "
                "keystone"
            )
        self.auth_url = options.auth_url.rstrip("/")
        if not self.auth_url.endswith("/v3"):
            self.auth_url += "/v3"
        uri = options.www_authenticate_uri or options.auth_url
        self._challenge = f'Keystone uri="{uri}"'.encode()
        plugin = v3.Password(
            auth_url=self.auth_url,
            username=options.username,
            password=options.password,
            project_name=options.project_name,
            user_domain_name=options.user_domain_name,
            project_domain_name=options.project_domain_name,
        )
        verify: bool | str = not options.insecure
        if options.cafile and not options.insecure:
            verify = options.cafile
        self._session = ks_session.Session(
            auth=plugin, verify=verify, timeout=options.http_connect_timeout
        )
        self._retries = options.http_request_max_retries
        self.cache = TokenCache(options.token_cache_size, options.token_cache_time)
        self.refused = RefusedTokens(options.token_cache_size, options.negative_cache_time)
        self._validators = ThreadPoolExecutor(
            options.max_concurrent_validations, thread_name_prefix="keystone-validation"
        )
        self._in_flight: dict[bytes, asyncio.Future[dict[str, Any] | None]] = {}

    def challenge(self) -> bytes:
        return self._challenge

    async def authenticate(self, headers: dict[bytes, bytes]) -> Identity:
        token = headers.get(b"x-auth-token")
        if not token:
            raise Unauthenticated("Authentication required: send a Keystone token (X-Auth-Token).")
        identity = await self._validated(token, "X-Auth-Token")
        service_token = headers.get(b"x-service-token")
        if service_token:
            service = await self._validated(service_token, "X-Service-Token")
            identity = Identity(**{**identity.__dict__, "service_roles": service.roles})
        return identity

    async def _validated(self, token: bytes, header: str) -> Identity:
        key = self.cache.key(token)
        identity = self.cache.get(key)
        if identity is not None:
            return identity
        if key in self.refused:
            raise Unauthenticated(f"The {header} token is invalid, expired or revoked.")
        body = await self._asked_once(key, token)
        if body is None:
            raise Unauthenticated(f"The {header} token is invalid, expired or revoked.")
        identity, expires_at = identity_from_token(body)
        self.cache.put(key, identity, expires_at)
        return identity

    async def _asked_once(self, key: bytes, token: bytes) -> dict[str, Any] | None:
        """Keystone's answer for ``token``: one call however many requests carry it."""
        call = self._in_flight.get(key)
        if call is None:
            loop = asyncio.get_running_loop()
            call = loop.run_in_executor(
                self._validators, self._ask_keystone, token.decode("latin-1")
            )
            self._in_flight[key] = call
            call.add_done_callback(lambda done: self._settled(key, done))
        # A request that goes away does not cancel the call the others wait for.
        return await asyncio.shield(call)

    def _settled(self, key: bytes, call: asyncio.Future[dict[str, Any] | None]) -> None:
        del self._in_flight[key]
        if not call.cancelled() and call.exception() is None and call.result() is None:
            self.refused.add(key)

    def _ask_keystone(self, token: str) -> dict[str, Any] | None:
        """Keystone's description of the token, or None when it does not accept it."""
        try:
            resp = self._session.get(
                f"{self.auth_url}/auth/tokens",
                headers={"X-Subject-Token": token},
                raise_exc=False,
                connect_retries=self._retries,
            )
        except ks_exc.ClientException as exc:
            LOG.error("cannot validate a token with Keystone at %s: %s", self.auth_url, exc)
            raise NetworkError("The identity service is unavailable; try again later.") from None
        if resp.status_code in (401, 404):
            return None
        if resp.status_code != 200:
            LOG.error("Keystone answered %s to a token validation", resp.status_code)
            raise NetworkError("The identity service is unavailable; try again later.")
        body: dict[str, Any] = resp.json()
        return body
