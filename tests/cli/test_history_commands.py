"""``metalwire node validate`` and ``node history list|show`` against a real server."""

from __future__ import annotations

import json

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import unique


def test_validate_shows_each_interface_as_the_server_checked_it(cli: Run, mw: Client) -> None:
    node = mw.create_node("ipmi", name=unique("validate")).name  # no BMC address yet
    assert node is not None

    result = cli("node", "validate", node, "-f", "json")

    assert result.code == 0, result.stderr
    rows = json.loads(result.stdout)
    checked = mw.validate_node(node)
    assert [row["Interface"] for row in rows] == sorted(checked)
    for row in rows:
        found = checked[row["Interface"]]
        assert (row["Result"], row["Reason"]) == (found["result"], found.get("reason")), row
    assert {"power", "management", "network", "deploy"} <= set(checked)
    power = next(row for row in rows if row["Interface"] == "power")
    assert power["Result"] is False and "ipmi_address" in power["Reason"], power
    table = cli("node", "validate", node)
    assert table.stdout.splitlines()[1].split() == [
        "|",
        "Interface",
        "|",
        "Result",
        "|",
        "Reason",
        "|",
    ]

    missing = cli("node", "validate", unique("no-such-node"))
    assert missing.code == 1 and "could not be found" in missing.stderr, missing.stderr


def test_history_lists_and_shows_what_happened_to_a_node(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("history")).name
    assert node is not None
    assert cli("node", "power", "off", node).code == 0
    assert cli("node", "maintenance", "set", node, "--reason", "disk swap").code == 0

    listed = cli("node", "history", "list", node, "-f", "json")
    assert listed.code == 0, listed.stderr
    rows = json.loads(listed.stdout)
    entries = mw.list_node_history(node)
    assert [row["UUID"] for row in rows] == [entry["uuid"] for entry in entries]
    assert list(rows[0]) == ["UUID", "Created At", "Severity", "Event"]
    assert rows and all(row["Severity"] in ("INFO", "ERROR") for row in rows)

    long = json.loads(cli("node", "history", "list", node, "--long", "-f", "json").stdout)
    assert "Event Type" in long[0] and "Conductor" in long[0], long[0]
    one = json.loads(cli("node", "history", "list", node, "--limit", "1", "-f", "json").stdout)
    assert [row["UUID"] for row in one] == [rows[0]["UUID"]]

    last = rows[-1]
    shown = cli("node", "history", "show", node, last["UUID"], "-f", "json")
    assert shown.code == 0, shown.stderr
    event = json.loads(shown.stdout)
    assert (event["uuid"], event["event"]) == (last["UUID"], last["Event"])
    assert "event_type" in event and "links" not in event

    unknown = cli("node", "history", "show", node, "5c3a58f6-8d7c-4b7f-9a3e-000000000000")
    assert unknown.code == 1 and "could not be found" in unknown.stderr, unknown.stderr
