"""Hardware interface names through the unmodified ``baremetal`` program against a real
server: a misspelt ``--bios-interface`` or ``--console-interface`` was recorded as given;
Ironic 39 refuses a name it has no implementation of (400), and so does metalwire now, naming
the ones it has. The names Ironic has stay taken: metalwire records them and drives none."""

from __future__ import annotations

import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

CREATE = ("node", "create", "--driver", "fake-hardware")


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


@pytest.mark.parametrize(
    ("option", "name"),
    [("--bios-interface", "redfsh"), ("--console-interface", "ipmitool-sokat")],
)
def test_create_refuses_an_interface_ironic_has_no_implementation_of(
    baremetal: Cli, option: str, name: str
) -> None:
    node = unique("iface")

    refused = baremetal.run(*CREATE, "--name", node, option, name)

    assert refused.returncode != 0, refused.describe()
    assert "HTTP 400" in refused.stderr and repr(name) in refused.stderr, refused.describe()
    assert baremetal.run("node", "show", node).returncode != 0  # no node was made


def test_set_refuses_it_and_changes_nothing(baremetal: Cli) -> None:
    node = unique("iface")
    baremetal.ok(*CREATE, "--name", node)

    refused = baremetal.run(
        "node", "set", node, "--description", "changed", "--power-interface", "ipmi"
    )

    assert refused.returncode != 0, refused.describe()
    assert "HTTP 400" in refused.stderr and "'ipmi'" in refused.stderr, refused.describe()
    shown = baremetal.json("node", "show", node, "--fields", "power_interface", "description")
    assert (shown["power_interface"], shown["description"]) == ("fake", None)
    baremetal.ok("node", "delete", node)


def test_the_names_ironic_has_are_recorded(baremetal: Cli) -> None:
    node = unique("iface")
    named = (
        "--deploy-interface",
        "direct",
        "--boot-interface",
        "pxe",
        "--bios-interface",
        "no-bios",
    )

    baremetal.ok(*CREATE, "--name", node, *named)
    baremetal.ok("node", "set", node, "--console-interface", "no-console")

    fields = ("deploy_interface", "boot_interface", "bios_interface", "console_interface")
    shown = baremetal.json("node", "show", node, "--fields", *fields)
    assert [shown[f] for f in fields] == ["direct", "pxe", "no-bios", "no-console"]
    baremetal.ok("node", "delete", node)
