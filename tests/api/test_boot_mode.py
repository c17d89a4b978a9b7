"""``PUT /v1/nodes/{node}/states/boot_mode`` and ``/states/secure_boot`` (1.76).

Ironic 39 answers 202 and then asks the management interface: Redfish changes the mode and
secure boot, which the node's ``boot_mode`` and ``secure_boot`` fields then show;
fake-hardware and ipmitool refuse, and the refusal lands in ``last_error``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, fault

MISSING = "0e0e0e0e-1111-4222-8333-444444444444"


def redfish_node(api: Api, name: str) -> dict[str, Any]:
    return api.node(
        name=name, driver="redfish", driver_info={"redfish_address": "https://192.0.2.40"}
    )


def boot_mode(api: Api, node: str, target: Any, version: str | None = None) -> Any:
    return api.put(f"/v1/nodes/{node}/states/boot_mode", {"target": target}, version=version)


def secure_boot(api: Api, node: str, target: Any, version: str | None = None) -> Any:
    return api.put(f"/v1/nodes/{node}/states/secure_boot", {"target": target}, version=version)


def shown(api: Api, node: str) -> dict[str, Any]:
    node_json = api.get(f"/v1/nodes/{node}").json()
    return {key: node_json[key] for key in ("boot_mode", "secure_boot", "last_error")}


def history(api: Api, node: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = api.get(f"/v1/nodes/{node}/history?detail=true").json()[
        "history"
    ]
    return entries


def test_redfish_changes_the_boot_mode_and_secure_boot_the_node_shows(api: Api) -> None:
    node = redfish_node(api, "bm-rf")
    resp = boot_mode(api, "bm-rf", "uefi")
    assert resp.status_code == 202, resp.text
    assert resp.headers["Location"].endswith("/v1/nodes/bm-rf/states")
    assert secure_boot(api, "bm-rf", True).status_code == 202
    assert shown(api, "bm-rf") == {"boot_mode": "uefi", "secure_boot": True, "last_error": None}
    states = api.get("/v1/nodes/bm-rf/states").json()
    assert (states["boot_mode"], states["secure_boot"]) == ("uefi", True)
    events = [e["event"] for e in history(api, "bm-rf")]
    assert f"boot mode of node {node['uuid']} (bm-rf) set to uefi" in events
    assert secure_boot(api, "bm-rf", "off").status_code == 202
    assert shown(api, "bm-rf")["secure_boot"] is False


def test_a_change_to_what_the_node_has_records_nothing(api: Api) -> None:
    redfish_node(api, "bm-same")
    assert boot_mode(api, "bm-same", "bios").status_code == 202
    before = len(history(api, "bm-same"))
    assert boot_mode(api, "bm-same", "bios").status_code == 202
    assert len(history(api, "bm-same")) == before


def test_secure_boot_needs_uefi(api: Api) -> None:
    redfish_node(api, "bm-legacy")
    assert boot_mode(api, "bm-legacy", "bios").status_code == 202
    assert secure_boot(api, "bm-legacy", True).status_code == 202
    after = shown(api, "bm-legacy")
    assert after["secure_boot"] is None
    assert "secure boot needs UEFI" in after["last_error"]


@pytest.mark.parametrize(
    ("change", "operation"),
    [
        (lambda api: boot_mode(api, "bm-fake", "uefi"), "set_boot_mode"),
        (lambda api: secure_boot(api, "bm-fake", True), "set_secure_boot_state"),
    ],
)
def test_fake_hardware_answers_202_and_records_its_refusal(
    api: Api, change: Any, operation: str
) -> None:
    api.node(name="bm-fake")
    resp = change(api)
    assert resp.status_code == 202, resp.text
    after = shown(api, "bm-fake")
    assert (after["boot_mode"], after["secure_boot"]) == (None, None)
    assert after["last_error"].endswith(
        f"Driver fake-hardware does not support {operation} (disabled or not implemented)."
    )
    entry = history(api, "bm-fake")[-1]
    assert (entry["severity"], entry["event"]) == ("ERROR", after["last_error"])


def test_a_new_request_clears_the_previous_error(api: Api) -> None:
    redfish_node(api, "bm-clear")
    boot_mode(api, "bm-clear", "bios")
    secure_boot(api, "bm-clear", True)
    assert shown(api, "bm-clear")["last_error"]
    assert boot_mode(api, "bm-clear", "uefi").status_code == 202
    assert shown(api, "bm-clear")["last_error"] is None


def test_a_bmc_interface_without_its_address_is_refused_at_once(api: Api) -> None:
    api.node(name="bm-noaddr", driver="redfish")
    resp = boot_mode(api, "bm-noaddr", "uefi")
    assert resp.status_code == 400
    assert "driver_info/redfish_address" in fault(resp)
    assert shown(api, "bm-noaddr")["last_error"] is None


@pytest.mark.parametrize(
    ("path", "target", "named"),
    [
        ("boot_mode", "legacy", "'legacy'"),
        ("boot_mode", None, "'target'"),
        ("boot_mode", 1, "1"),
        ("secure_boot", None, "'target'"),
        ("secure_boot", "maybe", "target"),
        ("secure_boot", 1, "target"),
    ],
)
def test_a_target_ironic_refuses_is_400_naming_it(
    api: Api, path: str, target: Any, named: str
) -> None:
    redfish_node(api, "bm-bad")
    resp = api.put(f"/v1/nodes/bm-bad/states/{path}", {"target": target})
    assert resp.status_code == 400, resp.text
    assert named in fault(resp)
    assert shown(api, "bm-bad") == {"boot_mode": None, "secure_boot": None, "last_error": None}


@pytest.mark.parametrize("path", ["boot_mode", "secure_boot"])
def test_a_node_in_a_transient_state_is_409(api: Api, path: str) -> None:
    api.node(name="bm-busy", driver="redfish", driver_info={"redfish_address": "192.0.2.41"})
    api.patch("/v1/nodes/bm-busy", [{"op": "add", "path": "/deploy_interface", "value": "direct"}])
    for verb in ("manage", "clean"):
        body: dict[str, Any] = {"target": verb}
        if verb == "clean":
            body["clean_steps"] = [{"interface": "deploy", "step": "erase_devices_metadata"}]
        assert api.put("/v1/nodes/bm-busy/states/provision", body).status_code == 202
    assert api.get("/v1/nodes/bm-busy").json()["provision_state"] == "clean wait"
    resp = api.put(
        f"/v1/nodes/bm-busy/states/{path}", {"target": "uefi" if path == "boot_mode" else True}
    )
    assert resp.status_code == 409, resp.text
    assert "clean wait" in fault(resp)


@pytest.mark.parametrize("path", ["boot_mode", "secure_boot"])
def test_below_1_76_the_handler_answers_404(api: Api, path: str) -> None:
    redfish_node(api, "bm-old")
    resp = api.put(f"/v1/nodes/bm-old/states/{path}", {"target": "uefi"}, version="1.75")
    assert resp.status_code == 404
    assert fault(resp) == (
        "The resource could not be found at API version 1.75; it exists from 1.76."
    )
    assert shown(api, "bm-old")["boot_mode"] is None


def test_an_unknown_node_is_404(api: Api) -> None:
    for resp in (boot_mode(api, MISSING, "uefi"), secure_boot(api, MISSING, True)):
        assert resp.status_code == 404
        assert MISSING in fault(resp)


@pytest.mark.parametrize(
    ("path", "target", "version"),
    [("boot_mode", "legacy", None), ("secure_boot", "maybe", None), ("boot_mode", "uefi", "1.75")],
)
def test_a_missing_node_is_404_before_the_version_and_the_target(
    api: Api, path: str, target: str, version: str | None
) -> None:
    resp = api.put(f"/v1/nodes/{MISSING}/states/{path}", {"target": target}, version=version)
    assert resp.status_code == 404
    assert fault(resp) == f"Node {MISSING} could not be found."
