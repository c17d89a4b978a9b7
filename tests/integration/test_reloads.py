"""SIGHUP and changed files reload the htpasswd, personas and policy files of a real server,
without a restart and without closing connections; a wrong file leaves the old one in force."""

from __future__ import annotations

import http.client
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.auth.conftest import htpasswd_line
from tests.integration.invariants import HEADERS
from tests.support.helpers import wait_for
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server


def _sighup(server: MetalwireServer) -> None:
    assert server.process is not None
    os.kill(server.process.pid, signal.SIGHUP)


def _log_count(server: MetalwireServer, text: str) -> int:
    return server.log().count(text)


def _status(server: MetalwireServer, user: str, password: str, path: str = "/v1/nodes") -> int:
    resp = httpx.get(server.url + path, auth=(user, password), headers=HEADERS)
    return resp.status_code


def _basic_server(tmp_path: Path, interval: str, **files: Path) -> MetalwireServer:
    env = {
        "METALWIRE_AUTH_STRATEGY": "http_basic",
        "METALWIRE_HTTP_BASIC_AUTH_USER_FILE": str(files["users"]),
        "METALWIRE_FILE_RELOAD_INTERVAL": interval,
    }
    if "personas" in files:
        env["METALWIRE_HTTP_BASIC_AUTH_PERSONAS_FILE"] = str(files["personas"])
    if "policy" in files:
        env["METALWIRE_OSLO_POLICY_POLICY_FILE"] = str(files["policy"])
    return MetalwireServer(tmp_path / "data", env=env)


def test_sighup_reloads_the_htpasswd_file_on_open_connections(tmp_path: Path) -> None:
    users = tmp_path / "htpasswd"
    users.write_text(htpasswd_line("alice", "a-pass") + "\n")
    with _basic_server(tmp_path, "0", users=users) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("GET", "/")
        connection.getresponse().read()
        socket_before = connection.sock.getsockname() if connection.sock else None
        assert _status(server, "alice", "a-pass") == 200

        users.write_text(htpasswd_line("bob", "b-pass") + "\n")
        _sighup(server)
        assert wait_for(lambda: _log_count(server, "reloaded [DEFAULT]") == 1), server.log()
        assert "(on SIGHUP): 1 user, 0 with a persona" in server.log()
        assert _status(server, "bob", "b-pass") == 200
        assert _status(server, "alice", "a-pass") == 401  # the verified credential is forgotten

        # A wrong file: the old users stay, and the log says why.
        users.write_text("bob:not-a-bcrypt-hash\n")
        _sighup(server)
        assert wait_for(lambda: _log_count(server, "kept the previous [DEFAULT]") == 1)
        assert "line 1: the hash of user 'bob' is not bcrypt" in server.log()
        assert _status(server, "bob", "b-pass") == 200

        # The connection opened before the reloads is still open, and the process too.
        connection.request("GET", "/")
        assert connection.getresponse().status == 200
        assert connection.sock is not None and connection.sock.getsockname() == socket_before
        connection.close()
        assert server.process is not None and server.process.poll() is None
    assert "Traceback" not in server.log()


def test_a_changed_file_is_reloaded_without_a_signal(tmp_path: Path) -> None:
    users = tmp_path / "htpasswd"
    users.write_text(htpasswd_line("alice", "a-pass") + "\n")
    with _basic_server(tmp_path, "0.2", users=users) as server:
        assert _status(server, "carol", "c-pass") == 401
        time.sleep(0.05)  # a new modification time even on coarse clocks
        users.write_text(htpasswd_line("alice", "a-pass") + "\n" + htpasswd_line("carol", "c-pass"))
        assert wait_for(lambda: _status(server, "carol", "c-pass") == 200, timeout=10)
        assert "(changed on disk): 2 users, 0 with a persona" in server.log()


