"""The drivers through the unmodified ``baremetal`` program and openstacksdk, against a real
server: ``driver list``, ``driver show``, ``driver property list`` and ``driver raid property
list``, which answered 404 before metalwire served ``/v1/drivers``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.compat.clients import Cli
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

ENABLED = ["fake-hardware", "ipmi", "redfish", "manual-management"]


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_driver_list(baremetal: Cli) -> None:
    listed = baremetal.json("driver", "list")
    assert sorted(d["name"] for d in listed) == sorted(ENABLED)
    assert all(d["hosts"] for d in listed)


def test_driver_list_long_shows_the_defaults(baremetal: Cli) -> None:
    listed = {d["name"]: d for d in baremetal.json("driver", "list", "--long")}
    assert set(listed) == set(ENABLED)
    ipmi = listed["ipmi"]
    assert ipmi["type"] == "dynamic"
    assert ipmi["default_power_interface"] == "ipmitool"
    assert ipmi["default_boot_interface"] == "ipxe"
    assert ipmi["enabled_power_interfaces"] == "ipmitool"


def test_driver_show(baremetal: Cli) -> None:
    shown = baremetal.json("driver", "show", "fake-hardware")
    assert shown["name"] == "fake-hardware"
    assert shown["type"] == "dynamic"
    assert shown["default_power_interface"] == "fake"
    assert "fake" in shown["enabled_management_interfaces"]
    missing = baremetal.run("driver", "show", "no-such-driver")
    assert missing.returncode != 0
    assert "Could not find the following driver(s) or hardware type(s): no-such-driver" in (
        missing.stderr
    )


def test_driver_property_list(baremetal: Cli) -> None:
    properties = {
        p["property"]: p["description"]
        for p in baremetal.json("driver", "property", "list", "ipmi")
    }
    assert "ipmi_address" in properties
    assert "Required" in properties["ipmi_address"]


def test_driver_raid_property_list(baremetal: Cli) -> None:
    listed = baremetal.json("driver", "raid", "property", "list", "fake-hardware")
    names = {p["property"] for p in listed}
    assert {"raid_level", "size_gb", "controller"} <= names
    refused = baremetal.run("driver", "raid", "property", "list", "ipmi")
    assert refused.returncode != 0
    assert "does not support raid" in refused.stderr


def test_openstacksdk_lists_and_gets_drivers(sdk: Any) -> None:
    assert [d.name for d in sdk.drivers()] == ENABLED
    detailed = {d.name: d for d in sdk.drivers(details=True)}
    assert detailed["redfish"].default_power_interface == "redfish"
    one = sdk.get_driver("ipmi")
    assert one.name == "ipmi" and one.default_management_interface == "ipmitool"
