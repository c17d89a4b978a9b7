"""Ports and portgroups through HTTP."""

from __future__ import annotations

import uuid

from tests.conftest import Api, fault

LLC = {"switch_id": "aa:bb:cc:dd:ee:ff", "port_id": "Ethernet1/1", "switch_info": "sw1"}


def test_create_and_show_port(api: Api) -> None:
    node = api.node()
    resp = api.post(
        "/v1/ports",
        {
            "node_uuid": node["uuid"],
            "address": "52:54:00:12:34:56",
            "local_link_connection": LLC,
            "physical_network": "physnet1",
            "pxe_enabled": False,
        },
    )
    assert resp.status_code == 201, resp.text
    port = resp.json()
    assert resp.headers["Location"].endswith(f"/v1/ports/{port['uuid']}")
    assert port["node_uuid"] == node["uuid"]
    assert port["local_link_connection"] == LLC
    assert port["physical_network"] == "physnet1"
    assert port["pxe_enabled"] is False
    assert port["internal_info"] == {}
    assert port["portgroup_uuid"] is None
    assert api.get(f"/v1/ports/{port['uuid']}").json()["address"] == "52:54:00:12:34:56"


def test_port_fields_follow_microversion(api: Api) -> None:
    node = api.node()
    port = api.port(node, "52:54:00:12:34:57")
    old = api.get(f"/v1/ports/{port['uuid']}", version="1.18").json()
    assert "internal_info" in old and "local_link_connection" not in old
    assert "physical_network" not in api.get(f"/v1/ports/{port['uuid']}", version="1.33").json()
    resp = api.post(
        "/v1/ports",
        {"node_uuid": node["uuid"], "address": "52:54:00:12:34:58", "physical_network": "p"},
        version="1.33",
    )
    assert resp.status_code == 406


def test_invalid_mac_is_400(api: Api) -> None:
    node = api.node()
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"], "address": "not-a-mac"})
    assert resp.status_code == 400
    assert "not-a-mac" in fault(resp)


def test_duplicate_mac_is_409(api: Api) -> None:
    node = api.node()
    api.port(node, "52:54:00:00:00:aa")
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"], "address": "52:54:00:00:00:AA"})
    assert resp.status_code == 409
    assert "52:54:00:00:00:aa" in fault(resp)


def test_port_on_unknown_node_or_portgroup_is_400_as_ironic(api: Api) -> None:
    ghost = str(uuid.uuid4())
    resp = api.post("/v1/ports", {"node_uuid": ghost, "address": "52:54:00:00:01:01"})
    assert resp.status_code == 400
    assert fault(resp) == f"Node {ghost} could not be found."
    node = api.node()
    body = {"node_uuid": node["uuid"], "address": "52:54:00:00:01:01", "portgroup_uuid": ghost}
    resp = api.post("/v1/ports", body)
    assert resp.status_code == 400
    assert ghost in fault(resp) and "could not be found" in fault(resp)
    resp = api.post("/v1/portgroups", {"node_uuid": ghost})
    assert resp.status_code == 400
    assert api.get("/v1/ports?address=52:54:00:00:01:01").json()["ports"] == []


def test_internal_info_is_read_only(api: Api) -> None:
    node = api.node()
    resp = api.post(
        "/v1/ports",
        {"node_uuid": node["uuid"], "address": "52:54:00:00:01:02", "internal_info": {"a": 1}},
    )
    assert resp.status_code == 400
    port = api.port(node, "52:54:00:00:01:03")
    resp = api.patch(
        f"/v1/ports/{port['uuid']}", [{"op": "add", "path": "/internal_info/a", "value": 1}]
    )
    assert resp.status_code == 400


def test_local_link_connection_is_checked(api: Api) -> None:
    node = api.node()
    resp = api.post(
        "/v1/ports",
        {
            "node_uuid": node["uuid"],
            "address": "52:54:00:00:01:04",
            "local_link_connection": {"port_id": "x"},
        },
    )
    assert resp.status_code == 400
    assert "switch_id" in fault(resp)


