"""``POST /v1/continue_inspection`` as Ironic 39 answers it: the inspection ramdisk's report
finds its node in ``inspect wait`` and ends the inspection; ``GET .../inventory`` serves what
it stored."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.config import Config
from tests.api.test_lifecycle import provision
from tests.conftest import Api, fault
from tests.support.helpers import AGENT_RAMDISK
from tests.support.inspection import PXE_MAC, SECOND_MAC, report

NOT_FOUND = "Resource could not be found."


@pytest.fixture(autouse=True)
def no_inspect_timeout(config: Config) -> None:
    config.conductor.inspect_wait_timeout = 3600


def _inspected(api: Api, name: str = "life", mac: str = PXE_MAC, **fields: Any) -> dict[str, Any]:
    """A node in ``inspect wait`` of an ``agent`` inspection, with a port of ``mac``."""
    node = api.node(
        name=name,
        inspect_interface="agent",
        boot_interface="ipxe",
        network_interface=fields.pop("network_interface", "noop"),
        driver_info={**AGENT_RAMDISK, **fields.pop("driver_info", {})},
        **fields,
    )
    api.port(node, mac)
    assert provision(api, "manage", node=name).status_code == 202
    assert provision(api, "inspect", node=name).status_code == 202
    assert _shown(api, name)["provision_state"] == "inspect wait"
    return node


def _shown(api: Api, name: str = "life") -> dict[str, Any]:
    return dict(api.get(f"/v1/nodes/{name}").json())


def _events(api: Api, name: str = "life") -> list[str]:
    history = api.get(f"/v1/nodes/{name}/history?detail=true").json()["history"]
    return [e["event"] for e in history]


def _continue(api: Api, body: Any, version: str | None = None, query: str = "") -> Any:
    return api.post(f"/v1/continue_inspection{query}", body, version=version)


def test_the_report_of_a_node_found_by_mac_ends_its_inspection_in_manageable(api: Api) -> None:
    node = _inspected(api)

    resp = _continue(api, report())

    assert resp.status_code == 202, resp.text
    answer = resp.json()
    assert answer["node"]["uuid"] == node["uuid"]
    assert set(answer["node"]) == {
        "uuid",
        "properties",
        "instance_info",
        "driver_internal_info",
        "links",
    }
    assert answer["config"]["agent_token_required"] is True
    shown = _shown(api)
    assert (shown["provision_state"], shown["target_provision_state"]) == ("manageable", None)
    assert shown["power_state"] == "power off"
    assert shown["last_error"] is None
    assert shown["inspection_finished_at"] is not None
    assert _events(api)[-3:] == [
        "inspection data received from the ramdisk",
        "noop.remove_inspection_network done",
        "inspect done: manageable",
    ]


def test_the_inventory_is_what_the_ramdisk_reported_without_its_logs(api: Api) -> None:
    _inspected(api)
    posted = report()
    assert _continue(api, posted).status_code == 202

    resp = api.get("/v1/nodes/life/inventory")

    assert resp.status_code == 200, resp.text
    stored = resp.json()
    assert stored["inventory"] == posted["inventory"]
    assert stored["plugin_data"]["error"] is None
    assert "logs" not in stored["plugin_data"]


def test_a_report_at_1_1_is_answered_with_the_node_uuid_only(api: Api) -> None:
    """As Ironic's, which takes ironic-inspector's ramdisks' reports at the base version."""
    node = _inspected(api)

    resp = _continue(api, report(), version="1.1")

    assert resp.status_code == 202, resp.text
    assert resp.json() == {"uuid": node["uuid"]}
    assert _shown(api)["provision_state"] == "manageable"


def test_a_report_needs_api_1_84_and_node_uuid_too(api: Api) -> None:
    node = _inspected(api)

    for version, query in (("1.83", ""), ("1.1", f"?node_uuid={node['uuid']}")):
        resp = _continue(api, report(), version=version, query=query)
        assert resp.status_code == 404, (version, resp.text)
        assert fault(resp) == "API version 1.84 or newer is required"
    assert _shown(api)["provision_state"] == "inspect wait"


def test_a_report_naming_its_node_finds_it(api: Api) -> None:
    node = _inspected(api)
    body = report(interfaces=[{"name": "eth9", "mac_address": "52:54:00:99:99:99"}])

    resp = _continue(api, body, query=f"?node_uuid={node['uuid']}")

    assert resp.status_code == 202, resp.text
    assert _shown(api)["provision_state"] == "manageable"


