"""What counts as a secret, and how it is hidden wherever metalwire shows or prints a value.

Used by every layer (API views, the Neutron client, the command line), so it depends on
nothing else in metalwire.

Secret keys: a dictionary key is secret when its lower-cased name *contains* one of
:data:`SECRET_KEY_PARTS` (``ipmi_password``, ``Admin_Password`` and ``auth_token`` all do).
The list is the one OpenStack's services mask (oslo.utils), so a node shows the same
``******`` here as it does in Ironic.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

import httpx

MASK = "******"

SECRET_KEY_PARTS: tuple[str, ...] = (
    "adminpass",
    "admin_pass",
    "password",
    "admin_password",
    "auth_token",
    "new_pass",
    "auth_password",
    "secret_uuid",
    "secret",
    "sys_pswd",
    "token",
    "configdrive",
    "chappassword",
    "encrypted_key",
    "private_key",
    "fernetkey",
    "sslkey",
    "passphrase",
    "cephclusterfsid",
    "octaviaheartbeatkey",
    "rabbitcookie",
    "cephmanilaclientkey",
    "pacemakerremoteauthkey",
    "designaterndckey",
    "cephadminkey",
    "heatauthencryptionkey",
    "cephclientkey",
    "keystonecredential",
    "barbicansimplecryptokek",
    "cephrgwkey",
    "swifthashsuffix",
    "migrationsshkey",
    "cephmdskey",
    "cephmonkey",
    "chapsecret",
)


def is_secret_key(key: object, extra: Collection[str] = ()) -> bool:
    """Whether a dictionary key names a secret: it contains a secret word, or is in ``extra``."""
    if not isinstance(key, str):
        return False
    lowered = key.lower()
    return key in extra or any(part in lowered for part in SECRET_KEY_PARTS)


def masked(value: Any, extra: Collection[str] = ()) -> Any:
    """A copy of ``value`` with the value of every secret key, at any depth, replaced by MASK.

    The whole value under a secret key is hidden, whatever its type (a config drive may be a
    dictionary); dictionaries and lists elsewhere are searched.
    """
    if isinstance(value, Mapping):
        return {k: MASK if is_secret_key(k, extra) else masked(v, extra) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [masked(item, extra) for item in value]
    return value


def keep_masked(new: Any, old: Any, extra: Collection[str] = ()) -> Any:
    """``new`` with every secret key whose value is MASK given back its value in ``old``.

    A client that edits the masked view it was shown and sends it back has not changed the
    secrets it could not see; storing the mask would destroy them.
    """
    if isinstance(new, Mapping) and isinstance(old, Mapping):
        return {
            k: old[k]
            if v == MASK and k in old and is_secret_key(k, extra)
            else keep_masked(v, old.get(k), extra)
            for k, v in new.items()
        }
    if isinstance(new, list) and isinstance(old, list):
        return [
            keep_masked(item, old[i], extra) if i < len(old) else item for i, item in enumerate(new)
        ]
    return new


# ``scheme://user:password@``: the password runs to the last "@", so that one written
# without percent-encoding ("p@ss/word") is removed whole; removing too much is harmless.
_USERINFO = re.compile(r"^(?P<scheme>[^/?#@]*:)?//[^@/?#:]*(?::.*)?@", re.DOTALL)


def without_userinfo(url: str) -> str:
    """``url`` without its ``user:password@`` part, for messages and logs.

    Works on text that is no valid URL too: it is used to print URLs that were refused.
    """
    return _USERINFO.sub(lambda m: f"{m['scheme'] or ''}//", url, count=1)


def split_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """``url`` without its userinfo, and that userinfo's user name and password, if any.

    Lets a client send the credentials as Basic authentication (as httpx would) while the
    URL it logs and prints carries none.
    """
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        return without_userinfo(url), None
    if not parsed.userinfo:
        return url, None
    return str(parsed.copy_with(userinfo=b"")), (parsed.username, parsed.password)
