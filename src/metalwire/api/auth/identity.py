"""The verified identity of a request, as the strategies and the policy see it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from starlette.types import Scope

from metalwire.context import IDENTITY_SCOPE_KEY

SCOPE_KEY = IDENTITY_SCOPE_KEY


@dataclass(frozen=True)
class Identity:
    """What a strategy verified: the user, the token's scope (a project, the system, a domain
    or nothing) and roles."""

    user_id: str | None = None
    user_name: str | None = None
    project_id: str | None = None
    project_name: str | None = None
    roles: frozenset[str] = frozenset()
    system_scope: str | None = None  # "all" for a system-scoped token
    # A domain-scoped token's domain: no rule of this API accepts that scope (as in Ironic).
    domain_id: str | None = None
    domain_name: str | None = None
    user_domain_id: str | None = None
    project_domain_id: str | None = None
    # The roles of a valid X-Service-Token sent alongside the user's token.
    service_roles: frozenset[str] = field(default_factory=frozenset)

    @property
    def scope(self) -> str:
        """The token's scope as oslo.policy names it: system, domain, project or none."""
        if self.system_scope:
            return "system"
        if self.domain_id:
            return "domain"
        return "project" if self.project_id else "none"


# Keystone's default roles as `keystone-manage bootstrap` creates them (Keystone 2023.2 and
# later): admin implies manager, manager implies member, member implies reader. A Keystone
# token lists the implied roles alongside the assigned ones, so the rules see them all.
IMPLIED_ROLES: dict[str, tuple[str, ...]] = {
    "admin": ("manager",),
    "manager": ("member",),
    "member": ("reader",),
}


def with_implied_roles(roles: Iterable[str]) -> frozenset[str]:
    """``roles`` and every role they imply, as a Keystone token with those roles lists them.

    Role names are matched without regard to case, as Keystone and the policy rules do."""
    found = set(roles)
    pending = list(found)
    while pending:
        for implied in IMPLIED_ROLES.get(pending.pop().lower(), ()):
            if implied not in found:
                found.add(implied)
                pending.append(implied)
    return frozenset(found)


# noauth, and an http_basic user the personas file does not name: a system administrator,
# with the roles a Keystone admin token carries.
ADMIN = Identity(roles=with_implied_roles({"admin"}), system_scope="all")


def from_scope(scope: Scope) -> Identity | None:
    """The identity the auth middleware stored, or None outside of it (library use)."""
    identity: Identity | None = scope.get(SCOPE_KEY)
    return identity
