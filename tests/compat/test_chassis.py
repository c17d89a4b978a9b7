"""The ``baremetal chassis`` commands against a real server, each flag of each,
``baremetal node list --chassis`` (the CLI's list of a chassis's nodes), which metalwire once
read as no filter at all, and ``baremetal create`` of a file describing a chassis and its
nodes."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_create_show_set_unset_delete(baremetal: Cli) -> None:
    chassis = str(uuid.uuid4())
    created = baremetal.json(
        "chassis",
        "create",
        "--uuid",
        chassis,
        "--description",
        "rack 7",
        "--extra",
        "row=b",
        "--extra",
        "slot=3",
    )
    assert created["uuid"] == chassis
    assert created["description"] == "rack 7"
    assert created["extra"] == {"row": "b", "slot": 3}

    baremetal.ok("chassis", "set", chassis, "--description", "rack 8", "--extra", "slot=four")
    shown = baremetal.json("chassis", "show", chassis)
    assert shown["description"] == "rack 8" and shown["extra"] == {"row": "b", "slot": "four"}
    assert baremetal.json("chassis", "show", chassis, "--fields", "uuid", "extra") == {
        "uuid": chassis,
        "extra": {"row": "b", "slot": "four"},
    }

    baremetal.ok("chassis", "unset", chassis, "--description", "--extra", "row")
    shown = baremetal.json("chassis", "show", chassis)
    assert shown["description"] is None and shown["extra"] == {"slot": "four"}

    deleted = baremetal.ok("chassis", "delete", chassis)
    assert f"Deleted chassis {chassis}" in deleted.stdout + deleted.stderr, deleted.describe()
    missing = baremetal.run("chassis", "show", chassis)
    assert missing.returncode != 0
    assert f"Chassis {chassis} could not be found" in missing.stderr, missing.describe()


def test_list_long_fields_sort_limit(baremetal: Cli) -> None:
    tag = unique("rack")
    made = [
        baremetal.json("chassis", "create", "--description", f"{tag}-{n}")["uuid"]
        for n in ("b", "a", "c")
    ]
    mine = set(made)

    listed = [c for c in baremetal.json("chassis", "list") if c["uuid"] in mine]
    assert {c["description"] for c in listed} == {f"{tag}-a", f"{tag}-b", f"{tag}-c"}
    assert set(listed[0]) == {"uuid", "description"}

    long = [c for c in baremetal.json("chassis", "list", "--long") if c["uuid"] in mine]
    assert {"extra", "created_at", "updated_at"} <= set(long[0])

    fields = baremetal.json("chassis", "list", "--fields", "uuid", "extra")
    assert set(fields[0]) == {"uuid", "extra"}

    ordered = baremetal.json("chassis", "list", "--sort", "description:desc")
    descriptions = [c["description"] for c in ordered if c["uuid"] in mine]
    assert descriptions == [f"{tag}-c", f"{tag}-b", f"{tag}-a"]

    assert len(baremetal.json("chassis", "list", "--limit", "2")) == 2
    refused = baremetal.run("chassis", "list", "--sort", "extra")
    assert refused.returncode != 0, refused.describe()

    for chassis in made:
        baremetal.ok("chassis", "delete", chassis)


def test_nodes_in_a_chassis(baremetal: Cli) -> None:
    chassis = baremetal.json("chassis", "create")["uuid"]
    inside, outside = unique("ch"), unique("ch")
    create = ("node", "create", "--driver", "fake-hardware", "--name")
    baremetal.run_all((*create, inside, "--chassis-uuid", chassis), (*create, outside))
    listed = baremetal.json("node", "list", "--chassis", chassis)
    assert [n["name"] for n in listed] == [inside]

    in_use = baremetal.run("chassis", "delete", chassis)
    assert in_use.returncode != 0, in_use.describe()
    assert f"chassis {chassis} contains nodes" in in_use.stderr, in_use.describe()

    missing = str(uuid.uuid4())
    refused = baremetal.run(
        "node", "create", "--driver", "fake-hardware", "--chassis-uuid", missing
    )
    assert refused.returncode != 0, refused.describe()
    assert f"Chassis {missing} could not be found" in refused.stderr, refused.describe()
    refused = baremetal.run("node", "list", "--chassis", missing)
    assert refused.returncode != 0, refused.describe()
    assert f"Chassis {missing} could not be found" in refused.stderr, refused.describe()

    baremetal.ok("node", "unset", inside, "--chassis-uuid")
    assert baremetal.json("node", "list", "--chassis", chassis) == []
    baremetal.ok("node", "set", outside, "--chassis-uuid", chassis)
    assert [n["name"] for n in baremetal.json("node", "list", "--chassis", chassis)] == [outside]
    baremetal.ok("node", "delete", inside, outside)
    baremetal.ok("chassis", "delete", chassis)


def test_baremetal_create_makes_a_chassis_with_its_nodes(baremetal: Cli, tmp_path: Path) -> None:
    rack, name = unique("rack"), unique("bulk")
    described = {
        "chassis": [{"description": rack, "nodes": [{"driver": "fake-hardware", "name": name}]}]
    }
    path = tmp_path / "chassis.json"
    path.write_text(json.dumps(described))
    baremetal.ok("create", str(path))
    (made,) = [c for c in baremetal.json("chassis", "list") if c["description"] == rack]
    listed = baremetal.json("node", "list", "--chassis", made["uuid"])
    assert [n["name"] for n in listed] == [name]
    baremetal.ok("node", "delete", name)
    baremetal.ok("chassis", "delete", made["uuid"])
