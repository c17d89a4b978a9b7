"""Permission decided before a request body is read, wherever the path alone decides it.

A requester who may not change an object must not get to hold a connection while it sends (or
trickles) the body of that change. :func:`patch_allowed` makes a FastAPI dependency that a
PATCH handler declares before its ``JsonBody`` parameter: FastAPI resolves a handler's
dependencies in the order of its parameters, so the resource's
:meth:`~metalwire.api.routes.resource.Resource.authorize_before_body` runs, and answers its
404 or 403, before the body is read. The patch flow checks again with the patch in hand (a
node patch's rules depend on the fields it touches); the same rules on the same row, so the
two agree.

Not here: creating a port or portgroup (the node is named in the body) and creating a node
(its rule reads the owner the body gives).
"""

from __future__ import annotations

from typing import Any

from fastapi import Depends, Request

from metalwire.api.routes.common import call
from metalwire.api.routes.resource import Resource


def patch_allowed(resource: Resource[Any], path_param: str) -> Any:
    """The dependency checking a patch of ``resource`` named by the path's ``path_param``."""

    def check(request: Request) -> None:
        resource.authorize_before_body(call(request), request.path_params[path_param])

    return Depends(check)
