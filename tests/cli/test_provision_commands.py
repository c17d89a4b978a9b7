"""``metalwire node clean|service|rebuild|rescue|unrescue|inspect|unhold|abort`` and the bodies
of ``node deploy``: the provision verbs with what each takes, against the session's real
server (fake-hardware nodes, whose steps run at once)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from metalwire.client import Client
from metalwire.config import SQLITE_FILE
from tests.cli.conftest import Result, Run
from tests.client.util import unique
from tests.support.server import MetalwireServer

POWER_OFF = {"interface": "power", "step": "power_off"}
POWER_ON = {"interface": "power", "step": "power_on"}
HOLD = {"interface": "deploy", "step": "hold"}


def _ok(result: Result) -> None:
    assert (result.code, result.stderr) == (0, ""), result.stderr


def _trait(prefix: str) -> str:
    return unique(f"CUSTOM_{prefix}").upper().replace("-", "_")


def test_cleaning_and_servicing_run_the_given_steps_or_an_approved_runbooks(
    cli: Run, mw: Client, tmp_path: Path
) -> None:
    name = unique("clean")
    mw.create_node("fake-hardware", name=name)
    _ok(cli("node", "manage", name))

    _ok(cli("node", "clean", name, "--clean-steps", json.dumps([POWER_OFF])))
    node = mw.get_node(name)
    assert (node.provision_state, node.power_state) == ("manageable", "power off")
    steps_file = tmp_path / "steps.yaml"
    steps_file.write_text("- interface: power\n  step: power_on\n")
    _ok(cli("node", "clean", name, "--clean-steps", str(steps_file)))
    assert mw.get_node(name).power_state == "power on"

    neither = cli("node", "clean", name)
    assert neither.code == 2 and "--clean-steps --runbook" in neither.stderr, neither.stderr
    runbook = _trait("RB")
    both = cli("node", "clean", name, "--clean-steps", "[]", "--runbook", runbook)
    assert both.code == 2 and "not allowed with" in both.stderr, both.stderr
    # disable_ramdisk is sent: a version before cleaning takes it refuses it
    early = cli("--api-version", "1.69", "node", "clean", name, "--clean-steps",
                json.dumps([POWER_OFF]), "--disable-ramdisk")  # fmt: skip
    assert early.code == 1 and "disable_ramdisk" in early.stderr, early.stderr
    _ok(cli("node", "clean", name, "--clean-steps", json.dumps([POWER_ON]), "--disable-ramdisk"))

    # a runbook runs on a node that has one of its traits
    approval = _trait("RBOK")
    mw.create_runbook(runbook, [{**POWER_ON, "order": 1}, {**POWER_OFF, "order": 2}])
    mw.add_runbook_trait(runbook, approval)
    refused = cli("node", "clean", name, "--runbook", runbook)
    assert refused.code == 1 and "is not approved for node" in refused.stderr, refused.stderr
    mw.add_node_trait(name, approval)
    assert mw.get_node(name).power_state == "power on"
    _ok(cli("node", "clean", name, "--runbook", runbook))
    assert mw.get_node(name).power_state == "power off"  # the runbook's last step
    old = cli("--api-version", "1.91", "node", "clean", name, "--runbook", runbook)
    assert old.code == 1 and "1.92" in old.stderr, old.stderr

    _ok(cli("node", "provide", name))
    _ok(cli("node", "deploy", name))
    _ok(cli("node", "service", name, "--service-steps", json.dumps([POWER_OFF, POWER_ON])))
    assert mw.get_node(name).power_state == "power on"
    _ok(cli("node", "service", name, "--runbook", runbook))
    node = mw.get_node(name)
    assert (node.provision_state, node.power_state) == ("active", "power off")
    early = cli("--api-version", "1.107", "node", "service", name, "--service-steps",
                json.dumps([POWER_ON]), "--disable-ramdisk")  # fmt: skip
    assert early.code == 1 and "disable_ramdisk" in early.stderr, early.stderr
    older = cli("--api-version", "1.86", "node", "service", name, "--runbook", runbook)
    assert older.code == 1 and "1.87" in older.stderr, older.stderr


def test_a_config_drive_file_is_read_and_a_directory_refused(
    cli: Run, mw: Client, server: MetalwireServer, tmp_path: Path
) -> None:
    name = unique("drive")
    node = mw.create_node("fake-hardware", name=name)
    for verb in ("manage", "provide"):
        _ok(cli("node", verb, name))
    folder = tmp_path / "drive"
    folder.mkdir()
    refused = cli("node", "deploy", name, "--config-drive", str(folder))
    assert refused.code == 2 and "is a directory" in refused.stderr, refused.stderr
    image = tmp_path / "drive.b64"
    image.write_text("H4sIAAAAAAAAA0tJTUvMKU0FAEVvRMcFAAAA\n")  # gzipped, base64-encoded
    _ok(cli("node", "deploy", name, "--config-drive", str(image)))
    with sqlite3.connect(f"file:{server.data_dir / SQLITE_FILE}?mode=ro", uri=True) as db:
        (stored,) = db.execute("SELECT instance_info FROM nodes WHERE uuid = ?", (node.uuid,))
    assert json.loads(stored[0])["configdrive"] == "H4sIAAAAAAAAA0tJTUvMKU0FAEVvRMcFAAAA"


def test_rebuild_rescue_inspect_hold_and_abort(cli: Run, mw: Client) -> None:
    name = unique("verbs")
    mw.create_node("fake-hardware", name=name)
    _ok(cli("node", "manage", name))
    _ok(cli("node", "inspect", name))
    assert mw.get_node(name).provision_state == "manageable"
    _ok(cli("node", "provide", name))

    # a config drive as JSON is sent as an object: a version before 1.56 refuses that
    drive = json.dumps({"meta_data": {"hostname": "verbs"}})
    early = cli("--api-version", "1.55", "node", "deploy", name, "--config-drive", drive)
    assert early.code == 1 and "1.56" in early.stderr, early.stderr
    broken = cli("node", "deploy", name, "--config-drive", "{meta")
    assert broken.code == 2 and "--config-drive" in broken.stderr, broken.stderr
    _ok(cli("node", "deploy", name, "--config-drive", drive))
    assert mw.get_node(name).instance_info["configdrive"] == "******"

    bad_steps = json.dumps([{"interface": "deploy", "step": "nowhere"}])
    refused = cli("node", "rebuild", name, "--deploy-steps", bad_steps)
    assert refused.code == 1 and "Invalid deploy_steps" in refused.stderr, refused.stderr
    _ok(cli("node", "rebuild", name, "--config-drive", "https://drives.example/verbs.iso"))
    assert mw.get_node(name).provision_state == "active"

    missing = cli("node", "rescue", name)
    assert missing.code == 2 and "--rescue-password" in missing.stderr, missing.stderr
    _ok(cli("node", "rescue", name, "--rescue-password", "s3cret"))
    assert mw.get_node(name).provision_state == "rescue"
    _ok(cli("node", "unrescue", name))
    assert mw.get_node(name).provision_state == "active"

    _ok(cli("node", "undeploy", name))
    _ok(cli("node", "manage", name))
    _ok(cli("node", "clean", name, "--clean-steps", json.dumps([POWER_OFF, HOLD, POWER_ON])))
    assert mw.get_node(name).provision_state == "clean hold"
    old = cli("--api-version", "1.84", "node", "unhold", name)
    assert old.code == 1 and "1.85" in old.stderr, old.stderr
    _ok(cli("node", "unhold", name))
    node = mw.get_node(name)
    assert (node.provision_state, node.power_state) == ("manageable", "power on")

    wait = {"interface": "deploy", "step": "wait"}  # until called back, or aborted
    _ok(cli("node", "clean", name, "--clean-steps", json.dumps([wait, POWER_OFF])))
    assert mw.get_node(name).provision_state == "clean wait"
    _ok(cli("node", "abort", name))  # an aborted cleaning ends in clean failed, as asked
    node = mw.get_node(name)
    assert (node.provision_state, node.power_state) == ("clean failed", "power on")
    _ok(cli("node", "manage", name))
    nothing = cli("node", "abort", name)
    assert nothing.code == 1 and "abort" in nothing.stderr, nothing.stderr

    # a held cleaning aborted stops at unhold, which then reports how it ended
    _ok(cli("node", "clean", name, "--clean-steps", json.dumps([HOLD, POWER_OFF])))
    _ok(cli("node", "abort", name))
    assert mw.get_node(name).provision_state == "clean hold"
    ended = cli("node", "unhold", name)
    assert ended.code == 1, ended.stderr
    assert f"unhold of node {name} failed: By request, the cleaning" in ended.stderr
    assert mw.get_node(name).provision_state == "clean failed"


def test_wait_returns_once_the_verb_is_done_or_fails_after_its_timeout(
    cli: Run, mw: Client
) -> None:
    name = unique("wait")
    mw.create_node("fake-hardware", name=name)
    _ok(cli("node", "manage", name, "--wait"))
    assert mw.get_node(name).provision_state == "manageable"

    # a wait step of one second: without --wait the command answers while the node waits
    pause = {"interface": "deploy", "step": "wait", "args": {"seconds": 1}}
    _ok(cli("node", "clean", name, "--clean-steps", json.dumps([pause, POWER_OFF])))
    assert mw.get_node(name).provision_state == "clean wait"
    mw.wait_for_provision_state(name, "manageable", timeout=30, interval=0.2)
    _ok(cli("node", "clean", name, "--clean-steps", json.dumps([pause, POWER_ON]), "--wait", "30"))
    node = mw.get_node(name)
    assert (node.provision_state, node.power_state) == ("manageable", "power on")

    # an open wait outlasts --wait's timeout
    hold = {"interface": "deploy", "step": "wait"}
    late = cli("node", "clean", name, "--clean-steps", json.dumps([hold]), "--wait", "1")
    assert late.code == 1, late.stderr
    assert f"clean of node {name} failed: Node {name} is still 'clean wait' after 1 s, not " in (
        late.stderr
    )
    _ok(cli("node", "abort", name))
    bad = cli("node", "manage", name, "--wait", "soon")
    assert bad.code == 2 and "--wait" in bad.stderr, bad.stderr

    _ok(cli("node", "manage", name))
    _ok(cli("node", "provide", name, "--wait", "0"))
    _ok(cli("node", "deploy", name, "--wait", "60"))
    _ok(cli("node", "undeploy", name, "--wait"))  # available, or manageable when retired
    assert mw.get_node(name).provision_state == "available"
