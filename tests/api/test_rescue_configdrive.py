"""The provision verbs Nova sends with their bodies: configdrive, rescue and unrescue."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, fault


@pytest.fixture
def active(api: Api) -> dict[str, Any]:
    node = api.node(name="resc")
    api.port(node, "52:54:00:40:00:01")
    for target in ("manage", "provide"):
        assert provision(api, target).status_code == 202
    return node


def provision(api: Api, target: str, version: str | None = None, **extra: Any) -> Any:
    body = {"target": target, **extra}
    return api.put("/v1/nodes/resc/states/provision", body, version=version)


def shown(api: Api) -> dict[str, Any]:
    return dict(api.get("/v1/nodes/resc").json())


def stored_instance_info(api: Api) -> dict[str, Any]:
    services = api.client.app.state.services  # type: ignore[attr-defined]
    with services.db.read() as session:
        from metalwire.db import nodes as node_db

        return dict(node_db.get(session, "resc").instance_info)


def test_configdrive_is_stored_in_instance_info_and_masked(
    api: Api, active: dict[str, Any]
) -> None:
    assert provision(api, "active", configdrive="H4sIAAAA").status_code == 202
    node = shown(api)
    assert (node["provision_state"], node["power_state"]) == ("active", "power on")
    assert node["instance_info"]["configdrive"] == "******"
    assert stored_instance_info(api)["configdrive"] == "H4sIAAAA"


def test_configdrive_as_json_needs_1_56(api: Api, active: dict[str, Any]) -> None:
    drive = {"meta_data": {"hostname": "a"}, "user_data": "#!/bin/sh"}
    resp = provision(api, "active", version="1.55", configdrive=drive)
    assert resp.status_code == 400
    assert "starting with API version 1.56" in fault(resp)
    assert provision(api, "active", configdrive=drive).status_code == 202
    assert stored_instance_info(api)["configdrive"] == drive


def test_configdrive_only_with_active_or_rebuild(api: Api, active: dict[str, Any]) -> None:
    resp = provision(api, "manage", configdrive="H4sIAAAA")
    assert resp.status_code == 400
    assert "only supported when setting provision state to active, rebuild" in fault(resp)
    resp = provision(api, "active", configdrive={"bogus": 1})
    assert resp.status_code == 400
    assert "bogus" in fault(resp)


def test_rebuild_with_a_new_configdrive(api: Api, active: dict[str, Any]) -> None:
    provision(api, "active", configdrive="first")
    assert provision(api, "rebuild", version="1.34", configdrive="x").status_code == 400
    assert provision(api, "rebuild", configdrive="second").status_code == 202
    assert shown(api)["provision_state"] == "active"
    assert stored_instance_info(api)["configdrive"] == "second"


def test_rescue_and_unrescue(api: Api, active: dict[str, Any]) -> None:
    provision(api, "active")
    resp = provision(api, "rescue", rescue_password="s3cret")
    assert resp.status_code == 202, resp.text
    node = shown(api)
    assert (node["provision_state"], node["target_provision_state"]) == ("rescue", None)
    assert node["instance_info"]["rescue_password"] == "******"
    assert stored_instance_info(api)["rescue_password"] == "s3cret"
    events = [e["event"] for e in api.get("/v1/nodes/resc/history?detail=true").json()["history"]]
    assert "rescue done: rescue" in events
    assert provision(api, "unrescue").status_code == 202
    assert shown(api)["provision_state"] == "active"
    assert "rescue_password" not in stored_instance_info(api)


def test_rescue_refusals(api: Api, active: dict[str, Any]) -> None:
    resp = provision(api, "rescue", rescue_password="pw")
    assert resp.status_code == 400  # available, not active
    assert 'while it is in state "available"' in fault(resp)
    provision(api, "active")
    resp = provision(api, "rescue")
    assert resp.status_code == 400
    assert 'A non-empty "rescue_password" is required' in fault(resp)
    assert provision(api, "rescue", rescue_password="  ").status_code == 400
    resp = provision(api, "rebuild", rescue_password="pw")
    assert resp.status_code == 400
    assert '"rescue_password" is only valid' in fault(resp)
    assert provision(api, "rescue", version="1.37", rescue_password="pw").status_code == 406
    assert provision(api, "unrescue").status_code == 400  # not in rescue


def test_rescue_needs_a_rescue_interface(api: Api, active: dict[str, Any]) -> None:
    change = [{"op": "replace", "path": "/rescue_interface", "value": "no-rescue"}]
    assert api.patch("/v1/nodes/resc", change).status_code == 200  # before the deploy
    provision(api, "active")
    resp = provision(api, "rescue", rescue_password="pw")
    assert resp.status_code == 400
    assert "does not support rescue" in fault(resp)
    assert shown(api)["provision_state"] == "active"


def test_undeploy_from_rescue(api: Api, active: dict[str, Any]) -> None:
    provision(api, "active")
    provision(api, "rescue", rescue_password="pw")
    assert provision(api, "deleted").status_code == 202
    node = shown(api)
    assert (node["provision_state"], node["instance_info"]) == ("available", {})


def test_in_maintenance_unrescue_is_refused_and_undeploy_and_provide_are_not(
    api: Api, active: dict[str, Any]
) -> None:
    """Ironic's rules: a node in maintenance leaves rescue only once out of maintenance, and
    can be undeployed (Nova deletes its instance) and made available again."""
    provision(api, "active")
    provision(api, "rescue", rescue_password="pw")
    api.put("/v1/nodes/resc/maintenance", {"reason": "bench"})
    resp = provision(api, "unrescue")
    assert resp.status_code == 400
    assert 'is in maintenance; "unrescue" is not allowed' in fault(resp)
    assert shown(api)["provision_state"] == "rescue"
    assert provision(api, "deleted").status_code == 202
    assert shown(api)["provision_state"] == "available"
    provision(api, "manage")
    assert provision(api, "provide").status_code == 202
    assert shown(api)["provision_state"] == "available"


def _put_in_state(api: Api, state: str) -> None:
    """Leaves the node in ``state``, as a failed step of the real hardware would."""
    services = api.client.app.state.services  # type: ignore[attr-defined]
    with services.db.writing() as work:
        node = work.nodes.get("resc")
        work.nodes.update(node.id, {"provision_state": state, "target_provision_state": None})


@pytest.mark.parametrize(
    ("state", "verb", "reached"),
    [
        ("rescue failed", "unrescue", "active"),  # a rescue that failed is left as Ironic's
        ("unrescue failed", "unrescue", "active"),  # Nova's unrescue, tried again
        ("error", "rebuild", "active"),  # a failed undeploy: the instance is rebuilt
        ("deploy failed", "active", "active"),  # a failed deploy, deployed again
        ("service failed", "rescue", "rescue"),
        ("service failed", "deleted", "available"),
    ],
)
def test_verbs_from_failed_states_as_in_ironic(
    api: Api, active: dict[str, Any], state: str, verb: str, reached: str
) -> None:
    provision(api, "active")
    _put_in_state(api, state)
    extra = {"rescue_password": "pw"} if verb == "rescue" else {}
    resp = provision(api, verb, **extra)
    assert resp.status_code == 202, resp.text
    assert shown(api)["provision_state"] == reached


def test_a_deployed_node_changes_its_interfaces_only_in_maintenance(
    api: Api, active: dict[str, Any]
) -> None:
    """As Ironic: 409 past available unless in maintenance, the network interface too."""
    provision(api, "active")
    for field, value in (("rescue_interface", "no-rescue"), ("network_interface", "noop")):
        change = [{"op": "replace", "path": f"/{field}", "value": value}]
        resp = api.patch("/v1/nodes/resc", change)
        assert resp.status_code == 409, resp.text
        assert f"cannot change its {field} in provision state 'active'" in fault(resp)
        assert shown(api)[field] != value
    same = [{"op": "replace", "path": "/rescue_interface", "value": "fake"}]
    assert api.patch("/v1/nodes/resc", same).status_code == 200  # no change
    assert api.put("/v1/nodes/resc/maintenance", {"reason": "swap"}).status_code == 202
    change = [{"op": "replace", "path": "/rescue_interface", "value": "no-rescue"}]
    assert api.patch("/v1/nodes/resc", change).status_code == 200
    assert shown(api)["rescue_interface"] == "no-rescue"
