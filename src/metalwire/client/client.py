"""The synchronous client of the Bare Metal v1 API (metalwire or Ironic)."""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, Literal, TypedDict, TypeVar, Unpack
from urllib.parse import parse_qsl, quote, urlsplit

import httpx

from metalwire import __version__, redact
from metalwire.client import exceptions as exc
from metalwire.client import versions
from metalwire.client.network import ClientCert, NetworkTransport
from metalwire.client.patch import PatchOp
from metalwire.client.resources import (
    Allocation,
    Chassis,
    Conductor,
    DeployTemplate,
    Driver,
    HistoryEvent,
    Node,
    Port,
    Portgroup,
    Resource,
    Runbook,
    VolumeConnector,
    VolumeTarget,
)
from metalwire.client.retry import RetryEvent, RetryPolicy, backoff_delay, retry_after
from metalwire.client.session import KeystoneSessionTransport, endpoint_from_session
from metalwire.client.versions import APIVersion

LOG = logging.getLogger(__name__)
#: The request header of metalwire's dry-run attach.
DRY_RUN_HEADER = "X-Metalwire-Dry-Run"

DEFAULT_URL = "http://127.0.0.1:6385"
# The API's version at the end of an endpoint (``.../v1``, ``.../v1/``): not part of the root.
_VERSION_SUFFIX = re.compile(r"/+v1/*$")
#: The provision states a verb ends in when it fails; a node keeps its target state there.
FAILURE_STATES = frozenset(
    {
        "deploy failed",
        "clean failed",
        "inspect failed",
        "adopt failed",
        "rescue failed",
        "unrescue failed",
        "service failed",
        "error",
    }
)


def verb_over(states: Mapping[str, Any]) -> bool:
    """Whether the provision verb a node's ``states`` show is over: no target state left, or
    failed (a failure state keeps its target, as Ironic's)."""
    return (
        states.get("target_provision_state") is None
        or states.get("provision_state") in FAILURE_STATES
    )


PowerTarget = Literal["power on", "power off", "rebooting", "soft power off", "soft rebooting"]
ProvisionTarget = Literal[
    "manage",
    "provide",
    "active",
    "deleted",
    "deploy",
    "undeploy",
    "rebuild",
    "clean",
    "service",
    "inspect",
    "rescue",
    "unrescue",
    "abort",
    "unhold",
]
# The microversion that introduced each provision target.
_TARGET_SINCE: dict[str, APIVersion] = {
    "manage": versions.MANAGE_PROVIDE,
    "provide": versions.MANAGE_PROVIDE,
    "inspect": APIVersion(1, 6),
    "abort": APIVersion(1, 13),
    "clean": APIVersion(1, 15),
    "rescue": APIVersion(1, 38),
    "unrescue": APIVersion(1, 38),
    "deploy": APIVersion(1, 73),
    "undeploy": APIVersion(1, 73),
    "unhold": APIVersion(1, 85),
    "service": APIVersion(1, 87),
}

R = TypeVar("R", bound=Resource)


class ListQuery(TypedDict, total=False):
    """Options of every list call."""

    detail: bool
    fields: Sequence[str]
    limit: int
    page_size: int
    marker: str
    sort_key: str
    sort_dir: Literal["asc", "desc"]


class NodeQuery(ListQuery, total=False):
    """Options and filters of :meth:`Client.iter_nodes`."""

    maintenance: bool
    associated: bool
    provision_state: str
    driver: str
    resource_class: str
    conductor_group: str
    owner: str
    lessee: str
    description_contains: str
    instance_uuid: str
    chassis_uuid: str
    shard: str
    sharded: bool
    retired: bool
    fault: str
    conductor: str
    include_children: bool
    parent_node: str
    instance_name: str


class PortQuery(ListQuery, total=False):
    """Options and filters of :meth:`Client.iter_ports`."""

    node: str
    portgroup: str
    address: str
    physical_network: str
    shard: str  # the ports of the nodes in one shard, or several separated by commas (1.82)


class PortgroupQuery(ListQuery, total=False):
    """Options and filters of :meth:`Client.iter_portgroups`."""

    node: str
    address: str
    shard: str  # the portgroups of the nodes in one shard, or several (1.82)


class ChassisQuery(ListQuery, total=False):
    """Options of :meth:`Client.iter_chassis` (a chassis list has no filters)."""


class ConductorQuery(ListQuery, total=False):
    """Options of :meth:`Client.iter_conductors` (no filters; ``marker`` is a host name)."""


class AllocationQuery(ListQuery, total=False):
    """Options and filters of :meth:`Client.iter_allocations`."""

    node: str
    resource_class: str
    state: str
    owner: str


class DeployTemplateQuery(ListQuery, total=False):
    """Options of :meth:`Client.iter_deploy_templates` (no filters)."""


class VolumeQuery(ListQuery, total=False):
    """Options and filters of :meth:`Client.iter_volume_connectors` and
    :meth:`Client.iter_volume_targets`."""

    node: str


class RunbookQuery(ListQuery, total=False):
    """Options of :meth:`Client.iter_runbooks` (no filters: a project sees its own runbooks
    and the public ones)."""


_LIST_OPTIONS = frozenset(ListQuery.__annotations__)
_FILTERS: dict[str, frozenset[str]] = {
    "nodes": frozenset(NodeQuery.__annotations__) - _LIST_OPTIONS,
    "ports": frozenset(PortQuery.__annotations__) - _LIST_OPTIONS,
    "portgroups": frozenset(PortgroupQuery.__annotations__) - _LIST_OPTIONS,
    "chassis": frozenset(ChassisQuery.__annotations__) - _LIST_OPTIONS,
    "conductors": frozenset(ConductorQuery.__annotations__) - _LIST_OPTIONS,
    "allocations": frozenset(AllocationQuery.__annotations__) - _LIST_OPTIONS,
    "deploy_templates": frozenset(DeployTemplateQuery.__annotations__) - _LIST_OPTIONS,
    "runbooks": frozenset(RunbookQuery.__annotations__) - _LIST_OPTIONS,
    "connectors": frozenset(VolumeQuery.__annotations__) - _LIST_OPTIONS,
    "targets": frozenset(VolumeQuery.__annotations__) - _LIST_OPTIONS,
    "history": frozenset(),
}
# How a list shows every field (``detail``): by default its /detail path; these collections
# take ?detail=true instead, and an allocation list shows every field anyway.
_DETAIL_QUERY = frozenset(
    {"deploy_templates", "runbooks", "connectors", "targets", "history", "conductors"}
)
_ALWAYS_DETAILED = frozenset({"allocations"})


def _segment(ident: str) -> str:
    if not ident:
        raise ValueError("An identifier (UUID or name) is required.")
    return quote(ident, safe="")


def _ident(value: str | Resource) -> str:
    return value.uuid if isinstance(value, Resource) else value


def _item(collection: str, ident: str | Resource) -> str:
    """The path of one item of a collection: ``/v1/<collection>/<ident>``."""
    return f"/v1/{collection}/{_segment(_ident(ident))}"


def _fields(fields: Sequence[str] | None) -> dict[str, str] | None:
    """The query of a show limited to ``fields``."""
    return {"fields": ",".join(fields)} if fields else None


