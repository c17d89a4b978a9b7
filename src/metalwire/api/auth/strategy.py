"""The contract of an authentication strategy, and the 401 it raises."""

from __future__ import annotations

from typing import Protocol

from metalwire.api.auth.identity import Identity
from metalwire.errors import NotAuthorized


class Strategy(Protocol):
    """Verifies the credentials of one request from its headers (lower-case names)."""

    name: str

    async def authenticate(self, headers: dict[bytes, bytes]) -> Identity:
        """The verified identity; raises :class:`Unauthenticated` when there is none."""
        ...

    def challenge(self) -> bytes:
        """The ``WWW-Authenticate`` header value of a 401."""
        ...


class Unauthenticated(NotAuthorized):
    """No credentials, or credentials that do not verify (401)."""


class NoAuth:
    """Every request is the admin persona: for a loopback address or a trusted network."""

    name = "noauth"

    def __init__(self) -> None:
        from metalwire.api.auth.identity import ADMIN

        self._admin = ADMIN

    async def authenticate(self, headers: dict[bytes, bytes]) -> Identity:
        return self._admin

    def challenge(self) -> bytes:  # pragma: no cover - noauth never refuses
        return b""