def test_list_ports_filters(api: Api) -> None:
    n1, n2 = api.node(name="pn1"), api.node(name="pn2")
    api.port(n1, "52:54:00:00:02:01")
    api.port(n2, "52:54:00:00:02:02")
    by_node = api.get("/v1/ports?node=pn1").json()["ports"]
    assert [p["address"] for p in by_node] == ["52:54:00:00:02:01"]
    assert set(by_node[0]) == {"uuid", "address", "links"}
    by_uuid = api.get(f"/v1/ports?node_uuid={n2['uuid']}").json()["ports"]
    assert [p["address"] for p in by_uuid] == ["52:54:00:00:02:02"]
    # node_uuid is a UUID (what openstacksdk sends for node_id), and wins over node.
    by_name = api.get("/v1/ports?node_uuid=pn2")
    assert by_name.status_code == 400, by_name.text
    assert fault(by_name) == "Expected a UUID for node_uuid but received 'pn2'."
    both = api.get(f"/v1/ports?node=pn1&node_uuid={n2['uuid']}").json()["ports"]
    assert [p["address"] for p in both] == ["52:54:00:00:02:02"]
    by_mac = api.get("/v1/ports/detail?address=52:54:00:00:02:02").json()["ports"]
    assert by_mac[0]["node_uuid"] == n2["uuid"]
    assert [p["address"] for p in api.get("/v1/nodes/pn2/ports").json()["ports"]] == [
        "52:54:00:00:02:02"
    ]


def test_patch_port_address_and_delete(api: Api) -> None:
    node = api.node()
    port = api.port(node, "52:54:00:00:03:01")
    resp = api.patch(
        f"/v1/ports/{port['uuid']}",
        [{"op": "replace", "path": "/address", "value": "52:54:00:00:03:02"}],
    )
    assert resp.status_code == 200
    assert resp.json()["address"] == "52:54:00:00:03:02"
    assert api.delete(f"/v1/ports/{port['uuid']}").status_code == 204
    assert api.get(f"/v1/ports/{port['uuid']}").status_code == 404


def test_portgroup_crud_and_members(api: Api) -> None:
    node = api.node(name="pgnode")
    resp = api.post(
        "/v1/portgroups",
        {
            "node_uuid": node["uuid"],
            "name": "bond0",
            "address": "52:54:00:00:04:00",
            "mode": "802.3ad",
            "properties": {"miimon": "100"},
        },
    )
    assert resp.status_code == 201, resp.text
    group = resp.json()
    assert group["standalone_ports_supported"] is True
    assert group["mode"] == "802.3ad"
    port = api.port(node, "52:54:00:00:04:01", portgroup_uuid=group["uuid"])
    assert port["portgroup_uuid"] == group["uuid"]
    assert api.get("/v1/portgroups/bond0").json()["uuid"] == group["uuid"]
    members = api.get("/v1/portgroups/bond0/ports").json()["ports"]
    assert [m["uuid"] for m in members] == [port["uuid"]]
    assert [g["name"] for g in api.get("/v1/nodes/pgnode/portgroups").json()["portgroups"]] == [
        "bond0"
    ]
    assert (
        api.get(f"/v1/ports?portgroup={group['uuid']}").json()["ports"][0]["uuid"] == port["uuid"]
    )
    resp = api.patch("/v1/portgroups/bond0", [{"op": "replace", "path": "/name", "value": "b1"}])
    assert resp.status_code == 200 and resp.json()["name"] == "b1"
    resp = api.delete("/v1/portgroups/b1")
    assert resp.status_code == 400
    assert port["uuid"] in fault(resp)
    assert api.delete(f"/v1/ports/{port['uuid']}").status_code == 204
    assert api.delete("/v1/portgroups/b1").status_code == 204


def test_portgroups_need_1_23(api: Api) -> None:
    assert api.get("/v1/portgroups", version="1.22").status_code == 404
    assert api.get("/v1/portgroups", version="1.23").status_code == 200


