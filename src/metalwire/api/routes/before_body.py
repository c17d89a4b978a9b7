"""Permission decided before a request body is read, wherever the path alone decides it.

A requester who may not change an object must not get to hold a connection while it sends (or
trickles) the body of that change. Each function here is a FastAPI dependency that a handler
declares before its ``JsonBody`` parameter: FastAPI resolves a handler's dependencies in the
order of its parameters, so the check runs, and answers its 404 or 403, before the body is
read. The handler checks again with the body in hand (a node patch's rules depend on the
fields it touches); the two checks are the same rules on the same rows, so they agree.

Not here: creating a port or portgroup (the node is named in the body) and creating a node
(its rule reads the owner the body gives). Free when the policy is off: no row is read.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from metalwire.api.routes import authz
from metalwire.api.routes.common import call
from metalwire.db import nodes as node_db
from metalwire.db import portgroups as portgroup_db
from metalwire.db import ports as port_db
from metalwire.errors import NodeNotFound


def node_patch(request: Request, ident: str) -> None:
    """``PATCH /v1/nodes/{ident}``: the node must be visible (404); the rules its fields
    need are checked once the patch is read."""
    c = call(request)
    policy = authz.policy(c)
    if not policy.enabled:
        return
    with c.services.db.read() as session:
        owner, lessee = node_db.projects(session, ident)
    policy.authorize_node((), authz.identity(c), owner, lessee, NodeNotFound(ident))


def port_patch(request: Request, uuid: str) -> None:
    """``PATCH /v1/ports/{uuid}``: visible through its node (404), then its update rule (403)."""
    c = call(request)
    if not authz.policy(c).enabled:
        return
    with c.services.db.read() as session:
        authz.port(c, "baremetal:port:update", session, port_db.get(session, uuid))


def portgroup_patch(request: Request, ident: str) -> None:
    """``PATCH /v1/portgroups/{ident}``: as a port's."""
    c = call(request)
    if not authz.policy(c).enabled:
        return
    with c.services.db.read() as session:
        found = portgroup_db.get(session, ident)
        authz.portgroup(c, "baremetal:portgroup:update", session, found, ident)


# What a handler declares, before its body parameter.
NodePatchAllowed = Annotated[None, Depends(node_patch)]
PortPatchAllowed = Annotated[None, Depends(port_patch)]
PortgroupPatchAllowed = Annotated[None, Depends(portgroup_patch)]
