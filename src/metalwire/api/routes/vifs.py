"""``/v1/nodes/{node}/vifs``: attach, list and detach VIFs (from API version 1.28).

These are the API's busiest endpoints, so :class:`VifEndpoints` serves them as a plain ASGI
component in front of the router: it answers its own paths and hands every other request on.
That spares each call the framework's routing, request object and parameter solving, which
cost about as much as the attach itself. It skips nothing else: the version, request id and
context, the body-size limit, the version headers and the access log come from
:class:`~metalwire.api.middleware.ApiMiddleware`, and errors are rendered by
:func:`metalwire.api.errors.render`, as for every other endpoint.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, cast

from starlette.types import ASGIApp, Receive, Scope, Send

from metalwire.api import dry_run, errors, json_body
from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api import openapi_schemas as s
from metalwire.api.auth.identity import ADMIN, from_scope
from metalwire.api.auth.policy import Policy
from metalwire.api.openapi_operations import VIF_CALL, responses
from metalwire.api.route_docs import Door, doc, ref
from metalwire.context import RequestContext
from metalwire.errors import InvalidParameterValue, MetalwireError, MethodNotAllowed, NodeNotFound
from metalwire.identifiers import is_uuid
from metalwire.networking.base import VifInfo
from metalwire.services import Services

_PATH = re.compile(r"/v1/nodes/(?P<node>[^/]+)/vifs(?:/(?P<vif>[^/]+))?")
_VIF_NAME = re.compile(r"[A-Za-z0-9\-._~]{1,255}")
_JSON = [(b"content-type", b"application/json")]


def vif_route(path: str) -> str | None:
    """The route template of a VIF endpoint's path (for the metrics), or None."""
    match = _PATH.fullmatch(path)
    if match is None:
        return None
    return "/v1/nodes/{ident}/vifs" if match["vif"] is None else "/v1/nodes/{ident}/vifs/{vif}"


def check_vif_id(value: Any) -> str:
    """A VIF id is a UUID or a name of RFC 3986 unreserved characters, at most 255 long.

    ``.`` and ``..`` are refused: clients normalise them out of a URL, so
    ``DELETE .../vifs/..`` would reach the node itself.
    """
    if value in (".", ".."):
        raise InvalidParameterValue(
            f"Invalid VIF id {value!r}: '.' and '..' are path segments, not names."
        )
    if isinstance(value, str) and (is_uuid(value) or _VIF_NAME.fullmatch(value)):
        return value
    raise InvalidParameterValue(
        f"Invalid VIF id {value!r}: expected a UUID or a name of at most 255 letters, digits, "
        "'-', '.', '_' or '~'."
    )


def check_attach_body(body: Any, version: mv.Version) -> VifInfo:
    """The attach request's VIF info: ``id`` plus what the network interface may use."""
    if not isinstance(body, dict):
        raise InvalidParameterValue(
            "The request body must be a JSON object with the VIF's 'id', e.g. {\"id\": ...}."
        )
    if "id" not in body:
        raise InvalidParameterValue("The VIF's 'id' is missing from the request body.")
    check_vif_id(body["id"])
    if version.at_least(mv.VIF_ATTACH_PORT) and "port_uuid" in body and "portgroup_uuid" in body:
        raise InvalidParameterValue("Cannot specify both port_uuid and portgroup_uuid.")
    for key in ("port_uuid", "portgroup_uuid"):
        if key in body and not (isinstance(body[key], str) and is_uuid(body[key])):
            raise InvalidParameterValue(f"Expected a UUID for {key} but received {body[key]!r}.")
    # The network's name and tags, which trait-based networking filters read.
    if body.get("name") is not None and not isinstance(body["name"], str):
        raise InvalidParameterValue(f"Expected a string for name but received {body['name']!r}.")
    tags = body.get("tags")
    if tags is not None and not (
        isinstance(tags, str) or (isinstance(tags, list) and all(isinstance(t, str) for t in tags))
    ):
        raise InvalidParameterValue(
            f"Expected a list of strings (or one comma-separated string) for tags but "
            f"received {tags!r}."
        )
    return cast(VifInfo, dict(body))


_NODE_VIFS = "/v1/nodes/{ident}/vifs"
# What VifEndpoints answers, as the OpenAPI document describes it.
DOORS = (
    Door(
        "GET",
        _NODE_VIFS,
        200,
        doc(
            "listVifs",
            "The VIFs attached to a node.",
            "vifs",
            ok="The VIFs.",
            returns=bodies.VIF_LIST,
            since=mv.VIFS,
        ),
    ),
    Door(
        "POST",
        _NODE_VIFS,
        204,
        doc(
            "attachVif",
            "Attach a VIF to a free port or portgroup of a node; with X-Metalwire-Dry-Run: "
            "true, explain where it would go instead.",
            "vifs",
            ok="Attached.",
            errors=VIF_CALL,
            query=(s.ref("parameters", "MetalwireDryRun"),),
            body=ref("VifAttach"),
            since=mv.VIFS,
            other_responses=responses(
                200,
                "Dry run (X-Metalwire-Dry-Run: true): nothing was attached.",
                ref("VifAttachDryRun"),
                (),
            ),
        ),
    ),
    Door(
        "DELETE",
        f"{_NODE_VIFS}/{{vif}}",
        204,
        doc(
            "detachVif",
            "Detach a VIF from a node.",
            "vifs",
            ok="Detached.",
            errors=VIF_CALL,
            since=mv.VIFS,
        ),
    ),
)


