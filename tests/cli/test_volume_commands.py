"""``metalwire volume connector ...`` and ``metalwire volume target ...`` against a real
server."""

from __future__ import annotations

import json
from typing import Any

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import unique


def _json(cli: Run, *args: str) -> Any:
    result = cli(*args, "-f", "json")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def test_volume_connectors_and_targets(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("bfv"))
    mw.manage(node)  # powered off: its volume rows may change (as Ironic's)
    iqn = f"iqn.2024-01.org.example:{node.uuid}"
    connector = _json(
        cli, "volume", "connector", "create", "--node", str(node.name), "--type", "iqn",
        "--connector-id", iqn, "--extra", "a=1",
    )  # fmt: skip
    assert (connector["node_uuid"], connector["type"], connector["connector_id"]) == (
        node.uuid,
        "iqn",
        iqn,
    )
    again = cli(
        "volume", "connector", "create", "--node", node.uuid, "--type", "iqn",
        "--connector-id", iqn,
    )  # fmt: skip
    assert again.code == 1 and "HTTP 409" in again.stderr, again.stderr
    listed = _json(cli, "volume", "connector", "list", "--node", str(node.name))
    assert listed == [
        {"UUID": connector["uuid"], "Node UUID": node.uuid, "Type": "iqn", "Connector ID": iqn}
    ]
    assert _json(cli, "volume", "connector", "list", "--node", node.uuid, "--long")[0]["Extra"] == {
        "a": 1
    }

    other = f"{iqn}-2"
    done = cli("volume", "connector", "set", connector["uuid"], "--connector-id", other)
    assert done.code == 0, done.stderr
    assert cli("volume", "connector", "unset", connector["uuid"], "--extra", "a").code == 0
    shown = mw.get_volume_connector(connector["uuid"])
    assert (shown["connector_id"], shown["extra"]) == (other, {})

    target = _json(
        cli, "volume", "target", "create", "--node", node.uuid, "--type", "iscsi",
        "--volume-id", unique("vol"), "--boot-index", "0", "--property", "target_lun=0",
    )  # fmt: skip
    assert (target["volume_type"], target["boot_index"], target["properties"]) == (
        "iscsi",
        0,
        {"target_lun": 0},
    )
    taken = cli(
        "volume", "target", "create", "--node", node.uuid, "--type", "iscsi",
        "--volume-id", unique("vol"), "--boot-index", "0",
    )  # fmt: skip
    assert taken.code == 1 and "HTTP 409" in taken.stderr, taken.stderr
    not_a_number = cli("volume", "target", "set", target["uuid"], "--boot-index", "first")
    assert not_a_number.code == 2 and "--boot-index" in not_a_number.stderr
    done = cli("volume", "target", "set", target["uuid"], "--boot-index", "1", "--property", "k=v")
    assert done.code == 0, done.stderr
    done = cli("volume", "target", "unset", target["uuid"], "--property", "target_lun")
    assert done.code == 0, done.stderr
    shown = mw.get_volume_target(target["uuid"])
    assert (shown["boot_index"], shown["properties"]) == (1, {"k": "v"})
    assert [row["UUID"] for row in _json(cli, "volume", "target", "list", "--node", node.uuid)] == [
        target["uuid"]
    ]

    deleted = cli("volume", "target", "delete", target["uuid"])
    assert (deleted.code, deleted.stdout) == (0, f"Deleted volume target {target['uuid']}\n")
    deleted = cli("volume", "connector", "delete", connector["uuid"])
    assert deleted.code == 0, deleted.stderr
    gone = cli("volume", "connector", "show", connector["uuid"])
    assert gone.code == 1 and "could not be found" in gone.stderr, gone.stderr
