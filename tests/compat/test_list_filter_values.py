"""``baremetal node list`` filters given a value no node can have: a mistyped provision state
or fault listed no node at all (exit 0, an empty table); Ironic 39 refuses them, and so does
metalwire now, naming the values it takes."""

from __future__ import annotations

import pytest

from tests.compat.clients import Cli
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [
        ("--provision-state", "avaliable", "'available'"),
        ("--fault", "power", "'power failure'"),
    ],
)
def test_a_value_no_node_can_have_is_refused(
    baremetal: Cli, option: str, value: str, named: str
) -> None:
    listed = baremetal.run("node", "list", option, value)

    assert listed.returncode != 0, listed.describe()
    assert "HTTP 400" in listed.stderr and named in listed.stderr, listed.describe()


def test_the_values_it_takes_still_list(baremetal: Cli) -> None:
    for option, value in (("--provision-state", "clean failed"), ("--fault", "power failure")):
        assert baremetal.json("node", "list", option, value) == []
