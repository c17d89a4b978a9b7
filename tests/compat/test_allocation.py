"""The ``baremetal allocation`` commands against a real server, each with the flags the CLI
offers: create (resource class, trait, candidate node, name, uuid, owner, extra, wait; and
``--node`` backfilling), show, list with its filters, set, unset and delete."""

from __future__ import annotations

import uuid

import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_create_show_list_set_unset_delete(baremetal: Cli) -> None:
    rc = unique("rc")
    node = baremetal.json(
        "node",
        "create",
        "--driver",
        "fake-hardware",
        "--resource-class",
        rc,
        "--name",
        unique("n"),
        "--owner",
        "proj",  # an allocation with an owner takes its project's nodes only
    )
    baremetal.ok("node", "add", "trait", node["uuid"], "CUSTOM_FAST")
    baremetal.ok("node", "manage", node["uuid"])
    baremetal.ok("node", "provide", node["uuid"])

    name, allocation = unique("a"), str(uuid.uuid4())
    created = baremetal.json(
        "allocation",
        "create",
        "--resource-class",
        rc,
        "--trait",
        "CUSTOM_FAST",
        "--candidate-node",
        node["name"],
        "--name",
        name,
        "--uuid",
        allocation,
        "--owner",
        "proj",
        "--extra",
        "k=v",
        "--wait",
        "30",
    )
    assert (created["uuid"], created["state"], created["node_uuid"]) == (
        allocation,
        "active",
        node["uuid"],
    )
    assert created["candidate_nodes"] == [node["uuid"]] and created["traits"] == ["CUSTOM_FAST"]
    assert (created["owner"], created["extra"]) == ("proj", {"k": "v"})
    fields, listed, by_rc = (
        r.json()
        for r in baremetal.run_all(
            ("allocation", "show", name, "--fields", "uuid", "state", "-f", "json"),
            (
                "allocation",
                "list",
                "--node",
                node["uuid"],
                "--state",
                "active",
                "--long",
                "-f",
                "json",
            ),
            ("allocation", "list", "--resource-class", rc, "--owner", "proj", "-f", "json"),
        )
    )
    assert fields == {"uuid": allocation, "state": "active"}
    assert [a["uuid"] for a in listed] == [allocation]
    assert [a["uuid"] for a in by_rc] == [allocation]

    renamed = unique("b")
    baremetal.ok("allocation", "set", allocation, "--name", renamed, "--extra", "x=1")
    shown = baremetal.json("allocation", "show", allocation)
    assert (shown["name"], shown["extra"]) == (renamed, {"k": "v", "x": 1})
    baremetal.ok("allocation", "unset", allocation, "--name", "--extra", "k")
    shown = baremetal.json("allocation", "show", allocation)
    assert (shown["name"], shown["extra"]) == (None, {"x": 1})

    failed = baremetal.run("allocation", "create", "--resource-class", unique("none"), "--wait")
    assert failed.returncode != 0
    assert "no available nodes match the resource class" in failed.stderr, failed.describe()

    deleted = baremetal.ok("allocation", "delete", allocation)
    assert allocation in deleted.stdout + deleted.stderr, deleted.describe()
    missing = baremetal.run("allocation", "show", allocation)
    assert missing.returncode != 0
    assert f"Allocation {allocation} could not be found" in missing.stderr, missing.describe()

    # --node backfills the allocation of a node deployed without one
    baremetal.ok("node", "deploy", node["uuid"])
    backfilled = baremetal.json("allocation", "create", "--node", node["name"])
    assert (backfilled["state"], backfilled["node_uuid"], backfilled["resource_class"]) == (
        "active",
        node["uuid"],
        rc,
    )
