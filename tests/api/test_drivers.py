"""``/v1/drivers``: the enabled hardware types as Ironic 39 shows them, per microversion."""

from __future__ import annotations

import httpx
import pytest

from metalwire.conductor import raid
from metalwire.config import Config
from tests.api.test_enabled_interfaces import _served
from tests.conftest import LATEST, Api, fault
from tests.support.server import MetalwireServer

ENABLED = ["fake-hardware", "ipmi", "redfish", "manual-management"]
NOT_ACCEPTABLE = "Request not acceptable. The minimal required API version should be 1.30"


def _names(api: Api, url: str, version: str | None = None) -> list[str]:
    resp = api.get(url, version=version)
    assert resp.status_code == 200, resp.text
    return [driver["name"] for driver in resp.json()["drivers"]]


def test_the_enabled_hardware_types_are_listed_as_dynamic_drivers(api: Api, config: Config) -> None:
    resp = api.get("/v1/drivers")
    assert resp.status_code == 200, resp.text
    drivers = resp.json()["drivers"]
    assert [d["name"] for d in drivers] == ENABLED
    ipmi = drivers[1]
    assert set(ipmi) == {"name", "hosts", "links", "properties", "type"}
    assert ipmi["hosts"] == [config.default.host]
    assert ipmi["type"] == "dynamic"
    assert ipmi["links"] == [
        {"href": "http://testserver/v1/drivers/ipmi", "rel": "self"},
        {"href": "http://testserver/drivers/ipmi", "rel": "bookmark"},
    ]
    assert ipmi["properties"][0]["href"] == "http://testserver/v1/drivers/ipmi/properties"


def test_the_type_filter_as_ironic_answers_it(api: Api) -> None:
    assert _names(api, "/v1/drivers?type=dynamic") == ENABLED
    assert _names(api, "/v1/drivers?type=classic") == []
    bad = api.get("/v1/drivers?type=modern")
    assert bad.status_code == 400
    assert fault(bad) == '"type" filter must be one of "classic" or "dynamic", if specified.'


@pytest.mark.parametrize("query", ["detail=true", "type=dynamic"])
def test_detail_and_type_are_refused_below_1_30(api: Api, query: str) -> None:
    refused = api.get(f"/v1/drivers?{query}", version="1.29")
    assert refused.status_code == 406
    assert fault(refused) == NOT_ACCEPTABLE


def test_each_version_shows_its_fields(api: Api) -> None:
    old = api.get("/v1/drivers/ipmi", version="1.13").json()
    assert set(old) == {"name", "hosts", "links"}
    assert set(api.get("/v1/drivers/ipmi", version="1.29").json()) == {
        "name",
        "hosts",
        "links",
        "properties",
    }
    at_30 = api.get("/v1/drivers/ipmi", version="1.30").json()
    assert "default_boot_interface" in at_30 and "enabled_network_interfaces" in at_30
    assert "default_storage_interface" not in at_30
    for since, kind in ((33, "storage"), (38, "rescue"), (40, "bios"), (86, "firmware")):
        below = api.get("/v1/drivers/ipmi", version=f"1.{since - 1}").json()
        assert f"default_{kind}_interface" not in below
        assert f"enabled_{kind}_interfaces" not in below
        at = api.get("/v1/drivers/ipmi", version=f"1.{since}").json()
        assert f"default_{kind}_interface" in at and f"enabled_{kind}_interfaces" in at


def test_a_detailed_driver_shows_usable_interfaces_and_defaults(api: Api) -> None:
    ipmi = api.get("/v1/drivers/ipmi").json()
    assert ipmi["default_power_interface"] == "ipmitool"
    assert ipmi["enabled_power_interfaces"] == ["ipmitool"]
    assert ipmi["default_console_interface"] == "no-console"
    assert ipmi["enabled_console_interfaces"] == ["ipmitool-socat", "no-console", "fake-graphical"]
    assert ipmi["default_network_interface"] == "flat"
    assert ipmi["enabled_network_interfaces"] == ["flat", "neutron", "noop"]
    listed = api.get("/v1/drivers?detail=true").json()["drivers"]
    assert listed[1] == ipmi
    plain = api.get("/v1/drivers?detail=false").json()["drivers"]
    assert "default_power_interface" not in plain[1]