class VifEndpoints:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = _PATH.fullmatch(scope["path"]) if scope["type"] == "http" else None
        if match is None:
            await self.app(scope, receive, send)
            return
        node, vif = match["node"], match["vif"]
        method = scope["method"]
        state = scope["state"]
        try:
            _check_routed(scope, method, node, vif)
            status, body = await self._answer(scope, receive, method, node, vif)
        except MetalwireError as exc:
            answer = errors.render(exc, state["request_id"], method, scope["path"])
            await errors.send_error(send, answer, state)
            return
        if status == 204:  # a 204 has no content, so no content headers
            await send({"type": "http.response.start", "status": 204, "headers": []})
        else:
            headers = [*_JSON, (b"content-length", b"%d" % len(body))]
            await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    @staticmethod
    async def _answer(
        scope: Scope, receive: Receive, method: str, node: str, vif: str | None
    ) -> tuple[int, bytes]:
        services: Services = scope["app"].state.services
        context: RequestContext = scope["state"]["context"]
        request = _VifRequest(method, node, vif)
        try:
            await request.check(scope, receive, services)
        except MetalwireError as exc:  # counted as the calls count their refusals
            services.rpcapi.vif_refused(request.operation, node, exc)
            raise
        return await request.call(services, context)


def _check_routed(scope: Scope, method: str, node: str, vif: str | None) -> None:
    """As Ironic's router: the version gate (404 below 1.28), then the method (405). A
    refusal is counted as the calls count theirs, under the operation the method and path
    name, or ``other`` for a method the path does not serve."""
    try:
        mv.require(scope["state"]["api_version"], mv.VIFS)
        allowed = ("DELETE",) if vif is not None else ("GET", "POST")
        if method not in allowed:
            raise MethodNotAllowed(method, allowed)
    except MetalwireError as exc:
        services: Services = scope["app"].state.services
        services.rpcapi.vif_refused(_routed_operation(method, vif), node, exc)
        raise


def _routed_operation(method: str, vif: str | None) -> str:
    if vif is None:
        return {"GET": "list", "POST": "attach"}.get(method, "other")
    return "detach" if method == "DELETE" else "other"


class _VifRequest:
    """One request to the VIF endpoints: its checks, then the call they lead to.

    ``operation`` is the metrics' name for it (``list``, ``attach``, ``attach_dry_run``,
    ``detach``), known before the checks, which may refuse it."""

    def __init__(self, method: str, node: str, vif: str | None) -> None:
        self.node = node
        self.vif = vif
        self.operation = {"GET": "list", "POST": "attach"}.get(method, "detach")
        self.info: VifInfo | None = None

    async def check(self, scope: Scope, receive: Receive, services: Services) -> None:
        """Authorization (404, 403), then the dry-run header and the body (400)."""
        policy: Policy = scope["app"].state.policy
        if policy.enabled:
            await _authorize(services, policy, scope, _VIF_RULES[self.operation], self.node)
        if self.operation == "detach":
            assert self.vif is not None
            self.vif = check_vif_id(self.vif)
        elif self.operation == "attach":
            if dry_run.requested(scope):
                self.operation = "attach_dry_run"
            body = json_body.parse(await _read_body(receive), _content_type(scope))
            self.info = check_attach_body(body, scope["state"]["api_version"])

    async def call(self, services: Services, context: RequestContext) -> tuple[int, bytes]:
        rpcapi = services.rpcapi
        if self.operation == "list":
            vifs = await rpcapi.vif_list(context, self.node)
            return 200, json.dumps({"vifs": vifs}).encode()
        if self.operation == "detach":
            assert self.vif is not None
            await rpcapi.vif_detach(context, self.node, self.vif)
            return 204, b""
        assert self.info is not None
        if self.operation == "attach_dry_run":
            result = await rpcapi.vif_attach_dry_run(context, self.node, self.info)
            return 200, json.dumps(dry_run.document(result)).encode()
        await rpcapi.vif_attach(context, self.node, self.info)
        return 204, b""


_VIF_RULES = {
    "list": "baremetal:node:vif:list",
    "attach": "baremetal:node:vif:attach",
    "detach": "baremetal:node:vif:detach",
}


async def _authorize(
    services: Services, policy: Policy, scope: Scope, rule: str, node: str
) -> None:
    """The node must be visible (404), then ``rule`` (403): one indexed read of two columns,
    on the event loop with SQLite (as the VIF operations themselves)."""

    def projects() -> tuple[str | None, str | None]:
        with services.db.reading() as work:
            return work.nodes.projects(node)

    if services.db.is_sqlite:
        owner, lessee = projects()
    else:
        owner, lessee = await asyncio.to_thread(projects)
    identity = from_scope(scope) or ADMIN
    policy.authorize_node(rule, identity, owner, lessee, NodeNotFound(node))


async def _read_body(receive: Receive) -> bytes:
    """The request body; the middleware's limit applies while it is read."""
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _content_type(scope: Scope) -> str | None:
    for key, value in scope["headers"]:
        if key == b"content-type":
            return str(value.decode("latin-1"))
    return None
