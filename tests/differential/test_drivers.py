"""``/v1/drivers`` against Ironic 39 enabling the same hardware types and interfaces.

Compared: the status, the keys of each driver at each version (the network interface's
left out: the compared servers enable different ones), the enabled lists (as sets:
Ironic's order comes from a set) and the defaults. Not compared: ``hosts`` (each names its own
host), link addresses, and the text of the properties (metalwire describes what it reads in
its own words). Also: ``fake-hardware``'s lists for choosing defaults are Ironic's.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from metalwire.hardware_types import FAKE_SUPPORTED, KINDS
from tests.differential.test_hardware_type_interfaces import _IRONIC_LISTS
from tests.support.ironic import IronicServer, run_in_ironic
from tests.support.server import MetalwireServer

VERSIONS = ("1.1", "1.14", "1.29", "1.30", "1.33", "1.38", "1.40", "1.77", "1.86", "1.115")
REQUESTS = (
    "/v1/drivers",
    "/v1/drivers?detail=true",
    "/v1/drivers?type=dynamic",
    "/v1/drivers?type=classic",
    "/v1/drivers?type=modern",
    "/v1/drivers?fields=name,hosts",
    "/v1/drivers?fields=name&detail=true",
    "/v1/drivers/fake-hardware",
    "/v1/drivers/fake-hardware?fields=default_boot_interface",
    "/v1/drivers/ipmi",
    "/v1/drivers/fake-hardware/properties",
    "/v1/drivers/ipmi/properties",
    "/v1/drivers/fake-hardware/raid/logical_disk_properties",
    "/v1/drivers/ipmi/raid/logical_disk_properties",
)


def _driver(doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if "_network_interface" in key:
            continue  # the compared servers enable different network interfaces
        if key == "hosts":
            out[key] = len(value)
        elif key in ("links", "properties"):
            out[key] = [link["rel"] for link in value]
        elif key.startswith("enabled_"):
            out[key] = sorted(value)
        else:
            out[key] = value
    return out


def _comparable(resp: httpx.Response, path: str) -> Any:
    if resp.status_code >= 400:
        return resp.status_code
    body = resp.json()
    if "drivers" in body:
        return resp.status_code, [_driver(driver) for driver in body["drivers"]]
    if path.endswith("properties"):
        return resp.status_code, "(described)"
    return resp.status_code, _driver(body)


@pytest.mark.parametrize("version", VERSIONS)
def test_drivers_answer_as_ironic(
    upstream_ironic: IronicServer,
    differential_metalwire: MetalwireServer,
    version: str,
) -> None:
    headers = {"X-OpenStack-Ironic-API-Version": version}
    for path in REQUESTS:
        ironic = httpx.get(upstream_ironic.url + path, headers=headers, timeout=30)
        ours = httpx.get(differential_metalwire.url + path, headers=headers, timeout=30)
        assert _comparable(ours, path) == _comparable(ironic, path), (version, path)


def test_fake_hardware_chooses_its_defaults_from_ironics_lists() -> None:
    lists: dict[str, dict[str, list[str]]] = run_in_ironic(
        _IRONIC_LISTS, [list(KINDS), ["fake-hardware"]]
    )
    ours = {kind: list(names) for kind, names in FAKE_SUPPORTED.items()}
    assert ours == lists["fake-hardware"]