def test_port_portgroup_must_be_on_same_node(api: Api) -> None:
    n1, n2 = api.node(), api.node()
    group = api.portgroup(n1, name="g-other")
    resp = api.post(
        "/v1/ports",
        {"node_uuid": n2["uuid"], "address": "52:54:00:00:05:01", "portgroup_uuid": group["uuid"]},
    )
    assert resp.status_code == 400
    assert group["uuid"] in fault(resp)


def test_duplicate_portgroup_name_is_409(api: Api) -> None:
    node = api.node()
    api.portgroup(node, name="same")
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"], "name": "same"})
    assert resp.status_code == 409


def test_patch_to_a_used_mac_is_409_and_changes_nothing(api: Api) -> None:
    node = api.node()
    api.port(node, "52:54:00:00:06:01")
    port = api.port(node, "52:54:00:00:06:02")
    resp = api.patch(
        f"/v1/ports/{port['uuid']}",
        [{"op": "replace", "path": "/address", "value": "52:54:00:00:06:01"}],
    )
    assert resp.status_code == 409
    assert "52:54:00:00:06:01" in fault(resp)
    assert api.get(f"/v1/ports/{port['uuid']}").json()["address"] == "52:54:00:00:06:02"


def test_delete_port_in_maintenance_detaches_its_vif_first(api: Api) -> None:
    node = api.node(name="maint-del")
    port = api.port(node, "52:54:00:00:06:03")
    assert api.post("/v1/nodes/maint-del/vifs", {"id": "gone-with-port"}).status_code == 204
    api.put("/v1/nodes/maint-del/maintenance", {"reason": "replace NIC"})
    assert api.delete(f"/v1/ports/{port['uuid']}").status_code == 204
    assert api.vifs("maint-del") == []
    events = [e["event"] for e in api.get("/v1/nodes/maint-del/history").json()["history"]]
    assert any("gone-with-port" in e and "maintenance" in e for e in events)


def test_ports_sorted_by_their_owners(api: Api) -> None:
    first, second = api.node(), api.node()
    g1, g2 = api.portgroup(first), api.portgroup(second)
    # made in turns, so the order of creation (id) is not the order by node
    a = api.port(second, "52:54:00:00:06:01", portgroup_uuid=g2["uuid"])
    b = api.port(first, "52:54:00:00:06:02", portgroup_uuid=g1["uuid"])
    c = api.port(second, "52:54:00:00:06:03")
    d = api.port(first, "52:54:00:00:06:04")
    by_node = api.get("/v1/ports?sort_key=node_id").json()["ports"]
    assert [p["uuid"] for p in by_node] == [b["uuid"], d["uuid"], a["uuid"], c["uuid"]]
    by_group = api.get("/v1/ports?sort_key=portgroup_id&sort_dir=desc").json()["ports"]
    # descending, the ports in no portgroup (null) last, as every nullable sort key
    assert [p["uuid"] for p in by_group] == [a["uuid"], b["uuid"], d["uuid"], c["uuid"]]
    groups = api.get("/v1/portgroups?sort_key=node_id&sort_dir=desc").json()["portgroups"]
    assert [g["uuid"] for g in groups] == [g2["uuid"], g1["uuid"]]


