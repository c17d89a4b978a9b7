"""``metalwire allocation create|list|show|set|unset|delete`` against a real server."""

from __future__ import annotations

import json
from typing import Any

from metalwire.client import Client, Node
from tests.cli.conftest import Run
from tests.client.util import unique


def _available(mw: Client, resource_class: str, *traits: str) -> Node:
    node = mw.create_node("fake-hardware", name=unique("alloc"), resource_class=resource_class)
    if traits:
        mw.set_node_traits(node, traits)
    mw.manage(node)
    mw.provide(node)
    return node


def _json(cli: Run, *args: str) -> Any:
    result = cli(*args, "-f", "json")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def test_allocations_made_listed_changed_and_deleted(cli: Run, mw: Client) -> None:
    rc = unique("CUSTOM_RC").upper().replace("-", "_")
    plain = _available(mw, rc)
    gold = _available(mw, rc, "CUSTOM_GOLD")
    name = unique("a1")

    made = _json(
        cli, "allocation", "create", "--resource-class", rc, "--trait", "CUSTOM_GOLD",
        "--name", name, "--extra", "purpose=ci",
    )  # fmt: skip
    assert (made["state"], made["node_uuid"], made["name"]) == ("active", gold.uuid, name)
    assert (made["traits"], made["extra"]) == (["CUSTOM_GOLD"], {"purpose": "ci"})
    assert mw.get_node(gold)["allocation_uuid"] == made["uuid"]

    row = {"UUID": made["uuid"], "Name": name, "Resource Class": rc, "State": "active"}
    assert _json(cli, "allocation", "list", "--resource-class", rc) == [
        {**row, "Node UUID": gold.uuid}
    ]
    assert [a["UUID"] for a in _json(cli, "allocation", "list", "--node", gold.name)] == [
        made["uuid"]
    ]
    long = _json(cli, "allocation", "list", "--resource-class", rc, "--long")
    assert long[0]["Traits"] == ["CUSTOM_GOLD"]
    assert _json(cli, "allocation", "show", name, "--fields", "uuid", "state") == {
        "uuid": made["uuid"],
        "state": "active",
    }

    renamed = unique("a1b")
    assert cli("allocation", "set", name, "--name", renamed, "--extra", "k=v").code == 0
    assert cli("allocation", "unset", renamed, "--extra", "purpose").code == 0
    changed = mw.get_allocation(renamed)
    assert (changed.name, changed["extra"]) == (renamed, {"k": "v"})

    none_fits = cli(
        "allocation", "create", "--resource-class", rc, "--trait", "CUSTOM_GOLD",
        "--candidate-node", plain.uuid, "-f", "json",
    )  # fmt: skip
    assert none_fits.code == 1
    failed = json.loads(none_fits.stdout)
    assert (failed["state"], failed["node_uuid"]) == ("error", None)
    assert f"allocation {failed['uuid']} failed: " in none_fits.stderr
    assert failed["last_error"] in none_fits.stderr
    assert mw.get_node(plain).instance_uuid is None

    nothing = cli("allocation", "create", "--name", unique("a2"))
    assert nothing.code == 2 and "--resource-class" in nothing.stderr, nothing.stderr

    deleted = cli("allocation", "delete", renamed, failed["uuid"])
    assert deleted.code == 0, deleted.stderr
    assert deleted.stdout.splitlines() == [
        f"Deleted allocation {renamed}",
        f"Deleted allocation {failed['uuid']}",
    ]
    assert mw.get_node(gold).instance_uuid is None
    gone = cli("allocation", "show", renamed)
    assert gone.code == 1 and "could not be found" in gone.stderr, gone.stderr


def test_a_deployed_node_s_allocation_is_recorded_by_backfill(cli: Run, mw: Client) -> None:
    rc = unique("CUSTOM_RC").upper().replace("-", "_")
    node = _available(mw, rc)
    mw.deploy(node)
    made = _json(cli, "allocation", "create", "--node", node.name)
    assert (made["state"], made["node_uuid"], made["resource_class"]) == ("active", node.uuid, rc)
    in_use = cli("allocation", "delete", made["uuid"])
    assert in_use.code == 1 and "Failed to delete allocation" in in_use.stderr, in_use.stderr
