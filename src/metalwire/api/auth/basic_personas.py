"""``[DEFAULT] http_basic_auth_personas_file``: which persona each htpasswd user is.

A YAML mapping of user name to persona::

    viewer:                      # a system reader
      roles: [reader]
      system_scope: all
    tenant:                      # a member of one project
      roles: [member, reader]
      project_id: 6c1d9a8e0b2f4d7c
      project_name: tenant       # optional

A persona's roles get the roles they imply in Keystone's default hierarchy (admin implies
manager, manager member, member reader), as a Keystone token with those roles lists them:
``roles: [admin]`` is decided as Keystone's admin. Users it does not name stay system
administrators. Every problem is found at start and raised as :class:`Invalid` naming the
file, the user and what is wrong.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import yaml

from metalwire.api.auth.identity import Identity, with_implied_roles
from metalwire.errors import Invalid

OPTION = "[DEFAULT] http_basic_auth_personas_file"
KEYS = ("roles", "system_scope", "project_id", "project_name")


def read_personas_file(path: str, users: Collection[str], user_file: str) -> dict[str, Identity]:
    """The identity of each user the file names; ``users`` are those of ``user_file``."""
    where = f"{OPTION} {path!r}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise Invalid(f"{where} cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise Invalid(f"{where} is not UTF-8 text (offset {exc.start})") from None
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise Invalid(f"{where} is not valid YAML: {exc}") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise Invalid(f"{where} must map user names to personas, not {type(loaded).__name__}")
    personas = {}
    for user, persona in loaded.items():
        name = str(user)
        if name not in users:
            raise Invalid(
                f"{where}: user {name!r} is not in [DEFAULT] http_basic_auth_user_file "
                f"{user_file!r}"
            )
        try:
            personas[name] = _identity(name, persona)
        except ValueError as exc:
            raise Invalid(f"{where}: user {name!r}: {exc}") from None
    return personas


def _identity(user: str, persona: Any) -> Identity:
    """The persona's identity; raises ValueError saying what is wrong with it."""
    if not isinstance(persona, dict):
        raise ValueError(f"the persona must be a mapping of {', '.join(KEYS)}")
    for key in persona:
        if key not in KEYS:
            raise ValueError(f"unknown key {str(key)!r} (known: {', '.join(KEYS)})")
    roles = persona.get("roles")
    if not isinstance(roles, list) or not roles or not all(isinstance(r, str) and r for r in roles):
        raise ValueError("roles must be a non-empty list of role names")
    system_scope = persona.get("system_scope")
    project_id = persona.get("project_id")
    if system_scope is not None and project_id is not None:
        raise ValueError("give either system_scope: all or project_id, not both")
    if system_scope is None and project_id is None:
        raise ValueError("give either system_scope: all or project_id")
    if system_scope is not None and system_scope != "all":
        raise ValueError(f"system_scope must be 'all', not {system_scope!r}")
    if project_id is not None and (not isinstance(project_id, str) or not project_id):
        raise ValueError(
            "project_id must be a non-empty string (quote an id YAML would read as a number)"
        )
    project_name = persona.get("project_name")
    if project_name is not None and (
        project_id is None or not isinstance(project_name, str) or not project_name
    ):
        raise ValueError("project_name must be a non-empty string, given with project_id")
    return Identity(
        user_id=user,
        user_name=user,
        project_id=project_id,
        project_name=project_name,
        roles=with_implied_roles(roles),
        system_scope=system_scope,
    )
