"""``/v1/nodes/{node}/management/boot_device``: set, read and the supported devices.

Ironic 39 serves them at every version. fake-hardware's management offers pxe only and
answers pxe, not persistent, whatever was set; ipmitool and redfish offer their own devices,
and metalwire, which drives no BMC, answers what was set (null for both until then).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, fault

MISSING = "0e0e0e0e-1111-4222-8333-444444444444"
IPMI_INFO = {"ipmi_address": "192.0.2.30"}
REDFISH_INFO = {"redfish_address": "https://192.0.2.31"}


def boot_device(api: Api, node: str) -> Any:
    return api.get(f"/v1/nodes/{node}/management/boot_device")


def set_device(api: Api, node: str, body: Any, version: str | None = None) -> Any:
    return api.put(f"/v1/nodes/{node}/management/boot_device", body, version=version)


def history(api: Api, node: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = api.get(f"/v1/nodes/{node}/history?detail=true").json()[
        "history"
    ]
    return entries


def test_fake_hardware_offers_pxe_and_answers_it_whatever_was_set(api: Api) -> None:
    node = api.node(name="bd-fake")
    supported = api.get("/v1/nodes/bd-fake/management/boot_device/supported")
    assert supported.status_code == 200, supported.text
    assert supported.json() == {"supported_boot_devices": ["pxe"]}
    resp = set_device(api, "bd-fake", {"boot_device": "pxe", "persistent": True})
    assert resp.status_code == 204, resp.text
    assert boot_device(api, "bd-fake").json() == {"boot_device": "pxe", "persistent": False}
    event = history(api, "bd-fake")[-1]["event"]
    assert event == f"boot device of {node['uuid']} (bd-fake) set to pxe (persistent)"


def test_a_device_the_interface_does_not_offer_is_400_naming_it(api: Api) -> None:
    node = api.node(name="bd-disk")
    before = len(history(api, "bd-disk"))
    resp = set_device(api, "bd-disk", {"boot_device": "disk"})
    assert resp.status_code == 400
    assert fault(resp) == (
        f"Invalid boot device 'disk' for node {node['uuid']} (bd-disk): its fake management "
        "interface offers pxe."
    )
    assert len(history(api, "bd-disk")) == before


@pytest.mark.parametrize(
    ("driver", "info", "devices"),
    [
        ("ipmi", IPMI_INFO, ["pxe", "disk", "cdrom", "bios", "safe"]),
        ("redfish", REDFISH_INFO, ["pxe", "disk", "cdrom", "bios", "uefihttp"]),
    ],
)
def test_a_bmc_node_shows_the_device_and_persistence_it_was_set_to(
    api: Api, driver: str, info: dict[str, str], devices: list[str]
) -> None:
    api.node(name=f"bd-{driver}", driver=driver, driver_info=info)
    supported = api.get(f"/v1/nodes/bd-{driver}/management/boot_device/supported").json()
    assert supported == {"supported_boot_devices": devices}
    assert boot_device(api, f"bd-{driver}").json() == {"boot_device": None, "persistent": None}
    assert set_device(api, f"bd-{driver}", {"boot_device": "cdrom"}).status_code == 204
    assert boot_device(api, f"bd-{driver}").json() == {"boot_device": "cdrom", "persistent": False}
    body = {"boot_device": "disk", "persistent": "true"}
    assert set_device(api, f"bd-{driver}", body).status_code == 204
    assert boot_device(api, f"bd-{driver}").json() == {"boot_device": "disk", "persistent": True}
    assert "boot_device" not in api.get(f"/v1/nodes/bd-{driver}").json()


def test_noop_management_answers_pxe_persistent(api: Api) -> None:
    api.node(name="bd-noop", driver="manual-management")
    assert api.get("/v1/nodes/bd-noop/management/boot_device/supported").json() == {
        "supported_boot_devices": ["pxe", "disk"]
    }
    assert set_device(api, "bd-noop", {"boot_device": "disk"}).status_code == 204
    assert boot_device(api, "bd-noop").json() == {"boot_device": "pxe", "persistent": True}


def test_a_bmc_interface_without_its_address_is_refused_but_lists_its_devices(api: Api) -> None:
    api.node(name="bd-noaddr", driver="ipmi")
    for resp in (
        boot_device(api, "bd-noaddr"),
        set_device(api, "bd-noaddr", {"boot_device": "pxe"}),
    ):
        assert resp.status_code == 400
        assert "driver_info/ipmi_address" in fault(resp)
    supported = api.get("/v1/nodes/bd-noaddr/management/boot_device/supported")
    assert supported.status_code == 200  # Ironic lists them without validating


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({}, "boot_device"),
        ({"persistent": True}, "boot_device"),
        ({"boot_device": 7}, "boot_device"),
        ({"boot_device": "pxe", "persistent": "sometimes"}, "persistent"),
        ({"boot_device": "pxe", "persistent": 1}, "persistent"),
        ({"boot_device": "pxe", "once": True}, "once"),
        (["pxe"], "JSON object"),
    ],
)
def test_a_set_body_ironic_refuses_is_400_naming_what_is_wrong(
    api: Api, body: Any, named: str
) -> None:
    api.node(name="bd-bad")
    resp = set_device(api, "bd-bad", body)
    assert resp.status_code == 400, resp.text
    assert named in fault(resp)


def test_an_unknown_node_is_404(api: Api) -> None:
    for resp in (
        boot_device(api, MISSING),
        set_device(api, MISSING, {"boot_device": "pxe"}),
        api.get(f"/v1/nodes/{MISSING}/management/boot_device/supported"),
    ):
        assert resp.status_code == 404
        assert MISSING in fault(resp)


def test_served_at_the_first_version_too(api: Api) -> None:
    api.node(name="bd-old")
    assert set_device(api, "bd-old", {"boot_device": "pxe"}, version="1.1").status_code == 204
    assert api.get("/v1/nodes/bd-old/management/boot_device", version="1.1").status_code == 200
