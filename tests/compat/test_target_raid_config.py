"""``baremetal node set|unset --target-raid-config`` (``PUT /v1/nodes/{node}/states/raid``)
through the unmodified program against a real server: metalwire answered 404 to both, as a
route it did not serve; now it records, clears and refuses as Ironic 39 does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

RAID = {
    "logical_disks": [
        {"size_gb": 100, "raid_level": "1", "is_root_volume": True, "disk_type": "ssd"},
        {
            "size_gb": "MAX",
            "raid_level": "5",
            "controller": "RAID.Integrated.1-1",
            "physical_disks": ["Disk.Bay.2", "Disk.Bay.3", "Disk.Bay.4"],
        },
    ]
}


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def _file(tmp_path: Path, config: Any) -> str:
    path = tmp_path / "raid.json"
    path.write_text(json.dumps(config))
    return str(path)


def _target(baremetal: Cli, node: str) -> Any:
    return baremetal.json("node", "show", node, "--fields", "target_raid_config")[
        "target_raid_config"
    ]


def test_set_then_unset_the_target_raid_config(
    baremetal: Cli, http: httpx.Client, tmp_path: Path
) -> None:
    node = unique("raid")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)

    baremetal.ok("node", "set", node, "--target-raid-config", _file(tmp_path, RAID))
    assert _target(baremetal, node) == RAID
    assert http.get(f"/v1/nodes/{node}/states").json()["target_raid_config"] == RAID

    unset = baremetal.run("node", "unset", node, "--target-raid-config")

    assert unset.returncode == 0, unset.describe()
    assert _target(baremetal, node) == {}
    baremetal.ok("node", "delete", node)


@pytest.mark.parametrize(
    ("disk", "named"),
    [
        ({"size_gb": 10, "raid_level": "7"}, "logical_disks[0].raid_level"),
        ({"size_gb": -1, "raid_level": "1"}, "logical_disks[0].size_gb"),
        ({"size_gb": 10, "raid_level": "1", "physical_disks": ["a"]}, "controller"),
        ({"size_gb": 10, "raid_level": "1", "colour": "red"}, "colour"),
    ],
)
def test_a_configuration_ironic_refuses_is_refused_and_the_target_kept(
    baremetal: Cli, tmp_path: Path, disk: dict[str, Any], named: str
) -> None:
    node = unique("raid")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    baremetal.ok("node", "set", node, "--target-raid-config", _file(tmp_path, RAID))

    refused = baremetal.run(
        "node", "set", node, "--target-raid-config", _file(tmp_path, {"logical_disks": [disk]})
    )

    assert refused.returncode != 0, refused.describe()
    assert "HTTP 400" in refused.stderr and named in refused.stderr, refused.describe()
    assert _target(baremetal, node) == RAID
    baremetal.ok("node", "delete", node)


def test_a_node_without_a_raid_interface_takes_only_an_empty_one(
    baremetal: Cli, tmp_path: Path
) -> None:
    node = unique("noraid")
    create = ("node", "create", "--driver", "fake-hardware", "--raid-interface", "no-raid")
    baremetal.ok(*create, "--name", node)

    refused = baremetal.run("node", "set", node, "--target-raid-config", _file(tmp_path, RAID))
    cleared = baremetal.run("node", "unset", node, "--target-raid-config")

    assert refused.returncode != 0, refused.describe()
    assert "does not support raid" in refused.stderr, refused.describe()
    assert cleared.returncode == 0, cleared.describe()
    assert _target(baremetal, node) == {}
    baremetal.ok("node", "delete", node)
