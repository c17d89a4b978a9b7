"""``/v1/nodes/{node}/management/indicators``: a node's indicators (every version, as in
Ironic 39, which gates them at none).

fake-hardware's are Ironic's fake management's: a read-only ``led-0`` on the chassis and a
``led`` on the system, each read as ``on``; none can be set. Other management interfaces
have none to show.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, fault

MISSING = "0e0e0e0e-1111-4222-8333-444444444444"
INDICATORS = "/v1/nodes/{}/management/indicators"


def test_fake_hardware_lists_ironics_fake_indicators(api: Api) -> None:
    api.node(name="ind-fake")
    resp = api.get(INDICATORS.format("ind-fake"))
    assert resp.status_code == 200, resp.text
    listed = resp.json()["indicators"]
    assert [(i["name"], i["component"], i["readonly"], i["states"]) for i in listed] == [
        ("led-0@chassis", "chassis", True, ["off", "on"]),
        ("led@system", "system", False, ["blinking", "off", "on"]),
    ]
    assert listed[0]["links"] == [
        {
            "href": "http://testserver/v1/nodes/ind-fake/management/indicators/led-0@chassis",
            "rel": "self",
        },
        {
            "href": "http://testserver/nodes/ind-fake/management/indicators/led-0@chassis",
            "rel": "bookmark",
        },
    ]


@pytest.mark.parametrize("name", ["led-0@chassis", "led@system"])
def test_fake_hardware_reads_each_indicator_as_on(api: Api, name: str) -> None:
    api.node(name="ind-get")
    resp = api.get(f"{INDICATORS.format('ind-get')}/{name}")
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"state": "on"}


@pytest.mark.parametrize(
    ("name", "named"),
    [("led@disk", "'disk'"), ("led-9@chassis", "'led-9'"), ("led", "Malformed indicator name")],
)
def test_an_indicator_the_node_lacks_is_400_naming_it(api: Api, name: str, named: str) -> None:
    api.node(name="ind-bad")
    resp = api.get(f"{INDICATORS.format('ind-bad')}/{name}")
    assert resp.status_code == 400
    assert named in fault(resp)


def test_fake_hardware_sets_no_indicator(api: Api) -> None:
    api.node(name="ind-set")
    resp = api.put(f"{INDICATORS.format('ind-set')}/led@system", {"state": "blinking"})
    assert resp.status_code == 400
    assert fault(resp) == (
        "Driver fake-hardware does not support set_indicator_state (disabled or not implemented)."
    )


@pytest.mark.parametrize(("body", "named"), [({}, "state"), ({"state": 1}, "state"), ([], "JSON")])
def test_a_set_body_without_a_state_is_400(api: Api, body: Any, named: str) -> None:
    api.node(name="ind-body")
    resp = api.put(f"{INDICATORS.format('ind-body')}/led@system", body)
    assert resp.status_code == 400
    assert named in fault(resp)


def test_a_management_interface_without_indicators_is_400(api: Api) -> None:
    api.node(name="ind-ipmi", driver="ipmi", driver_info={"ipmi_address": "192.0.2.60"})
    resp = api.get(INDICATORS.format("ind-ipmi"))
    assert resp.status_code == 400
    assert "get_supported_indicators" in fault(resp)


def test_an_unknown_node_is_404(api: Api) -> None:
    for resp in (
        api.get(INDICATORS.format(MISSING)),
        api.get(f"{INDICATORS.format(MISSING)}/led@system"),
        api.put(f"{INDICATORS.format(MISSING)}/led@system", {"state": "on"}),
    ):
        assert resp.status_code == 404
        assert MISSING in fault(resp)


def test_served_at_the_first_version_too(api: Api) -> None:
    api.node(name="ind-old")
    assert api.get(INDICATORS.format("ind-old"), version="1.1").status_code == 200


def test_a_missing_node_is_404_before_the_indicator_name_is_read(api: Api) -> None:
    for resp in (
        api.get(f"{INDICATORS.format(MISSING)}/led"),
        api.put(f"{INDICATORS.format(MISSING)}/led", {"state": "on"}),
    ):
        assert resp.status_code == 404
        assert fault(resp) == f"Node {MISSING} could not be found."