class Client:
    """A client of the Bare Metal v1 API with microversion negotiation and safe retries.

    ``url`` is the service root (``http://host:6385``); an endpoint ending in ``/v1`` (as
    some catalogs and ``OS_ENDPOINT`` settings have it) means its root, as for the
    ``baremetal`` client. ``api_version`` pins a microversion
    ("1.N"); None or "latest" negotiates the highest one both sides support on first use.
    ``retry`` says which failures are retried (:class:`RetryPolicy`); ``transport`` replaces
    httpx's network transport, e.g. with :class:`metalwire.client.transport.ASGITransport`.
    ``auth`` authenticates each request (an ``httpx.Auth`` flow). ``session`` (a
    keystoneauth1 session) sends every request instead, with its auth plugin and TLS options
    (:mod:`metalwire.client.session`); :meth:`from_session` also finds ``url`` in its catalog.
    ``verify`` (False, or a CA bundle's path) and ``cert`` (a client certificate) set the TLS
    of the network transport, as :func:`metalwire.client.network.tls_context` takes them; with
    ``transport`` or ``session``, TLS is theirs to set, and giving them as well is an error.

    Use as a context manager, or call :meth:`close`. Every call raises the errors of
    :mod:`metalwire.client.exceptions`: :class:`~exceptions.APIConnectionError` when the
    server cannot be reached, :class:`~exceptions.VersionNegotiationError` when no
    microversion can be agreed, an :class:`~exceptions.HTTPError` subclass for an error
    status. Raises ValueError for a malformed ``api_version``, a ``timeout`` that is not a
    number of seconds more than 0, and for ``verify`` or ``cert`` files that cannot be read.
    """

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        api_version: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        headers: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        auth: httpx.Auth | None = None,
        session: Any = None,
        verify: bool | str = True,
        cert: ClientCert | None = None,
    ) -> None:
        if not (math.isfinite(timeout) and timeout > 0):
            raise ValueError(f"timeout must be a number of seconds more than 0, not {timeout!r}.")
        tls_given = verify is not True or bool(cert)
        if tls_given and (transport is not None or session is not None):
            raise ValueError(
                "verify and cert set the network transport's TLS: give them to "
                "the transport or session instead"
            )
        # The URL is shown in messages and logs; credentials in it go as Basic authentication.
        root = _VERSION_SUFFIX.sub("", url.rstrip("/"))
        self.url, userinfo = redact.split_credentials(root)
        self._pinned = (
            None
            if api_version is None or api_version.strip().lower() == "latest"
            else APIVersion.parse(api_version)
        )
        self.retry = retry if retry is not None else RetryPolicy()
        self._sleep = sleep
        self._version: APIVersion | None = None
        self._server_range: tuple[APIVersion, APIVersion] | None = None
        self._server_name: str | None = None  # the root document's name, read by negotiate()
        self.last_request_id: str | None = None
        if session is not None:
            transport = KeystoneSessionTransport(session)
        self._http = httpx.Client(
            base_url=self.url,
            auth=auth if userinfo is None else httpx.BasicAuth(*userinfo),
            timeout=timeout,
            transport=(
                transport if transport is not None else NetworkTransport(verify=verify, cert=cert)
            ),
            headers={
                "Accept": "application/json",
                "User-Agent": f"metalwire-client/{__version__}",
                **(headers or {}),
            },
        )

    @classmethod
    def from_session(
        cls,
        session: Any,
        *,
        endpoint: str | None = None,
        interface: str = "public",
        region_name: str | None = None,
        **options: Any,
    ) -> Client:
        """A client sending through the keystoneauth1 ``session``, at ``endpoint`` or else at
        the ``baremetal`` endpoint of its catalog. ``options`` go to :class:`Client`.

        Raises AuthenticationError when the session cannot log in, EndpointNotFound when the
        catalog has no such endpoint.
        """
        url = endpoint or endpoint_from_session(
            session, interface=interface, region_name=region_name
        )
        return cls(url, session=session, **options)

    # -- lifecycle -----------------------------------------------------------------------

    def close(self) -> None:
        """Close the connections (and the transport)."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- versions ------------------------------------------------------------------------

    @property
    def api_version(self) -> APIVersion:
        """The microversion in use; negotiates on first access (raises as :meth:`negotiate`)."""
        if self._version is None:
            self._version = self.negotiate()
        return self._version

    @property
    def server_versions(self) -> tuple[APIVersion, APIVersion]:
        """The ``(minimum, maximum)`` microversions the server announced."""
        if self._server_range is None:
            self.negotiate()
        assert self._server_range is not None
        return self._server_range

    def negotiate(self) -> APIVersion:
        """Read ``/`` and ``/v1/`` and pick the microversion to use.

        Raises VersionNegotiationError when no version fits (a pinned version outside the
        server's range included), InvalidResponse when the server announces no v1 API,
        APIConnectionError / HTTPError when discovery fails.
        """
        root = self._request("GET", "/", versioned=False)
        self._server_name = str(root.get("name")) if isinstance(root, dict) else None
        server_min, server_max = self._announced_range(root)
        chosen = versions.choose_version(server_min, server_max, self._pinned)
        response = self._send("GET", "/v1/", headers={versions.VERSION_HEADER: str(chosen)})
        answered = response.headers.get(versions.VERSION_HEADER)
        if answered is not None and answered.strip() != str(chosen):
            raise exc.VersionNegotiationError(
                f"API version {chosen} was requested but the server answered with {answered}."
            )
        self._server_range = (server_min, server_max)
        self._version = chosen
        LOG.debug(
            "Using API version %s with %s (server %s-%s)", chosen, self.url, server_min, server_max
        )
        return chosen

    def _announced_range(self, root: Any) -> tuple[APIVersion, APIVersion]:
        entries: list[Any] = []
        if isinstance(root, dict):
            entries = [root.get("default_version"), *(root.get("versions") or [])]
        for entry in entries:
            if isinstance(entry, dict) and entry.get("id") == "v1" and entry.get("version"):
                try:
                    return (
                        APIVersion.parse(str(entry.get("min_version") or "1.1")),
                        APIVersion.parse(str(entry["version"])),
                    )
                except ValueError:
                    break
        # An old server announces its range only in the headers of /v1/.
        response = self._send("GET", "/v1/")
        low = response.headers.get(versions.MIN_VERSION_HEADER)
        high = response.headers.get(versions.MAX_VERSION_HEADER)
        if low is None or high is None:
            raise exc.InvalidResponse(f"The server at {self.url} announces no v1 API versions.")
        try:
            return APIVersion.parse(low), APIVersion.parse(high)
        except ValueError as error:
            raise exc.InvalidResponse(f"The server announced a bad API version: {error}") from None

    def require(self, minimum: APIVersion, feature: str) -> None:
        """Raise FeatureNotSupported when the negotiated version is below ``minimum``."""
        if self.api_version < minimum:
            raise exc.FeatureNotSupported(feature, str(minimum), str(self.api_version))

    # -- HTTP ----------------------------------------------------------------------------

    def _send(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """One call with retries; returns a 2xx/3xx response or raises."""
        retries = 0
        url = f"{self.url}{path}"
        while True:
            reason: str
            delay: float | None = None
            try:
                response = self._http.request(
                    method,
                    path,
                    json=json,
                    params=params,
                    headers=headers,
                )
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                failure: exc.MetalwireClientError = _connection_error(error, method, url, False)
                failure.__cause__ = error
                reason = "connect"
            except httpx.TimeoutException as error:
                raise _connection_error(error, method, url, True) from error
            except httpx.TransportError as error:
                raise _connection_error(error, method, url, True) from error
            else:
                self.last_request_id = response.headers.get(exc.REQUEST_ID_HEADER)
                if response.status_code < 400:
                    return response
                failure = exc.from_response(response)
                if isinstance(failure, exc.ServiceUnavailable):
                    reason = "unavailable"
                    delay = retry_after(response.headers.get("Retry-After"), self.retry)
                elif isinstance(failure, exc.NodeLocked):
                    reason = "node_locked"
                else:
                    raise failure
            if retries >= self.retry.max_retries or not self.retry.allows(reason):
                raise failure
            retries += 1
            if delay is None:
                delay = backoff_delay(retries, self.retry)
            LOG.info("%s %s failed (%s); retry %d in %.2f s", method, url, failure, retries, delay)
            if self.retry.on_retry is not None:
                self.retry.on_retry(RetryEvent(retries, delay, method, url, reason, failure))
            self._sleep(delay)

    def _request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, str] | None = None,
        versioned: bool = True,
    ) -> Any:
        """A call's decoded JSON body (None when empty)."""
        headers = {versions.VERSION_HEADER: str(self.api_version)} if versioned else None
        response = self._send(method, path, json=json, params=params, headers=headers)
        if not response.content or response.status_code == 204:
            return None
        try:
            return response.json()
        except ValueError:
            raise exc.InvalidResponse(
                f"{method} {path} answered {response.status_code} with a body that is not JSON."
            ) from None

    def _object(
        self, method: str, path: str, json: Any = None, params: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        body = self._request(method, path, json=json, params=params)
        if not isinstance(body, dict):
            raise exc.InvalidResponse(f"{method} {path} did not answer with a JSON object.")
        return body

    def _paginate(
        self,
        path: str,
        key: str,
        params: dict[str, str],
        limit: int | None,
    ) -> Iterator[dict[str, Any]]:
        """Items of a collection, following ``next`` links until ``limit`` items were seen."""
        seen = 0
        query = dict(params)
        while True:
            body = self._request("GET", path, params=query)
            if not isinstance(body, dict) or not isinstance(body.get(key), list):
                raise exc.InvalidResponse(f"GET {path} did not answer with a '{key}' list.")
            for item in body[key]:
                yield item
                seen += 1
                if limit is not None and seen >= limit:
                    return
            following = body.get("next")
            if not following or not body[key]:
                return
            # The next link may use another host name (public_endpoint): keep only its query.
            query = dict(parse_qsl(urlsplit(str(following)).query, keep_blank_values=True))

    def _list(self, cls: type[R], path: str, key: str, query: Mapping[str, Any]) -> Iterator[R]:
        unknown = set(query) - _LIST_OPTIONS - _FILTERS[key]
        if unknown:
            raise TypeError(f"Unknown {key} list option(s): {', '.join(sorted(unknown))}.")
        detail = bool(query.get("detail"))
        fields: Sequence[str] | None = query.get("fields")
        limit: int | None = query.get("limit")
        if detail and fields:
            raise ValueError("detail and fields cannot be used together.")
        if limit is not None and limit < 0:
            raise ValueError("limit must be 0 or more.")
        if limit == 0:
            return iter(())
        params: dict[str, str] = {}
        for name in sorted(_FILTERS[key]):
            value = query.get(name)
            if value is not None:
                params[name] = ("true" if value else "false") if isinstance(value, bool) else value
        if fields:
            params["fields"] = ",".join(fields)
        for option, param in (
            ("page_size", "limit"),
            ("marker", "marker"),
            ("sort_key", "sort_key"),
            ("sort_dir", "sort_dir"),
        ):
            if query.get(option) is not None:
                params[param] = str(query[option])
        if detail and key in _DETAIL_QUERY:
            params["detail"] = "true"
        elif detail and key not in _ALWAYS_DETAILED:
            path = f"{path}/detail"
        items = self._paginate(path, key, params, limit)
        return (cls(item) for item in items)

    # -- nodes ---------------------------------------------------------------------------

    def create_node(self, driver: str, **fields: Any) -> Node:
        """Enrol a node with ``driver`` and any writable fields (name, properties...).

        Raises BadRequest for an invalid or unknown field value, Conflict for a duplicate
        name or UUID, NotAcceptable for a field newer than the microversion.
        """
        return Node(self._object("POST", "/v1/nodes", {"driver": driver, **fields}))

    def get_node(self, node: str | Resource, fields: Sequence[str] | None = None) -> Node:
        """The node by UUID or name. Raises NotFound when there is none."""
        return Node(self._object("GET", _item("nodes", node), params=_fields(fields)))

    def get_node_by_instance(self, instance_uuid: str, fields: Sequence[str] | None = None) -> Node:
        """The node the instance ``instance_uuid`` is on. Raises NotFound when there is none."""
        shape: dict[str, Any] = {"fields": list(fields)} if fields else {"detail": True}
        for node in self.iter_nodes(instance_uuid=instance_uuid, limit=1, **shape):
            return node
        raise exc.NotFound(
            f"No node has the instance {instance_uuid}.",
            status_code=404,
            method="GET",
            url=f"/v1/nodes?instance_uuid={quote(instance_uuid)}",
        )

    def iter_nodes(self, **query: Unpack[NodeQuery]) -> Iterator[Node]:
        """Nodes matching the filters, fetched page by page (following ``next``) as consumed.

        Options: ``detail`` (every field), ``fields`` (only those), ``limit`` (total cap),
        ``page_size`` (items per request), ``marker``, ``sort_key``, ``sort_dir``; filters:
        ``maintenance``, ``associated``, ``provision_state``, ``driver``, ``resource_class``,
        ``conductor_group``, ``owner``, ``lessee``, ``description_contains``,
        ``instance_uuid``, ``chassis_uuid`` (the nodes in that chassis; NotFound for no such
        chassis), ``shard`` (one shard, or several separated by commas; API 1.82),
        ``sharded`` (whether the node is in a shard), ``retired`` (1.61), ``fault`` (1.42),
        ``conductor`` (the nodes a conductor serves; 1.49), ``include_children`` (child nodes
        are left out otherwise; 1.83), ``parent_node`` (a parent's UUID: its children; 1.83)
        and ``instance_name`` (1.104). Raises BadRequest for a filter the
        microversion does not know, ValueError for ``detail`` with ``fields`` or a negative
        ``limit``, TypeError for an unknown option.
        """
        return self._list(Node, "/v1/nodes", "nodes", query)

    def list_nodes(self, **query: Unpack[NodeQuery]) -> list[Node]:
        """All nodes :meth:`iter_nodes` yields for the same options; raises as it does."""
        return list(self.iter_nodes(**query))

    def update_node(
        self, node: str | Resource, patch: Sequence[PatchOp], reset_interfaces: bool = False
    ) -> Node:
        """Apply a JSON patch (see :mod:`metalwire.client.patch`); returns the updated node.

        ``reset_interfaces`` (API 1.45, with a patch of ``/driver`` only): every interface
        the patch does not set takes the new driver's default, the network interface too.
        Raises BadRequest for a bad patch or value, NotFound, Conflict (NodeLocked included)
        and NotAcceptable for a field newer than the microversion.
        """
        path = f"/v1/nodes/{_segment(_ident(node))}"
        params = {"reset_interfaces": "true"} if reset_interfaces else None
        return Node(self._object("PATCH", path, list(patch), params))

    def delete_node(self, node: str | Resource) -> None:
        """Delete the node with its ports and portgroups.

        Raises NotFound, Conflict (associated with an instance, or locked) or BadRequest (a
        provision state that forbids deletion).
        """
        self._request("DELETE", _item("nodes", node))

    def set_node_traits(self, node: str | Resource, traits: Sequence[str]) -> None:
        """Replace the node's traits (API 1.37). Raises FeatureNotSupported, HTTPError."""
        self._set_traits(self._node_traits(node), traits)

    def node_traits(self, node: str | Resource) -> list[str]:
        """The node's traits, sorted (API 1.37). Raises FeatureNotSupported, NotFound."""
        return self._traits(self._node_traits(node))

    def add_node_trait(self, node: str | Resource, trait: str) -> None:
        """Add one trait to the node's (API 1.37); one it has already is kept. Raises
        BadRequest (not a standard or custom trait), NotFound, Conflict (locked)."""
        self._add_trait(self._node_traits(node), trait)

    def remove_node_trait(self, node: str | Resource, trait: str | None = None) -> None:
        """Remove one trait from the node, or every trait with ``trait`` None (API 1.37).
        Raises NotFound (no such node, or the node has not that trait), Conflict."""
        self._remove_trait(self._node_traits(node), trait)

    def _node_traits(self, node: str | Resource) -> str:
        self.require(versions.TRAITS, "node traits")
        return f"{_item('nodes', node)}/traits"

    # -- traits of a node or a runbook: the same sub-resource ----------------------------

    def _traits(self, path: str) -> list[str]:
        traits = self._object("GET", path).get("traits")
        if not isinstance(traits, list):
            raise exc.InvalidResponse(f"GET {path} did not list traits.")
        return sorted(str(trait) for trait in traits)

    def _set_traits(self, path: str, traits: Sequence[str]) -> None:
        self._request("PUT", path, json={"traits": list(traits)})

    def _add_trait(self, path: str, trait: str) -> None:
        self._request("PUT", f"{path}/{_segment(trait)}")

    def _remove_trait(self, path: str, trait: str | None) -> None:
        self._request("DELETE", path if trait is None else f"{path}/{_segment(trait)}")

    def set_target_raid_config(self, node: str | Resource, config: Mapping[str, Any]) -> None:
        """Set the node's target RAID configuration (``logical_disks``; API 1.12); an empty
        one clears it. Raises FeatureNotSupported, BadRequest, NotFound."""
        self.require(versions.RAID_CONFIG, "target RAID configurations")
        self._request("PUT", f"{_item('nodes', node)}/states/raid", json=dict(config))

    def node_children(self, node: str | Resource) -> list[str]:
        """The UUIDs of the node's child nodes (API 1.83). Raises FeatureNotSupported,
        NotFound."""
        self.require(versions.PARENT_NODES, "child nodes")
        children = self._object("GET", f"{_item('nodes', node)}/children").get("children")
        if not isinstance(children, list):
            raise exc.InvalidResponse("GET /v1/nodes/{node}/children did not list children.")
        return [str(child) for child in children]

    def node_inventory(self, node: str | Resource) -> dict[str, Any]:
        """What the node's inspection found: ``inventory`` and ``plugin_data`` (API 1.81).
        Raises FeatureNotSupported, NotFound (also for a node never inspected)."""
        self.require(versions.INVENTORY, "node inventories")
        return self._object("GET", f"{_item('nodes', node)}/inventory")

    def list_shards(self) -> list[dict[str, Any]]:
        """The shards nodes are in, each ``{"name", "count"}``, largest first (API 1.82)."""
        self.require(versions.SHARDS, "shards")
        shards = self._object("GET", "/v1/shards").get("shards")
        if not isinstance(shards, list):
            raise exc.InvalidResponse("GET /v1/shards did not list shards.")
        return [dict(shard) for shard in shards]

    # -- provision state and maintenance --------------------------------------------------

    def set_provision_state(
        self,
        node: str | Resource,
        target: ProvisionTarget,
        clean_steps: Sequence[Mapping[str, Any]] | None = None,
        *,
        service_steps: Sequence[Mapping[str, Any]] | None = None,
        deploy_steps: Sequence[Mapping[str, Any]] | None = None,
        runbook: str | None = None,
        disable_ramdisk: bool | None = None,
        configdrive: str | Mapping[str, Any] | None = None,
        rescue_password: str | None = None,
    ) -> None:
        """Ask for a provision state change (``PUT /v1/nodes/{node}/states/provision``).

        ``target`` is a verb: manage, provide, active (deploy), deleted (undeploy), rebuild,
        clean (with its ``clean_steps``, ``{"interface": ..., "step": ...}`` each, or a
        ``runbook``), service (``service_steps`` or a ``runbook``), inspect, rescue (with a
        ``rescue_password``), unrescue, abort or unhold. A deploy or a rebuild may take
        ``deploy_steps`` and a ``configdrive`` (a URL, a gzipped and base64-encoded image, or
        ``meta_data``, ``user_data``, ``network_data``, ``vendor_data`` as a dictionary), a
        clean or a service ``disable_ramdisk``; what is None is not sent. Returns once the verb
        is accepted: on a node whose network interface calls an external service its steps go
        on (:meth:`wait_for_provision_state` waits for them). Raises FeatureNotSupported for
        a verb newer than the microversion, BadRequest when the node's state does not allow it
        or the steps are missing or malformed, NotFound, NodeLocked.
        """
        since = _TARGET_SINCE.get(target)
        if since is not None:
            self.require(since, f"provision target {target!r}")
        if runbook is not None:
            self.require(versions.RUNBOOKS, "a clean or service by runbook")
        path = f"/v1/nodes/{_segment(_ident(node))}/states/provision"
        body: dict[str, Any] = {"target": target}
        for field, steps in (
            ("clean_steps", clean_steps),
            ("service_steps", service_steps),
            ("deploy_steps", deploy_steps),
        ):
            if steps is not None:
                body[field] = [dict(step) for step in steps]
        for field, value in (
            ("runbook", runbook),
            ("disable_ramdisk", disable_ramdisk),
            ("configdrive", configdrive),
            ("rescue_password", rescue_password),
        ):
            if value is not None:
                body[field] = dict(value) if isinstance(value, Mapping) else value
        self._request("PUT", path, json=body)

    def manage(self, node: str | Resource) -> None:
        """Move the node to ``manageable``; raises as :meth:`set_provision_state`."""
        self.set_provision_state(node, "manage")

    def provide(self, node: str | Resource) -> None:
        """Move the node to ``available``; raises as :meth:`set_provision_state`."""
        self.set_provision_state(node, "provide")

    def deploy(self, node: str | Resource) -> None:
        """Deploy the node (target ``active``); raises as :meth:`set_provision_state`."""
        self.set_provision_state(node, "active")

    def undeploy(self, node: str | Resource) -> None:
        """Tear the node down (target ``deleted``); raises as :meth:`set_provision_state`."""
        self.set_provision_state(node, "deleted")

    def wait_for_provision_state(
        self,
        node: str | Resource,
        expected: str | Collection[str],
        timeout: float = 1800.0,
        interval: float = 2.0,
    ) -> dict[str, Any]:
        """After a provision verb, wait until the node's provision state is ``expected`` (or
        one of several); its states then (as :meth:`get_states`).

        On a node whose network interface calls an external service (``neutron``,
        ``ironic-networking``) a verb is answered once accepted and its steps go on in the
        background, the node showing ``deploying``, ``cleaning``, ...; elsewhere it is done
        when answered. Raises ProvisionStateError when the verb ends in another state
        (``deploy failed``, ``error``, ...) or after ``timeout``
        seconds; NotFound.
        """
        deadline = time.monotonic() + timeout
        wanted = (expected,) if isinstance(expected, str) else tuple(expected)
        described = " or ".join(repr(state) for state in wanted)
        while True:
            states = self.get_states(node)
            state, error = states["provision_state"], states.get("last_error")
            if state in wanted:
                return states
            label = _ident(node)
            if verb_over(states):
                raise exc.ProvisionStateError(
                    f"Node {label} ended in {state!r}, not {described}"
                    + (f": {error}" if error else ""),
                    state=state,
                    last_error=error,
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise exc.ProvisionStateError(
                    f"Node {label} is still {state!r} after {timeout:g} s, not {described}",
                    state=state,
                    last_error=error,
                )
            self._sleep(min(interval, remaining))

    def get_states(self, node: str | Resource) -> dict[str, Any]:
        """The node's power and provision states (``GET /v1/nodes/{node}/states``).

        Raises NotFound.
        """
        return self._object("GET", f"/v1/nodes/{_segment(_ident(node))}/states")

    def set_maintenance(self, node: str | Resource, reason: str | None = None) -> None:
        """Put the node in maintenance mode. Raises NotFound, NodeLocked."""
        body = {"reason": reason} if reason is not None else None
        self._request("PUT", f"/v1/nodes/{_segment(_ident(node))}/maintenance", json=body)

    def unset_maintenance(self, node: str | Resource) -> None:
        """Take the node out of maintenance mode. Raises NotFound, NodeLocked."""
        self._request("DELETE", f"/v1/nodes/{_segment(_ident(node))}/maintenance")

    # -- validation and history ------------------------------------------------------------

    def validate_node(self, node: str | Resource) -> dict[str, dict[str, Any]]:
        """Each of the node's interfaces checked (``GET /v1/nodes/{node}/validate``):
        interface -> ``{"result": True, False or None (not offered), "reason": ...}``.
        Raises NotFound."""
        body = self._object("GET", f"{_item('nodes', node)}/validate")
        return {str(k): dict(v) for k, v in body.items() if isinstance(v, dict)}

    def iter_node_history(
        self, node: str | Resource, **query: Unpack[ListQuery]
    ) -> Iterator[HistoryEvent]:
        """What happened to the node, oldest first, page by page (API 1.78); ``detail``
        adds who did it, where and for which VIF. Raises FeatureNotSupported, NotFound."""
        self.require(versions.HISTORY, "node history")
        return self._list(HistoryEvent, f"{_item('nodes', node)}/history", "history", query)

    def list_node_history(
        self, node: str | Resource, **query: Unpack[ListQuery]
    ) -> list[HistoryEvent]:
        """All entries :meth:`iter_node_history` yields; raises as it does."""
        return list(self.iter_node_history(node, **query))

    def get_node_history_event(self, node: str | Resource, event: str) -> HistoryEvent:
        """One entry of the node's history, every field. Raises NotFound."""
        self.require(versions.HISTORY, "node history")
        path = f"{_item('nodes', node)}/history/{_segment(event)}"
        return HistoryEvent(self._object("GET", path))

    # -- power and boot device ------------------------------------------------------------

    def set_power_state(
        self, node: str | Resource, target: PowerTarget, timeout: int | None = None
    ) -> None:
        """Power the node on or off, or reboot it (``PUT /v1/nodes/{node}/states/power``);
        ``soft power off`` and ``soft rebooting`` ask the operating system first, within
        ``timeout`` seconds (both API 1.27). Raises FeatureNotSupported, BadRequest (a
        target the node's power interface does not offer, a timeout that is not a positive
        number of seconds), NotFound, NodeLocked, Conflict (the node is in a state that
        refuses it).
        """
        if target.startswith("soft ") or timeout is not None:
            self.require(versions.SOFT_POWER, "soft power actions and power timeouts")
        body: dict[str, Any] = {"target": target}
        if timeout is not None:
            body["timeout"] = timeout
        self._request("PUT", f"{_item('nodes', node)}/states/power", json=body)

    def inject_nmi(self, node: str | Resource) -> None:
        """Send the node a non-maskable interrupt through its management interface (API
        1.29). Raises FeatureNotSupported, BadRequest (the interface cannot), NotFound,
        NodeLocked."""
        self.require(versions.INJECT_NMI, "injecting an NMI")
        self._request("PUT", f"{_item('nodes', node)}/management/inject_nmi", json={})

    def set_boot_mode(self, node: str | Resource, mode: Literal["bios", "uefi"]) -> None:
        """Ask for the node's boot mode to change (API 1.76). Accepted once checked: a
        management interface that cannot change it says so in the node's ``last_error`` and
        history, as Ironic's does. Raises FeatureNotSupported, BadRequest, NotFound,
        NodeLocked."""
        self.require(versions.BOOT_MODE, "changing the boot mode")
        self._request("PUT", f"{_item('nodes', node)}/states/boot_mode", json={"target": mode})

    def set_secure_boot(self, node: str | Resource, enabled: bool) -> None:
        """Ask for the node's secure boot to be turned on or off (API 1.76); refusals as
        for :meth:`set_boot_mode`."""
        self.require(versions.BOOT_MODE, "changing secure boot")
        path = f"{_item('nodes', node)}/states/secure_boot"
        self._request("PUT", path, json={"target": enabled})

    def set_boot_device(self, node: str | Resource, device: str, persistent: bool = False) -> None:
        """Boot the node from ``device`` next time, or every time (``persistent``). Raises
        BadRequest (a device the node's management interface does not offer), NotFound,
        NodeLocked."""
        body = {"boot_device": device, "persistent": persistent}
        self._request("PUT", f"{_item('nodes', node)}/management/boot_device", json=body)

    def get_boot_device(self, node: str | Resource) -> dict[str, Any]:
        """``boot_device`` and ``persistent`` (None for both when not known). Raises
        NotFound."""
        return self._object("GET", f"{_item('nodes', node)}/management/boot_device")

    def get_supported_boot_devices(self, node: str | Resource) -> list[str]:
        """The devices the node's management interface can boot it from. Raises NotFound."""
        path = f"{_item('nodes', node)}/management/boot_device/supported"
        devices = self._object("GET", path).get("supported_boot_devices")
        if not isinstance(devices, list):
            raise exc.InvalidResponse(f"GET {path} did not answer a 'supported_boot_devices' list.")
        return [str(device) for device in devices]

    def set_console(self, node: str | Resource, enabled: bool) -> None:
        """Start or stop the node's console (``PUT /v1/nodes/{node}/states/console``).
        Raises BadRequest (the node's console interface cannot), NotFound, NodeLocked."""
        body = {"enabled": enabled}
        self._request("PUT", f"{_item('nodes', node)}/states/console", json=body)

    def get_console(self, node: str | Resource) -> dict[str, Any]:
        """``console_enabled`` and, when it is, ``console_info`` (its ``type`` and ``url``).
        Raises NotFound."""
        return self._object("GET", f"{_item('nodes', node)}/states/console")

    # -- VIFs ----------------------------------------------------------------------------

    def vif_list(self, node: str | Resource) -> list[str]:
        """IDs of the VIFs attached to the node (API 1.28).

        Raises FeatureNotSupported, NotFound.
        """
        self.require(versions.VIFS, "VIFs")
        body = self._object("GET", f"/v1/nodes/{_segment(_ident(node))}/vifs")
        vifs = body.get("vifs")
        if not isinstance(vifs, list):
            raise exc.InvalidResponse("GET /v1/nodes/{node}/vifs did not answer a 'vifs' list.")
        return [str(v["id"]) for v in vifs if isinstance(v, dict) and "id" in v]

    def vif_attach(
        self,
        node: str | Resource,
        vif_id: str,
        *,
        port_uuid: str | None = None,
        portgroup_uuid: str | None = None,
        vif_info: Mapping[str, Any] | None = None,
    ) -> None:
        """Attach a VIF to a free port or portgroup of the node (API 1.28).

        ``port_uuid`` or ``portgroup_uuid`` (API 1.67) picks the target; ``vif_info`` adds
        keys to the request body. Raises ValueError when both targets are given,
        FeatureNotSupported, BadRequest (no free port, bad target), NotFound,
        VifAlreadyAttached (never retried) and NodeLocked.
        """
        self.require(versions.VIFS, "VIFs")
        body = self._attach_body(vif_id, port_uuid, portgroup_uuid, vif_info)
        self._request("POST", f"/v1/nodes/{_segment(_ident(node))}/vifs", json=body)

    def _attach_body(
        self,
        vif_id: str,
        port_uuid: str | None,
        portgroup_uuid: str | None,
        vif_info: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        """The body of an attach request, after checking the targets asked for."""
        if port_uuid and portgroup_uuid:
            raise ValueError("Give port_uuid or portgroup_uuid, not both.")
        if port_uuid or portgroup_uuid:
            self.require(versions.VIF_ATTACH_TARGET, "attaching a VIF to a given port")
        body: dict[str, Any] = {**(vif_info or {}), "id": vif_id}
        if port_uuid:
            body["port_uuid"] = port_uuid
        if portgroup_uuid:
            body["portgroup_uuid"] = portgroup_uuid
        return body

    def vif_attach_dry_run(
        self,
        node: str | Resource,
        vif_id: str,
        *,
        port_uuid: str | None = None,
        portgroup_uuid: str | None = None,
        vif_info: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Where :meth:`vif_attach` would put the VIF, and why no other port or portgroup;
        nothing is attached (metalwire only: ``X-Metalwire-Dry-Run``).

        The answer is the server's document (``target``, ``refused``, ``error``: see
        docs/api-ref/vifs.md). Raises DryRunNotSupported when the server is not metalwire
        (nothing is sent then), and otherwise as :meth:`vif_attach` does before it chooses.
        """
        self.require(versions.VIFS, "VIFs")  # negotiates, which reads the server's name
        if self._server_name != "metalwire":
            raise exc.DryRunNotSupported(
                f"The server at {self.url} calls itself {self._server_name!r}, not metalwire: "
                "it would attach the VIF instead of explaining the attach, so nothing was sent."
            )
        body = self._attach_body(vif_id, port_uuid, portgroup_uuid, vif_info)
        path = f"/v1/nodes/{_segment(_ident(node))}/vifs"
        headers = {versions.VERSION_HEADER: str(self.api_version), DRY_RUN_HEADER: "true"}
        response = self._send("POST", path, json=body, headers=headers)
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if response.status_code != 200 or not isinstance(answer, dict) or not answer.get("dry_run"):
            raise exc.InvalidResponse(
                f"POST {path} with {DRY_RUN_HEADER} answered {response.status_code} without a "
                "dry-run document."
            )
        return answer

    def vif_detach(self, node: str | Resource, vif_id: str) -> None:
        """Detach a VIF from the node (API 1.28).

        Raises FeatureNotSupported, BadRequest when the VIF is not attached to it, NotFound,
        NodeLocked.
        """
        self.require(versions.VIFS, "VIFs")
        path = f"/v1/nodes/{_segment(_ident(node))}/vifs/{_segment(vif_id)}"
        self._request("DELETE", path)

    # -- ports ---------------------------------------------------------------------------

    def create_port(self, node_uuid: str, address: str, **fields: Any) -> Port:
        """Create a port (a NIC) of the node with MAC ``address``.

        Raises BadRequest for a bad value or a node UUID that is not one, Conflict for a MAC
        in use, NotFound when the node does not exist.
        """
        body = {"node_uuid": node_uuid, "address": address, **fields}
        return Port(self._object("POST", "/v1/ports", body))

    def get_port(self, port: str | Resource, fields: Sequence[str] | None = None) -> Port:
        """The port by UUID. Raises NotFound."""
        return Port(self._object("GET", _item("ports", port), params=_fields(fields)))

    def iter_ports(self, **query: Unpack[PortQuery]) -> Iterator[Port]:
        """Ports matching the filters, page by page; options as :meth:`iter_nodes`.

        Filters: ``node`` (UUID or name), ``portgroup``, ``address``, ``physical_network``.
        Raises NotFound for an unknown ``node``/``portgroup``, BadRequest, ValueError,
        TypeError as :meth:`iter_nodes`.
        """
        return self._list(Port, "/v1/ports", "ports", query)

    def list_ports(self, **query: Unpack[PortQuery]) -> list[Port]:
        """All ports :meth:`iter_ports` yields for the same options; raises as it does."""
        return list(self.iter_ports(**query))

    def update_port(self, port: str | Resource, patch: Sequence[PatchOp]) -> Port:
        """Apply a JSON patch to the port. Raises BadRequest, NotFound, Conflict."""
        return Port(self._object("PATCH", _item("ports", port), list(patch)))

    def delete_port(self, port: str | Resource) -> None:
        """Delete the port. Raises NotFound, Conflict/BadRequest when a VIF is on it."""
        self._request("DELETE", _item("ports", port))

    # -- portgroups ----------------------------------------------------------------------

    def create_portgroup(self, node_uuid: str, **fields: Any) -> Portgroup:
        """Create a portgroup (a bond) of the node (API 1.23); fields: name, address, mode...

        Raises FeatureNotSupported, BadRequest, Conflict (duplicate name or MAC), NotFound.
        """
        self.require(versions.PORTGROUPS, "portgroups")
        body = {"node_uuid": node_uuid, **fields}
        return Portgroup(self._object("POST", "/v1/portgroups", body))

    def get_portgroup(
        self, portgroup: str | Resource, fields: Sequence[str] | None = None
    ) -> Portgroup:
        """The portgroup by UUID or name (API 1.23). Raises FeatureNotSupported, NotFound."""
        self.require(versions.PORTGROUPS, "portgroups")
        return Portgroup(
            self._object("GET", _item("portgroups", portgroup), params=_fields(fields))
        )

    def iter_portgroups(self, **query: Unpack[PortgroupQuery]) -> Iterator[Portgroup]:
        """Portgroups matching the filters, page by page; options as :meth:`iter_nodes`.

        Filters: ``node`` (UUID or name), ``address``. Raises FeatureNotSupported (API
        1.23), NotFound for an unknown ``node``, BadRequest, ValueError, TypeError.
        """
        self.require(versions.PORTGROUPS, "portgroups")
        return self._list(Portgroup, "/v1/portgroups", "portgroups", query)

    def list_portgroups(self, **query: Unpack[PortgroupQuery]) -> list[Portgroup]:
        """All portgroups :meth:`iter_portgroups` yields; raises as it does."""
        return list(self.iter_portgroups(**query))

    def update_portgroup(self, portgroup: str | Resource, patch: Sequence[PatchOp]) -> Portgroup:
        """Apply a JSON patch to the portgroup. Raises BadRequest, NotFound, Conflict."""
        self.require(versions.PORTGROUPS, "portgroups")
        return Portgroup(self._object("PATCH", _item("portgroups", portgroup), list(patch)))

    def delete_portgroup(self, portgroup: str | Resource) -> None:
        """Delete the portgroup. Raises NotFound, Conflict/BadRequest when in use."""
        self.require(versions.PORTGROUPS, "portgroups")
        self._request("DELETE", _item("portgroups", portgroup))

    # -- chassis --------------------------------------------------------------------------

    def create_chassis(self, **fields: Any) -> Chassis:
        """Create a chassis; fields: ``uuid`` (generated when not given), ``description``,
        ``extra``.

        Raises BadRequest for a bad value, Conflict for a UUID in use.
        """
        return Chassis(self._object("POST", "/v1/chassis", fields))

    def get_chassis(self, chassis: str | Resource, fields: Sequence[str] | None = None) -> Chassis:
        """The chassis by UUID (a chassis has no name). Raises BadRequest for a value that
        is not a UUID, NotFound."""
        return Chassis(self._object("GET", _item("chassis", chassis), params=_fields(fields)))

    def iter_chassis(self, **query: Unpack[ChassisQuery]) -> Iterator[Chassis]:
        """Every chassis, page by page; options as :meth:`iter_nodes` (no filters).

        Raises BadRequest (an unsortable ``sort_key``), ValueError, TypeError as
        :meth:`iter_nodes`.
        """
        return self._list(Chassis, "/v1/chassis", "chassis", query)

    def list_chassis(self, **query: Unpack[ChassisQuery]) -> list[Chassis]:
        """All chassis :meth:`iter_chassis` yields for the same options; raises as it does."""
        return list(self.iter_chassis(**query))

    def update_chassis(self, chassis: str | Resource, patch: Sequence[PatchOp]) -> Chassis:
        """Apply a JSON patch (``description``, ``extra``) to the chassis. Raises BadRequest,
        NotFound."""
        return Chassis(self._object("PATCH", _item("chassis", chassis), list(patch)))

    def delete_chassis(self, chassis: str | Resource) -> None:
        """Delete the chassis. Raises NotFound, BadRequest when nodes are in it."""
        self._request("DELETE", _item("chassis", chassis))

    # -- allocations ---------------------------------------------------------------------

    def create_allocation(self, **fields: Any) -> Allocation:
        """Ask for a node: ``resource_class``, ``traits``, ``candidate_nodes`` (names or
        UUIDs), ``name``, ``uuid``, ``extra``, ``owner``; or ``node`` (name or UUID) to record
        the allocation of a node already deployed (backfill, no resource class needed).
        metalwire reserves the node within the request: the answer's ``state`` is ``active``
        (``node_uuid`` set) or ``error`` (``last_error`` says why none fits).

        Raises BadRequest for a bad or missing value, Conflict for a name or UUID in use.
        """
        self.require(versions.ALLOCATIONS, "allocations")
        return Allocation(self._object("POST", "/v1/allocations", fields))

    def get_allocation(
        self, allocation: str | Resource, fields: Sequence[str] | None = None
    ) -> Allocation:
        """The allocation by UUID or name. Raises NotFound when there is none."""
        return Allocation(
            self._object("GET", _item("allocations", allocation), params=_fields(fields))
        )

    def iter_allocations(self, **query: Unpack[AllocationQuery]) -> Iterator[Allocation]:
        """Allocations, page by page; options as :meth:`iter_nodes` (every field is listed
        with or without ``detail``); filters: ``node`` (name or UUID), ``resource_class``,
        ``state``, ``owner``. Raises as :meth:`iter_nodes`."""
        return self._list(Allocation, "/v1/allocations", "allocations", query)

    def list_allocations(self, **query: Unpack[AllocationQuery]) -> list[Allocation]:
        """All allocations :meth:`iter_allocations` yields; raises as it does."""
        return list(self.iter_allocations(**query))

    def update_allocation(self, allocation: str | Resource, patch: Sequence[PatchOp]) -> Allocation:
        """Apply a JSON patch (``name``, ``extra``; API 1.57). Raises BadRequest, NotFound."""
        return Allocation(self._object("PATCH", _item("allocations", allocation), list(patch)))

    def delete_allocation(self, allocation: str | Resource) -> None:
        """Delete the allocation, freeing its node (its instance_uuid and traits cleared).
        Raises NotFound, Conflict when its node is deployed or locked."""
        self._request("DELETE", _item("allocations", allocation))

    # -- deploy templates and runbooks ----------------------------------------------------

    def create_deploy_template(
        self, name: str, steps: Sequence[Mapping[str, Any]], **fields: Any
    ) -> DeployTemplate:
        """Create a deploy template (API 1.55): ``name`` a trait (``CUSTOM_...``), ``steps``
        its deploy steps (``interface``, ``step``, ``args``, ``priority``); fields: ``uuid``,
        ``extra``. Raises BadRequest for a bad name or step, Conflict for a name in use."""
        self.require(versions.DEPLOY_TEMPLATES, "deploy templates")
        body = {"name": name, "steps": list(steps), **fields}
        return DeployTemplate(self._object("POST", "/v1/deploy_templates", body))

    def get_deploy_template(
        self, template: str | Resource, fields: Sequence[str] | None = None
    ) -> DeployTemplate:
        """The deploy template by UUID or name. Raises NotFound."""
        path = _item("deploy_templates", template)
        return DeployTemplate(self._object("GET", path, params=_fields(fields)))

    def iter_deploy_templates(
        self, **query: Unpack[DeployTemplateQuery]
    ) -> Iterator[DeployTemplate]:
        """Deploy templates, page by page; options as :meth:`iter_nodes` (no filters)."""
        return self._list(DeployTemplate, "/v1/deploy_templates", "deploy_templates", query)

    def list_deploy_templates(self, **query: Unpack[DeployTemplateQuery]) -> list[DeployTemplate]:
        """All deploy templates :meth:`iter_deploy_templates` yields."""
        return list(self.iter_deploy_templates(**query))

    def update_deploy_template(
        self, template: str | Resource, patch: Sequence[PatchOp]
    ) -> DeployTemplate:
        """Apply a JSON patch (``name``, ``steps``, ``extra``). Raises BadRequest, NotFound,
        Conflict."""
        path = _item("deploy_templates", template)
        return DeployTemplate(self._object("PATCH", path, list(patch)))

    def delete_deploy_template(self, template: str | Resource) -> None:
        """Delete the deploy template. Raises NotFound."""
        self._request("DELETE", _item("deploy_templates", template))

    def create_runbook(
        self, name: str, steps: Sequence[Mapping[str, Any]], **fields: Any
    ) -> Runbook:
        """Create a runbook (API 1.92): ``name`` a trait (``CUSTOM_...``), ``steps`` its clean
        or service steps (``interface``, ``step``, ``args``, ``order``); fields: ``uuid``,
        ``description``, ``disable_ramdisk``, ``public``, ``owner``, ``extra``. Raises
        BadRequest for a bad name or step, Conflict for a name in use."""
        self.require(versions.RUNBOOKS, "runbooks")
        body = {"name": name, "steps": list(steps), **fields}
        return Runbook(self._object("POST", "/v1/runbooks", body))

    def get_runbook(self, runbook: str | Resource, fields: Sequence[str] | None = None) -> Runbook:
        """The runbook by UUID or name. Raises NotFound."""
        return Runbook(self._object("GET", _item("runbooks", runbook), params=_fields(fields)))

    def iter_runbooks(self, **query: Unpack[RunbookQuery]) -> Iterator[Runbook]:
        """Runbooks, page by page; options as :meth:`iter_nodes` (no filters)."""
        return self._list(Runbook, "/v1/runbooks", "runbooks", query)

    def list_runbooks(self, **query: Unpack[RunbookQuery]) -> list[Runbook]:
        """All runbooks :meth:`iter_runbooks` yields."""
        return list(self.iter_runbooks(**query))

    def update_runbook(self, runbook: str | Resource, patch: Sequence[PatchOp]) -> Runbook:
        """Apply a JSON patch (``name``, ``steps``, ``description``, ``disable_ramdisk``,
        ``public``, ``owner``, ``extra``). Raises BadRequest, NotFound."""
        return Runbook(self._object("PATCH", _item("runbooks", runbook), list(patch)))

    def delete_runbook(self, runbook: str | Resource) -> None:
        """Delete the runbook. Raises NotFound."""
        self._request("DELETE", _item("runbooks", runbook))

    def runbook_traits(self, runbook: str | Resource) -> list[str]:
        """The node traits that approve the runbook, sorted (API 1.112). Raises
        FeatureNotSupported, NotFound."""
        return self._traits(self._runbook_traits(runbook))

    def set_runbook_traits(self, runbook: str | Resource, traits: Sequence[str]) -> None:
        """Replace the runbook's traits (API 1.112). Raises BadRequest, NotFound."""
        self._set_traits(self._runbook_traits(runbook), traits)

    def add_runbook_trait(self, runbook: str | Resource, trait: str) -> None:
        """Add one trait to the runbook's (API 1.112); one it has already is kept. Raises
        BadRequest (not a standard or custom trait), NotFound."""
        self._add_trait(self._runbook_traits(runbook), trait)

    def remove_runbook_trait(self, runbook: str | Resource, trait: str | None = None) -> None:
        """Remove one trait from the runbook (one it has not is no error), or every trait with
        ``trait`` None (API 1.112). Raises NotFound."""
        self._remove_trait(self._runbook_traits(runbook), trait)

    def _runbook_traits(self, runbook: str | Resource) -> str:
        self.require(versions.RUNBOOK_TRAITS, "runbook traits")
        return f"{_item('runbooks', runbook)}/traits"

    # -- conductors and drivers ------------------------------------------------------------

    def get_conductor(self, hostname: str, fields: Sequence[str] | None = None) -> Conductor:
        """The conductor by host name (API 1.49). Raises FeatureNotSupported, NotFound."""
        self.require(versions.CONDUCTORS, "conductors")
        path = _item("conductors", hostname)
        return Conductor(self._object("GET", path, params=_fields(fields)))

    def iter_conductors(self, **query: Unpack[ConductorQuery]) -> Iterator[Conductor]:
        """Conductors, alive or not, page by page (API 1.49); options as :meth:`iter_nodes`
        (no filters; the ``marker`` is a host name)."""
        self.require(versions.CONDUCTORS, "conductors")
        return self._list(Conductor, "/v1/conductors", "conductors", query)

    def list_conductors(self, **query: Unpack[ConductorQuery]) -> list[Conductor]:
        """All conductors :meth:`iter_conductors` yields."""
        return list(self.iter_conductors(**query))

    def list_drivers(
        self,
        detail: bool = False,
        driver_type: str | None = None,
        fields: Sequence[str] | None = None,
    ) -> list[Driver]:
        """The enabled hardware types; with ``detail`` each kind's interfaces (API 1.30),
        ``driver_type`` ``dynamic`` or ``classic`` (metalwire has no classic drivers, as Ironic
        39), ``fields`` only these (API 1.77). Raises BadRequest, NotAcceptable."""
        params = _fields(fields) or {}
        if detail:
            params["detail"] = "true"
        if driver_type is not None:
            params["type"] = driver_type
        body = self._request("GET", "/v1/drivers", params=params or None)
        drivers = body.get("drivers") if isinstance(body, dict) else None
        if not isinstance(drivers, list):
            raise exc.InvalidResponse("GET /v1/drivers did not answer with a 'drivers' list.")
        return [Driver(driver) for driver in drivers]

    def driver_properties(self, name: str) -> dict[str, str]:
        """What the driver's default interfaces read from a node's ``driver_info``: key ->
        description. Raises NotFound."""
        path = _item("drivers", name) + "/properties"
        return {str(k): str(v) for k, v in self._object("GET", path).items()}

    def driver_raid_properties(self, name: str) -> dict[str, str]:
        """What a logical disk of a target RAID configuration takes with the driver's default
        RAID interface: property -> description. Raises NotFound (also when that interface
        is ``no-raid``)."""
        path = _item("drivers", name) + "/raid/logical_disk_properties"
        return {str(k): str(v) for k, v in self._object("GET", path).items()}

    def get_driver(self, name: str, fields: Sequence[str] | None = None) -> Driver:
        """The enabled hardware type ``name``, with its interfaces; ``fields`` only these
        (API 1.77). Raises NotFound."""
        return Driver(self._object("GET", _item("drivers", name), params=_fields(fields)))

    # -- volume connectors and targets ---------------------------------------------------

    def create_volume_connector(
        self, node: str, connector_type: str, connector_id: str, **fields: Any
    ) -> VolumeConnector:
        """Record how the node connects to storage (API 1.32): ``node`` its UUID,
        ``connector_type`` (the ``type``: ``iqn``, ``ip``, ``mac``, ``wwnn``, ``wwpn``, ``port``
        or ``portal``), ``connector_id`` the value; fields: ``uuid``, ``extra``. Raises
        BadRequest, Conflict (the same type and id recorded already), NotFound (no node)."""
        self.require(versions.VOLUME, "volume connectors")
        body = {"node_uuid": node, "type": connector_type, "connector_id": connector_id, **fields}
        return VolumeConnector(self._object("POST", "/v1/volume/connectors", body))

    def get_volume_connector(
        self, connector: str | Resource, fields: Sequence[str] | None = None
    ) -> VolumeConnector:
        """The volume connector by UUID. Raises NotFound."""
        path = _item("volume/connectors", connector)
        return VolumeConnector(self._object("GET", path, params=_fields(fields)))

    def iter_volume_connectors(self, **query: Unpack[VolumeQuery]) -> Iterator[VolumeConnector]:
        """Volume connectors, page by page; options as :meth:`iter_nodes`; filter ``node``
        (UUID or name)."""
        return self._list(VolumeConnector, "/v1/volume/connectors", "connectors", query)

    def list_volume_connectors(self, **query: Unpack[VolumeQuery]) -> list[VolumeConnector]:
        """All volume connectors :meth:`iter_volume_connectors` yields."""
        return list(self.iter_volume_connectors(**query))

    def update_volume_connector(
        self, connector: str | Resource, patch: Sequence[PatchOp]
    ) -> VolumeConnector:
        """Apply a JSON patch (``node_uuid``, ``type``, ``connector_id``, ``extra``; the
        node powered off). Raises BadRequest, NotFound, Conflict."""
        path = _item("volume/connectors", connector)
        return VolumeConnector(self._object("PATCH", path, list(patch)))

    def delete_volume_connector(self, connector: str | Resource) -> None:
        """Delete the volume connector (its node powered off). Raises NotFound, Conflict."""
        self._request("DELETE", _item("volume/connectors", connector))

    def create_volume_target(
        self, node: str, volume_type: str, volume_id: str, boot_index: int, **fields: Any
    ) -> VolumeTarget:
        """Record a volume the node uses (API 1.32): ``node`` its UUID, ``volume_type``
        (``iscsi``, ``fibre_channel``, ...), ``volume_id`` (the volume service's), ``boot_index``
        (0: the volume it boots from); fields: ``uuid``, ``properties``, ``extra``. Raises
        BadRequest, Conflict (the boot index or volume taken on that node), NotFound."""
        self.require(versions.VOLUME, "volume targets")
        body = {
            "node_uuid": node,
            "volume_type": volume_type,
            "volume_id": volume_id,
            "boot_index": boot_index,
            **fields,
        }
        return VolumeTarget(self._object("POST", "/v1/volume/targets", body))

    def get_volume_target(
        self, target: str | Resource, fields: Sequence[str] | None = None
    ) -> VolumeTarget:
        """The volume target by UUID. Raises NotFound."""
        path = _item("volume/targets", target)
        return VolumeTarget(self._object("GET", path, params=_fields(fields)))

    def iter_volume_targets(self, **query: Unpack[VolumeQuery]) -> Iterator[VolumeTarget]:
        """Volume targets, page by page; options as :meth:`iter_nodes`; filter ``node``."""
        return self._list(VolumeTarget, "/v1/volume/targets", "targets", query)

    def list_volume_targets(self, **query: Unpack[VolumeQuery]) -> list[VolumeTarget]:
        """All volume targets :meth:`iter_volume_targets` yields."""
        return list(self.iter_volume_targets(**query))

    def update_volume_target(
        self, target: str | Resource, patch: Sequence[PatchOp]
    ) -> VolumeTarget:
        """Apply a JSON patch (``node_uuid``, ``volume_type``, ``volume_id``, ``boot_index``,
        ``properties``, ``extra``; the node powered off). Raises BadRequest, NotFound,
        Conflict."""
        path = _item("volume/targets", target)
        return VolumeTarget(self._object("PATCH", path, list(patch)))

    def delete_volume_target(self, target: str | Resource) -> None:
        """Delete the volume target (its node powered off). Raises NotFound, Conflict."""
        self._request("DELETE", _item("volume/targets", target))

    # -- drift audit (metalwire only) -----------------------------------------------------

    def audit(self, node: str | Resource | None = None) -> dict[str, Any]:
        """Compare the VIF attachments of every node (or of ``node``) with Neutron now.

        The answer has ``checked_at``, ``nodes_checked`` and ``findings``, each with
        ``kind``, ``node_uuid``, ``vif_id``, ``target_uuid``, ``expected``, ``actual``,
        ``repairable``, ``repair`` and ``message``. A metalwire endpoint: Ironic answers
        NotFound. Raises BadRequest when the server has no Neutron, NotFound for an unknown
        node, ServerError / ServiceUnavailable when Neutron fails.
        """
        return self._object_with("POST", "/v1/metalwire/audit", node)

    def audit_repair(self, node: str | Resource | None = None) -> dict[str, Any]:
        """Fix the safe findings of every node (or of ``node``) and audit again.

        The answer is that audit's, plus ``repairs``: the findings acted on, each with
        ``repaired`` and ``result``. Raises as :meth:`audit`, and NodeLocked.
        """
        return self._object_with("POST", "/v1/metalwire/audit/repair", node)

    def latest_audit(self) -> dict[str, Any]:
        """The latest audit of every node the server keeps (``checked_at`` None if none)."""
        return self._object("GET", "/v1/metalwire/audit")

    def _object_with(self, method: str, path: str, node: str | Resource | None) -> dict[str, Any]:
        params = None if node is None else {"node": _ident(node)}
        body = self._request(method, path, json={}, params=params)  # JSON: no form sends it
        if not isinstance(body, dict):
            raise exc.InvalidResponse(f"{method} {path} did not answer with a JSON object.")
        return body


def _connection_error(
    error: httpx.TransportError, method: str, url: str, sent: bool
) -> exc.APIConnectionError:
    cls = (
        exc.APITimeoutError if isinstance(error, httpx.TimeoutException) else exc.APIConnectionError
    )
    detail = str(error) or type(error).__name__
    return cls(f"Cannot reach {url}: {detail}", method=method, url=url, sent=sent)
