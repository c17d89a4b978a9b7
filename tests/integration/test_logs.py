"""oslo.log's [DEFAULT] use_json, debug and log_config_append, through a real server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.auth.conftest import htpasswd_line
from tests.integration.invariants import HEADERS
from tests.support.helpers import wait_for
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_use_json_writes_one_object_per_line_naming_the_request(tmp_path: Path) -> None:
    users = tmp_path / "htpasswd"
    users.write_text(htpasswd_line("alice", "a-pass") + "\n")
    env = {
        "METALWIRE_USE_JSON": "true",
        "METALWIRE_AUTH_STRATEGY": "http_basic",
        "METALWIRE_HTTP_BASIC_AUTH_USER_FILE": str(users),
        # The VIF call goes to a worker thread, whose lines must name the request too.
        "METALWIRE_CONDUCTOR_EVENT_LOOP_VIF_CALLS": "false",
    }
    with (
        MetalwireServer(tmp_path / "data", env=env) as server,
        httpx.Client(base_url=server.url, auth=("alice", "a-pass"), headers=HEADERS) as client,
    ):
        node = client.post("/v1/nodes", json={"driver": "fake-hardware"}).json()["uuid"]
        refused = client.post(f"/v1/nodes/{node}/vifs", json={"id": "vif-without-port"})
        request_id = refused.headers["x-openstack-request-id"]
    assert refused.status_code == 400
    records = _json_lines(server.log())  # every line, uvicorn's too, is one JSON object
    access = [r for r in records if r["name"] == "metalwire.api.access"]
    line = next(r for r in access if f"/v1/nodes/{node}/vifs 400" in r["message"])
    assert (line["request_id"], line["user"], line["project"]) == (request_id, "alice", None)
    assert line["context"] == {"request_id": request_id, "user": "alice", "project": None}
    assert line["levelname"] == "INFO" and line["hostname"] and line["asctime"]
    # The access line keeps its fields in the message.
    assert f"[{request_id}] user alice project -" in line["message"]
    failure = next(r for r in records if "Attaching VIF vif-without-port failed" in r["message"])
    assert failure["levelname"] == "WARNING"
    assert failure["request_id"] == request_id and failure["user"] == "alice"
    serving = next(r for r in records if "metalwire serving on" in r["message"])
    assert serving["request_id"] is None and "JSON lines at INFO" in serving["message"]


def test_text_lines_logged_while_serving_a_request_end_with_its_id(tmp_path: Path) -> None:
    # The VIF calls go to worker threads and the event loop alike.
    with (
        MetalwireServer(tmp_path / "data") as server,
        httpx.Client(base_url=server.url, headers=HEADERS) as client,
    ):
        node = client.post("/v1/nodes", json={"driver": "fake-hardware"}).json()["uuid"]
        refused = client.post(f"/v1/nodes/{node}/vifs", json={"id": "vif-without-port"})
    request_id = refused.headers["x-openstack-request-id"]
    assert refused.status_code == 400
    lines = server.log().splitlines()
    failure = next(line for line in lines if "Attaching VIF vif-without-port failed" in line)
    assert " WARNING metalwire.conductor.tasks " in failure
    assert failure.endswith(f" [{request_id}]")
    access = next(line for line in lines if f"/v1/nodes/{node}/vifs 400" in line)
    assert access.count(request_id) == 1  # the access line names it once, as before
    serving = next(line for line in lines if "metalwire serving on" in line)
    assert not serving.endswith("]")  # no request: no id


def test_debug_logs_at_debug_and_log_level_wins(tmp_path: Path) -> None:
    env = {"METALWIRE_DEBUG": "true"}
    # A first start: the schema's migrations log at DEBUG.
    with MetalwireServer(tmp_path / "a", env=env, migrated=False) as server:
        pass
    assert "logging text lines at DEBUG" in server.log()
    assert " DEBUG " in server.log()


def test_log_config_append_configures_logging_and_is_reloaded(tmp_path: Path) -> None:
    log_file = tmp_path / "metalwire.log"
    logging_conf = tmp_path / "logging.conf"

    def write_config(fmt: str) -> None:
        logging_conf.write_text(
            "[loggers]\nkeys = root\n\n[handlers]\nkeys = file\n\n[formatters]\nkeys = plain\n\n"
            "[logger_root]\nlevel = INFO\nhandlers = file\n\n"
            "[handler_file]\nclass = FileHandler\nformatter = plain\n"
            f"args = ({str(log_file)!r},)\n\n"
            f"[formatter_plain]\nformat = {fmt}\n"
        )

    write_config("%(levelname)s req=%(request_id)s user=%(user)s %(name)s: %(message)s")
    config = tmp_path / "metalwire.conf"
    config.write_text(f"[DEFAULT]\nlog_config_append = {logging_conf}\nuse_json = true\n")
    with MetalwireServer(tmp_path / "data", config=config) as server:
        resp = httpx.get(server.url + "/v1/nodes", headers=HEADERS)
        request_id = resp.headers["x-openstack-request-id"]
        assert wait_for(lambda: f"req={request_id} user=-" in log_file.read_text())
        write_config("RELOADED %(levelname)s %(name)s: %(message)s")
        assert server.process is not None
        os.kill(server.process.pid, signal.SIGHUP)
        assert wait_for(
            lambda: "RELOADED INFO metalwire.reloading: reloaded" in log_file.read_text()
        )
    text = log_file.read_text()
    assert "logging configured by" in text
    assert not text.lstrip().startswith("{")  # use_json is ignored: the file decides


def test_a_log_config_append_file_that_cannot_be_used_refuses_to_start(tmp_path: Path) -> None:
    broken = tmp_path / "logging.conf"
    broken.write_text("[loggers]\nkeys = root\n")
    config = tmp_path / "metalwire.conf"
    config.write_text(f"[DEFAULT]\nlog_config_append = {broken}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALWIRE_")}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "metalwire.cli.main",
            "serve",
            "--config",
            str(config),
            "--data-dir",
            str(tmp_path / "data"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 2
    assert f"[DEFAULT] log_config_append '{broken}' cannot be used" in result.stderr
