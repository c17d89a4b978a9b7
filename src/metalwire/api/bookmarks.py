"""Bookmark links: a resource's address without the version, ``<base>/nodes/<uuid>``.

Ironic answers any path that does not start with ``/v1`` as if it did, so a bookmark link
gives the same document as the ``self`` link. This component does the same for the
collections metalwire serves, before any route (or the VIF endpoints) sees the path.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

COLLECTIONS = ("nodes", "ports", "portgroups", "drivers")


def versioned(path: str) -> str | None:
    """The ``/v1`` path a bookmark path stands for, or None if ``path`` is not one."""
    head = path.lstrip("/").split("/", 1)[0]
    return f"/v1{path}" if path.startswith("/") and head in COLLECTIONS else None


class BookmarkPaths:
    """Pure ASGI: rewrites the path of a bookmark request and hands it on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = versioned(scope["path"])
            if path is not None:
                scope = {**scope, "path": path, "raw_path": path.encode()}
        await self.app(scope, receive, send)
