"""Fixtures the API tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.auth.test_http_basic import PERSONAS_YAML, _basic_env
from tests.support.server import MetalwireServer


@pytest.fixture(scope="module")
def personas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MetalwireServer]:
    """A real server in http_basic mode whose users have the roles and scopes of
    ``PERSONAS_YAML`` (a system reader ``viewer``, a project member ``tenant``, ...)."""
    tmp_path = tmp_path_factory.mktemp("personas")
    with MetalwireServer(tmp_path / "data", env=_basic_env(tmp_path, PERSONAS_YAML)) as server:
        yield server