def test_nested_port_lists_take_the_parent_as_their_filter(api: Api) -> None:
    node = api.node(name="nested-owner")
    group = api.portgroup(node)
    member = api.port(node, "52:54:00:00:07:01", portgroup_uuid=group["uuid"])
    api.port(node, "52:54:00:00:07:02")
    members = f"/v1/portgroups/{group['uuid']}/ports"
    # the parent stands in for the filter of its kind: what the query says of it is not read
    other = api.get(f"{members}?portgroup={uuid.uuid4()}")
    assert [p["uuid"] for p in other.json()["ports"]] == [member["uuid"]], other.text
    mine = api.get(f"/v1/nodes/nested-owner/ports?node={uuid.uuid4()}").json()["ports"]
    assert len(mine) == 2
    # and counts as it: one of node, portgroup and shard narrows a list
    for path, named in (
        (f"{members}?node={node['uuid']}", "node and portgroup (this path's)"),
        (f"/v1/nodes/{node['uuid']}/ports?portgroup=x", "node (this path's) and portgroup"),
    ):
        refused = api.get(path)
        assert refused.status_code == 403, (path, refused.text)
        assert fault(refused) == (
            "Operation not permitted: a port list is narrowed by one of node, portgroup and "
            f"shard at a time; this request gives {named}."
        )
    # nodes are named from 1.5
    assert api.get("/v1/ports?node=nested-owner", version="1.5").status_code == 200
    early = api.get("/v1/ports?node=nested-owner", version="1.4")
    assert early.status_code == 406
    assert "'nested-owner'" in fault(early) and "1.5" in fault(early)
    assert api.get(f"/v1/ports?node={node['uuid']}", version="1.4").status_code == 200


def test_link_fields_are_taken_in_fields(api: Api) -> None:
    node = api.node()
    group = api.portgroup(node)
    port = api.port(node, "52:54:00:00:08:01")
    shown = api.get(f"/v1/ports/{port['uuid']}?fields=links").json()
    assert set(shown) == {"links"}
    assert shown["links"][0]["href"].endswith(f"/v1/ports/{port['uuid']}")
    listed = api.get(f"/v1/ports?node={node['uuid']}&fields=uuid,links").json()["ports"]
    assert [set(p) for p in listed] == [{"uuid", "links"}]
    with_ports = api.get(f"/v1/portgroups/{group['uuid']}?fields=uuid,ports").json()
    assert set(with_ports) == {"uuid", "links", "ports"}
    assert with_ports["ports"][0]["href"].endswith(f"/v1/portgroups/{group['uuid']}/ports")
    without = api.get(f"/v1/portgroups/{group['uuid']}?fields=uuid").json()
    assert set(without) == {"uuid", "links"}
    assert "ports" not in api.get(f"/v1/portgroups?node={node['uuid']}").json()["portgroups"][0]
    assert "ports" in api.get(f"/v1/portgroups/{group['uuid']}").json()


def test_dynamic_portgroup_flag_is_a_json_boolean(api: Api) -> None:
    node = api.node()
    body = {"node_uuid": node["uuid"], "address": "52:54:00:00:09:01"}
    for value in ("true", 1, None):
        for version in ("1.78", "1.111"):
            resp = api.post(
                "/v1/ports", {**body, "available_for_dynamic_portgroup": value}, version=version
            )
            assert resp.status_code == 400, (value, version, resp.text)
            assert "available_for_dynamic_portgroup" in fault(resp)
    port = api.port(node, body["address"])
    op = {"op": "replace", "path": "/available_for_dynamic_portgroup", "value": "false"}
    refused = api.patch(f"/v1/ports/{port['uuid']}", [op], version="1.111")
    assert refused.status_code == 400, refused.text
    assert fault(refused) == (
        'Invalid value for field available_for_dynamic_portgroup: "false"; use true or false '
        "(a JSON boolean)."
    )
    taken = api.patch(f"/v1/ports/{port['uuid']}", [{**op, "value": False}], version="1.111")
    assert taken.json()["available_for_dynamic_portgroup"] is False


def test_portgroup_mode_and_properties_below_1_26_are_refused_only_when_they_say_something(
    api: Api,
) -> None:
    node = api.node()
    for said in ({"mode": None}, {"mode": ""}, {"properties": {}}, {"properties": None}):
        resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"], **said}, version="1.25")
        assert resp.status_code == 201, (said, resp.text)
        shown = api.get(f"/v1/portgroups/{resp.json()['uuid']}", version="1.26").json()
        assert (shown["mode"], shown["properties"]) == ("active-backup", {})
    for said in ({"mode": "802.3ad"}, {"properties": {"miimon": "100"}}):
        resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"], **said}, version="1.25")
        assert resp.status_code == 406, (said, resp.text)
