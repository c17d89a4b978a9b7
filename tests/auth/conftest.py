"""Fixtures of the authentication tests: apps under each strategy, users, Keystone."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bcrypt
import pytest
from fastapi.testclient import TestClient

from metalwire.api.app import build_services, create_app
from metalwire.config import Config, load_config
from tests.conftest import LATEST


def htpasswd_line(user: str, password: str) -> str:
    """A line as ``htpasswd -B`` writes it (``$2y$`` prefix)."""
    hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=4)).decode()
    return f"{user}:$2y${hashed[4:]}"


def make_config(tmp_path: Path, template: Path, **options: Any) -> Config:
    """A config on a fresh copy of the migrated SQLite file, with (section, option) values."""
    data_dir = tmp_path / "data"
    data_dir.mkdir(exist_ok=True)
    shutil.copyfile(template, data_dir / "metalwire.db")
    overrides: dict[tuple[str, str], Any] = {("DEFAULT", "data_dir"): str(data_dir)}
    for key, value in options.items():
        section, _, name = key.partition("__")
        overrides[(section, name)] = value
    return load_config(environ={}, overrides=overrides)


def open_client(config: Config) -> Iterator[TestClient]:
    services, locks = build_services(config, upgrade_schema=False)
    with TestClient(create_app(config, services)) as test_client:
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