def test_the_policy_and_personas_files_are_reloaded_and_kept_when_wrong(tmp_path: Path) -> None:
    users = tmp_path / "htpasswd"
    users.write_text(htpasswd_line("admin", "adm") + "\n" + htpasswd_line("viewer", "v") + "\n")
    personas = tmp_path / "personas.yaml"
    personas.write_text("viewer: {roles: [reader], system_scope: all}\n")
    policy = tmp_path / "policy.yaml"
    policy.write_text("{}\n")
    with _basic_server(tmp_path, "0", users=users, personas=personas, policy=policy) as server:
        created = httpx.post(
            server.url + "/v1/nodes",
            json={"driver": "fake-hardware"},
            auth=("admin", "adm"),
            headers=HEADERS,
        )
        node = f"/v1/nodes/{created.json()['uuid']}"
        assert _status(server, "viewer", "v", node) == 200

        policy.write_text('"baremetal:node:get": "role:admin"\n')
        _sighup(server)
        assert wait_for(lambda: _log_count(server, "reloaded [oslo_policy] policy_file") == 1)
        assert "(on SIGHUP): 1 rule overridden" in server.log()
        assert _status(server, "viewer", "v", node) == 404  # no longer visible to a reader

        policy.write_text('"baremetal:node:get": "role:admin" and (\n')
        personas.write_text("viewer: {roles: [], system_scope: all}\n")
        _sighup(server)
        assert wait_for(lambda: _log_count(server, "kept the previous [oslo_policy]") == 1)
        assert wait_for(lambda: _log_count(server, "kept the previous [DEFAULT]") == 1)
        assert "user 'viewer': roles must be a non-empty list" in server.log()
        assert _status(server, "viewer", "v", node) == 404  # the rules in force stay
        assert _status(server, "admin", "adm", node) == 200


def test_sighup_without_files_to_reload_keeps_serving(tmp_path: Path) -> None:
    with MetalwireServer(tmp_path / "data") as server:
        _sighup(server)
        assert wait_for(lambda: "SIGHUP: no file to reload" in server.log())
        assert httpx.get(server.url + "/v1/nodes", headers=HEADERS).status_code == 200


def test_sighup_reloads_the_trait_based_networking_file_and_keeps_it_when_wrong(
    tmp_path: Path,
) -> None:
    rules = tmp_path / "tbn.yaml"
    rules.write_text(
        "CUSTOM_A:\n  actions:\n    - action: attach_port\n      filter: port.is_port\n"
    )
    env = {
        "METALWIRE_CONDUCTOR_ENABLE_TRAIT_BASED_NETWORKING": "true",
        "METALWIRE_CONDUCTOR_TRAIT_BASED_NETWORKING_CONFIG_FILE": str(rules),
        "METALWIRE_FILE_RELOAD_INTERVAL": "0",
    }
    with MetalwireServer(tmp_path / "data", env=env) as server:
        rules.write_text(
            "CUSTOM_B:\n  order: 1\n  actions:\n    - action: attach_portgroup\n"
            "      filter: port.is_portgroup\n"
            "CUSTOM_A:\n  order: 2\n  actions:\n    - action: attach_port\n"
            "      filter: port.is_port\n"
        )
        _sighup(server)
        assert wait_for(lambda: "2 trait(s): CUSTOM_B, CUSTOM_A" in server.log()), server.log()

        rules.write_text("CUSTOM_C:\n  actions:\n    - action: attach_port\n      colour: red\n")
        _sighup(server)
        assert wait_for(
            lambda: _log_count(server, "kept the previous [conductor] trait_based_networking") == 1
        ), server.log()
        assert "line 4" in server.log().rsplit("kept the previous", 1)[1]
        assert httpx.get(server.url + "/v1/nodes", headers=HEADERS).status_code == 200
    assert "Traceback" not in server.log()


def test_sighup_reloads_the_htpasswd_file_in_every_worker(tmp_path: Path) -> None:
    users = tmp_path / "htpasswd"
    users.write_text(htpasswd_line("alice", "a-pass") + "\n")
    server = _basic_server(tmp_path, "0", users=users)
    server.env["METALWIRE_API_API_WORKERS"] = "2"
    with server:
        assert wait_for(lambda: _log_count(server, "serving (pid") == 2), server.log()
        users.write_text(htpasswd_line("bob", "b-pass") + "\n")
        _sighup(server)
        assert wait_for(lambda: _log_count(server, "reloaded [DEFAULT]") == 2), server.log()
        # Each request on a new connection, whichever worker takes it.
        assert {_status(server, "bob", "b-pass") for _ in range(20)} == {200}
        assert {_status(server, "alice", "a-pass") for _ in range(20)} == {401}
    assert "Traceback" not in server.log()
