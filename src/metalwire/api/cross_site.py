"""Cross-site request forgery: metalwire's own writes take a content type no form can send.

A page in an operator's browser may submit a form (or a body-less ``fetch``) to any origin,
and the browser adds the Basic credentials it has cached. Such a request carries no content
type, or ``application/x-www-form-urlencoded``, ``multipart/form-data`` or ``text/plain``. A
cross-site ``application/json`` request needs a CORS preflight, which this server never
grants. So every state-changing request under ``/v1/metalwire/`` must say
``Content-Type: application/json``, with a body or without. The Ironic routes need no such
guard: each of their POSTs takes a body, and ``json_body`` reads a body only when its
content type is JSON (a form's is a 400).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from metalwire.api.errors import render, send_error
from metalwire.api.json_body import is_json_type
from metalwire.errors import UnsupportedMediaType

PREFIX = "/v1/metalwire/"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def refusal(method: str, path: str, content_type: str | None) -> UnsupportedMediaType | None:
    """The error for a metalwire write without a JSON content type, or None."""
    if method in SAFE_METHODS or not path.startswith(PREFIX):
        return None
    if content_type and is_json_type(content_type):
        return None
    sent = f"Content-Type {content_type}" if content_type else "no Content-Type"
    return UnsupportedMediaType(
        f"{method} {path} takes a JSON body (Content-Type: application/json), which a "
        f"browser form cannot send; the request had {sent}."
    )


class CrossSiteGuard:
    """Pure ASGI, behind authentication: refuses a metalwire write a form could have sent."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The VIF path pays one string test: only metalwire's own paths are looked into.
        if scope["type"] == "http" and scope["path"].startswith(PREFIX):
            content_type = dict(scope["headers"]).get(b"content-type")
            refused = refusal(
                scope["method"],
                scope["path"],
                content_type.decode("latin-1") if content_type is not None else None,
            )
            if refused is not None:
                state = scope.setdefault("state", {})
                answer = render(
                    refused, state.get("request_id", "-"), scope["method"], scope["path"]
                )
                await send_error(send, answer, state)
                return
        await self.app(scope, receive, send)
