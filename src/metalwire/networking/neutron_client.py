"""A small typed client for the part of the Neutron API that metalwire uses.

Built on plain httpx rather than openstacksdk or keystoneauth: metalwire needs a handful of
port and network calls, and wants the timeouts, retries and error messages of every one of
them under its own control. Authentication is an ``httpx.Auth`` flow
(:mod:`metalwire.networking.keystone`): ``auth_type`` ``none`` sends ``X-Roles``, a token
without ``auth_url`` is sent as it is, and the Keystone types send a cached token that is
fetched again once when Neutron answers 401.

Configured by the ``[neutron]`` section with Ironic's (keystoneauth's) option names:
``endpoint_override`` (``/v2.0`` is appended unless present; when empty, the Keystone
catalog's ``network`` endpoint), ``auth_type`` and its credentials, ``cafile``,
``certfile``/``keyfile`` and ``insecure`` for TLS, ``request_timeout`` (seconds per request),
the retry options of :mod:`metalwire.networking.retries` (one loop for every call) and
``status_wait_timeout``.

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
import ssl
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from metalwire import metrics, redact
from metalwire.config import AUTH_TYPES, NeutronOptions
from metalwire.errors import Invalid, NetworkError
from metalwire.identifiers import is_uuid
from metalwire.networking.keystone import HeadersAuth, KeystoneTokenAuth, KeystoneTokens
from metalwire.networking.retries import RetryPolicy, send_with_retries
from metalwire.wording import counted

LOG = logging.getLogger(__name__)

Json = dict[str, Any]

#: Kept for the interfaces' configuration check: the ``auth_type`` values metalwire knows.
AUTH_STRATEGIES = AUTH_TYPES
IDEMPOTENT = frozenset({"GET", "PUT", "DELETE"})
BAD_GATEWAY = 502
UNAVAILABLE = 503
#: The vnic type of a Smart NIC port's binding.
VNIC_TYPE_SMART_NIC = "smart-nic"
VIF_TYPE_BINDING_FAILED = "binding_failed"
PHYSNET_KEY = "provider:physical_network"
_POLL_INTERVAL = 0.2
#: The longest piece of a Neutron or Keystone error message repeated in ours.
ERROR_TEXT_LIMIT = 512
#: The longest query string of one list call of :meth:`NeutronClient.list_ports_matching`:
#: gunicorn answers 414 to a request line past 4,094 bytes, and uwsgi's default buffer holds
#: 4 KB of request line and headers; 3,000 bytes are 75 port ids or 54 host ids.
QUERY_LIMIT = 3000


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
            f"{counted(len(response.content), 'byte')} of {kind or 'unknown type'})"
        )
    return f"HTTP {response.status_code} {detail}"


def _bounded(value: object, limit: int) -> str:
    """One line of at most ``limit`` characters of a string value ('' for anything else)."""
    if not isinstance(value, str):
        return ""
    text = " ".join(value.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _secrets_of(options: NeutronOptions, *userinfo: tuple[str, str] | None) -> list[str]:
    """Every credential the client may send: masked wherever a message could quote it."""
    found = [options.token, options.password, options.application_credential_secret]
    for credentials in userinfo:
        if credentials is not None:
            pair = f"{credentials[0]}:{credentials[1]}".encode()
            found += [credentials[1], base64.b64encode(pair).decode()]
    return [secret for secret in found if secret]


def configuration_problem(options: NeutronOptions) -> str | None:
    """Why the ``[neutron]`` options cannot reach Neutron, or None if they can."""
    if not options.configured:
        return (
            "no Neutron endpoint is configured ([neutron] endpoint_override, or auth_type "
            "password or v3applicationcredential with auth_url to find it in the Keystone "
            "catalog)."
        )
    if options.auth_type not in AUTH_TYPES:
        return f"[neutron] auth_type {options.auth_type!r} is not one of {', '.join(AUTH_TYPES)}."
    return None


def tls_verification(options: NeutronOptions) -> ssl.SSLContext | bool:
    """What httpx verifies TLS servers with, from ``cafile``, ``certfile``, ``keyfile`` and
    ``insecure``; True (httpx's default CA bundle) when none is set."""
    if not (options.cafile or options.certfile or options.insecure):
        return True
    try:
        if options.cafile:
            context = ssl.create_default_context(cafile=options.cafile)
        else:
            import certifi

            context = ssl.create_default_context(cafile=certifi.where())
        if options.insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        if options.certfile:
            context.load_cert_chain(options.certfile, options.keyfile or None)
    except (OSError, ssl.SSLError) as exc:
        files = ", ".join(
            f"{name} {value}"
            for name, value in (
                ("cafile", options.cafile),
                ("certfile", options.certfile),
                ("keyfile", options.keyfile),
            )
            if value
        )
        raise Invalid(f"[neutron] TLS files cannot be used ({files}): {exc}") from None
    return context


class NeutronClient:
    """Neutron calls, each of which raises NetworkError naming itself when it fails.

    Thread-safe: one instance serves every request of a process (``httpx.Client`` pools the
    connections; the keystone token is cached under a lock).
    """

    def __init__(self, options: NeutronOptions, transport: httpx.BaseTransport | None = None):
        problem = configuration_problem(options)
        if problem:
            raise Invalid(problem)
        self.options = options
        self._policy = RetryPolicy.from_options(options)
        self._http = httpx.Client(
            timeout=options.request_timeout, transport=transport, verify=tls_verification(options)
        )
        self._neutron_userinfo: tuple[str, str] | None = None
        self._base_url: str | None = None
        self._catalog_endpoint = False
        if options.endpoint_override:
            self._base_url = self._versioned(options.endpoint_override)
        keystone_userinfo = redact.split_credentials(options.auth_url)[1]
        self._keystone: KeystoneTokens | None = None
        if options.keystone_auth:
            self._keystone = KeystoneTokens(
                options, self._http, self._policy, self._masked, self._explain
            )
        self._secrets = _secrets_of(options, self._neutron_userinfo, keystone_userinfo)
        self._endpoint_lock = threading.Lock()

    def _versioned(self, url: str) -> str:
        """``url`` with ``/v2.0`` and without userinfo (kept to be sent as Basic auth)."""
        base, userinfo = redact.split_credentials(url.rstrip("/"))
        if userinfo is not None:
            self._neutron_userinfo = userinfo
        return base if base.endswith("/v2.0") else base + "/v2.0"

    @property
    def base_url(self) -> str:
        """Neutron's URL with ``/v2.0``; empty until read from the catalog."""
        return self._base_url or ""

    def _endpoint(self, call: str) -> str:
        if self._base_url is None:
            assert self._keystone is not None  # configuration_problem() saw to it
            with self._endpoint_lock:
                if self._base_url is None:
                    url = self._keystone.endpoint(call)
                    self._base_url = self._versioned(url)
                    self._secrets = _secrets_of(
                        self.options,
                        self._neutron_userinfo,
                        redact.split_credentials(self.options.auth_url)[1],
                    )
                    LOG.info("Neutron endpoint from the Keystone catalog: %s", self._base_url)
        return self._base_url

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

    def missing_security_groups(self, ids: Sequence[str], purpose: str) -> list[str]:
        """Those of the security group ``ids`` Neutron does not have (``GET
        /security-groups?id=``)."""
        params = [("id", sg) for sg in ids] + [("fields", "id")]
        body = self._call("GET", "/security-groups", purpose, params=params)
        found = body.get("security_groups") if body is not None else None
        if not isinstance(found, list):
            raise self._unusable(
                "GET", "/security-groups", purpose, "no 'security_groups' list in the answer"
            )
        known = {group.get("id") for group in found if isinstance(group, dict)}
        return [sg for sg in ids if sg not in known]

    def delete_port(self, port_id: str, purpose: str) -> bool:
        """Delete a port; False if it was already gone (404)."""
        return self._call("DELETE", f"/ports/{port_id}", purpose, missing_ok=True) is not None

    def agent_alive(self, host: str, purpose: str) -> bool:
        """Whether a Neutron agent on ``host`` is alive (``GET /agents?host=``)."""
        body = self._call("GET", "/agents", purpose, params=[("host", host)])
        agents = body.get("agents") if body is not None else None
        if not isinstance(agents, list):
            raise self._unusable("GET", "/agents", purpose, "no 'agents' list in the answer")
        return any(isinstance(agent, dict) and agent.get("alive") is True for agent in agents)

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

    def list_ports_matching(
        self,
        purpose: str,
        key: str,
        values: Sequence[str],
        *,
        fields: Collection[str] = (),
        query_limit: int = QUERY_LIMIT,
    ) -> list[NeutronPort]:
        """The ports whose ``key`` (e.g. ``id``, ``binding:host_id``) is one of ``values``.

        As few ``GET /ports`` as fit ``values`` into query strings of at most
        ``query_limit`` bytes (repeated ``key=`` filters, which Neutron matches as any of
        them); with ``fields``, each answer holds only those fields (and ``id``). Raises
        NetworkError as every call does.
        """
        selected = sorted({"id", *fields}) if fields else []
        base = len(str(httpx.QueryParams([("fields", f) for f in selected])))
        found: list[NeutronPort] = []
        chunk: list[str] = []
        length = base
        for value in values:
            more = len(str(httpx.QueryParams([(key, value)]))) + 1
            if chunk and length + more > query_limit:
                found += self._list_chunk(purpose, key, chunk, selected)
                chunk, length = [], base
            chunk.append(value)
            length += more
        if chunk:
            found += self._list_chunk(purpose, key, chunk, selected)
        return found

    def _list_chunk(
        self, purpose: str, key: str, values: list[str], fields: list[str]
    ) -> list[NeutronPort]:
        filters: dict[str, list[str]] = {key: values}
        if fields:
            filters["fields"] = fields
        return self.list_ports(purpose, **filters)

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
        found = self.networks_named(name_or_id, purpose)
        call = f"Neutron GET {self.path('/networks')}?name={name_or_id} ({purpose})"
        if not found:
            raise NetworkError(
                f"{call} failed: no Neutron network has the name or UUID {name_or_id!r}.",
                BAD_GATEWAY,
            )
        if len(found) > 1:
            ids = ", ".join(n.id for n in found)
            raise NetworkError(
                f"{call} failed: {len(found)} Neutron networks are named {name_or_id!r} "
                f"({ids}); configure one by UUID.",
                BAD_GATEWAY,
            )
        return found[0]

    def networks_named(self, name_or_id: str, purpose: str) -> list[NeutronNetwork]:
        """The network with this UUID, or else those with this name (none, one or more)."""
        if is_uuid(name_or_id):
            path = f"/networks/{name_or_id}"
            body = self._call("GET", path, purpose, missing_ok=True)
            if body is not None:
                return [NeutronNetwork.from_json(self._member(body, "network", "GET", path))]
        body = self._call("GET", "/networks", purpose, params=[("name", name_or_id)])
        found = body.get("networks") if body is not None else None
        if not isinstance(found, list):
            raise self._unusable("GET", "/networks", purpose, "no 'networks' list in the answer")
        return [NeutronNetwork.from_json(network) for network in found]

    # -- plumbing --------------------------------------------------------------------------

    def path(self, relative: str) -> str:
        """The path of a call as shown in messages, e.g. ``/v2.0/ports/ID``."""
        prefix = httpx.URL(self._base_url).path.rstrip("/") if self._base_url else "/v2.0"
        return prefix + relative

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
        operation = metrics.neutron_operation(method, path)
        with metrics.neutron_call(operation):
            return self._send(operation, method, path, purpose, json, params, missing_ok)

    def _send(
        self,
        operation: str,
        method: str,
        path: str,
        purpose: str,
        json: Json | None,
        params: list[tuple[str, str]] | None,
        missing_ok: bool,
    ) -> Json | None:
        call = f"Neutron {method} {self.path(path)} ({purpose})"
        try:
            url = self._endpoint(call) + path
            auth = self._auth(call)
        except NetworkError:
            metrics.neutron_failed(operation, "keystone")
            raise
        try:
            response = send_with_retries(
                lambda: self._http.request(
                    method,
                    url,
                    json=json,
                    params=httpx.QueryParams(tuple(params or ())),
                    auth=auth,
                ),
                call=call,
                idempotent=method in IDEMPOTENT,
                policy=self._policy,
                explain=self._explain,
            )
        except httpx.TransportError as exc:
            metrics.neutron_failed(operation, "unreachable")
            raise NetworkError(
                f"{call} failed: Neutron at {self.base_url} is unreachable: "
                f"{self._transport_text(exc)}.",
                UNAVAILABLE,
            ) from None
        status = response.status_code
        if status == 404 and missing_ok:
            return None
        if status >= 400:
            metrics.neutron_failed(operation, str(status))
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
            metrics.neutron_failed(operation, "bad_body")
            raise NetworkError(
                f"{call} failed: the answer (HTTP {status}) is not a JSON object.",
                BAD_GATEWAY,
            )
        return body

    def _masked(self, text: str) -> str:
        """``text`` with every credential of this client (and its Keystone token) masked."""
        token = self._keystone.current if self._keystone is not None else None
        for secret in [*self._secrets, token or ""]:
            if secret:
                text = text.replace(secret, redact.MASK)
        return text

    def _error_text(self, response: httpx.Response) -> str:
        return self._masked(neutron_error_text(response))

    def _transport_text(self, exc: httpx.TransportError) -> str:
        return self._masked(_describe_transport_error(exc, self.options))

    def _explain(self, failure: httpx.TransportError | httpx.Response) -> str:
        if isinstance(failure, httpx.Response):
            return self._error_text(failure)
        return self._transport_text(failure)

    # -- authentication --------------------------------------------------------------------

    def _auth(self, call: str) -> httpx.Auth:
        opts = self.options
        if self._keystone is not None:
            return KeystoneTokenAuth(self._keystone, call, self._neutron_userinfo)
        if opts.auth_type == "none":
            # Never X-Project-Id: with it, Neutron's noauth mode refuses the binding fields.
            return HeadersAuth({"X-Roles": opts.noauth_roles}, self._neutron_userinfo)
        return HeadersAuth({"X-Auth-Token": opts.token}, self._neutron_userinfo)


def _describe_transport_error(exc: httpx.TransportError, options: NeutronOptions) -> str:
    if isinstance(exc, httpx.TimeoutException):
        kind = type(exc).__name__
        return f"no answer within {options.request_timeout:g} s ({kind})"
    return str(exc) or type(exc).__name__


def binding_failed_error(method: str, path: str, port: NeutronPort, purpose: str) -> NetworkError:
    """The error for a port Neutron could not bind: no mechanism driver took the link."""
    return NetworkError(
        f"Neutron {method} {path} ({purpose}) failed: Neutron could not bind port {port.id} "
        f"to host {port.host_id or 'unset'}: binding:vif_type is {VIF_TYPE_BINDING_FAILED} "
        f"({_binding_failure_hint(port)}).",
        BAD_GATEWAY,
    )


def _binding_failure_hint(port: NeutronPort) -> str:
    """What an operator checks when Neutron could not bind ``port``."""
    if port.vnic_type == VNIC_TYPE_SMART_NIC:
        return (
            f"binding:vnic_type is {VNIC_TYPE_SMART_NIC}: a Smart NIC's port is bound by the "
            f"Neutron agent on host {port.host_id or 'unset'}; check that an agent is alive "
            "there (GET /v2.0/agents?host=...) and that a mechanism driver takes smart-nic "
            "ports"
        )
    links = port.profile.get("local_link_information")
    return (
        f"no mechanism driver accepted local_link_information {links!r}; check the "
        "local_link_connection of the node's ports against the switches Neutron knows"
    )
