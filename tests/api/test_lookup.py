"""``/v1/metalwire`` and ``/v1/metalwire/node_summaries``: the topology page's node list a page
at a time with its counts, and the search by name, UUID, MAC address or VIF id."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from metalwire.db.models import Port
from tests.conftest import Api, fault

SUMMARIES = "/v1/metalwire/node_summaries"


def _wired(api: Api, name: str, mac: str, vif: str | None = None) -> dict[str, Any]:
    """A flat node with a bond (one member) and a standalone port on physnet-a, and a VIF on
    the standalone port when ``vif`` is given."""
    node = api.node(name=name, network_interface="flat")
    bond = api.portgroup(node, name=f"{name}-bond", address=f"{mac[:-2]}f0")
    api.port(node, f"{mac[:-2]}f1", portgroup_uuid=bond["uuid"])
    port = api.port(node, mac, physical_network="physnet-a")
    if vif is not None:
        resp = api.post(f"/v1/nodes/{node['uuid']}/vifs", {"id": vif, "port_uuid": port["uuid"]})
        assert resp.status_code == 204, resp.text
    return {"node": node, "bond": bond, "port": port}


def _summaries(api: Api, query: str = "") -> dict[str, Any]:
    resp = api.get(f"{SUMMARIES}{query}")
    assert resp.status_code == 200, resp.text
    return dict(resp.json())


def test_the_metalwire_document_announces_the_dry_run_attach(api: Api) -> None:
    resp = api.get("/v1/metalwire")
    assert resp.status_code == 200
    assert "vif_attach_dry_run" in resp.json()["features"]
    assert resp.json()["dry_run_header"] == "X-Metalwire-Dry-Run"


def test_a_summary_counts_the_nodes_ports_portgroups_and_vifs(api: Api) -> None:
    wired = _wired(api, "compute-1", "52:54:00:00:01:01", vif="tenant-1")
    bare = api.node(name="bare-1")
    rows = {row["uuid"]: row for row in _summaries(api)["nodes"]}
    assert rows[wired["node"]["uuid"]] == {
        "uuid": wired["node"]["uuid"],
        "name": "compute-1",
        "provision_state": "enroll",
        "network_interface": "flat",
        "maintenance": False,
        "ports": 2,
        "portgroups": 1,
        "dynamic_portgroups": 0,
        "vifs": 1,
        "physical_networks": ["physnet-a"],
        "matched": [],
    }
    assert (rows[bare["uuid"]]["ports"], rows[bare["uuid"]]["vifs"]) == (0, 0)


def test_summaries_come_a_page_at_a_time_with_a_next_link(api: Api) -> None:
    uuids = [api.node(name=f"rack-{i}")["uuid"] for i in range(5)]
    first = _summaries(api, "?limit=2")
    assert [row["uuid"] for row in first["nodes"]] == uuids[:2]
    assert "marker=" + uuids[1] in first["next"]
    second = _summaries(api, f"?limit=2&marker={uuids[1]}")
    assert [row["uuid"] for row in second["nodes"]] == uuids[2:4]
    last = _summaries(api, f"?limit=2&marker={uuids[3]}")
    assert [row["uuid"] for row in last["nodes"]] == uuids[4:]
    assert "next" not in last


def test_a_search_keeps_its_query_in_the_next_link(api: Api) -> None:
    for i in range(3):
        api.node(name=f"rack-{i}")
    api.node(name="other")
    first = _summaries(api, "?q=rack&limit=2")
    assert [row["name"] for row in first["nodes"]] == ["rack-0", "rack-1"]
    assert "q=rack" in first["next"]


def test_a_part_of_a_name_finds_the_node_in_any_case(api: Api) -> None:
    api.node(name="compute-117")
    api.node(name="compute-17")
    found = _summaries(api, "?q=UTE-11")["nodes"]
    assert [row["name"] for row in found] == ["compute-117"]
    assert found[0]["matched"] == [{"field": "name", "value": "compute-117", "uuid": None}]


def test_a_percent_sign_is_searched_for_not_a_wildcard(api: Api) -> None:
    api.node(name="compute-1")
    assert _summaries(api, "?q=%25")["nodes"] == []
    assert _summaries(api, "?q=c_mpute")["nodes"] == []


def test_a_uuid_finds_its_node(api: Api) -> None:
    node = api.node(name="compute-1")
    api.node(name="compute-2")
    found = _summaries(api, f"?q={node['uuid'].upper()}")["nodes"]
    assert [row["uuid"] for row in found] == [node["uuid"]]
    assert found[0]["matched"] == [{"field": "uuid", "value": node["uuid"], "uuid": None}]


def test_a_mac_in_any_spelling_finds_the_node_of_its_port(api: Api) -> None:
    wired = _wired(api, "compute-1", "52:54:00:00:01:01")
    _wired(api, "compute-2", "52:54:00:00:02:01")
    port = wired["port"]["uuid"]
    for spelling in ("52:54:00:00:01:01", "52-54-00-00-01-01", "5254.0000.0101", "525400000101"):
        found = _summaries(api, f"?q={spelling.upper()}")["nodes"]
        assert [row["name"] for row in found] == ["compute-1"], spelling
        assert found[0]["matched"] == [
            {"field": "port_address", "value": "52:54:00:00:01:01", "uuid": port}
        ]


def test_a_bonds_mac_or_name_finds_its_node(api: Api) -> None:
    wired = _wired(api, "compute-1", "52:54:00:00:01:01")
    _wired(api, "compute-2", "52:54:00:00:02:01")
    bond = wired["bond"]["uuid"]
    by_mac = _summaries(api, "?q=52:54:00:00:01:f0")["nodes"]
    assert [row["name"] for row in by_mac] == ["compute-1"]
    assert by_mac[0]["matched"] == [
        {"field": "portgroup_address", "value": "52:54:00:00:01:f0", "uuid": bond}
    ]
    by_name = _summaries(api, "?q=compute-1-bond")["nodes"]
    assert [row["name"] for row in by_name] == ["compute-1"]
    assert {"field": "portgroup_name", "value": "compute-1-bond", "uuid": bond} in by_name[0][
        "matched"
    ]


def test_a_port_uuid_finds_its_node(api: Api) -> None:
    wired = _wired(api, "compute-1", "52:54:00:00:01:01")
    port = wired["port"]["uuid"]
    found = _summaries(api, f"?q={port}")["nodes"]
    assert [row["name"] for row in found] == ["compute-1"]
    assert found[0]["matched"] == [{"field": "port_uuid", "value": port, "uuid": port}]


def test_a_vif_id_finds_the_node_it_is_attached_to(api: Api) -> None:
    _wired(api, "compute-1", "52:54:00:00:01:01", vif="tenant-1")
    _wired(api, "compute-2", "52:54:00:00:02:01", vif="tenant-2")
    found = _summaries(api, "?q=tenant-2")["nodes"]
    assert [row["name"] for row in found] == ["compute-2"]
    assert found[0]["matched"] == [{"field": "vif", "value": "tenant-2", "uuid": None}]


def test_a_vif_id_is_matched_exactly(api: Api) -> None:
    _wired(api, "compute-1", "52:54:00:00:01:01", vif="tenant-1")
    assert _summaries(api, "?q=tenant")["nodes"] == []


def test_a_search_that_matches_nothing_is_an_empty_page(api: Api) -> None:
    api.node(name="compute-1")
    assert _summaries(api, "?q=nothing-like-it") == {"nodes": []}


def test_a_blank_search_lists_every_node(api: Api) -> None:
    api.node(name="compute-1")
    assert len(_summaries(api, "?q=%20")["nodes"]) == 1


def test_a_search_longer_than_any_stored_value_is_refused_naming_q(api: Api) -> None:
    resp = api.get(f"{SUMMARIES}?q={'x' * 256}")
    assert resp.status_code == 400
    assert fault(resp).startswith("Invalid q 'xxxx")
    assert "at most 255 characters" in fault(resp)


def test_an_unknown_marker_is_a_404_naming_it(api: Api) -> None:
    marker = "2f1e8d4c-0000-4000-8000-000000000000"
    resp = api.get(f"{SUMMARIES}?marker={marker}")
    assert resp.status_code == 404
    assert fault(resp) == f"Node {marker} could not be found."


def test_a_vif_uuid_is_found_in_upper_case_too(api: Api) -> None:
    vif = "0a3f2c6e-0d6e-4f7e-9f0a-4d3c1f2b8e11"
    _wired(api, "compute-1", "52:54:00:00:01:01", vif=vif)
    found = _summaries(api, f"?q={vif.upper()}")["nodes"]
    assert [row["name"] for row in found] == ["compute-1"]
    assert found[0]["matched"] == [{"field": "vif", "value": vif, "uuid": None}]


def test_a_vif_being_attached_is_neither_counted_nor_found(api: Api) -> None:
    wired = _wired(api, "compute-1", "52:54:00:00:01:01")
    db = api.client.app.state.services.db  # type: ignore[attr-defined]
    with db.read() as session:
        port = session.get(Port, session.scalars(select(Port.id)).first())
    with db.writing() as work:
        work.attachments.record(port.node_id, "half-way", port, {}, pending=True)
    assert _summaries(api, "?q=half-way")["nodes"] == []
    [row] = _summaries(api)["nodes"]
    assert (row["uuid"], row["vifs"]) == (wired["node"]["uuid"], 0)
