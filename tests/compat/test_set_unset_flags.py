"""``set`` and ``unset`` flags of the unmodified ``baremetal`` program that Ironic 39 takes and
metalwire refused, against a real server."""

from __future__ import annotations

import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

# the server's [DEFAULT] default_network_interface (MetalwireServer sets none)
DEFAULT_NETWORK_INTERFACE = "flat"


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_reset_network_interface_gives_the_default_back(baremetal: Cli) -> None:
    node = unique("reset")
    create = ("node", "create", "--driver", "fake-hardware", "--network-interface", "noop")
    baremetal.ok(*create, "--name", node)

    reset = baremetal.run("node", "set", node, "--reset-network-interface")

    assert reset.returncode == 0, reset.describe()
    shown = baremetal.json("node", "show", node, "--fields", "network_interface")
    assert shown["network_interface"] == DEFAULT_NETWORK_INTERFACE
    baremetal.ok("node", "delete", node)
