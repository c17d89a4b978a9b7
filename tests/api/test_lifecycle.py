"""Provision states through HTTP, and the network interface hooks they call, in order."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.config import Config
from tests.conftest import Api, fault


@pytest.fixture
def node(api: Api) -> dict[str, Any]:
    node = api.node(name="life")
    api.port(node, "52:54:00:20:00:01")
    api.port(node, "52:54:00:20:00:02")
    return node


def provision(api: Api, target: str, node: str = "life", version: str | None = None) -> Any:
    return api.put(f"/v1/nodes/{node}/states/provision", {"target": target}, version=version)


def hook_events(api: Api) -> list[str]:
    entries = api.get("/v1/nodes/life/history?detail=true").json()["history"]
    return [
        e["event"].removeprefix("flat.")
        for e in entries
        if e["event_type"] == "provisioning" and e["event"].startswith("flat.")
    ]


def test_full_lifecycle_calls_hooks_in_order(api: Api, node: dict[str, Any]) -> None:
    assert provision(api, "manage").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "manageable"
    assert provision(api, "provide").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "available"
    assert hook_events(api) == ["add_cleaning_network done", "remove_cleaning_network done"]

    api.patch(
        "/v1/nodes/life",
        [{"op": "add", "path": "/instance_info/nova_host_id", "value": "compute-1"}],
    )
    assert api.post("/v1/nodes/life/vifs", {"id": "tenant-vif"}).status_code == 204
    assert provision(api, "active").status_code == 202
    shown = api.get("/v1/nodes/life").json()
    assert shown["provision_state"] == "active"
    assert shown["target_provision_state"] is None
    assert shown["power_state"] == "power on"
    assert hook_events(api)[2:] == [
        "add_provisioning_network done",
        "remove_provisioning_network done",
        "configure_tenant_networks done",
    ]
    assert api.vifs("life") == ["tenant-vif"]

    assert provision(api, "deleted").status_code == 202
    shown = api.get("/v1/nodes/life").json()
    assert shown["provision_state"] == "available"
    assert shown["instance_info"] == {}
    assert api.vifs("life") == []
    assert hook_events(api)[5:] == [
        "unconfigure_tenant_networks done",
        "add_cleaning_network done",
        "remove_cleaning_network done",
    ]
    details = api.get("/v1/nodes/life/history?detail=true").json()["history"]
    assert any(e["vif_id"] == "tenant-vif" and "undeploy" in e["event"] for e in details)


def test_an_undeploy_clears_the_instance_and_its_name(api: Api, node: dict[str, Any]) -> None:
    """As Ironic's tear-down: instance_uuid, instance_name (1.104) and instance_info go."""
    for verb in ("manage", "provide"):
        assert provision(api, verb).status_code == 202
    instance = {"instance_uuid": "9c3a1f4e-52d6-4f0e-8d1b-2a7c5e6f8a90", "instance_name": "vm1"}
    patch = [{"op": "add", "path": f"/{key}", "value": value} for key, value in instance.items()]
    assert api.patch("/v1/nodes/life", patch, version="1.104").status_code == 200
    for verb in ("active", "deleted"):
        assert provision(api, verb).status_code == 202
    shown = api.get("/v1/nodes/life", version="1.104").json()
    assert shown["provision_state"] == "available"
    assert (shown["instance_uuid"], shown["instance_name"]) == (None, None)
    assert shown["instance_info"] == {}


def test_a_standalone_flat_deploy_keeps_the_vif_records_as_attached(
    api: Api, node: dict[str, Any]
) -> None:
    """Without a Neutron, ``flat`` has nothing to bind: the compute host Nova puts in
    instance_info is not read, and the attachment keeps what the attach recorded."""
    provision(api, "manage")
    provision(api, "provide")
    api.patch(
        "/v1/nodes/life",
        [{"op": "add", "path": "/instance_info/nova_host_id", "value": "compute-7"}],
    )
    api.post("/v1/nodes/life/vifs", {"id": "bound-vif"})
    provision(api, "active")
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"
    client = api.client
    services = client.app.state.services  # type: ignore[attr-defined]
    with services.db.reading() as work:
        attachment = work.attachments.find("bound-vif")
    assert attachment is not None and attachment.info == {}


def test_deploy_and_undeploy_verbs_from_1_73(api: Api, node: dict[str, Any]) -> None:
    provision(api, "manage")
    provision(api, "provide")
    assert provision(api, "deploy", version="1.72").status_code == 406
    assert provision(api, "deploy", version="1.73").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"
    assert provision(api, "undeploy", version="1.73").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "available"


def test_invalid_transition_is_400_naming_state(api: Api, node: dict[str, Any]) -> None:
    resp = provision(api, "active")
    assert resp.status_code == 400
    assert "enroll" in fault(resp)
    assert api.get("/v1/nodes/life").json()["provision_state"] == "enroll"


def test_unknown_verb_is_400(api: Api, node: dict[str, Any]) -> None:
    resp = provision(api, "explode")
    assert resp.status_code == 400
    assert "explode" in fault(resp)


