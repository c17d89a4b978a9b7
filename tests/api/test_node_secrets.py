"""Node secrets (BMC passwords, config drives, tokens) are stored but never shown."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import Api

MASK = "******"
BMC = {"ipmi_address": "10.0.0.7", "ipmi_username": "admin", "ipmi_password": "calvin"}


def stored(api: Api, ident: str) -> Any:
    """The node row as the database holds it (no HTTP answer shows the secrets)."""
    from metalwire.db import nodes as node_db

    with api.client.app.state.services.db.read() as session:  # type: ignore[attr-defined]
        return node_db.get(session, ident)


def ipmi_node(api: Api, **fields: Any) -> dict[str, Any]:
    resp = api.post("/v1/nodes", {"driver": "ipmi", "name": "bmc", "driver_info": BMC, **fields})
    assert resp.status_code == 201, resp.text
    return dict(resp.json())


def test_bmc_password_is_masked_in_create_show_lists_and_patch(api: Api) -> None:
    created = ipmi_node(api)
    answers = [
        created,
        api.get("/v1/nodes/bmc").json(),
        api.get("/v1/nodes/bmc?fields=driver_info").json(),
        api.get("/v1/nodes/detail").json(),
        api.get("/v1/nodes?fields=uuid,driver_info").json(),
        api.get("/v1/nodes?detail=true").json(),
        api.patch("/v1/nodes/bmc", [{"op": "add", "path": "/extra/a", "value": 1}]).json(),
    ]
    for answer in answers:
        assert "calvin" not in json.dumps(answer), answer
    assert created["driver_info"] == {**BMC, "ipmi_password": MASK}
    assert answers[3]["nodes"][0]["driver_info"]["ipmi_password"] == MASK


def test_stored_password_survives_a_patch_of_another_field(api: Api) -> None:
    ipmi_node(api)
    resp = api.patch(
        "/v1/nodes/bmc", [{"op": "replace", "path": "/driver_info/ipmi_address", "value": "x"}]
    )
    assert resp.status_code == 200, resp.text
    assert stored(api, "bmc").driver_info == {**BMC, "ipmi_address": "x"}


def test_patch_sending_back_the_masked_view_keeps_the_stored_password(api: Api) -> None:
    shown = ipmi_node(api)["driver_info"]
    resp = api.patch(
        "/v1/nodes/bmc",
        [{"op": "replace", "path": "/driver_info", "value": {**shown, "ipmi_port": 623}}],
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["driver_info"]["ipmi_password"] == MASK
    assert stored(api, "bmc").driver_info == {**BMC, "ipmi_port": 623}
    resp = api.patch(
        "/v1/nodes/bmc", [{"op": "replace", "path": "/driver_info/ipmi_password", "value": MASK}]
    )
    assert resp.status_code == 200, resp.text
    assert stored(api, "bmc").driver_info["ipmi_password"] == "calvin"


def test_patch_can_change_or_remove_the_password(api: Api) -> None:
    ipmi_node(api)
    path = "/driver_info/ipmi_password"
    api.patch("/v1/nodes/bmc", [{"op": "replace", "path": path, "value": "hunter2"}])
    assert stored(api, "bmc").driver_info["ipmi_password"] == "hunter2"
    api.patch("/v1/nodes/bmc", [{"op": "remove", "path": path}])
    assert "ipmi_password" not in stored(api, "bmc").driver_info


def test_secret_keys_match_by_substring_at_any_depth(api: Api) -> None:
    info = {
        "redfish_password": "p1",
        "snmp_auth_key": "p2",
        "snmp_priv_key": "p3",
        "ilo": {"Admin_Password": "p4", "user": "bob"},
        "keys": [{"auth_token": "p5"}],
    }
    node = ipmi_node(api, driver_info=info)
    assert node["driver_info"] == {
        "redfish_password": MASK,
        "snmp_auth_key": MASK,
        "snmp_priv_key": MASK,
        "ilo": {"Admin_Password": MASK, "user": "bob"},
        "keys": [{"auth_token": MASK}],
    }
    assert stored(api, "bmc").driver_info == info


def test_instance_info_config_drive_and_image_url_are_masked(api: Api) -> None:
    instance_info = {
        "configdrive": {"meta_data": {"hostname": "x"}, "user_data": "#cloud-config"},
        "image_url": "https://swift/tempurl?temp_url_sig=abc",
        "image_source": "glance-image",
        "root_gb": 10,
    }
    node = ipmi_node(api, instance_info=instance_info)
    assert node["instance_info"] == {
        **instance_info,
        "configdrive": MASK,
        "image_url": MASK,
    }
    shown = api.get("/v1/nodes/bmc?fields=instance_info").json()["instance_info"]
    resp = api.patch(
        "/v1/nodes/bmc",
        [{"op": "replace", "path": "/instance_info", "value": {**shown, "root_gb": 20}}],
    )
    assert resp.status_code == 200, resp.text
    assert stored(api, "bmc").instance_info == {**instance_info, "root_gb": 20}
