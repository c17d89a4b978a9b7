"""``baremetal node list --chassis``, which metalwire read as no filter (every node listed):
it narrows the list to the nodes recording that chassis, and a chassis no node records is
404, as Ironic answers for a chassis that does not exist."""

from __future__ import annotations

import uuid

import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_node_list_by_chassis(baremetal: Cli) -> None:
    chassis = str(uuid.uuid4())
    inside, outside = unique("ch"), unique("ch")
    create = ("node", "create", "--driver", "fake-hardware", "--name")
    baremetal.run_all((*create, inside, "--chassis-uuid", chassis), (*create, outside))
    listed = baremetal.json("node", "list", "--chassis", chassis)
    assert [n["name"] for n in listed] == [inside]

    missing = str(uuid.uuid4())
    refused = baremetal.run("node", "list", "--chassis", missing)
    assert refused.returncode != 0, refused.describe()
    assert f"Chassis {missing} could not be found" in refused.stderr, refused.describe()
