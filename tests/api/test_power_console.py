"""Power, console, NMI and validation through HTTP, with Ironic 39's codes and bodies."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, fault


@pytest.fixture
def node(api: Api) -> dict[str, Any]:
    node = api.node(name="pw")
    api.port(node, "52:54:00:30:00:01")
    return node


def power(api: Api, target: str, version: str | None = None, **extra: Any) -> Any:
    return api.put("/v1/nodes/pw/states/power", {"target": target, **extra}, version=version)


def states(api: Api) -> dict[str, Any]:
    return dict(api.get("/v1/nodes/pw/states").json())


def test_manage_gives_an_enrolled_node_a_power_state(api: Api, node: dict[str, Any]) -> None:
    assert api.get("/v1/nodes/pw").json()["power_state"] is None
    api.put("/v1/nodes/pw/states/provision", {"target": "manage"})
    api.put("/v1/nodes/pw/states/provision", {"target": "provide"})
    shown = api.get("/v1/nodes/pw").json()
    assert (shown["provision_state"], shown["power_state"]) == ("available", "power off")


@pytest.mark.parametrize(
    ("target", "after"),
    [
        ("power on", "power on"),
        ("power off", "power off"),
        ("rebooting", "power on"),
        ("soft rebooting", "power on"),
        ("soft power off", "power off"),
    ],
)
def test_power_target_records_the_state(
    api: Api, node: dict[str, Any], target: str, after: str
) -> None:
    resp = power(api, target)
    assert resp.status_code == 202, resp.text
    assert resp.headers["Location"].endswith("/v1/nodes/pw/states")
    assert (states(api)["power_state"], states(api)["target_power_state"]) == (after, None)
    events = [e["event"] for e in api.get("/v1/nodes/pw/history?detail=true").json()["history"]]
    assert any(e.startswith(f"{target} on ") for e in events)


def test_power_timeout_is_accepted_and_checked(api: Api, node: dict[str, Any]) -> None:
    assert power(api, "soft power off", timeout=30).status_code == 202
    resp = power(api, "power on", timeout=0)
    assert resp.status_code == 400
    assert "timeout has to be positive integer" in fault(resp)
    assert power(api, "power on", timeout="soon").status_code == 400


def test_soft_power_and_timeout_need_1_27(api: Api, node: dict[str, Any]) -> None:
    assert power(api, "soft rebooting", version="1.26").status_code == 406
    assert power(api, "power on", version="1.26", timeout=5).status_code == 406
    assert power(api, "rebooting", version="1.26").status_code == 202


def test_unknown_power_target_is_400_naming_it(api: Api, node: dict[str, Any]) -> None:
    resp = power(api, "power sideways")
    assert resp.status_code == 400
    assert '"power sideways" can not be performed on node "pw"' in fault(resp)
    assert api.put("/v1/nodes/pw/states/power", {}).status_code == 400


def test_power_in_maintenance_is_allowed_as_in_ironic(api: Api, node: dict[str, Any]) -> None:
    api.put("/v1/nodes/pw/maintenance", {"reason": "bench"})
    assert power(api, "power on").status_code == 202
    assert states(api)["power_state"] == "power on"


@pytest.mark.parametrize("target", ["power off", "soft power off"])
def test_a_node_with_disable_power_off_is_not_powered_off(
    api: Api, node: dict[str, Any], target: str
) -> None:
    """As Ironic 39's API: 409 with its PowerStateFailure text, the power unchanged; a
    reboot is what such a node takes."""
    assert power(api, "power on").status_code == 202
    keep_on = [{"op": "replace", "path": "/disable_power_off", "value": True}]
    assert api.patch("/v1/nodes/pw", keep_on, version="1.95").status_code == 200

    resp = power(api, target)

    assert resp.status_code == 409, resp.text
    assert fault(resp) == f"Failed to set node power state to {target}."
    assert states(api)["power_state"] == "power on"
    assert power(api, "rebooting").status_code == 202


def test_power_without_bmc_address_is_400(api: Api) -> None:
    api.node(name="bmc", driver="ipmi")
    resp = api.put("/v1/nodes/bmc/states/power", {"target": "power on"})
    assert resp.status_code == 400
    assert "driver_info/ipmi_address" in fault(resp)
    assert api.put("/v1/nodes/missing/states/power", {"target": "power on"}).status_code == 404


@pytest.mark.parametrize("kind", ["power", "management"])
def test_an_idrac_redfish_interface_needs_the_redfish_address_as_redfish_does(
    api: Api, kind: str
) -> None:
    # Ironic's idrac-redfish interfaces are its redfish ones: they read the same driver_info
    api.node(name="idrac", driver="fake-hardware", **{f"{kind}_interface": "idrac-redfish"})

    entry = api.get("/v1/nodes/idrac/validate").json()[kind]

    assert entry == {
        "result": False,
        "reason": "Node {}: the idrac-redfish {} interface needs driver_info/redfish_address, "
        "which is not set.".format(api.get("/v1/nodes/idrac").json()["uuid"], kind),
    }


def test_validate_reports_each_interface(api: Api, node: dict[str, Any]) -> None:
    resp = api.get("/v1/nodes/pw/validate")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert sorted(body) == [
        "bios",
        "boot",
        "console",
        "deploy",
        "firmware",  # Ironic 39's optional interfaces include it, and metalwire serves it (1.86)
        "inspect",
        "management",
        "network",
        "power",
        "raid",
        "rescue",
        "storage",
    ]
    assert all(entry == {"result": True} for entry in body.values()), body


def test_validate_says_why_an_interface_cannot_work(api: Api) -> None:
    api.node(name="bare", driver="ipmi")
    body = api.get("/v1/nodes/bare/validate").json()
    assert body["power"]["result"] is False
    assert "driver_info/ipmi_address" in body["power"]["reason"]
    assert body["console"] == {
        "result": False,
        "reason": "Driver ipmi does not support console (disabled or not implemented).",
    }
    assert body["network"] == {"result": True}  # flat takes a node as it is


def test_console_get_and_put(api: Api, node: dict[str, Any]) -> None:
    url = "/v1/nodes/pw/states/console"
    assert api.get(url).json() == {"console_enabled": False, "console_info": None}
    resp = api.put(url, {"enabled": True})
    assert resp.status_code == 202, resp.text
    assert resp.headers["Location"].endswith(url)
    assert api.get(url).json() == {"console_enabled": True, "console_info": {}}
    assert api.get("/v1/nodes/pw").json()["console_enabled"] is True
    assert api.put(url, {"enabled": "false"}).status_code == 202
    assert api.get(url).json()["console_enabled"] is False
    assert api.put(url, {"enabled": "maybe"}).status_code == 400
    assert api.put(url, {}).status_code == 400


def test_console_of_a_node_without_console_interface_is_400(api: Api) -> None:
    api.node(name="noc", driver="ipmi")
    resp = api.put("/v1/nodes/noc/states/console", {"enabled": True})
    assert resp.status_code == 400
    assert "does not support console" in fault(resp)


def test_inject_nmi_as_ironic_answers_for_fake_hardware(api: Api, node: dict[str, Any]) -> None:
    resp = api.put("/v1/nodes/pw/management/inject_nmi", {})
    assert resp.status_code == 400
    assert fault(resp) == (
        "Driver fake-hardware does not support inject_nmi (disabled or not implemented)."
    )
    assert api.put("/v1/nodes/pw/management/inject_nmi", {}, version="1.28").status_code == 404


def test_inject_nmi_through_a_bmc_interface(api: Api) -> None:
    api.node(name="nmi", driver="ipmi", driver_info={"ipmi_address": "192.0.2.9"})
    assert api.put("/v1/nodes/nmi/management/inject_nmi", {}).status_code == 204