def test_deploy_refused_in_maintenance(api: Api, node: dict[str, Any]) -> None:
    provision(api, "manage")
    provision(api, "provide")
    api.put("/v1/nodes/life/maintenance", {"reason": "r"})
    resp = provision(api, "active")
    assert resp.status_code == 400
    assert "maintenance" in fault(resp)


def test_deploy_with_unconfigured_neutron_is_400(api: Api) -> None:
    api.node(name="nn", network_interface="neutron")
    provision(api, "manage", node="nn")
    provision(api, "provide", node="nn")
    resp = provision(api, "active", node="nn")
    assert resp.status_code == 400
    assert api.get("/v1/nodes/nn").json()["provision_state"] == "available"


def test_states_endpoint(api: Api, node: dict[str, Any]) -> None:
    states = api.get("/v1/nodes/life/states").json()
    assert states["provision_state"] == "enroll"
    assert states["target_provision_state"] is None


@pytest.mark.parametrize(
    ("version", "shown"),
    [
        ("1.11", set()),
        ("1.12", {"raid_config", "target_raid_config"}),
        ("1.74", {"raid_config", "target_raid_config"}),
        ("1.75", {"raid_config", "target_raid_config", "boot_mode", "secure_boot"}),
    ],
)
def test_states_show_raid_and_boot_fields_from_their_versions(
    api: Api, node: dict[str, Any], version: str, shown: set[str]
) -> None:
    states = api.get("/v1/nodes/life/states", version=version).json()
    always = {"power_state", "target_power_state", "provision_state", "target_provision_state"}
    always |= {"provision_updated_at", "last_error", "console_enabled"}
    assert set(states) == always | shown
    if "boot_mode" in shown:
        assert states["boot_mode"] is None and states["secure_boot"] is None


def test_active_node_cannot_be_deleted(api: Api, node: dict[str, Any]) -> None:
    for verb in ("manage", "provide", "active"):
        provision(api, verb)
    resp = api.delete("/v1/nodes/life")
    assert resp.status_code == 409
    assert "active" in fault(resp)


def test_protected_node_cannot_be_undeployed_or_deleted(api: Api, node: dict[str, Any]) -> None:
    for verb in ("manage", "provide", "active"):
        provision(api, verb)
    api.patch("/v1/nodes/life", [{"op": "replace", "path": "/protected", "value": True}])
    resp = provision(api, "deleted")
    assert resp.status_code == 403
    assert "protected" in fault(resp)
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"
    resp = api.delete("/v1/nodes/life")
    assert resp.status_code == 403


def test_provision_and_maintenance_answer_202_with_empty_body(
    api: Api, node: dict[str, Any]
) -> None:
    resp = provision(api, "manage")
    assert resp.status_code == 202 and resp.content == b""
    assert resp.headers["Location"].endswith("/v1/nodes/life/states")
    resp = api.put("/v1/nodes/life/maintenance", {"reason": "x"})
    assert resp.status_code == 202 and resp.content == b""


def test_traits(api: Api, node: dict[str, Any]) -> None:
    assert api.get("/v1/nodes/life/traits", version="1.36").status_code == 406
    assert (
        api.put("/v1/nodes/life/traits", {"traits": ["CUSTOM_B", "HW_CPU_X86_VMX"]}).status_code
        == 204
    )
    assert api.put("/v1/nodes/life/traits/CUSTOM_A").status_code == 204
    assert api.get("/v1/nodes/life/traits").json() == {
        "traits": ["CUSTOM_A", "CUSTOM_B", "HW_CPU_X86_VMX"]
    }
    assert api.get("/v1/nodes/life").json()["traits"] == ["CUSTOM_A", "CUSTOM_B", "HW_CPU_X86_VMX"]
    assert api.delete("/v1/nodes/life/traits/CUSTOM_B").status_code == 204
    assert api.delete("/v1/nodes/life/traits/CUSTOM_B").status_code == 404
    assert api.put("/v1/nodes/life/traits/bad trait").status_code == 400
    # as Ironic's API: os-traits' standard names or CUSTOM_ ones, none other (Placement, to
    # which Nova reports them, knows no other)
    for unknown in ("HW_NO_SUCH_THING", "CUSTOM_", "GPU"):
        resp = api.put(f"/v1/nodes/life/traits/{unknown}")
        assert resp.status_code == 400, unknown
        assert fault(resp).startswith(f"Invalid trait {unknown!r}: a trait is a standard one")
    resp = api.put("/v1/nodes/life/traits", {"traits": ["CUSTOM_B", "NOT_A_TRAIT"]})
    assert resp.status_code == 400
    assert api.get("/v1/nodes/life/traits").json()["traits"] == ["CUSTOM_A", "HW_CPU_X86_VMX"]
    assert api.delete("/v1/nodes/life/traits").status_code == 204
    assert api.get("/v1/nodes/life/traits").json() == {"traits": []}


