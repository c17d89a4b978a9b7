"""Which node fields hold secrets: shown masked in every answer, kept intact by a PATCH.

As Ironic does for a caller without the ``show_password`` / ``show_instance_secrets``
policies (metalwire has no policy that shows them): secret keys of ``driver_info``,
``instance_info`` and ``driver_internal_info`` read ``******``; so do ``driver_info``'s
SNMP keys, ``instance_info``'s ``image_url`` (it may be a Swift temporary URL) and its
``configdrive`` (user data).
"""

from __future__ import annotations

from typing import Any

from metalwire import redact

#: Node fields searched for secret keys, with the keys each hides besides the secret words.
SECRET_HOLDERS: dict[str, frozenset[str]] = {
    "driver_info": frozenset({"snmp_auth_key", "snmp_priv_key"}),
    "instance_info": frozenset({"image_url", "configdrive"}),
    "driver_internal_info": frozenset(),
}


def shown(field: str, value: Any) -> Any:
    """A node field's value as an answer may show it."""
    extra = SECRET_HOLDERS.get(field)
    return value if extra is None else redact.masked(value, extra)


def keep_stored_secrets(changes: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """A PATCH's changes without the masks a client sent back in place of stored secrets.

    A field left as it was once the masks are undone is no longer a change.
    """
    out: dict[str, Any] = {}
    for name, value in changes.items():
        extra = SECRET_HOLDERS.get(name)
        if extra is not None:
            value = redact.keep_masked(value, current.get(name), extra)
            if value == current.get(name):
                continue
        out[name] = value
    return out
