"""Cross-site request forgery: metalwire's own writes take a content type no form can send.

A page in an operator's browser may submit a form (or a body-less ``fetch``) to any origin,
and the browser adds the Basic credentials it has cached. Such a request carries no content
type, or ``application/x-www-form-urlencoded``, ``multipart/form-data`` or ``text/plain``. A
cross-site ``application/json`` request needs a CORS preflight, which this server never
grants. So every state-changing request under ``/v1/metalwire/`` must say
``Content-Type: application/json``, with a body or without. The Ironic routes read a body
with no content type as JSON, as Ironic does, and a page can send one (a ``no-cors``
``fetch`` of an untyped ``Blob``): a state-changing request a browser marks as sent by a page
of another site (``Sec-Fetch-Site: cross-site`` or ``same-site``, which no page can forge
and no API client sends) is refused on every path.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from metalwire.api.errors import render, send_error
from metalwire.api.json_body import is_json_type
from metalwire.errors import Forbidden, MetalwireError, UnsupportedMediaType

PREFIX = "/v1/metalwire/"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Sec-Fetch-Site values of a request a page of another origin made the browser send.
OTHER_SITES = frozenset({b"cross-site", b"same-site"})


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


def from_other_site(method: str, path: str, fetch_site: bytes | None) -> Forbidden | None:
    """The error for a write a browser says a page of another site sent, or None."""
    if method in SAFE_METHODS or fetch_site not in OTHER_SITES:
        return None
    site = fetch_site.decode("latin-1")
    return Forbidden(
        f"{method} {path} was sent by a page of another site (Sec-Fetch-Site: {site}); "
        "metalwire takes no state-changing request from another site's page."
    )


def _header(scope: Scope, name: bytes) -> bytes | None:
    found: bytes | None = next((v for k, v in scope["headers"] if k == name), None)
    return found


def _refusal(scope: Scope) -> MetalwireError | None:
    method, path = scope["method"], scope["path"]
    if method in SAFE_METHODS:
        return None
    other_site = from_other_site(method, path, _header(scope, b"sec-fetch-site"))
    if other_site is not None or not path.startswith(PREFIX):
        return other_site
    content_type = _header(scope, b"content-type")
    return refusal(method, path, content_type.decode("latin-1") if content_type else None)


class CrossSiteGuard:
    """Pure ASGI, behind authentication: refuses a write a page of another site sent, and a
    metalwire write a form could have sent."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # A read pays one set test; a write one pass over its headers.
        if scope["type"] == "http":
            refused = _refusal(scope)
            if refused is not None:
                state = scope.setdefault("state", {})
                answer = render(
                    refused, state.get("request_id", "-"), scope["method"], scope["path"]
                )
                await send_error(send, answer, state)
                return
        await self.app(scope, receive, send)
