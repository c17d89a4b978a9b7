"""Serves the topology page: ``/ui/`` and ``/ui/nodes/{node}`` give the one HTML document (the
page routes itself in the browser), ``/ui/static/`` its assets.

The routes sit behind the authentication middleware like every API path, so with
``http_basic`` the browser's own login prompt appears (the 401 carries the Basic challenge).
"""

from __future__ import annotations

import functools
import html
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).parent / "static"
_BASE_MARKER = "{{base}}"
# The document loads only its own scripts and styles and only calls its own origin.
_PAGE_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'self'; form-action 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
}


@functools.cache
def _template() -> str:
    return (STATIC_DIR / "index.html").read_text(encoding="utf-8")


def page_html(root_path: str) -> str:
    """The document, its ``<base>`` pointing at ``/ui/`` under the server's root path."""
    return _template().replace(_BASE_MARKER, html.escape(f"{root_path}/ui/", quote=True))


async def _page(request: Request) -> HTMLResponse:
    return HTMLResponse(page_html(request.scope.get("root_path", "")), headers=_PAGE_HEADERS)


async def _to_slash(request: Request) -> RedirectResponse:
    return RedirectResponse(f"{request.scope.get('root_path', '')}/ui/", status_code=308)


# Plain Starlette routes: pages, not API operations, so not in the OpenAPI document.
routes: list[BaseRoute] = [
    Route("/ui", _to_slash, methods=["GET"]),
    Route("/ui/", _page, methods=["GET"]),
    Route("/ui/nodes/{node}", _page, methods=["GET"]),
    Mount("/ui/static", app=StaticFiles(directory=STATIC_DIR), name="ui-static"),
]
