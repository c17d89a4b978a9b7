"""A node's firmware components (1.86) and virtual media (1.89) through the unmodified
``baremetal`` program and openstacksdk, against a real server: both were 404."""

from __future__ import annotations

import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_node_firmware_list_shows_no_components(baremetal: Cli) -> None:
    node = unique("fw")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    assert baremetal.json("node", "firmware", "list", node) == []
    missing = baremetal.run("node", "firmware", "list", unique("nowhere"))
    assert missing.returncode != 0 and "could not be found" in missing.stderr, missing.describe()
