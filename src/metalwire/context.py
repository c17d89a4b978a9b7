"""Who asked for an operation, carried from the API down to the network interfaces."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

# Where the API's auth middleware puts the identity its strategy verified.
IDENTITY_SCOPE_KEY = "metalwire.identity"


def new_request_id() -> str:
    return f"req-{uuid.uuid4()}"


class VerifiedIdentity(Protocol):
    @property
    def user_id(self) -> str | None: ...
    @property
    def project_id(self) -> str | None: ...
    @property
    def roles(self) -> frozenset[str]: ...


# Whether the requester may see a node of these (owner, lessee) projects: the API's policy.
NodeVisibility = Callable[[str | None, str | None], bool]


@dataclass(frozen=True)
class RequestContext:
    request_id: str = field(default_factory=new_request_id)
    user: str | None = None
    project: str | None = None
    roles: frozenset[str] = frozenset()
    # None: every node (noauth, an admin persona, the periodic audit).
    node_visibility: NodeVisibility | None = field(default=None, compare=False, repr=False)

    def sees_node(self, owner: str | None, lessee: str | None) -> bool:
        """Whether a message may name a node of these projects to the requester."""
        return self.node_visibility is None or self.node_visibility(owner, lessee)


def from_scope(
    scope: Mapping[str, Any], request_id: str, node_visibility: NodeVisibility | None = None
) -> RequestContext:
    """The context of an API request: only what the auth strategy verified names the user.

    Headers such as ``X-User-Id`` are never trusted; without a verified identity (noauth,
    http_basic) the user and project are unknown.
    """
    identity: VerifiedIdentity | None = scope.get(IDENTITY_SCOPE_KEY)
    if identity is None:
        return RequestContext(request_id=request_id, node_visibility=node_visibility)
    return RequestContext(
        request_id=request_id,
        user=identity.user_id,
        project=identity.project_id,
        roles=identity.roles,
        node_visibility=node_visibility,
    )
