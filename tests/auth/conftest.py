"""Fixtures of the authentication tests: apps under each strategy, users, Keystone."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bcrypt
import pytest
from fastapi.testclient import TestClient

from metalwire.api.app import build_services, create_app
from metalwire.config import SQLITE_FILE, Config, env_name, load_config
from tests.conftest import LATEST
from tests.support import keystone as keystone_support
from tests.support.app_client import AppClient
from tests.support.keystone import KeystoneServer


def htpasswd_line(user: str, password: str) -> str:
    """A line as ``htpasswd -B`` writes it (``$2y$`` prefix)."""
    hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=4)).decode()
    return f"{user}:$2y${hashed[4:]}"


def basic_auth_env(directory: Path, users: dict[str, str], **more: str) -> dict[str, str]:
    """METALWIRE_* settings of http_basic with ``users`` (name -> password) in an htpasswd
    file written in ``directory``, and ``more``."""
    user_file = directory / "htpasswd"
    user_file.write_text("".join(htpasswd_line(u, p) + "\n" for u, p in users.items()))
    return {
        "METALWIRE_AUTH_STRATEGY": "http_basic",
        "METALWIRE_HTTP_BASIC_AUTH_USER_FILE": str(user_file),
        **more,
    }


def make_config(tmp_path: Path, template: Path, **options: Any) -> Config:
    """A config on a fresh copy of the migrated SQLite file, with (section, option) values."""
    data_dir = tmp_path / "data"
    data_dir.mkdir(exist_ok=True)
    shutil.copyfile(template, data_dir / SQLITE_FILE)
    overrides: dict[tuple[str, str], Any] = {("DEFAULT", "data_dir"): str(data_dir)}
    for key, value in options.items():
        section, _, name = key.partition("__")
        overrides[(section, name)] = value
    return load_config(environ={}, overrides=overrides)


def open_client(config: Config) -> Iterator[TestClient]:
    services, locks = build_services(config, upgrade_schema=False)
    with AppClient(create_app(config, services)) as test_client:
        test_client.headers["X-OpenStack-Ironic-API-Version"] = LATEST
        yield test_client
    locks.release_all()
    services.db.dispose()


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    path = tmp_path / "htpasswd"
    path.write_text(htpasswd_line("alice", "s3cret") + "\n")
    return path


@pytest.fixture
def basic_client(tmp_path: Path, migrated_template: Path, user_file: Path) -> Iterator[TestClient]:
    config = make_config(
        tmp_path,
        migrated_template,
        DEFAULT__auth_strategy="http_basic",
        DEFAULT__http_basic_auth_user_file=str(user_file),
    )
    yield from open_client(config)


# -- Keystone ---------------------------------------------------------------------------------

PASSWORD = "persona-secret"
SERVICE_PASSWORD = "metalwire-service-secret"


@dataclass
class Cloud:
    """The session's Keystone with metalwire's service user and the personas' projects."""

    keystone: KeystoneServer
    projects: dict[str, str]  # name -> id
    users: dict[str, str]  # name -> id

    def options(self, **more: Any) -> dict[str, Any]:
        """Config overrides (as make_config takes them) for auth_strategy keystone."""
        return {
            "DEFAULT__auth_strategy": "keystone",
            "keystone_authtoken__auth_url": self.keystone.url,
            "keystone_authtoken__www_authenticate_uri": self.keystone.url,
            "keystone_authtoken__username": "metalwire",
            "keystone_authtoken__password": SERVICE_PASSWORD,
            "keystone_authtoken__project_name": "service",
            **more,
        }

    def env(self) -> dict[str, str]:
        """The same settings as METALWIRE_* variables, for a real ``metalwire serve``."""
        env = {}
        for key, value in self.options().items():
            section, _, name = key.partition("__")
            env[env_name(section, name)] = str(value)
        return env


# persona -> (user, role, where): where is a project name, "system", "domain" (the role on
# the default domain, which holds every project, and a domain-scoped token) or "unscoped" (the
# role on owner-project, and a token scoped to nothing).
DOMAIN = "default"
PERSONAS: dict[str, tuple[str, str, str]] = {
    "system_admin": ("sys-admin", "admin", "system"),
    "system_reader": ("sys-reader", "reader", "system"),
    "owner_member": ("owner-member", "member", "owner-project"),
    "owner_reader": ("owner-reader", "reader", "owner-project"),
    "lessee_member": ("lessee-member", "member", "lessee-project"),
    "unrelated_member": ("unrelated-member", "member", "unrelated-project"),
    "service": ("nova", "service", "service"),
    "domain_admin": ("dom-admin", "admin", "domain"),
    "domain_member": ("dom-member", "member", "domain"),
    "domain_reader": ("dom-reader", "reader", "domain"),
    "unscoped": ("unscoped-member", "member", "unscoped"),
}


def persona_token(keystone: KeystoneServer, persona: str) -> str:
    """A fresh token of ``persona``, scoped as PERSONAS says."""
    user, _role, where = PERSONAS[persona]
    if where == "system":
        return keystone.token(user, PASSWORD, system=True)
    if where == "domain":
        return keystone.token(user, PASSWORD, domain=DOMAIN)
    if where == "unscoped":
        return keystone.token(user, PASSWORD)
    return keystone.token(user, PASSWORD, project=where)


@pytest.fixture(scope="session")
def cloud() -> Iterator[Cloud]:
    """One real Keystone for the whole session (it takes tens of seconds to set up)."""
    venv = keystone_support.default_venv()
    if not keystone_support.keystone_installed(venv):
        message = f"Keystone is not installed in {venv} (scripts/install-keystone)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with KeystoneServer(venv) as keystone:
        projects = {
            name: keystone.project(name)
            for name in ("service", "owner-project", "lessee-project", "unrelated-project")
        }
        users = {"metalwire": keystone.user("metalwire", SERVICE_PASSWORD)}
        keystone.grant(users["metalwire"], "service", projects["service"])
        for user, role, where in PERSONAS.values():
            users[user] = keystone.user(user, PASSWORD)
            if where == "domain":
                keystone.grant(users[user], role, domain_id=DOMAIN)
            elif where == "unscoped":
                keystone.grant(users[user], role, projects["owner-project"])
            else:
                keystone.grant(users[user], role, None if where == "system" else projects[where])
        yield Cloud(keystone, projects, users)


@pytest.fixture(scope="session")
def persona_tokens(cloud: Cloud) -> dict[str, str]:
    return {persona: persona_token(cloud.keystone, persona) for persona in PERSONAS}
