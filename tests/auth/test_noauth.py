"""``auth_strategy = noauth``: the default, for loopback only unless the operator insists."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest

from metalwire.api.auth.startup import check_listen_address
from metalwire.config import load_config
from tests.support import preforked
from tests.support.server import MetalwireServer


def _serve(tmp_path: Path, *args: str, **env: str) -> preforked.Completed:
    """The real ``metalwire serve``, forked from a process that has imported it."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("METALWIRE_")}
    argv = [sys.executable, "-m", "metalwire.cli.main", "serve", "--data-dir", str(tmp_path)]
    return preforked.run([*argv, *args], {**clean, **env}, 60)


@pytest.mark.server
@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_noauth_on_every_address_refuses_to_start(tmp_path: Path, host: str) -> None:
    done = _serve(tmp_path, "--host", host, "--port", "1")
    assert done.returncode == 2
    assert "auth_strategy = noauth" in done.stderr
    assert "http_basic or keystone" in done.stderr
    assert "allow_insecure_noauth" in done.stderr


@pytest.mark.server
def test_noauth_on_every_address_with_the_env_strategy_refuses_too(tmp_path: Path) -> None:
    done = _serve(tmp_path, "--host", "0.0.0.0", "--port", "1", METALWIRE_AUTH_STRATEGY="noauth")
    assert done.returncode == 2


def test_allow_insecure_noauth_starts_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    config = load_config(
        environ={"METALWIRE_API_ALLOW_INSECURE_NOAUTH": "true"},
        overrides={("api", "host_ip"): "0.0.0.0"},
    )
    with caplog.at_level(logging.WARNING):
        check_listen_address(config)
    assert "every client is an administrator" in caplog.text


def test_unknown_strategy_refuses_to_start(tmp_path: Path) -> None:
    done = _serve(tmp_path, "--port", "1", METALWIRE_AUTH_STRATEGY="ldap")
    assert done.returncode == 2
    assert "'ldap' is not one of noauth, http_basic, keystone" in done.stderr


@pytest.mark.server
def test_noauth_on_loopback_serves_without_credentials(tmp_path: Path) -> None:
    import httpx

    with MetalwireServer(tmp_path) as server:
        resp = httpx.get(f"{server.url}/v1/nodes")
    assert resp.status_code == 200
