"""``http_basic``: users and bcrypt hashes from an Apache htpasswd file, as Ironic standalone."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import logging
import os
from collections import OrderedDict
from pathlib import Path

import bcrypt

from metalwire.api.auth.basic_personas import read_personas_file
from metalwire.api.auth.identity import ADMIN, Identity
from metalwire.api.auth.strategy import Unauthenticated
from metalwire.errors import Invalid
from metalwire.wording import counted

LOG = logging.getLogger(__name__)
_BCRYPT_PREFIXES = (b"$2a$", b"$2b$", b"$2y$")
# bcrypt reads at most 72 bytes of a password (bcrypt 5 refuses a longer one outright): a
# longer password can never verify, and is refused as any wrong password is.
MAX_PASSWORD_BYTES = 72
# Checking a bcrypt hash costs milliseconds by design; a credential verified once is
# remembered (as a keyed digest, never the password) so busy clients do not pay it per call.
_VERIFIED_CACHE_SIZE = 1024


def read_user_file(path: str) -> dict[str, bytes]:
    """The users and their bcrypt hashes; raises :class:`Invalid` naming what is wrong."""
    if not path.strip():
        raise Invalid(
            "[DEFAULT] http_basic_auth_user_file is empty: auth_strategy http_basic reads its "
            "users from an htpasswd file; make one with 'htpasswd -c -B FILE USER' and name it"
        )
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise Invalid(
            f"[DEFAULT] http_basic_auth_user_file {path!r} cannot be read: {exc.strerror}; "
            "auth_strategy http_basic reads its users from it"
        ) from None
    users: dict[str, bytes] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(b"#"):
            continue
        user, sep, hashed = line.partition(b":")
        if not sep or not user:
            raise Invalid(f"{path} line {number}: expected 'user:bcrypt-hash'")
        if not hashed.startswith(_BCRYPT_PREFIXES):
            raise Invalid(
                f"{path} line {number}: the hash of user {user.decode(errors='replace')!r} is "
                "not bcrypt (create it with 'htpasswd -B')"
            )
        users[user.decode()] = hashed
    return users


class HttpBasic:
    name = "http_basic"

    def __init__(self, user_file: str, personas_file: str = "") -> None:
        self.user_file = user_file
        self.personas_file = personas_file
        self._users, self._personas = self._read()
        self._key = os.urandom(32)
        self._verified: OrderedDict[bytes, Identity] = OrderedDict()

    def _read(self) -> tuple[dict[str, bytes], dict[str, Identity]]:
        users = read_user_file(self.user_file)
        if not users:
            LOG.warning(
                "[DEFAULT] http_basic_auth_user_file %s has no users: every request will be "
                "refused with 401; add one with 'htpasswd -B %s USER'",
                self.user_file,
                self.user_file,
            )
        # Users the personas file does not name are system administrators.
        personas = (
            read_personas_file(self.personas_file, users, self.user_file)
            if self.personas_file
            else {}
        )
        return users, personas

    def reload(self) -> str:
        """Read both files again; raises :class:`Invalid`, keeping the old users, if either
        is wrong. Credentials verified before are verified again (a password may have
        changed, a user gone)."""
        users, personas = self._read()
        self._users, self._personas = users, personas
        self._verified = OrderedDict()
        return f"{counted(len(users), 'user')}, {len(personas)} with a persona"

    def challenge(self) -> bytes:
        return b'Basic realm="metalwire"'

    async def authenticate(self, headers: dict[bytes, bytes]) -> Identity:
        header = headers.get(b"authorization")
        if header is None:
            raise Unauthenticated("Authentication required: send HTTP basic credentials.")
        scheme, _, encoded = header.partition(b" ")
        if scheme.lower() != b"basic":
            raise Unauthenticated("Authentication required: send HTTP basic credentials.")
        digest = hmac.new(self._key, encoded.strip(), hashlib.sha256).digest()
        verified, users, personas = self._verified, self._users, self._personas  # one reload
        known = verified.get(digest)
        if known is not None:
            verified.move_to_end(digest)
            return known
        try:
            user, sep, password = base64.b64decode(encoded.strip(), validate=True).partition(b":")
        except (binascii.Error, ValueError):
            raise Unauthenticated("Invalid HTTP basic credentials.") from None
        hashed = users.get(user.decode(errors="replace")) if sep else None
        if hashed is None or len(password) > MAX_PASSWORD_BYTES:
            raise Unauthenticated("Invalid HTTP basic credentials.")
        if not await asyncio.to_thread(bcrypt.checkpw, password, hashed):
            raise Unauthenticated("Invalid HTTP basic credentials.")
        name = user.decode()
        identity = personas.get(name) or Identity(
            user_id=name, user_name=name, roles=ADMIN.roles, system_scope="all"
        )
        verified[digest] = identity
        if len(verified) > _VERIFIED_CACHE_SIZE:
            verified.popitem(last=False)
        return identity
