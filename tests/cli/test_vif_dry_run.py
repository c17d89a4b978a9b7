"""``metalwire node vif attach --dry-run`` of the real program against a real server."""

from __future__ import annotations

import json

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import mac, unique, vif_namer

v = vif_namer()


def test_dry_run_prints_the_choice_and_the_refusals_and_attaches_nothing(
    cli: Run, mw: Client
) -> None:
    node = mw.create_node("fake-hardware", name=unique("dry"))
    name = node.name or ""
    busy = mw.create_port(node.uuid, mac())
    free = mw.create_port(node.uuid, mac(), pxe_enabled=False)
    mw.vif_attach(name, v("holder"), port_uuid=busy.uuid)

    table = cli("node", "vif", "attach", name, v("new"), "--dry-run")
    assert (table.code, table.stderr) == (0, "")
    lines = table.stdout.splitlines()
    assert [c.strip() for c in lines[1].strip("|").split("|")] == [
        "Target",
        "UUID",
        "Address",
        "Physical Network",
        "Verdict",
        "Reason",
    ]
    rows = {
        cells[1]: cells
        for cells in ([c.strip() for c in line.strip("|").split("|")] for line in lines[3:-1])
    }
    assert rows[free.uuid][0] == "port" and rows[free.uuid][4] == "chosen"
    assert rows[busy.uuid][4] == "busy"
    assert f"is busy with VIF {v('holder')}" in rows[busy.uuid][5]

    as_json = cli("node", "vif", "attach", name, v("new"), "--dry-run", "-f", "json")
    assert as_json.code == 0, as_json.stderr
    answer = json.loads(as_json.stdout)
    assert answer["target"]["uuid"] == free.uuid
    assert [(r["uuid"], r["reason"], r["vif"]) for r in answer["refused"]] == [
        (busy.uuid, "busy", v("holder"))
    ]
    assert mw.vif_list(name) == [v("holder")]


def test_dry_run_that_would_fail_exits_1_with_the_attach_error(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("dry-full"))
    name = node.name or ""
    only = mw.create_port(node.uuid, mac())
    mw.vif_attach(name, v("only"), port_uuid=only.uuid)

    result = cli("node", "vif", "attach", name, v("more"), "--dry-run", "-f", "json")
    assert result.code == 1
    answer = json.loads(result.stdout)
    assert answer["target"] is None
    assert answer["error"]["type"] == "NoFreePhysicalPort"
    assert result.stderr.startswith("Would not attach: No free port or portgroup on node")
    assert mw.vif_list(name) == [v("only")]
