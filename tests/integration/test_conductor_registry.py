"""The conductor registry with real ``metalwire serve`` processes on one PostgreSQL, read by
the unmodified ``baremetal`` program: servers see each other, a clean stop is offline at
once, a killed one is no longer alive once ``[conductor] heartbeat_timeout`` has passed,
the workers of one server are one conductor, and a second server under a live host says so."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.clients import Cli
from tests.support.postgres import PostgresServer
from tests.support.server import MetalwireServer

pytestmark = [pytest.mark.server, pytest.mark.postgresql]

VERSION = {"X-OpenStack-Ironic-API-Version": "1.49"}
HEARTBEAT = {
    "METALWIRE_CONDUCTOR_HEARTBEAT_INTERVAL": "0.5",
    "METALWIRE_CONDUCTOR_HEARTBEAT_TIMEOUT": "3",
}


@pytest.fixture
def database(postgres_server: PostgresServer, request: pytest.FixtureRequest) -> str:
    return postgres_server.create_database(f"registry_{request.node.name[5:25].lower()}")


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}


def _server(tmp_path: Path, database: str, host: str, *args: str) -> MetalwireServer:
    env = {"METALWIRE_HOST": host, **HEARTBEAT}
    return MetalwireServer(tmp_path / host, database=database, env=env, args=list(args))


def _conductors(baremetal: Cli) -> dict[str, bool]:
    listed: list[dict[str, Any]] = baremetal.json("conductor", "list", "--long")
    return {item["hostname"]: item["alive"] for item in listed}


def _hosts(baremetal: Cli, driver: str) -> list[str]:
    """The driver's hosts, as the program shows them: joined by commas."""
    return sorted(baremetal.json("driver", "show", driver)["hosts"].split(", "))


@pytest.fixture
def two_servers(tmp_path: Path, database: str) -> Iterator[tuple[MetalwireServer, MetalwireServer]]:
    first = _server(tmp_path, database, "conductor-a").start()
    second = _server(tmp_path, database, "conductor-b", "--workers", "2")
    try:
        second.start()
        yield first, second
    finally:
        second.stop()
        first.stop()


def test_two_servers_see_each_other_and_a_clean_stop_is_offline_at_once(
    two_servers: tuple[MetalwireServer, MetalwireServer], cli_env: dict[str, str]
) -> None:
    first, second = two_servers
    from_first = Cli("baremetal", first.url, cli_env)
    from_second = Cli("baremetal", second.url, cli_env)
    # The two workers of conductor-b are one conductor.
    assert _conductors(from_first) == {"conductor-a": True, "conductor-b": True}
    time.sleep(4)  # longer than the timeout: the heartbeats keep both alive
    assert _conductors(from_second) == {"conductor-a": True, "conductor-b": True}
    shown = from_first.json("conductor", "show", "conductor-b")
    assert shown["alive"] is True
    assert sorted(shown["drivers"]) == ["fake-hardware", "ipmi", "manual-management", "redfish"]
    assert _hosts(from_first, "ipmi") == ["conductor-a", "conductor-b"]

    second.stop()
    assert _conductors(from_first) == {"conductor-a": True, "conductor-b": False}
    assert _hosts(from_first, "ipmi") == ["conductor-a"]


def test_a_killed_server_is_not_alive_once_the_timeout_has_passed(
    two_servers: tuple[MetalwireServer, MetalwireServer], cli_env: dict[str, str]
) -> None:
    first, second = two_servers
    baremetal = Cli("baremetal", first.url, cli_env)
    assert _conductors(baremetal)["conductor-b"] is True
    second.kill()
    killed = time.monotonic()
    # Its last heartbeat is recent: asked over plain HTTP (the program takes seconds to start
    # on a busy machine), and only if the answer came before the timeout could have passed.
    alive = httpx.get(first.url + "/v1/conductors/conductor-b", headers=VERSION).json()["alive"]
    assert alive is True or time.monotonic() - killed >= 2.5
    while _conductors(baremetal)["conductor-b"]:
        assert time.monotonic() - killed < 15, "conductor-b still alive 15 s after SIGKILL"
        time.sleep(0.5)
    assert time.monotonic() - killed >= 2  # not before its heartbeat timed out (3 s)
    assert baremetal.json("conductor", "show", "conductor-b")["alive"] is False


def test_a_second_server_under_a_live_host_warns_and_takes_the_registration_over(
    tmp_path: Path, database: str, cli_env: dict[str, str]
) -> None:
    with _server(tmp_path, database, "twin") as first:
        second = MetalwireServer(
            tmp_path / "twin-2", database=database, env={"METALWIRE_HOST": "twin", **HEARTBEAT}
        )
        with second:
            assert "another server may be running with [DEFAULT] host twin" in second.log()
            assert _conductors(Cli("baremetal", first.url, cli_env)) == {"twin": True}
