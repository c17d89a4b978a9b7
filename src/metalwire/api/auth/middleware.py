"""The ASGI layer that authenticates every request but the public roots."""

from __future__ import annotations

import functools
import logging

from starlette.types import ASGIApp, Receive, Scope, Send

from metalwire.api.auth.identity import SCOPE_KEY
from metalwire.api.auth.policy import Policy
from metalwire.api.auth.strategy import Strategy, Unauthenticated
from metalwire.api.errors import fault_body
from metalwire.context import from_scope, new_request_id
from metalwire.errors import Invalid, MetalwireError

LOG = logging.getLogger(__name__)

# As in Ironic, the version documents stay public whatever the strategy, and so does the
# inspection ramdisk's report, which comes without credentials.
PUBLIC_PATHS = frozenset({"/", "/v1", "/v1/", "/openapi.json", "/v1/continue_inspection"})
# Headers that carry credentials: sent twice, a proxy that checked one copy and the server
# that took the other would disagree on who is asking, so the request is refused.
CREDENTIAL_HEADERS = {
    b"authorization": "Authorization",
    b"x-auth-token": "X-Auth-Token",
    b"x-service-token": "X-Service-Token",
}


def single_credential_headers(raw: list[tuple[bytes, bytes]]) -> dict[bytes, bytes]:
    """The headers by name; raises :class:`Invalid` (400) when a credential header repeats."""
    headers: dict[bytes, bytes] = {}
    for name, value in raw:
        if name in headers and name in CREDENTIAL_HEADERS:
            raise Invalid(
                f"The request has more than one {CREDENTIAL_HEADERS[name]} header; send one."
            )
        headers[name] = value
    return headers


class AuthMiddleware:
    """Pure ASGI, in front of the VIF endpoints and the router: the identity goes into the
    scope under ``metalwire.identity``; a request without one is answered 401 here."""

    def __init__(self, app: ASGIApp, strategy: Strategy, policy: Policy) -> None:
        self.app = app
        self.strategy = strategy
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in PUBLIC_PATHS:
            await self.app(scope, receive, send)
            return
        try:
            headers = single_credential_headers(scope["headers"])
            scope[SCOPE_KEY] = await self.strategy.authenticate(headers)
        except Unauthenticated as exc:
            await self._refuse(send, 401, exc.message)
            return
        except MetalwireError as exc:  # a malformed request, or the identity service failed
            await self._refuse(send, exc.code, exc.message)
            return
        state = scope.setdefault("state", {})
        # The request context the handlers use names only what the strategy verified.
        # Layers below name another node in a message only to whoever may see it.
        visibility = (
            functools.partial(self.policy.sees_node, scope[SCOPE_KEY])
            if self.policy.enabled
            else None
        )
        request_id = state.get("request_id") or new_request_id()
        state["context"] = from_scope(scope, request_id, visibility)
        await self.app(scope, receive, send)

    async def _refuse(self, send: Send, status: int, message: str) -> None:
        body = fault_body(status, message)
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        if status == 401:
            headers.append((b"www-authenticate", self.strategy.challenge()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
