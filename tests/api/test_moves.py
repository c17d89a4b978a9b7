"""Moving ports and portgroups between nodes keeps the inventory whole (on every database)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.conftest import Api, fault


@pytest.fixture
def two_nodes(api: Api) -> tuple[dict[str, Any], dict[str, Any]]:
    return api.node(name="node-a"), api.node(name="node-b")


def _move(api: Api, kind: str, uuid: str, node: dict[str, Any], *extra: Any) -> Any:
    patch = [{"op": "replace", "path": "/node_uuid", "value": node["uuid"]}, *extra]
    return api.patch(f"/v1/{kind}/{uuid}", patch)


def test_moving_a_bond_member_alone_is_refused_and_nothing_changes(
    api: Api, two_nodes: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, b = two_nodes
    bond = api.portgroup(a, name="bond-a")
    port = api.port(a, "52:54:00:aa:00:01", portgroup_uuid=bond["uuid"])
    resp = _move(api, "ports", port["uuid"], b)
    assert resp.status_code == 400, resp.text
    assert bond["uuid"] in fault(resp) and b["uuid"] in fault(resp)
    stored = api.get(f"/v1/ports/{port['uuid']}").json()
    assert (stored["node_uuid"], stored["portgroup_uuid"]) == (a["uuid"], bond["uuid"])
    api.port(b, "52:54:00:aa:00:02")
    assert api.post("/v1/nodes/node-b/vifs", {"id": "vif-b"}).status_code == 204


def test_a_bond_member_moves_when_the_patch_also_leaves_the_bond(
    api: Api, two_nodes: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, b = two_nodes
    bond = api.portgroup(a, name="bond-a")
    port = api.port(a, "52:54:00:aa:00:03", portgroup_uuid=bond["uuid"])
    resp = _move(api, "ports", port["uuid"], b, {"op": "remove", "path": "/portgroup_uuid"})
    assert resp.status_code == 200, resp.text
    assert (resp.json()["node_uuid"], resp.json()["portgroup_uuid"]) == (b["uuid"], None)
    assert api.get("/v1/nodes/node-b/ports").json()["ports"][0]["uuid"] == port["uuid"]


def test_a_port_moves_into_a_bond_of_its_new_node(
    api: Api, two_nodes: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, b = two_nodes
    bond_a = api.portgroup(a, name="bond-a")
    bond_b = api.portgroup(b, name="bond-b")
    port = api.port(a, "52:54:00:aa:00:04", portgroup_uuid=bond_a["uuid"])
    resp = _move(
        api,
        "ports",
        port["uuid"],
        b,
        {"op": "replace", "path": "/portgroup_uuid", "value": bond_b["uuid"]},
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["portgroup_uuid"] == bond_b["uuid"]
    members = api.get(f"/v1/portgroups/{bond_b['uuid']}/ports").json()["ports"]
    assert [p["uuid"] for p in members] == [port["uuid"]]


def test_a_port_cannot_join_a_bond_of_another_node(
    api: Api, two_nodes: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, b = two_nodes
    bond_b = api.portgroup(b, name="bond-b")
    port = api.port(a, "52:54:00:aa:00:05")
    resp = api.patch(
        f"/v1/ports/{port['uuid']}",
        [{"op": "replace", "path": "/portgroup_uuid", "value": bond_b["uuid"]}],
    )
    assert resp.status_code == 400, resp.text
    assert bond_b["uuid"] in fault(resp)
    resp = api.post(
        "/v1/ports",
        {"node_uuid": a["uuid"], "address": "52:54:00:aa:00:06", "portgroup_uuid": bond_b["uuid"]},
    )
    assert resp.status_code == 400, resp.text
    assert api.get("/v1/ports?address=52:54:00:aa:00:06").json()["ports"] == []


def test_a_port_carrying_a_vif_cannot_move(
    api: Api, two_nodes: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, b = two_nodes
    port = api.port(a, "52:54:00:aa:00:07")
    assert api.post("/v1/nodes/node-a/vifs", {"id": "vif-1"}).status_code == 204
    resp = _move(api, "ports", port["uuid"], b)
    assert resp.status_code == 409, resp.text
    assert "vif-1" in fault(resp)
    stored = api.get(f"/v1/ports/{port['uuid']}").json()
    assert stored["node_uuid"] == a["uuid"]
    assert stored["internal_info"]["tenant_vif_port_id"] == "vif-1"
    assert api.vifs("node-b") == []
    assert api.delete("/v1/nodes/node-a/vifs/vif-1").status_code == 204
    assert _move(api, "ports", port["uuid"], b).status_code == 200


def test_a_port_carrying_a_legacy_vif_cannot_move(
    api: Api, two_nodes: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, b = two_nodes
    port = api.port(a, "52:54:00:aa:00:08", extra={"vif_port_id": "legacy-1"})
    resp = _move(api, "ports", port["uuid"], b)
    assert resp.status_code == 409, resp.text
    assert "legacy-1" in fault(resp)
    assert api.vifs("node-a") == ["legacy-1"]


def test_a_portgroup_carrying_a_vif_cannot_move(
    api: Api, two_nodes: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, b = two_nodes
    bond = api.portgroup(a, name="bond-a")
    api.port(a, "52:54:00:aa:00:09", portgroup_uuid=bond["uuid"])
    resp = api.post("/v1/nodes/node-a/vifs", {"id": "vif-2", "portgroup_uuid": bond["uuid"]})
    assert resp.status_code == 204, resp.text
    member = api.get(f"/v1/portgroups/{bond['uuid']}/ports").json()["ports"][0]
    api.patch(f"/v1/ports/{member['uuid']}", [{"op": "remove", "path": "/portgroup_uuid"}])
    resp = _move(api, "portgroups", bond["uuid"], b)
    assert resp.status_code == 409, resp.text
    assert "vif-2" in fault(resp)
    assert api.get(f"/v1/portgroups/{bond['uuid']}").json()["node_uuid"] == a["uuid"]


def test_a_portgroup_with_members_cannot_move_but_an_empty_one_can(
    api: Api, two_nodes: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, b = two_nodes
    bond = api.portgroup(a, name="bond-a")
    port = api.port(a, "52:54:00:aa:00:0a", portgroup_uuid=bond["uuid"])
    resp = _move(api, "portgroups", bond["uuid"], b)
    assert resp.status_code == 400, resp.text
    assert port["uuid"] in fault(resp)
    api.patch(f"/v1/ports/{port['uuid']}", [{"op": "remove", "path": "/portgroup_uuid"}])
    resp = _move(api, "portgroups", bond["uuid"], b)
    assert resp.status_code == 200, resp.text
    assert api.get("/v1/nodes/node-b/portgroups").json()["portgroups"][0]["uuid"] == bond["uuid"]


def test_moving_to_an_unknown_node_is_400(
    api: Api, two_nodes: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, _ = two_nodes
    port = api.port(a, "52:54:00:aa:00:0b")
    ghost = {"uuid": "0b8c9b2e-5f5e-4d4a-9a57-7d2f1b1f0000"}
    resp = _move(api, "ports", port["uuid"], ghost)
    assert resp.status_code == 400, resp.text
    assert ghost["uuid"] in fault(resp)


def test_opposite_moves_at_once_all_succeed(
    api: Api, two_nodes: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, b = two_nodes
    from_a = [api.port(a, f"52:54:00:ab:00:{i:02x}")["uuid"] for i in range(4)]
    from_b = [api.port(b, f"52:54:00:ba:00:{i:02x}")["uuid"] for i in range(4)]
    moves = [(uuid, b) for uuid in from_a] + [(uuid, a) for uuid in from_b]
    barrier = threading.Barrier(len(moves))

    def move(item: tuple[str, dict[str, Any]]) -> int:
        barrier.wait()
        return int(_move(api, "ports", item[0], item[1]).status_code)

    with ThreadPoolExecutor(len(moves)) as pool:
        statuses = list(pool.map(move, moves))
    assert statuses == [200] * len(moves)
    on_b = {p["uuid"] for p in api.get("/v1/nodes/node-b/ports").json()["ports"]}
    on_a = {p["uuid"] for p in api.get("/v1/nodes/node-a/ports").json()["ports"]}
    assert (on_a, on_b) == (set(from_b), set(from_a))


def test_a_portgroup_without_standalone_ports_takes_no_pxe_member(api: Api) -> None:
    node = api.node(name="node-s")
    bond = api.portgroup(node, name="bond-s", standalone_ports_supported=False)
    body = {"node_uuid": node["uuid"], "address": "52:54:00:ac:00:01"}
    resp = api.post("/v1/ports", {**body, "portgroup_uuid": bond["uuid"], "pxe_enabled": True})
    assert resp.status_code == 409, resp.text
    assert bond["uuid"] in fault(resp) and "pxe_enabled" in fault(resp)
    assert api.get("/v1/ports?address=52:54:00:ac:00:01").json()["ports"] == []
    # without pxe_enabled, a member of such a portgroup does not boot by PXE
    port = api.port(node, "52:54:00:ac:00:01", portgroup_uuid=bond["uuid"])
    assert port["pxe_enabled"] is False
    resp = api.patch(
        f"/v1/ports/{port['uuid']}", [{"op": "replace", "path": "/pxe_enabled", "value": True}]
    )
    assert resp.status_code == 409, resp.text
    resp = api.patch(
        f"/v1/ports/{port['uuid']}",
        [{"op": "add", "path": "/extra/vif_port_id", "value": "legacy-s"}],
    )
    assert resp.status_code == 409, resp.text
    assert "legacy-s" in fault(resp)
    assert api.get(f"/v1/ports/{port['uuid']}").json()["pxe_enabled"] is False
    assert api.vifs("node-s") == []


def test_a_pxe_member_left_by_noop_is_refused_only_what_makes_it_one(api: Api) -> None:
    """A noop node may have a PXE-enabled member of a portgroup without standalone ports
    (as Ironic's noop); on flat, as Ironic's, only an update setting pxe_enabled or the
    portgroup is then refused for it, not one of its other fields."""
    node = api.node(name="node-n", network_interface="noop")
    bond = api.portgroup(node, name="bond-n", standalone_ports_supported=False)
    port = api.port(node, "52:54:00:ac:00:09", portgroup_uuid=bond["uuid"])
    assert port["pxe_enabled"] is True
    flat = [{"op": "replace", "path": "/network_interface", "value": "flat"}]
    assert api.patch(f"/v1/nodes/{node['uuid']}", flat).status_code == 200
    url = f"/v1/ports/{port['uuid']}"
    resp = api.patch(url, [{"op": "add", "path": "/extra/rack", "value": "7"}])
    assert resp.status_code == 200, resp.text
    assert api.patch(url, [{"op": "remove", "path": "/portgroup_uuid"}]).status_code == 200
    rejoin = [{"op": "add", "path": "/portgroup_uuid", "value": bond["uuid"]}]
    resp = api.patch(url, rejoin)
    assert resp.status_code == 409, resp.text
    assert "standalone ports" in fault(resp)
    assert api.get(url).json()["portgroup_uuid"] is None


def test_standalone_ports_cannot_be_turned_off_under_a_pxe_member(api: Api) -> None:
    node = api.node(name="node-t")
    bond = api.portgroup(node, name="bond-t")
    port = api.port(node, "52:54:00:ad:00:01", portgroup_uuid=bond["uuid"])
    off = [{"op": "replace", "path": "/standalone_ports_supported", "value": False}]
    resp = api.patch(f"/v1/portgroups/{bond['uuid']}", off)
    assert resp.status_code == 409, resp.text
    assert port["uuid"] in fault(resp)
    assert api.get(f"/v1/portgroups/{bond['uuid']}").json()["standalone_ports_supported"]
    api.patch(
        f"/v1/ports/{port['uuid']}", [{"op": "replace", "path": "/pxe_enabled", "value": False}]
    )
    assert api.patch(f"/v1/portgroups/{bond['uuid']}", off).status_code == 200


def test_a_name_reused_after_a_delete_finds_the_new_node_at_once(api: Api) -> None:
    first = api.node(name="reused")
    api.port(first, "52:54:00:ae:00:01")
    assert api.post("/v1/nodes/reused/vifs", {"id": "vif-r1"}).status_code == 204
    assert api.delete("/v1/nodes/reused/vifs/vif-r1").status_code == 204
    assert api.delete("/v1/nodes/reused").status_code == 204
    second = api.node(name="reused")
    api.port(second, "52:54:00:ae:00:02")
    started = time.monotonic()
    resp = api.patch("/v1/nodes/reused", [{"op": "add", "path": "/extra/k", "value": 1}])
    assert resp.status_code == 200, resp.text
    assert api.post("/v1/nodes/reused/vifs", {"id": "vif-r2"}).status_code == 204
    assert time.monotonic() - started < 5  # no wait for the lock of the deleted node
    assert api.vifs("reused") == ["vif-r2"]
