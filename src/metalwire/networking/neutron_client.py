"""A small typed client for the part of the Neutron API that metalwire uses.

Built on plain httpx rather than openstacksdk or keystoneauth: metalwire needs a handful of
port and network calls, and wants the timeouts, retries and error messages of every one of
them under its own control. The ``noauth`` and ``token`` strategies need no keystoneauth
session at all, and ``keystone`` needs only one password authentication request, whose
token is cached and fetched again when Neutron answers 401.

Configured by the ``[neutron]`` section: ``url`` (``/v2.0`` is appended unless present),
``auth_strategy``, ``timeout`` (seconds per request), ``retries`` and
``status_wait_timeout``.

Retries: a request that cannot have been acted on or may safely be repeated is retried up to
``retries`` times with a short backoff (0.2 s, 0.4 s, ... at most 2 s). GET, PUT and DELETE
are retried on any connection failure or timeout and on a 503 answer; POST only when the
connection could not be opened at all (nothing was sent).

Every failure raises :class:`~metalwire.errors.NetworkError`, whose message names the call
(method, path with the Neutron port or network id, and what it was for) and Neutron's error
(the ``type`` and ``message`` of its ``NeutronError`` answer, at most 512 characters, or the
connection error). The message is shown to clients and kept in node history, so it never
quotes an answer verbatim (an error page may echo the request's headers), never shows the
``user:password@`` of a configured URL (credentials there are sent as HTTP Basic
authentication, as httpx would), and has the client's own token and passwords masked.
Its status is:

* **503 Service Unavailable** when Neutron could not be reached, timed out or answered 503
  (after the retries): the request may succeed later as it is;
* **502 Bad Gateway** when Neutron answered with any other error, answered something that
  is not a Neutron answer, or reported a port binding that failed or did not become ACTIVE
  in time: metalwire's upstream service refused the work.
"""

from __future__ import annotations

import base64
import logging
import threading
import time
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from metalwire import redact
from metalwire.config import NeutronOptions
from metalwire.errors import Invalid, NetworkError

LOG = logging.getLogger(__name__)

Json = dict[str, Any]

AUTH_STRATEGIES = ("noauth", "token", "keystone")
IDEMPOTENT = frozenset({"GET", "PUT", "DELETE"})
BAD_GATEWAY = 502
UNAVAILABLE = 503
VIF_TYPE_BINDING_FAILED = "binding_failed"
PHYSNET_KEY = "provider:physical_network"
_BACKOFF_FIRST = 0.2
_BACKOFF_MAX = 2.0
_POLL_INTERVAL = 0.2
#: The longest piece of a Neutron or Keystone error message repeated in ours.
ERROR_TEXT_LIMIT = 512


@dataclass(frozen=True)
class NeutronPort:
    """The fields of a Neutron port that metalwire reads; ``raw`` holds the whole answer."""

    id: str
    network_id: str
    mac_address: str
    status: str
    host_id: str
    vnic_type: str
    vif_type: str
    profile: Json
    raw: Json

    @property
    def bound(self) -> bool:
        """Whether the port has a binding host (it may still have failed to bind)."""
        return bool(self.host_id)

    @classmethod
    def from_json(cls, body: Json) -> NeutronPort:
        return cls(
            id=str(body["id"]),
            network_id=str(body.get("network_id") or ""),
            mac_address=str(body.get("mac_address") or ""),
            status=str(body.get("status") or ""),
            host_id=str(body.get("binding:host_id") or ""),
            vnic_type=str(body.get("binding:vnic_type") or ""),
            vif_type=str(body.get("binding:vif_type") or ""),
            profile=dict(body.get("binding:profile") or {}),
            raw=body,
        )


@dataclass(frozen=True)
class NeutronNetwork:
    id: str
    name: str
    physnets: frozenset[str]
    raw: Json

    @classmethod
    def from_json(cls, body: Json) -> NeutronNetwork:
        return cls(
            id=str(body["id"]),
            name=str(body.get("name") or ""),
            physnets=frozenset(network_physnets(body)),
            raw=body,
        )


