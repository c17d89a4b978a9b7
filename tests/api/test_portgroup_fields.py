"""A portgroup's physical_network (1.102) and category (1.103) through HTTP, and the rule
that keeps a portgroup and its member ports on one physical network.

Ironic 39 takes both fields on create, on PATCH and in ``?fields=`` at every version and
only hides them below their version; each gate is checked at version-1 and at version.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, fault

# (field, the version that shows it, a value) from Ironic 39's version list.
PORTGROUP_FIELDS_SHOWN_FROM = [
    ("physical_network", 102, "physnet1"),
    ("category", 103, "bond"),
]


@pytest.mark.parametrize(("name", "since", "value"), PORTGROUP_FIELDS_SHOWN_FROM)
def test_a_portgroup_field_is_taken_at_every_version_and_shown_from_its_own(
    api: Api, name: str, since: int, value: str
) -> None:
    node = api.node()
    below, at = f"1.{since - 1}", f"1.{since}"
    created = api.post("/v1/portgroups", {"node_uuid": node["uuid"], name: value}, version=below)
    assert created.status_code == 201, created.text
    assert name not in created.json()
    url = f"/v1/portgroups/{created.json()['uuid']}"
    assert name not in api.get(url, version=below).json()
    assert api.get(url, version=at).json()[name] == value
    detail = api.get(f"/v1/portgroups/detail?node={node['uuid']}", version=at).json()
    assert detail["portgroups"][0][name] == value
    # ?fields= names it at every version, as Ironic's does; below its version it is left out.
    picked = api.get(f"{url}?fields=uuid,{name}", version=below)
    assert picked.status_code == 200, picked.text
    assert name not in picked.json()
    assert api.get(f"{url}?fields=uuid,{name}", version=at).json()[name] == value
    listed = api.get(f"/v1/portgroups?fields={name}", version=at).json()["portgroups"]
    assert [pg[name] for pg in listed] == [value]
    patch = [{"op": "replace", "path": f"/{name}", "value": value + "-b"}]
    patched = api.patch(url, patch, version=below)
    assert patched.status_code == 200, patched.text
    assert name not in patched.json()
    assert api.get(url, version=at).json()[name] == value + "-b"
    removed = api.patch(url, [{"op": "remove", "path": f"/{name}"}], version=at)
    assert removed.status_code == 200 and removed.json()[name] is None


@pytest.mark.parametrize(("name", "limit"), [("physical_network", 64), ("category", 80)])
def test_a_portgroup_field_longer_than_ironics_limit_is_400(
    api: Api, name: str, limit: int
) -> None:
    node = api.node()
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"], name: "x" * (limit + 1)})
    assert resp.status_code == 400
    assert name in fault(resp) and str(limit) in fault(resp)
    ok = api.post("/v1/portgroups", {"node_uuid": node["uuid"], name: "x" * limit})
    assert ok.status_code == 201, ok.text


def _member(api: Api, node: dict[str, Any], group: dict[str, Any], mac: str, **kw: Any) -> Any:
    body = {"node_uuid": node["uuid"], "address": mac, "portgroup_uuid": group["uuid"], **kw}
    return api.post("/v1/ports", body)


def test_a_portgroup_on_a_physical_network_takes_only_ports_on_it(api: Api) -> None:
    node = api.node()
    group = api.portgroup(node, physical_network="physnet2")
    for kw in ({"physical_network": "physnet1"}, {}):
        refused = _member(api, node, group, "52:54:00:e1:00:01", **kw)
        assert refused.status_code == 409, refused.text
        assert f"portgroup {group['uuid']}" in fault(refused)
        assert "the portgroup is on physical network physnet2" in fault(refused)
    joined = _member(api, node, group, "52:54:00:e1:00:01", physical_network="physnet2")
    assert joined.status_code == 201, joined.text
    # A standalone port joins by PATCH under the same rule.
    other = api.port(node, "52:54:00:e1:00:02", physical_network="physnet1")
    patch = [{"op": "add", "path": "/portgroup_uuid", "value": group["uuid"]}]
    moved = api.patch(f"/v1/ports/{other['uuid']}", patch)
    assert moved.status_code == 409, moved.text
    assert "its other member ports are on physical network physnet2" in fault(moved)
    # A member cannot leave its portgroup's physical network on its own (below 1.102; from
    # 1.102 its physical network is the portgroup's to change).
    away = [{"op": "replace", "path": "/physical_network", "value": "physnet1"}]
    assert api.patch(f"/v1/ports/{joined.json()['uuid']}", away, version="1.101").status_code == 409


def test_a_portgroup_without_a_physical_network_adopts_its_first_members(api: Api) -> None:
    node = api.node()
    group = api.portgroup(node)
    assert group["physical_network"] is None
    first = _member(api, node, group, "52:54:00:e2:00:01", physical_network="physnet3")
    assert first.status_code == 201, first.text
    shown = api.get(f"/v1/portgroups/{group['uuid']}").json()
    assert shown["physical_network"] == "physnet3"
    second = _member(api, node, group, "52:54:00:e2:00:02")
    assert second.status_code == 409, second.text


def test_a_portgroups_new_physical_network_is_set_on_each_member(api: Api) -> None:
    node = api.node()
    group = api.portgroup(node, physical_network="physnet1")
    members = [
        _member(api, node, group, f"52:54:00:e3:00:0{i}", physical_network="physnet1").json()
        for i in (1, 2)
    ]
    patch = [{"op": "replace", "path": "/physical_network", "value": "physnet4"}]
    resp = api.patch(f"/v1/portgroups/{group['uuid']}", patch)
    assert resp.status_code == 200, resp.text
    assert resp.json()["physical_network"] == "physnet4"
    for member in members:
        assert api.get(f"/v1/ports/{member['uuid']}").json()["physical_network"] == "physnet4"


def test_a_portgroups_physical_network_stays_while_it_carries_a_vif(api: Api) -> None:
    node = api.node()
    group = api.portgroup(node, physical_network="physnet1", standalone_ports_supported=True)
    member = _member(api, node, group, "52:54:00:e4:00:01", physical_network="physnet1").json()
    second = _member(api, node, group, "52:54:00:e4:00:02", physical_network="physnet1").json()
    vif = "5f1d2b0e-0000-4000-8000-0000000000e4"
    body = {"id": vif, "portgroup_uuid": group["uuid"]}
    attach = api.post(f"/v1/nodes/{node['uuid']}/vifs", body)
    assert attach.status_code == 204, attach.text
    patch = [{"op": "replace", "path": "/physical_network", "value": "physnet9"}]
    resp = api.patch(f"/v1/portgroups/{group['uuid']}", patch)
    assert resp.status_code == 409, resp.text
    assert f"portgroup {group['uuid']} while it carries VIF {vif}" in fault(resp)
    for port in (member, second):
        assert api.get(f"/v1/ports/{port['uuid']}").json()["physical_network"] == "physnet1"
    assert api.get(f"/v1/portgroups/{group['uuid']}").json()["physical_network"] == "physnet1"


def test_a_ports_physical_network_is_a_name_or_null_never_empty(api: Api) -> None:
    node = api.node()
    body = {"node_uuid": node["uuid"], "address": "52:54:00:e5:00:01", "physical_network": ""}
    for version in ("1.34", "1.101", "1.102"):
        refused = api.post("/v1/ports", body, version=version)
        assert refused.status_code == 400, refused.text
        assert "physical_network" in fault(refused) and "empty" in fault(refused)
    assert api.get(f"/v1/ports?node={node['uuid']}").json()["ports"] == []
    port = api.port(node, "52:54:00:e5:00:01", physical_network="physnet1")
    url = f"/v1/ports/{port['uuid']}"
    empty = [{"op": "replace", "path": "/physical_network", "value": ""}]
    refused = api.patch(url, empty)
    assert refused.status_code == 400, refused.text
    assert "physical_network" in fault(refused)
    assert api.get(url).json()["physical_network"] == "physnet1"
    cleared = api.patch(url, [{"op": "replace", "path": "/physical_network", "value": None}])
    assert cleared.status_code == 200 and cleared.json()["physical_network"] is None


def test_a_members_physical_network_is_its_portgroups_to_change_from_1_102(api: Api) -> None:
    node = api.node()
    group = api.portgroup(node)
    member = _member(api, node, group, "52:54:00:e6:00:01").json()
    url = f"/v1/ports/{member['uuid']}"
    change = [{"op": "replace", "path": "/physical_network", "value": "physnet6"}]
    refused = api.patch(url, change, version="1.102")
    assert refused.status_code == 400, refused.text
    assert f"member of portgroup {group['uuid']}" in fault(refused)
    assert "physical_network" in fault(refused)
    assert api.get(url).json()["physical_network"] is None
    assert api.get(f"/v1/portgroups/{group['uuid']}").json()["physical_network"] is None
    # Below 1.102 the sole member still sets it, and the portgroup adopts it.
    assert api.patch(url, change, version="1.101").status_code == 200
    assert api.get(f"/v1/portgroups/{group['uuid']}").json()["physical_network"] == "physnet6"
    # Leaving the portgroup in the same request, a port takes any physical network.
    leave = [
        {"op": "remove", "path": "/portgroup_uuid"},
        {"op": "replace", "path": "/physical_network", "value": "physnet7"},
    ]
    left = api.patch(url, leave)
    assert left.status_code == 200, left.text
    assert (left.json()["portgroup_uuid"], left.json()["physical_network"]) == (None, "physnet7")
