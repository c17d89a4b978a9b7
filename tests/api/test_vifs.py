"""VIF attach, list and detach through HTTP: every status code and the legacy path."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.conftest import Api, fault


@pytest.fixture
def node(api: Api) -> dict[str, Any]:
    node = api.node(name="vifnode")
    api.port(node, "52:54:00:10:00:01")
    api.port(node, "52:54:00:10:00:02")
    return node


def test_attach_list_detach(api: Api, node: dict[str, Any]) -> None:
    vif = str(uuid.uuid4())
    resp = api.post("/v1/nodes/vifnode/vifs", {"id": vif})
    assert resp.status_code == 204
    assert resp.content == b""
    assert api.vifs("vifnode") == [vif]
    ports = api.get("/v1/ports/detail?node=vifnode").json()["ports"]
    assert [p["internal_info"].get("tenant_vif_port_id") for p in ports].count(vif) == 1
    resp = api.delete(f"/v1/nodes/vifnode/vifs/{vif}")
    assert resp.status_code == 204
    assert api.vifs("vifnode") == []


def test_vifs_are_404_below_1_28(api: Api, node: dict[str, Any]) -> None:
    assert api.get("/v1/nodes/vifnode/vifs", version="1.27").status_code == 404
    assert api.post("/v1/nodes/vifnode/vifs", {"id": "v"}, version="1.27").status_code == 404
    assert api.get("/v1/nodes/vifnode/vifs", version="1.28").status_code == 200


def test_unknown_node_is_404(api: Api) -> None:
    resp = api.post("/v1/nodes/ghost/vifs", {"id": "v1"})
    assert resp.status_code == 404
    assert "ghost" in fault(resp)
    assert api.get("/v1/nodes/ghost/vifs").status_code == 404
    assert api.delete("/v1/nodes/ghost/vifs/v1").status_code == 404


@pytest.mark.parametrize(
    "body", [None, [], "x", {}, {"id": ""}, {"id": "has space"}, {"id": "x" * 256}, {"id": 7}]
)
def test_bad_body_is_400(api: Api, node: dict[str, Any], body: Any) -> None:
    resp = api.post("/v1/nodes/vifnode/vifs", body)
    assert resp.status_code == 400
    assert fault(resp)


def test_non_json_body_is_400(api: Api, node: dict[str, Any]) -> None:
    resp = api.client.post(
        "/v1/nodes/vifnode/vifs",
        content=b"id=1",
        headers={**api.headers(), "Content-Type": "application/json"},
    )
    assert resp.status_code == 400


def test_oversized_body_is_413_and_nothing_attached(api: Api, node: dict[str, Any]) -> None:
    body = json.dumps({"id": "big", "padding": "x" * 200_000}).encode()
    resp = api.client.post(
        "/v1/nodes/vifnode/vifs",
        content=body,
        headers={**api.headers(), "Content-Type": "application/json"},
    )
    assert resp.status_code == 413
    assert "larger than" in fault(resp)
    assert api.get("/v1/nodes/vifnode/vifs").json() == {"vifs": []}


def test_name_like_vif_ids_are_accepted(api: Api, node: dict[str, Any]) -> None:
    assert api.post("/v1/nodes/vifnode/vifs", {"id": "a-Z_0.9~x"}).status_code == 204
    assert api.post("/v1/nodes/vifnode/vifs", {"id": "x" * 255}).status_code == 204


def test_already_attached_here_is_409(api: Api, node: dict[str, Any]) -> None:
    assert api.post("/v1/nodes/vifnode/vifs", {"id": "dup"}).status_code == 204
    resp = api.post("/v1/nodes/vifnode/vifs", {"id": "dup"})
    assert resp.status_code == 409
    assert node["uuid"] in fault(resp)
    assert api.vifs("vifnode") == ["dup"]


def test_attached_to_another_node_is_409_naming_it(api: Api, node: dict[str, Any]) -> None:
    other = api.node(name="othernode")
    api.port(other, "52:54:00:10:00:09")
    assert api.post("/v1/nodes/othernode/vifs", {"id": "shared"}).status_code == 204
    resp = api.post("/v1/nodes/vifnode/vifs", {"id": "shared"})
    assert resp.status_code == 409
    assert other["uuid"] in fault(resp) and "othernode" in fault(resp)
    assert api.vifs("vifnode") == []


def test_no_free_port_is_400_naming_each_candidate(api: Api, node: dict[str, Any]) -> None:
    assert api.post("/v1/nodes/vifnode/vifs", {"id": "v1"}).status_code == 204
    assert api.post("/v1/nodes/vifnode/vifs", {"id": "v2"}).status_code == 204
    resp = api.post("/v1/nodes/vifnode/vifs", {"id": "v3"})
    assert resp.status_code == 400
    message = fault(resp)
    assert "52:54:00:10:00:01" in message and "52:54:00:10:00:02" in message
    assert "busy with VIF v1" in message and "busy with VIF v2" in message


def test_node_without_ports_is_400(api: Api) -> None:
    api.node(name="bare")
    resp = api.post("/v1/nodes/bare/vifs", {"id": "v"})
    assert resp.status_code == 400
    assert "no ports" in fault(resp)


def test_detach_not_attached_is_400(api: Api, node: dict[str, Any]) -> None:
    resp = api.delete("/v1/nodes/vifnode/vifs/never-attached")
    assert resp.status_code == 400
    assert "never-attached" in fault(resp)


def test_port_uuid_picks_the_port(api: Api, node: dict[str, Any]) -> None:
    ports = api.get("/v1/nodes/vifnode/ports").json()["ports"]
    target = ports[1]["uuid"]
    assert (
        api.post("/v1/nodes/vifnode/vifs", {"id": "pick", "port_uuid": target}).status_code == 204
    )
    shown = api.get(f"/v1/ports/{target}").json()
    assert shown["internal_info"]["tenant_vif_port_id"] == "pick"


def test_port_uuid_of_another_node_is_400(api: Api, node: dict[str, Any]) -> None:
    other = api.node()
    foreign = api.port(other, "52:54:00:10:00:0a")
    resp = api.post("/v1/nodes/vifnode/vifs", {"id": "x", "port_uuid": foreign["uuid"]})
    assert resp.status_code == 400
    assert foreign["uuid"] in fault(resp)


def test_busy_requested_port_is_400(api: Api, node: dict[str, Any]) -> None:
    port = api.get("/v1/nodes/vifnode/ports").json()["ports"][0]["uuid"]
    assert api.post("/v1/nodes/vifnode/vifs", {"id": "a", "port_uuid": port}).status_code == 204
    resp = api.post("/v1/nodes/vifnode/vifs", {"id": "b", "port_uuid": port})
    assert resp.status_code == 400
    assert "busy with VIF a" in fault(resp)


def test_port_and_portgroup_together_is_400_from_1_67(api: Api, node: dict[str, Any]) -> None:
    group = api.portgroup(node, name="pgx")
    port = api.get("/v1/nodes/vifnode/ports").json()["ports"][0]["uuid"]
    body = {"id": "both", "port_uuid": port, "portgroup_uuid": group["uuid"]}
    resp = api.post("/v1/nodes/vifnode/vifs", body, version="1.67")
    assert resp.status_code == 400
    assert "port_uuid" in fault(resp) and "portgroup_uuid" in fault(resp)
    # Before 1.67 the port wins, as upstream's interfaces look at port_uuid first.
    assert api.post("/v1/nodes/vifnode/vifs", body, version="1.66").status_code == 204


def test_extra_vif_info_is_passed_through(api: Api, node: dict[str, Any]) -> None:
    resp = api.post("/v1/nodes/vifnode/vifs", {"id": "info", "custom": {"k": 1}})
    assert resp.status_code == 204


def test_noop_records_nothing(api: Api) -> None:
    node = api.node(name="noopnode", network_interface="noop")
    api.port(node, "52:54:00:10:01:01")
    assert api.post("/v1/nodes/noopnode/vifs", {"id": "n1"}).status_code == 204
    assert api.vifs("noopnode") == []
    assert api.delete("/v1/nodes/noopnode/vifs/n1").status_code == 204


def test_neutron_without_endpoint_is_clear_400(api: Api) -> None:
    node = api.node(name="neutronnode", network_interface="neutron")
    api.port(node, "52:54:00:10:02:01")
    resp = api.post("/v1/nodes/neutronnode/vifs", {"id": "n1"})
    assert resp.status_code == 400
    assert "no Neutron endpoint is configured ([neutron] endpoint_override" in fault(resp)


def test_delete_port_with_vif_is_409_unless_maintenance(api: Api, node: dict[str, Any]) -> None:
    port = api.get("/v1/nodes/vifnode/ports").json()["ports"][0]["uuid"]
    assert api.post("/v1/nodes/vifnode/vifs", {"id": "held", "port_uuid": port}).status_code == 204
    resp = api.delete(f"/v1/ports/{port}")
    assert resp.status_code == 409
    assert "held" in fault(resp)
    assert api.put("/v1/nodes/vifnode/maintenance", {}).status_code == 202
    assert api.delete(f"/v1/ports/{port}").status_code == 204
    assert api.vifs("vifnode") == []


def test_moving_port_with_vif_into_portgroup_is_refused(api: Api, node: dict[str, Any]) -> None:
    port = api.get("/v1/nodes/vifnode/ports").json()["ports"][0]["uuid"]
    group = api.portgroup(node, name="pgmove")
    assert api.post("/v1/nodes/vifnode/vifs", {"id": "m", "port_uuid": port}).status_code == 204
    resp = api.patch(
        f"/v1/ports/{port}", [{"op": "add", "path": "/portgroup_uuid", "value": group["uuid"]}]
    )
    assert resp.status_code == 409
    assert api.get(f"/v1/ports/{port}").json()["portgroup_uuid"] is None


def test_legacy_vif_port_id_is_listed_warned_and_detachable(api: Api, node: dict[str, Any]) -> None:
    port = api.get("/v1/nodes/vifnode/ports").json()["ports"][0]["uuid"]
    resp = api.patch(
        f"/v1/ports/{port}", [{"op": "add", "path": "/extra/vif_port_id", "value": "legacy-vif"}]
    )
    assert resp.status_code == 200
    assert "deprecated" in resp.headers["Warning"]
    assert api.vifs("vifnode") == ["legacy-vif"]
    # The port is busy for new attachments.
    resp = api.post("/v1/nodes/vifnode/vifs", {"id": "new", "port_uuid": port})
    assert resp.status_code == 400
    assert api.delete("/v1/nodes/vifnode/vifs/legacy-vif").status_code == 204
    assert api.vifs("vifnode") == []
    assert "vif_port_id" not in api.get(f"/v1/ports/{port}").json()["extra"]
    events = [e["event"] for e in api.get("/v1/nodes/vifnode/history").json()["history"]]
    assert any("legacy-vif" in e and "extra/vif_port_id" in e for e in events)


def test_legacy_vif_removed_by_patch(api: Api, node: dict[str, Any]) -> None:
    port = api.get("/v1/nodes/vifnode/ports").json()["ports"][0]["uuid"]
    api.patch(f"/v1/ports/{port}", [{"op": "add", "path": "/extra/vif_port_id", "value": "lv"}])
    assert api.vifs("vifnode") == ["lv"]
    api.patch(f"/v1/ports/{port}", [{"op": "remove", "path": "/extra/vif_port_id"}])
    assert api.vifs("vifnode") == []


def test_legacy_vif_on_another_node_is_409(api: Api, node: dict[str, Any]) -> None:
    other = api.node(name="legacy-other")
    api.port(other, "52:54:00:10:03:01")
    assert api.post("/v1/nodes/legacy-other/vifs", {"id": "taken"}).status_code == 204
    port = api.get("/v1/nodes/vifnode/ports").json()["ports"][0]["uuid"]
    resp = api.patch(
        f"/v1/ports/{port}", [{"op": "add", "path": "/extra/vif_port_id", "value": "taken"}]
    )
    assert resp.status_code == 409
    assert other["uuid"] in fault(resp)
    assert "vif_port_id" not in api.get(f"/v1/ports/{port}").json()["extra"]


@pytest.mark.parametrize("bad", [{"a": 1}, [1], "..", ".", "a b", "x" * 256])
def test_legacy_vif_port_id_gets_the_vif_id_checks_of_post_vifs(
    api: Api, node: dict[str, Any], bad: Any
) -> None:
    resp = api.post(
        "/v1/ports",
        {"node_uuid": node["uuid"], "address": "52:54:00:10:04:01", "extra": {"vif_port_id": bad}},
    )
    assert resp.status_code == 400, resp.text
    assert "extra/vif_port_id" in fault(resp) and "Invalid VIF id" in fault(resp)
    assert api.get("/v1/ports?address=52:54:00:10:04:01").json()["ports"] == []
    port = api.get("/v1/nodes/vifnode/ports").json()["ports"][0]["uuid"]
    resp = api.patch(
        f"/v1/ports/{port}", [{"op": "add", "path": "/extra/vif_port_id", "value": bad}]
    )
    assert resp.status_code == 400, resp.text
    assert "extra/vif_port_id" in fault(resp)
    assert "vif_port_id" not in api.get(f"/v1/ports/{port}").json()["extra"]
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"], "extra": {"vif_port_id": bad}})
    assert resp.status_code == 400, resp.text
    assert "extra/vif_port_id" in fault(resp)
    group = api.portgroup(node, name="legacy-checked")
    resp = api.patch(
        f"/v1/portgroups/{group['uuid']}",
        [{"op": "add", "path": "/extra/vif_port_id", "value": bad}],
    )
    assert resp.status_code == 400, resp.text
    assert "extra/vif_port_id" in fault(resp)
    assert "vif_port_id" not in api.get(f"/v1/portgroups/{group['uuid']}").json()["extra"]
    assert [g["uuid"] for g in api.get("/v1/portgroups").json()["portgroups"]] == [group["uuid"]]
    assert api.vifs("vifnode") == []


def test_legacy_vif_goes_through_the_interface_rules(api: Api, node: dict[str, Any]) -> None:
    """The interface chooses as for POST /vifs: a bond member cannot take the VIF (400),
    and the port carrying the refused extra/vif_port_id is not stored."""
    group = api.portgroup(node, name="legacy-bond", address="52:54:00:10:05:00")
    resp = api.post(
        "/v1/ports",
        {
            "node_uuid": node["uuid"],
            "address": "52:54:00:10:05:01",
            "portgroup_uuid": group["uuid"],
            "extra": {"vif_port_id": "on-member"},
        },
    )
    assert resp.status_code == 400, resp.text
    assert "member of portgroup" in fault(resp)
    assert api.get("/v1/ports?address=52:54:00:10:05:01").json()["ports"] == []
    assert api.vifs("vifnode") == []
    # A portgroup without a usable member cannot take it either; nothing is stored.
    resp = api.post(
        "/v1/portgroups",
        {"node_uuid": node["uuid"], "name": "legacy-empty", "extra": {"vif_port_id": "e"}},
    )
    assert resp.status_code == 400, resp.text
    assert "legacy-empty" not in api.get("/v1/portgroups").text
    assert api.vifs("vifnode") == []


def test_legacy_vif_refused_by_the_interface_leaves_the_patch_unstored(
    api: Api, node: dict[str, Any]
) -> None:
    smart = api.port(node, "52:54:00:10:06:01", is_smartnic=True)
    resp = api.patch(
        f"/v1/ports/{smart['uuid']}",
        [
            {"op": "add", "path": "/extra/vif_port_id", "value": "refused"},
            {"op": "add", "path": "/extra/note", "value": "kept only with the VIF"},
        ],
    )
    assert resp.status_code == 400, resp.text
    assert "is a Smart NIC" in fault(resp)
    assert api.get(f"/v1/ports/{smart['uuid']}").json()["extra"] == {}
    assert api.vifs("vifnode") == []


def test_legacy_vif_replaced_by_another_moves_the_record(api: Api, node: dict[str, Any]) -> None:
    port = api.get("/v1/nodes/vifnode/ports").json()["ports"][0]["uuid"]
    api.patch(f"/v1/ports/{port}", [{"op": "add", "path": "/extra/vif_port_id", "value": "one"}])
    resp = api.patch(
        f"/v1/ports/{port}", [{"op": "replace", "path": "/extra/vif_port_id", "value": "two"}]
    )
    assert resp.status_code == 200, resp.text
    assert api.vifs("vifnode") == ["two"]
    assert api.get(f"/v1/ports/{port}").json()["extra"] == {"vif_port_id": "two"}
    events = [e["event"] for e in api.get("/v1/nodes/vifnode/history").json()["history"]]
    assert any("VIF one detached" in e and "extra/vif_port_id" in e for e in events)
    assert any("VIF two attached" in e and "extra/vif_port_id" in e for e in events)


def test_history_records_attach_and_failures(api: Api, node: dict[str, Any]) -> None:
    api.post("/v1/nodes/vifnode/vifs", {"id": "h1"})
    api.delete("/v1/nodes/vifnode/vifs/h-missing")
    api.delete("/v1/nodes/vifnode/vifs/h1")
    entries = api.get("/v1/nodes/vifnode/history?detail=true").json()["history"]
    events = [(e["vif_id"], e["result"], e["severity"]) for e in entries]
    assert events == [
        ("h1", "success", "INFO"),
        ("h-missing", "failure", "ERROR"),
        ("h1", "success", "INFO"),
    ]
    assert "52:54:00:10:00:01" in entries[0]["event"] or "52:54:00:10:00:02" in entries[0]["event"]
    one = api.get(f"/v1/nodes/vifnode/history/{entries[1]['uuid']}").json()
    assert "not attached" in one["event"]
    assert api.get("/v1/nodes/vifnode/history", version="1.77").status_code == 404


# -- which port or portgroup a VIF gets (Ironic's rule) --------------------------------------


@pytest.fixture
def bonded(api: Api) -> dict[str, dict[str, Any]]:
    """Node "bonded": portgroup bond0 with members p0 and p1, and a standalone port p2."""
    node = api.node(name="bonded")
    group = api.portgroup(node, name="bonded-bond0", address="52:54:00:20:00:00")
    return {
        "G": group,
        "p0": api.port(node, "52:54:00:20:00:01", portgroup_uuid=group["uuid"]),
        "p1": api.port(node, "52:54:00:20:00:02", portgroup_uuid=group["uuid"]),
        "p2": api.port(node, "52:54:00:20:00:03"),
    }


def _vif_of(api: Api, kind: str, uuid: str) -> str | None:
    shown = api.get(f"/v1/{kind}/{uuid}").json()
    return shown["internal_info"].get("tenant_vif_port_id")  # type: ignore[no-any-return]


def test_vif_after_the_bond_goes_on_the_standalone_port_then_400(
    api: Api, bonded: dict[str, dict[str, Any]]
) -> None:
    for vif in ("first", "second"):
        assert api.post("/v1/nodes/bonded/vifs", {"id": vif}).status_code == 204
    assert _vif_of(api, "portgroups", bonded["G"]["uuid"]) == "first"
    assert _vif_of(api, "ports", bonded["p2"]["uuid"]) == "second"
    resp = api.post("/v1/nodes/bonded/vifs", {"id": "third"})
    assert resp.status_code == 400
    message = fault(resp)
    assert "No free port or portgroup" in message and "third" in message
    for member in ("p0", "p1"):
        assert f"{bonded[member]['uuid']} (52:54:00:20:00:0" in message
        assert _vif_of(api, "ports", bonded[member]["uuid"]) is None
    assert f"portgroup {bonded['G']['uuid']}, which is busy with VIF first" in message
    assert sorted(api.vifs("bonded")) == ["first", "second"]


def test_port_uuid_of_a_bond_member_is_400(api: Api, bonded: dict[str, dict[str, Any]]) -> None:
    member = bonded["p0"]["uuid"]
    resp = api.post("/v1/nodes/bonded/vifs", {"id": "on-member", "port_uuid": member})
    assert resp.status_code == 400
    assert member in fault(resp) and "member of portgroup" in fault(resp)
    assert api.vifs("bonded") == []


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"is_smartnic": True}, "is a Smart NIC (is_smartnic true)"),
        (
            {
                "local_link_connection": {
                    "port_id": "Ethernet1/1",
                    "switch_id": "00:1b:21:00:00:01",
                    "hostname": "dpu-1",
                }
            },
            "is not a Smart NIC (is_smartnic false)",
        ),
    ],
)
def test_port_whose_smart_nic_flag_contradicts_its_link_is_not_used(
    api: Api, fields: dict[str, Any], reason: str
) -> None:
    node = api.node(name="smartnic")
    contradicting = api.port(node, "52:54:00:21:00:01", **fields)
    resp = api.post("/v1/nodes/smartnic/vifs", {"id": "v"})
    assert resp.status_code == 400
    assert f"port {contradicting['uuid']}" in fault(resp) and reason in fault(resp)
    ordinary = api.port(node, "52:54:00:21:00:02")
    assert api.post("/v1/nodes/smartnic/vifs", {"id": "v"}).status_code == 204
    assert _vif_of(api, "ports", ordinary["uuid"]) == "v"