def network_physnets(network: Mapping[str, Any]) -> set[str]:
    """The physical networks of a Neutron network.

    A network with several segments lists them in ``segments`` (each with its own
    ``provider:physical_network``) and has no ``provider:*`` keys; a single-segment network
    has ``provider:physical_network`` itself. Segments without a physical network (e.g.
    VXLAN) add nothing.
    """
    segments = network.get("segments")
    if isinstance(segments, list):
        return {str(s[PHYSNET_KEY]) for s in segments if isinstance(s, dict) and s.get(PHYSNET_KEY)}
    physnet = network.get(PHYSNET_KEY)
    return {str(physnet)} if physnet else set()


def neutron_error_text(response: httpx.Response) -> str:
    """Neutron's own account of an error answer: ``HTTP 409 PortBound: message``.

    Only the ``type`` and ``message`` of a ``NeutronError`` (or the ``message`` of
    Keystone's ``error``) are kept, bounded; any other answer is described, not quoted.
    """
    detail = ""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("NeutronError")
        if isinstance(error, dict):
            kind = _bounded(error.get("type"), 100)
            message = _bounded(error.get("message"), ERROR_TEXT_LIMIT)
            detail = f"{kind}: {message}" if kind and message else kind or message
        elif isinstance(error, str):
            detail = _bounded(error, ERROR_TEXT_LIMIT)
        elif isinstance(body.get("error"), dict):  # Keystone's error shape
            detail = _bounded(body["error"].get("message"), ERROR_TEXT_LIMIT)
    if not detail:
        kind = response.headers.get("Content-Type", "").partition(";")[0].strip()
        detail = (
            f"{response.reason_phrase} (not a Neutron error answer: "
            f"{len(response.content)} bytes of {kind or 'unknown type'})"
        )
    return f"HTTP {response.status_code} {detail}"


