"""``[DEFAULT] enabled_<kind>_interfaces`` and ``default_<kind>_interface`` read as Ironic 39
reads them: a node may name only an enabled implementation, a node without one gets the
configured default or else the first its hardware type supports that is enabled, and the
service refuses to start when some enabled hardware type would get no default."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metalwire import hardware_types
from metalwire.api.app import create_app
from metalwire.config import Config
from metalwire.errors import Invalid
from metalwire.hardware_types import HARDWARE_TYPES
from metalwire.services import build_services
from tests.conftest import Api, fault
from tests.support.app_client import AppClient


def _served(config: Config, **options: Any) -> Iterator[Api]:
    narrower = copy.deepcopy(config)
    for name, value in options.items():
        setattr(narrower.default, name, value)
    services, locks = build_services(narrower, upgrade_schema=False)
    with AppClient(create_app(narrower, services)) as client:
        yield Api(client)
    locks.release_all()
    services.db.dispose()


@pytest.fixture
def narrow(config: Config) -> Iterator[Api]:
    """A server enabling only some bios and console interfaces, with the ``ipmi`` type."""
    yield from _served(
        config,
        enabled_bios_interfaces=["fake", "no-bios"],
        enabled_console_interfaces=["ipmitool-socat", "fake", "no-console"],
    )


def test_a_node_naming_an_interface_that_is_not_enabled_is_refused(narrow: Api) -> None:
    refused = narrow.post("/v1/nodes", {"driver": "fake-hardware", "bios_interface": "redfish"})
    assert refused.status_code == 400, refused.text
    assert fault(refused) == (
        "Bios interface 'redfish' is not enabled; enabled bios interfaces are fake, no-bios "
        "([DEFAULT] enabled_bios_interfaces)."
    )
    assert narrow.get("/v1/nodes").json()["nodes"] == []


def test_a_change_to_an_interface_that_is_not_enabled_is_refused(narrow: Api) -> None:
    node = narrow.node(name="n1")
    patch = [{"op": "replace", "path": "/console_interface", "value": "redfish-graphical"}]
    refused = narrow.patch(f"/v1/nodes/{node['uuid']}", patch)
    assert refused.status_code == 400, refused.text
    assert "Console interface 'redfish-graphical' is not enabled" in fault(refused)
    assert narrow.get(f"/v1/nodes/{node['uuid']}").json()["console_interface"] == "fake"


def test_a_driver_change_is_refused_when_an_interface_is_not_enabled(narrow: Api) -> None:
    node = narrow.node(name="n1")
    change = [
        {"op": "replace", "path": "/driver", "value": "redfish"},
        {"op": "replace", "path": "/bios_interface", "value": "redfish"},
    ]
    refused = narrow.patch(f"/v1/nodes/{node['uuid']}", change)
    assert refused.status_code == 400, refused.text
    assert "Bios interface 'redfish' is not enabled" in fault(refused)
    assert narrow.get(f"/v1/nodes/{node['uuid']}").json()["driver"] == "fake-hardware"


def test_the_default_is_the_first_supported_interface_that_is_enabled(narrow: Api) -> None:
    # ipmi supports ipmitool-socat before no-console: Ironic gives the enabled one first
    node = narrow.node(driver="ipmi", name="n1")
    assert node["console_interface"] == "ipmitool-socat"
    assert node["bios_interface"] == "no-bios"
    fake = narrow.node(name="n2")
    assert (fake["console_interface"], fake["bios_interface"]) == ("fake", "fake")


def test_a_configured_default_wins(config: Config) -> None:
    for api in _served(
        config,
        enabled_console_interfaces=["ipmitool-socat", "no-console"],
        default_console_interface="no-console",
    ):
        assert api.node(driver="ipmi", name="n1")["console_interface"] == "no-console"


def test_setting_nothing_keeps_the_defaults_of_ironics_own_configuration(api: Api) -> None:
    node = api.node(driver="ipmi", name="n1", console_interface="ipmitool-socat")
    assert node["console_interface"] == "ipmitool-socat"  # every implementation enabled
    plain = api.node(driver="ipmi", name="n2")
    assert (plain["console_interface"], plain["boot_interface"]) == ("no-console", "ipxe")


def _refused_start(config: Config, **options: Any) -> str:
    narrower = copy.deepcopy(config)
    for name, value in options.items():
        setattr(narrower.default, name, value)
    with pytest.raises(Invalid) as refused:
        build_services(narrower, upgrade_schema=False)
    return str(refused.value)


def test_a_default_that_is_not_enabled_refuses_the_start(config: Config) -> None:
    message = _refused_start(
        config, enabled_bios_interfaces=["fake", "no-bios"], default_bios_interface="redfish"
    )
    assert message == (
        "[DEFAULT] default_bios_interface 'redfish' is not enabled: enabled_bios_interfaces "
        "enables fake, no-bios."
    )


def test_a_default_a_hardware_type_does_not_support_refuses_the_start(config: Config) -> None:
    message = _refused_start(config, default_power_interface="ipmitool")
    assert message.startswith(
        "[DEFAULT] default_power_interface 'ipmitool' is not supported by the enabled "
        "hardware type redfish"
    )


def test_an_enabled_list_leaving_a_hardware_type_nothing_refuses_the_start(
    config: Config,
) -> None:
    message = _refused_start(config, enabled_power_interfaces=["ipmitool", "fake"])
    assert message == (
        "For hardware type 'redfish', no default power interface could be chosen: [DEFAULT] "
        "enabled_power_interfaces enables none of the ones it supports (redfish). Enable "
        "one, or set [DEFAULT] default_power_interface."
    )


def test_an_unknown_name_in_an_enabled_list_refuses_the_start(config: Config) -> None:
    message = _refused_start(config, enabled_boot_interfaces=["ipxe", "pxe-typo"])
    assert message.startswith(
        "[DEFAULT] enabled_boot_interfaces names pxe-typo, which Ironic 39 has no boot interface of"
    )


def test_an_unknown_hardware_type_refuses_the_start(config: Config) -> None:
    message = _refused_start(config, enabled_hardware_types=["fake-hardware", "ipmii"])
    assert message == (
        "[DEFAULT] enabled_hardware_types names ipmii, which Ironic 39 has no hardware type "
        "of; its hardware types are fake-hardware, idrac, intel-ipmi, ipmi, manual-management, "
        "redfish."
    )


def test_every_ironic_hardware_type_may_be_enabled(config: Config) -> None:
    everything = copy.deepcopy(config)
    everything.default.enabled_hardware_types = list(HARDWARE_TYPES)
    hardware_types.check_configuration(everything.default)


def test_a_network_default_that_is_not_enabled_refuses_the_start(config: Config) -> None:
    message = _refused_start(
        config, enabled_network_interfaces=["noop", "flat"], default_network_interface="neutron"
    )
    assert message == (
        "[DEFAULT] default_network_interface 'neutron' is not enabled: "
        "enabled_network_interfaces enables noop, flat."
    )


def test_a_network_interface_that_is_not_enabled_is_refused_on_create(
    client: TestClient,
) -> None:
    api = Api(client)
    refused = api.post("/v1/nodes", {"driver": "fake-hardware", "network_interface": "bogus"})
    assert refused.status_code == 400
    assert fault(refused) == (
        "Network interface 'bogus' is not enabled; enabled network interfaces are noop, flat, "
        "neutron ([DEFAULT] enabled_network_interfaces)."
    )