def test_the_detail_follows_the_enabled_lists(config: Config) -> None:
    for api in _served(
        config,
        enabled_hardware_types=["ipmi"],
        enabled_console_interfaces=["ipmitool-socat", "no-console"],
    ):
        assert _names(api, "/v1/drivers") == ["ipmi"]
        ipmi = api.get("/v1/drivers/ipmi").json()
        assert ipmi["enabled_console_interfaces"] == ["ipmitool-socat", "no-console"]
        assert ipmi["default_console_interface"] == "ipmitool-socat"
        gone = api.get("/v1/drivers/fake-hardware")
        assert gone.status_code == 404
        assert fault(gone) == (
            "Could not find the following driver(s) or hardware type(s): fake-hardware."
        )


def test_fields_from_1_77(api: Api) -> None:
    shown = api.get("/v1/drivers?fields=name,hosts").json()["drivers"][0]
    assert set(shown) == {"name", "hosts", "links"}
    one = api.get("/v1/drivers/ipmi?fields=default_boot_interface").json()
    assert one == {"default_boot_interface": "ipxe", "links": one["links"]}
    below = api.get("/v1/drivers?fields=name", version="1.76")
    assert below.status_code == 406
    invalid = api.get("/v1/drivers?fields=name,nonsense")
    assert invalid.status_code == 400
    assert fault(invalid) == 'Field(s) "nonsense" are not valid'
    both = api.get("/v1/drivers?fields=name&detail=true")
    assert both.status_code == 400
    assert fault(both) == "Can not specify ?detail=True and fields in the same request."


def test_an_unknown_query_parameter_is_refused_naming_it(api: Api) -> None:
    refused = api.get("/v1/drivers?driver=ipmi")
    assert refused.status_code == 400
    assert "driver" in fault(refused)


def test_an_unknown_driver_is_404_naming_it(api: Api) -> None:
    for url in ("/v1/drivers/nope", "/v1/drivers/nope/properties"):
        missing = api.get(url)
        assert missing.status_code == 404, url
        assert fault(missing) == "Could not find the following driver(s) or hardware type(s): nope."


def test_properties_are_the_driver_info_keys_the_default_interfaces_read(api: Api) -> None:
    ipmi = api.get("/v1/drivers/ipmi/properties")
    assert ipmi.status_code == 200, ipmi.text
    assert {"ipmi_address", "ipmi_bridging", "image_download_source"} <= set(ipmi.json())
    assert "Required" in ipmi.json()["ipmi_address"]
    redfish = api.get("/v1/drivers/redfish/properties").json()
    assert "redfish_address" in redfish and "ipmi_address" not in redfish
    assert api.get("/v1/drivers/fake-hardware/properties").json() == {}


def test_raid_logical_disk_properties(api: Api) -> None:
    url = "/v1/drivers/fake-hardware/raid/logical_disk_properties"
    shown = api.get(url)
    assert shown.status_code == 200, shown.text
    assert set(shown.json()) == set(raid._DISK_CHECKS)
    assert all(text.endswith(("Required.", "Optional.")) for text in shown.json().values())
    assert api.get(url, version="1.11").status_code == 406
    no_raid = api.get("/v1/drivers/ipmi/raid/logical_disk_properties")
    assert no_raid.status_code == 404
    assert fault(no_raid) == "Driver ipmi does not support raid (disabled or not implemented)."


def test_vendor_passthru_is_not_served(api: Api) -> None:
    assert api.get("/v1/drivers/ipmi/vendor_passthru/methods").status_code == 404


@pytest.mark.server
@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("/v1/drivers", "baremetal:driver:get"),
        ("/v1/drivers/ipmi", "baremetal:driver:get"),
        ("/v1/drivers/ipmi/properties", "baremetal:driver:get_properties"),
        (
            "/v1/drivers/fake-hardware/raid/logical_disk_properties",
            "baremetal:driver:get_raid_logical_disk_properties",
        ),
    ],
)
def test_a_system_reader_may_read_drivers_and_a_project_member_may_not(
    personas: MetalwireServer, path: str, rule: str
) -> None:
    def status(user: str) -> httpx.Response:
        return httpx.get(
            personas.url + path,
            auth=(user, f"{user}-pw"),
            headers={"X-OpenStack-Ironic-API-Version": LATEST},
            timeout=30,
        )

    assert status("viewer").status_code == 200
    refused = status("tenant")
    assert refused.status_code == 403
    assert rule in fault(refused)