def _bounded(value: object, limit: int) -> str:
    """One line of at most ``limit`` characters of a string value ('' for anything else)."""
    if not isinstance(value, str):
        return ""
    text = " ".join(value.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _basic_auth(credentials: tuple[str, str] | None) -> httpx.BasicAuth | None:
    return None if credentials is None else httpx.BasicAuth(*credentials)


def _secrets_of(options: NeutronOptions, *userinfo: tuple[str, str] | None) -> list[str]:
    """Every credential the client may send: masked wherever a message could quote it."""
    found = [options.token, options.password]
    for credentials in userinfo:
        if credentials is not None:
            pair = f"{credentials[0]}:{credentials[1]}".encode()
            found += [credentials[1], base64.b64encode(pair).decode()]
    return [secret for secret in found if secret]


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


class NeutronClient:
    """Neutron calls, each of which raises NetworkError naming itself when it fails.

    Thread-safe: one instance serves every request of a process (``httpx.Client`` pools the
    connections; the keystone token is cached under a lock).
    """

    def __init__(self, options: NeutronOptions, transport: httpx.BaseTransport | None = None):
        if not options.url:
            raise Invalid("[neutron] url is not set; there is no Neutron to call.")
        if options.auth_strategy not in AUTH_STRATEGIES:
            raise Invalid(
                f"[neutron] auth_strategy {options.auth_strategy!r} is not one of "
                f"{', '.join(AUTH_STRATEGIES)}."
            )
        self.options = options
        base, neutron_userinfo = redact.split_credentials(options.url.rstrip("/"))
        self.base_url = base if base.endswith("/v2.0") else base + "/v2.0"
        self._basic_auth = _basic_auth(neutron_userinfo)
        keystone, keystone_userinfo = redact.split_credentials(options.auth_url.rstrip("/"))
        self._keystone_url = keystone if keystone.endswith("/v3") else keystone + "/v3"
        self._keystone_basic_auth = _basic_auth(keystone_userinfo)
        self._secrets = _secrets_of(options, neutron_userinfo, keystone_userinfo)
        self._prefix = httpx.URL(self.base_url).path.rstrip("/")
        self._http = httpx.Client(timeout=options.timeout, transport=transport)
        self._token_lock = threading.Lock()
        self._token: str | None = None

    def close(self) -> None:
        self._http.close()

    # -- ports -----------------------------------------------------------------------------

    def get_port(self, port_id: str, purpose: str = "read port") -> NeutronPort:
        body = self._call("GET", f"/ports/{port_id}", purpose)
        return NeutronPort.from_json(self._member(body, "port", "GET", f"/ports/{port_id}"))

    def find_port(self, port_id: str, purpose: str = "read port") -> NeutronPort | None:
        """The port, or None if Neutron has no such port (404)."""
        body = self._call("GET", f"/ports/{port_id}", purpose, missing_ok=True)
        if body is None:
            return None
        return NeutronPort.from_json(self._member(body, "port", "GET", f"/ports/{port_id}"))

    def update_port(self, port_id: str, fields: Json, purpose: str) -> NeutronPort:
        path = f"/ports/{port_id}"
        body = self._call("PUT", path, purpose, json={"port": fields})
        return NeutronPort.from_json(self._member(body, "port", "PUT", path))

    def update_port_if_exists(self, port_id: str, fields: Json, purpose: str) -> NeutronPort | None:
        """Like :meth:`update_port`, but None if the port no longer exists (404)."""
        path = f"/ports/{port_id}"
        body = self._call("PUT", path, purpose, json={"port": fields}, missing_ok=True)
        if body is None:
            return None
        return NeutronPort.from_json(self._member(body, "port", "PUT", path))

    def create_port(self, fields: Json, purpose: str) -> NeutronPort:
        body = self._call("POST", "/ports", purpose, json={"port": fields})
        return NeutronPort.from_json(self._member(body, "port", "POST", "/ports"))

    def delete_port(self, port_id: str, purpose: str) -> bool:
        """Delete a port; False if it was already gone (404)."""
        return self._call("DELETE", f"/ports/{port_id}", purpose, missing_ok=True) is not None

    def list_ports(self, purpose: str, **filters: str | Collection[str]) -> list[NeutronPort]:
        params: list[tuple[str, str]] = []
        for key, value in filters.items():
            values = [value] if isinstance(value, str) else list(value)
            params.extend((key, v) for v in values)
        body = self._call("GET", "/ports", purpose, params=params)
        ports = body.get("ports") if body is not None else None
        if not isinstance(ports, list):
            raise self._unusable("GET", "/ports", purpose, "no 'ports' list in the answer")
        return [NeutronPort.from_json(p) for p in ports]

    def wait_for_port_status(
        self, port_id: str, status: str = "ACTIVE", timeout: float | None = None
    ) -> NeutronPort:
        """Poll the port until it has ``status``, for at most ``status_wait_timeout`` seconds.

        Fails at once when Neutron reports ``binding:vif_type`` ``binding_failed``.
        """
        budget = self.options.status_wait_timeout if timeout is None else timeout
        deadline = time.monotonic() + budget
        purpose = f"wait for port {port_id} to become {status}"
        while True:
            port = self.get_port(port_id, purpose)
            if port.status == status:
                return port
            if port.vif_type == VIF_TYPE_BINDING_FAILED:
                raise binding_failed_error("GET", self.path(f"/ports/{port_id}"), port, purpose)
            if time.monotonic() >= deadline:
                raise NetworkError(
                    f"Neutron port {port_id} did not become {status} within {budget:g} s "
                    f"(status {port.status}, binding:vif_type {port.vif_type or 'unset'}, "
                    f"binding:host_id {port.host_id or 'unset'}).",
                    BAD_GATEWAY,
                )
            time.sleep(min(_POLL_INTERVAL, max(0.0, deadline - time.monotonic())))

    # -- networks --------------------------------------------------------------------------

    def get_network(self, network_id: str, purpose: str = "read network") -> NeutronNetwork:
        path = f"/networks/{network_id}"
        body = self._call("GET", path, purpose)
        return NeutronNetwork.from_json(self._member(body, "network", "GET", path))

    def find_network(self, name_or_id: str, purpose: str) -> NeutronNetwork:
        """A network by UUID or, failing that, by its unique name."""
        if _is_uuid(name_or_id):
            path = f"/networks/{name_or_id}"
            body = self._call("GET", path, purpose, missing_ok=True)
            if body is not None:
                return NeutronNetwork.from_json(self._member(body, "network", "GET", path))
        body = self._call("GET", "/networks", purpose, params=[("name", name_or_id)])
        found = body.get("networks") if body is not None else None
        if not isinstance(found, list):
            raise self._unusable("GET", "/networks", purpose, "no 'networks' list in the answer")
        call = f"Neutron GET {self.path('/networks')}?name={name_or_id} ({purpose})"
        if not found:
            raise NetworkError(
                f"{call} failed: no Neutron network has the name or UUID {name_or_id!r}.",
                BAD_GATEWAY,
            )
        if len(found) > 1:
            ids = ", ".join(str(n.get("id")) for n in found)
            raise NetworkError(
                f"{call} failed: {len(found)} Neutron networks are named {name_or_id!r} "
                f"({ids}); configure one by UUID.",
                BAD_GATEWAY,
            )
        return NeutronNetwork.from_json(found[0])

    # -- plumbing --------------------------------------------------------------------------

    def path(self, relative: str) -> str:
        """The path of a call as shown in messages, e.g. ``/v2.0/ports/ID``."""
        return self._prefix + relative

    def _member(self, body: Json | None, key: str, method: str, path: str) -> Json:
        member = body.get(key) if body is not None else None
        if not isinstance(member, dict) or "id" not in member:
            raise self._unusable(method, path, key, f"no '{key}' object in the answer")
        return member

    def _unusable(self, method: str, path: str, purpose: str, why: str) -> NetworkError:
        return NetworkError(
            f"Neutron {method} {self.path(path)} ({purpose}) failed: {why}.", BAD_GATEWAY
        )

    def _call(
        self,
        method: str,
        path: str,
        purpose: str,
        *,
        json: Json | None = None,
        params: list[tuple[str, str]] | None = None,
        missing_ok: bool = False,
    ) -> Json | None:
        """Send one call with retries; its JSON body ({} if empty), or None for a 404 if
        ``missing_ok``."""
        call = f"Neutron {method} {self.path(path)} ({purpose})"
        url = self.base_url + path
        attempt = 0
        reauthenticated = False
        while True:
            try:
                response = self._http.request(
                    method,
                    url,
                    json=json,
                    params=httpx.QueryParams(tuple(params or ())),
                    headers=self._auth_headers(call),
                    auth=self._basic_auth,
                )
            except httpx.TransportError as exc:
                retriable = method in IDEMPOTENT or isinstance(
                    exc, httpx.ConnectError | httpx.ConnectTimeout
                )
                if retriable and attempt < self.options.retries:
                    attempt += 1
                    self._pause(call, attempt, self._transport_text(exc))
                    continue
                raise NetworkError(
                    f"{call} failed: Neutron at {self.base_url} is unreachable: "
                    f"{self._transport_text(exc)}.",
                    UNAVAILABLE,
                ) from None
            status = response.status_code
            if status == 401 and self.options.auth_strategy == "keystone" and not reauthenticated:
                reauthenticated = True
                self._forget_token()
                continue
            if status == 503 and method in IDEMPOTENT and attempt < self.options.retries:
                attempt += 1
                self._pause(call, attempt, self._error_text(response))
                continue
            if status == 404 and missing_ok:
                return None
            if status >= 400:
                raise NetworkError(
                    f"{call} failed: {self._error_text(response)}",
                    UNAVAILABLE if status == 503 else BAD_GATEWAY,
                )
            if not response.content:
                return {}
            try:
                body = response.json()
            except ValueError:
                body = None
            if not isinstance(body, dict):
                raise NetworkError(
                    f"{call} failed: the answer (HTTP {status}) is not a JSON object.",
                    BAD_GATEWAY,
                )
            return body

    @staticmethod
    def _pause(call: str, attempt: int, why: str) -> None:
        delay = min(_BACKOFF_MAX, _BACKOFF_FIRST * 2 ** (attempt - 1))
        LOG.warning("%s: %s; retry %d in %.1f s", call, why, attempt, delay)
        time.sleep(delay)

    def _masked(self, text: str) -> str:
        """``text`` with every credential of this client (and its Keystone token) masked."""
        for secret in [*self._secrets, self._token or ""]:
            if secret:
                text = text.replace(secret, redact.MASK)
        return text

    def _error_text(self, response: httpx.Response) -> str:
        return self._masked(neutron_error_text(response))

    def _transport_text(self, exc: httpx.TransportError) -> str:
        return self._masked(_describe_transport_error(exc, self.options))

    # -- authentication --------------------------------------------------------------------

    def _auth_headers(self, call: str) -> dict[str, str]:
        strategy = self.options.auth_strategy
        if strategy == "noauth":
            # Never X-Project-Id: with it, Neutron's noauth mode refuses the binding fields.
            return {"X-Roles": self.options.noauth_roles}
        if strategy == "token":
            return {"X-Auth-Token": self.options.token}
        return {"X-Auth-Token": self._keystone_token(call)}

    def _forget_token(self) -> None:
        with self._token_lock:
            self._token = None

    def _keystone_token(self, call: str) -> str:
        with self._token_lock:
            if self._token is None:
                self._token = self._authenticate(call)
            return self._token

    def _authenticate(self, call: str) -> str:
        opts = self.options
        if not opts.auth_url:
            raise NetworkError(
                f"{call} failed: [neutron] auth_strategy is keystone but auth_url is not set.",
                BAD_GATEWAY,
            )
        url = self._keystone_url + "/auth/tokens"
        body = {
            "auth": {
                "identity": {
                    "methods": ["password"],
                    "password": {
                        "user": {
                            "name": opts.username,
                            "domain": {"name": opts.user_domain_name},
                            "password": opts.password,
                        }
                    },
                },
                "scope": {
                    "project": {
                        "name": opts.project_name,
                        "domain": {"name": opts.project_domain_name},
                    }
                },
            }
        }
        what = f"{call} failed: Keystone password authentication (POST {url})"
        attempt = 0
        while True:
            try:
                response = self._http.request(
                    "POST", url, json=body, auth=self._keystone_basic_auth
                )
                break
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                if attempt < opts.retries:
                    attempt += 1
                    self._pause(what, attempt, self._transport_text(exc))
                    continue
                raise NetworkError(
                    f"{what}: Keystone is unreachable: {self._transport_text(exc)}.",
                    UNAVAILABLE,
                ) from None
            except httpx.TransportError as exc:
                raise NetworkError(f"{what}: {self._transport_text(exc)}.", UNAVAILABLE) from None
        token: str | None = response.headers.get("X-Subject-Token")
        if response.status_code >= 400 or not token:
            reason = self._error_text(response) if response.status_code >= 400 else "no token"
            raise NetworkError(
                f"{what}: {reason}",
                UNAVAILABLE if response.status_code == 503 else BAD_GATEWAY,
            )
        return token


def _describe_transport_error(exc: httpx.TransportError, options: NeutronOptions) -> str:
    if isinstance(exc, httpx.TimeoutException):
        kind = type(exc).__name__
        return f"no answer within {options.timeout:g} s ({kind})"
    return str(exc) or type(exc).__name__


def binding_failed_error(method: str, path: str, port: NeutronPort, purpose: str) -> NetworkError:
    """The error for a port Neutron could not bind: no mechanism driver took the link."""
    links = port.profile.get("local_link_information")
    return NetworkError(
        f"Neutron {method} {path} ({purpose}) failed: Neutron could not bind port {port.id} "
        f"to host {port.host_id or 'unset'}: binding:vif_type is {VIF_TYPE_BINDING_FAILED} "
        f"(no mechanism driver accepted local_link_information {links!r}; check the "
        "local_link_connection of the node's ports against the switches Neutron knows).",
        BAD_GATEWAY,
    )