def _set(api: Api, **values: Any) -> Any:
    ops = [{"op": "replace", "path": f"/{k}", "value": v} for k, v in values.items()]
    return api.patch("/v1/nodes/life", ops)


def _shown(api: Api, *names: str) -> tuple[Any, ...]:
    node = api.get("/v1/nodes/life").json()
    return tuple(node[name] for name in names)


def test_protection_is_for_deployed_nodes_and_its_reason_goes_with_it(
    api: Api, node: dict[str, Any]
) -> None:
    """As Ironic: only an active (or rescued) node is made protected (409 before); a reason
    without protection is refused (400); unprotecting clears the reason."""
    provision(api, "manage")
    refused = _set(api, protected=True)
    assert refused.status_code == 409, refused.text
    assert "protected only in provision state 'active' or 'rescue'" in fault(refused)
    reason_alone = _set(api, protected_reason="tenant asked")
    assert reason_alone.status_code == 400, reason_alone.text
    assert "protected_reason" in fault(reason_alone)
    assert _shown(api, "protected", "protected_reason") == (False, None)
    provision(api, "provide")
    provision(api, "active")
    assert _set(api, protected=True, protected_reason="tenant asked").status_code == 200
    assert _shown(api, "protected", "protected_reason") == (True, "tenant asked")
    assert _set(api, protected=False).status_code == 200
    assert _shown(api, "protected", "protected_reason") == (False, None)


def test_an_available_node_is_not_retired_and_the_reason_goes_with_it(
    api: Api, node: dict[str, Any]
) -> None:
    """As Ironic: retiring an available node is refused (409; Nova could still pick it);
    a reason without retirement is refused (400); un-retiring clears the reason."""
    provision(api, "manage")
    provision(api, "provide")
    refused = _set(api, retired=True)
    assert refused.status_code == 409, refused.text
    assert "cannot be retired in provision state 'available'" in fault(refused)
    assert _set(api, retired_reason="end of life").status_code == 400
    assert _shown(api, "retired", "retired_reason") == (False, None)
    provision(api, "manage")
    assert _set(api, retired=True, retired_reason="end of life").status_code == 200
    assert _shown(api, "retired", "retired_reason") == (True, "end of life")
    assert _set(api, retired=False).status_code == 200
    assert _shown(api, "retired", "retired_reason") == (False, None)


def _cleaning_hooks(api: Api) -> int:
    return sum(event.endswith("cleaning_network done") for event in hook_events(api))


def _patch(api: Api, path: str, value: Any) -> None:
    resp = api.patch("/v1/nodes/life", [{"op": "add", "path": path, "value": value}])
    assert resp.status_code == 200, resp.text


@pytest.mark.parametrize(("configured", "own"), [(True, False), (False, True)])
def test_a_node_s_automated_clean_wins_over_the_option(
    api: Api, config: Config, node: dict[str, Any], configured: bool, own: bool
) -> None:
    """As Ironic's: a node's automated_clean, when set, decides whether providing and
    tearing it down clean it; ``[conductor] automated_clean`` only when it is not set."""
    config.conductor.automated_clean = configured
    _patch(api, "/automated_clean", own)
    for verb in ("manage", "provide", "active", "deleted"):
        assert provision(api, verb).status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "available"
    assert _cleaning_hooks(api) == (4 if own else 0)  # added and removed, twice

    _patch(api, "/automated_clean", None)  # the option decides again
    for verb in ("active", "deleted"):
        assert provision(api, verb).status_code == 202
    assert _cleaning_hooks(api) == (4 if own else 0) + (2 if configured else 0)


def test_a_retired_node_is_cleaned_to_manageable_and_not_provided(
    api: Api, node: dict[str, Any]
) -> None:
    """As Ironic's: a retired node's tear-down cleans it and leaves it in manageable, and
    it cannot be provided until it is no longer retired."""
    for verb in ("manage", "provide", "active"):
        assert provision(api, verb).status_code == 202
    _patch(api, "/retired", True)
    _patch(api, "/retired_reason", "end of warranty")

    assert provision(api, "deleted").status_code == 202
    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["target_provision_state"]) == ("manageable", None)
    assert shown["retired"] is True
    assert _cleaning_hooks(api) == 4  # provide's and the tear-down's
    history = api.get("/v1/nodes/life/history?detail=true").json()["history"]
    assert history[-1]["event"] == "deleted done: manageable"

    refused = provision(api, "provide")
    assert refused.status_code == 400
    assert "retired" in fault(refused) and "provide" in fault(refused)
    assert api.get("/v1/nodes/life").json()["provision_state"] == "manageable"

    _patch(api, "/retired", False)
    assert provision(api, "provide").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "available"


def test_a_retired_node_not_cleaned_is_torn_down_to_available(
    api: Api, node: dict[str, Any]
) -> None:
    """Ironic's skipped cleaning ends in available whether the node is retired or not."""
    _patch(api, "/automated_clean", False)
    for verb in ("manage", "provide", "active"):
        assert provision(api, verb).status_code == 202
    _patch(api, "/retired", True)
    assert provision(api, "deleted").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "available"
