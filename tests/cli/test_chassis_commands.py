"""``metalwire chassis create|list|show|set|unset|delete`` against a real server."""

from __future__ import annotations

import json

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import unique


def test_chassis_created_listed_changed_and_deleted(cli: Run, mw: Client) -> None:
    rack = unique("rack")
    created = cli(
        "chassis", "create", "--description", rack, "--extra", "row=B", "--extra", "slots=42",
        "-f", "json",
    )  # fmt: skip
    assert created.code == 0, created.stderr
    shown = json.loads(created.stdout)
    uuid = shown["uuid"]
    assert (shown["description"], shown["extra"]) == (rack, {"row": "B", "slots": 42})

    listed = cli("chassis", "list", "--limit", "0", "-f", "json")
    assert listed.code == 0, listed.stderr
    assert {"UUID": uuid, "Description": rack} in json.loads(listed.stdout)
    one = cli("chassis", "show", uuid, "--fields", "uuid", "extra", "-f", "json")
    assert json.loads(one.stdout) == {"extra": {"row": "B", "slots": 42}, "uuid": uuid}

    done = cli("chassis", "set", uuid, "--description", "rack 12", "--extra", "row=C")
    assert done.code == 0, done.stderr
    chassis = mw.get_chassis(uuid)
    assert (chassis.description, chassis["extra"]) == ("rack 12", {"row": "C", "slots": 42})
    done = cli("chassis", "unset", uuid, "--description", "--extra", "slots")
    assert done.code == 0, done.stderr
    chassis = mw.get_chassis(uuid)
    assert (chassis.description, chassis["extra"]) == (None, {"row": "C"})

    missing_key = cli("chassis", "unset", uuid, "--extra", "no-such-key", "--extra", "row")
    assert missing_key.code == 1 and "no-such-key" in missing_key.stderr, missing_key.stderr
    assert mw.get_chassis(uuid)["extra"] == {"row": "C"}  # the whole patch refused
    empty = cli("chassis", "set", uuid)
    assert empty.code == 2 and "nothing to set" in empty.stderr, empty.stderr

    node = mw.create_node("fake-hardware", name=unique("racked"), chassis_uuid=uuid)
    in_use = cli("chassis", "delete", uuid)
    assert in_use.code == 1 and f"Failed to delete chassis {uuid}" in in_use.stderr
    assert mw.get_chassis(uuid).uuid == uuid
    mw.delete_node(node)
    deleted = cli("chassis", "delete", uuid)
    assert (deleted.code, deleted.stdout) == (0, f"Deleted chassis {uuid}\n"), deleted.stderr
    gone = cli("chassis", "show", uuid)
    assert gone.code == 1 and "could not be found" in gone.stderr, gone.stderr