def test_a_node_is_found_by_its_bmc_address_when_no_port_has_the_macs(api: Api) -> None:
    _inspected(api, mac="52:54:00:30:00:99", driver_info={"ipmi_address": "192.0.2.200"})

    resp = _continue(api, report())

    assert resp.status_code == 202, resp.text
    assert _shown(api)["provision_state"] == "manageable"


def test_a_report_matching_no_node_is_not_found(api: Api) -> None:
    _inspected(api, mac="52:54:00:30:00:99")
    body = report(bmc_address="192.0.2.201", bmc_v6address=None)

    resp = _continue(api, body)

    assert resp.status_code == 404, resp.text
    assert fault(resp) == NOT_FOUND
    assert _shown(api)["provision_state"] == "inspect wait"


def test_the_report_of_a_node_not_in_inspect_wait_is_not_found(api: Api) -> None:
    node = api.node(name="life", inspect_interface="agent")
    api.port(node, PXE_MAC)
    assert provision(api, "manage").status_code == 202

    resp = _continue(api, report())

    assert resp.status_code == 404, resp.text
    assert fault(resp) == NOT_FOUND
    assert _shown(api)["provision_state"] == "manageable"
    assert api.get("/v1/nodes/life/inventory").status_code == 404


def test_a_report_whose_macs_are_ports_of_two_nodes_is_not_found(api: Api) -> None:
    _inspected(api, name="one", mac=PXE_MAC)
    _inspected(api, name="two", mac=SECOND_MAC)

    resp = _continue(api, report())

    assert resp.status_code == 404, resp.text
    assert fault(resp) == NOT_FOUND
    assert _shown(api, "one")["provision_state"] == "inspect wait"
    assert _shown(api, "two")["provision_state"] == "inspect wait"


def test_a_node_named_by_uuid_that_the_macs_contradict_is_not_found(api: Api) -> None:
    _inspected(api, name="one", mac=PXE_MAC)
    two = _inspected(api, name="two", mac="52:54:00:30:00:99")

    resp = _continue(api, report(), query=f"?node_uuid={two['uuid']}")

    assert resp.status_code == 404, resp.text
    assert _shown(api, "two")["provision_state"] == "inspect wait"


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ([], "request body"),
        ({"error": None}, "Missing member inventory"),
        ({"inventory": []}, "Invalid inventory"),
        ({"inventory": {"cpu": {}}}, "Missing member inventory/interfaces"),
        ({"inventory": {"interfaces": []}}, "Invalid inventory/interfaces"),
        ({"inventory": {"interfaces": [{"name": "eth0"}]}}, "inventory/interfaces/0/mac_address"),
        ({"inventory": {"interfaces": [{"mac_address": 5}]}}, "inventory/interfaces/0/mac_address"),
        (
            {"inventory": {"interfaces": [{"mac_address": PXE_MAC}], "bmc_address": 7}},
            "inventory/bmc_address",
        ),
        (
            {"inventory": {"interfaces": [{"mac_address": "not-a-mac"}]}},
            "No lookup information provided",
        ),
    ],
)
def test_a_bad_report_is_refused_naming_what_is_wrong(api: Api, body: Any, named: str) -> None:
    _inspected(api)

    resp = _continue(api, body)

    assert resp.status_code == 400, resp.text
    assert named in fault(resp)
    assert _shown(api)["provision_state"] == "inspect wait"
    assert api.get("/v1/nodes/life/inventory").status_code == 404


def test_a_second_inspection_replaces_the_stored_inventory(api: Api) -> None:
    _inspected(api)
    assert _continue(api, report(hostname="first")).status_code == 202
    assert provision(api, "inspect").status_code == 202

    assert _continue(api, report(hostname="second")).status_code == 202

    stored = api.get("/v1/nodes/life/inventory").json()
    assert stored["inventory"]["hostname"] == "second"


def test_the_v1_root_links_continue_inspection_from_1_84(api: Api) -> None:
    assert "continue_inspection" not in api.get("/v1/", version="1.83").json()
    links = api.get("/v1/", version="1.84").json()["continue_inspection"]
    assert [link["rel"] for link in links] == ["self", "bookmark"]
