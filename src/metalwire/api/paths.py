"""The path shapes Ironic's router takes besides ``/v1/<collection>/<ident>/...``, and the
idents it refuses before any resource is looked up.

Before any route (or the VIF endpoints) sees a path, this component:

- rewrites a **bookmark** path (a resource's address without the version, ``/nodes/<uuid>``),
  which Ironic answers as if it started with ``/v1``, so a bookmark link gives the same
  document as the ``self`` link;
- rewrites the **action-first** shapes Ironic's router also answers, the node last:
  ``/v1/nodes/states/<node>``, ``/v1/nodes/states/<action>/<node>`` (``console``, ``power``,
  ``provision``, ``raid``, ``boot_mode``, ``secure_boot``), ``/v1/nodes/maintenance/<node>``,
  ``/v1/nodes/management/boot_device/<node>`` and ``.../inject_nmi/<node>``: each is answered
  as ``/v1/nodes/<node>/<the rest>``;
- refuses (404) a node's sub-resource newer than the request's version whatever the method,
  as Ironic's router does before it looks at the method (``portgroups``, ``bios``,
  ``allocation``, ``history``, ``inventory``, ``firmware``, ``vmedia``; the VIF endpoints
  refuse ``vifs`` so themselves);
- refuses (400) a node, portgroup or port named by something that is neither a UUID nor a
  logical name (RFC 3986 unreserved characters), in Ironic's words and error body: a node or
  portgroup in the router's ``{code, title, description}`` body (no version headers), as
  Ironic refuses it before routing, except below a node's ``states``, ``management``,
  ``maintenance`` and ``vendor_passthru``, whose handlers refuse it (``node_ident``); a port
  as its handlers refuse it (``port_ident``; Ironic deletes a port by its UUID only and says
  ``port_uuid`` there, metalwire by its name too, see ``docs/api-ref/ports.md``).

The ``.json`` suffix of an older client (before 1.91) is the request pipeline's
(:mod:`metalwire.api.middleware`), which strips it before this component runs.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from starlette.types import ASGIApp, Receive, Scope, Send

from metalwire.api import errors
from metalwire.api import microversion as mv
from metalwire.api.validation import uuid_or_name
from metalwire.errors import BadRouteParameter, InvalidParameterValue, MetalwireError

COLLECTIONS = ("nodes", "ports", "portgroups", "drivers")
# What follows /v1/nodes/ that is not a node: the list's detail, the validate action, and the
# sub-resources Ironic also answers action-first.
_NODE_WORDS = frozenset(("detail", "validate", "states", "management", "maintenance"))
# Below a node, the sub-resources whose handlers check the node's ident themselves.
_NODE_HANDLED = frozenset(("states", "management", "maintenance", "vendor_passthru"))
_STATE_ACTIONS = frozenset(("console", "power", "provision", "raid", "boot_mode", "secure_boot"))
_MANAGEMENT_ACTIONS = frozenset(("boot_device", "inject_nmi"))
_ACTION_FIRST = frozenset(("states", "management", "maintenance"))
# A path of RFC 3986 unreserved characters only, no segment over 255 of them: every ident in it
# is a logical name (a UUID in its usual spelling is one too), so none needs a closer look.
_PLAIN = re.compile(r"(?:/[A-Za-z0-9\-._~]{0,255})*")
# The sub-resources of a node that do not exist below a version, whatever the method: Ironic's
# router refuses them (404) before it looks at the method. (The VIF endpoints refuse theirs
# the same way themselves, and count the refusal: routes/vifs.py.)
_NODE_SUBRESOURCE_SINCE = {
    "portgroups": mv.PORTGROUP_SUBCONTROLLERS,
    "bios": mv.BIOS,
    "allocation": mv.ALLOCATIONS,
    "history": mv.NODE_HISTORY,
    "inventory": mv.NODE_INVENTORY,
    "firmware": mv.FIRMWARE_COMPONENTS,
    "vmedia": mv.VMEDIA,
}


def versioned(path: str) -> str | None:
    """The ``/v1`` path a bookmark path stands for, or None if ``path`` is not one."""
    head = path.lstrip("/").split("/", 1)[0]
    return f"/v1{path}" if path.startswith("/") and head in COLLECTIONS else None


def routed(path: str) -> str:
    """The path the routes answer for ``path``: the bookmark's ``/v1`` path, the node first in
    an action-first path; else ``path`` itself."""
    if not path.startswith("/v1/"):
        path = versioned(path) or path
    if not path.startswith("/v1/nodes/") or path[10:].split("/", 1)[0] not in _ACTION_FIRST:
        return path  # most paths, the VIF endpoints' among them, end here
    parts = path.split("/")  # "", "v1", "nodes", word, ...
    word, rest = parts[3], parts[4:]
    if word == "states" and len(rest) == 1 and rest[0]:
        return _node_first(rest[0], "states")
    if (
        len(rest) == 2
        and rest[1]
        and (
            (word == "states" and rest[0] in _STATE_ACTIONS)
            or (word == "management" and rest[0] in _MANAGEMENT_ACTIONS)
        )
    ):
        return _node_first(rest[1], word, rest[0])
    if word == "maintenance" and len(rest) == 1 and rest[0]:
        return _node_first(rest[0], "maintenance")
    return path


def _node_first(node: str, *below: str) -> str:
    return "/".join(("/v1/nodes", node, *below))


def check_path(path: str, version: mv.Version) -> None:
    """Refuse (400) a node, portgroup or port in ``path`` named by neither a UUID nor a
    logical name, as Ironic does before looking any up; then (404) a node's sub-resource newer
    than ``version``, whatever the method."""
    if _PLAIN.fullmatch(path) is not None:  # most paths: only a node's version gates apply
        if path.startswith("/v1/nodes/"):
            below = path.split("/", 5)[4:5]
            if below and below[0] in _NODE_SUBRESOURCE_SINCE:
                mv.require(version, _NODE_SUBRESOURCE_SINCE[below[0]])
        return
    parts = path.split("/")
    if len(parts) < 4 or parts[1] != "v1" or not parts[3]:
        return
    collection, ident, below = parts[2], parts[3], parts[4:]
    if collection == "nodes" and ident not in _NODE_WORDS:
        if below and below[0] in _NODE_HANDLED:
            _check(ident, "node_ident", by_router=False)
        else:
            _check(ident, "node", by_router=True)
        if len(below) >= 2 and below[1]:
            _check_member(below[0], below[1])
        if below and below[0] in _NODE_SUBRESOURCE_SINCE:
            mv.require(version, _NODE_SUBRESOURCE_SINCE[below[0]])
    elif collection == "portgroups" and ident != "detail":
        _check(ident, "portgroup", by_router=True)
        if len(below) >= 2 and below[1]:
            _check_member(below[0], below[1])
    elif collection == "ports" and ident != "detail" and len(parts) == 4:
        _check(ident, "port_ident", by_router=False)


def _check_member(collection: str, ident: str) -> None:
    """A port or portgroup named below a node or a portgroup."""
    if collection == "ports" and ident != "detail":
        _check(ident, "port_ident", by_router=False)
    elif collection == "portgroups" and ident != "detail":
        _check(ident, "portgroup", by_router=True)


def _check(ident: str, name: str, by_router: bool) -> None:
    try:
        uuid_or_name(ident, name)
    except InvalidParameterValue as exc:
        if by_router:
            raise BadRouteParameter(exc.message) from None
        raise


class IronicPaths:
    """Pure ASGI: rewrites the path to the one the routes answer, refuses malformed idents,
    and hands the request on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = routed(scope["path"])
        if path != scope["path"]:
            scope = {**scope, "path": path, "raw_path": quote(path).encode()}
        try:
            check_path(path, scope["state"]["api_version"])
        except MetalwireError as exc:
            state = scope["state"]
            answer = errors.render(exc, state["request_id"], scope["method"], path)
            await errors.send_error(send, answer, state)
            return
        await self.app(scope, receive, send)
