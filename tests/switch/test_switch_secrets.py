"""A switch's credentials never leave metalwire: not in a client's error, the node's
``last_error``, its history, the server's log or ``metalwire config-reference``, even when
the switch refuses them. The emulated switch's sshd takes keys only, so a password is a
real refused login over SSH."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx

from tests.support.generic_switch import GenericSwitchRunner
from tests.support.helpers import skip_or_fail
from tests.support.server import MetalwireServer
from tests.support.switch import EmulatedSwitch
from tests.switch.test_ironic_networking_states import _node, _provision

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}


def test_a_refused_password_is_named_nowhere(
    emulated_switch: EmulatedSwitch, tmp_path: Path
) -> None:
    runner = GenericSwitchRunner()
    if runner.missing:
        skip_or_fail(runner.missing)
    password, enable = f"pw-{uuid.uuid4().hex}", f"en-{uuid.uuid4().hex}"
    section = emulated_switch.switch_file_section("tor-1").replace(
        f"key_file = {emulated_switch.key_file}",
        f"password = {password}\nenable_secret = {enable}",
    )
    switch_file = tmp_path / "switches.ini"
    switch_file.write_text(section)
    env = {
        "METALWIRE_ENABLED_NETWORK_INTERFACES": "noop,flat,ironic-networking",
        "METALWIRE_IRONIC_NETWORKING_SWITCH_CONFIG_FILE": str(switch_file),
        "METALWIRE_IRONIC_NETWORKING_ENABLED_SWITCH_DRIVERS": "generic-switch",
        "METALWIRE_IRONIC_NETWORKING_PROVISIONING_NETWORK": "access/native_vlan=100",
        "METALWIRE_IRONIC_NETWORKING_IDLE_NETWORK": "access/native_vlan=999",
        "METALWIRE_IRONIC_NETWORKING_GENERIC_SWITCH_PYTHON": str(runner.venv / "bin" / "python"),
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
        # a refused login fails the change after 5 s of retries, not networking-generic-
        # switch's 60 s
        "METALWIRE_IRONIC_NETWORKING_SWITCH_LOGIN_TIMEOUT": "5",
    }
    with (
        MetalwireServer(tmp_path / "server", env=env) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=120) as http,
    ):
        port = _node(http, "n1", "ramdisk", "swp1")
        began = time.monotonic()
        _provision(http, "n1", "active")
        deadline = time.monotonic() + 90
        while (shown := http.get("/v1/nodes/n1").json())["provision_state"] == "deploying":
            assert time.monotonic() < deadline, shown
            time.sleep(0.5)

        # the switch refused the login: the deploy failed, naming the switch, within its
        # login timeout (each try is a refused login of a second or two)
        assert shown["provision_state"] == "deploy failed", shown
        assert time.monotonic() - began < 30
        assert "tor-1" in shown["last_error"], shown["last_error"]
        history = http.get("/v1/nodes/n1/history", params={"detail": "true"})
        assert history.status_code == 200, history.text
        seen = [shown["last_error"], history.text, server.log()]
    reference = subprocess.run(
        [sys.executable, "-m", "metalwire.cli.main", "config-reference"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
    )
    seen.append(reference.stdout + reference.stderr)

    assert port["local_link_connection"]["switch_id"] == "tor-1"
    for text in seen:
        assert password not in text and enable not in text
    assert "tor-1" in seen[1]  # the history names the switch too
