"""Fields, filters and verbs of API 1.83 to 1.104, each refused or hidden below its version
as Ironic 39 does and working at it (raw HTTP; the real clients are in tests/compat)."""

from __future__ import annotations

import pytest

from metalwire.api import fields as declared
from metalwire.api import microversion as mv
from metalwire.api_versions import MAX_MINOR
from tests.conftest import Api, fault, routing_error

NOT_ACCEPTABLE = "Request not acceptable. The minimal required API version should be 1.{}"

# (resource, field, version) from Ironic 39's version list: hidden below, shown from it.
SHOWN_FROM = [
    ("nodes", "parent_node", 83),
    ("nodes", "firmware_interface", 86),
    ("nodes", "service_step", 87),
    ("nodes", "disable_power_off", 95),
    ("nodes", "instance_name", 104),
    ("ports", "name", 88),
    ("ports", "description", 97),
    ("ports", "vendor", 100),
    ("ports", "category", 101),
]


def _resource(api: Api, kind: str) -> str:
    node = api.node()
    if kind == "nodes":
        return f"/v1/nodes/{node['uuid']}"
    return f"/v1/ports/{api.port(node, '52:54:00:aa:00:01')['uuid']}"


@pytest.mark.parametrize(("kind", "name", "since"), SHOWN_FROM)
def test_a_field_is_hidden_below_its_version_and_shown_from_it(
    api: Api, kind: str, name: str, since: int
) -> None:
    url = _resource(api, kind)
    assert name not in api.get(url, version=f"1.{since - 1}").json()
    assert name in api.get(url, version=f"1.{since}").json()


@pytest.mark.parametrize(("kind", "name", "since"), SHOWN_FROM)
def test_setting_a_field_below_its_version_is_refused_where_ironic_refuses_it(
    api: Api, kind: str, name: str, since: int
) -> None:
    if name == "service_step":
        pytest.skip("read-only")
    value: object = True if name == "disable_power_off" else "x"
    url = _resource(api, kind)
    patch = [{"op": "add", "path": f"/{name}", "value": value}]
    declared_field = declared.by_name(
        declared.NODE_FIELDS if kind == "nodes" else declared.PORT_FIELDS
    )[name]
    # What Ironic 39's PATCH takes at every version (test_newer_gates.py checks it is shown
    # only from its version) is 200; everything else 406.
    expected = 406 if declared_field.patch_gated else 200
    assert api.patch(url, patch, version=f"1.{since - 1}").status_code == expected


@pytest.mark.parametrize(
    "declared_filter",
    [f for f in (*declared.NODE_FILTERS, *declared.PORT_FILTERS) if 79 <= f.since <= MAX_MINOR],
    ids=lambda f: f.name,
)
def test_every_newer_filter_is_refused_below_its_version_when_ironic_gates_it(
    api: Api, declared_filter: declared.Filter
) -> None:
    collection = "nodes" if declared_filter in declared.NODE_FILTERS else "ports"
    value = "true" if declared_filter.kind == "bool" else "x"
    url = f"/v1/{collection}?{declared_filter.name}={value}"
    below = api.get(url, version=f"1.{declared_filter.since - 1}")
    if declared_filter.gated:
        assert below.status_code == 406, below.text
        assert fault(below) == declared_filter.refusal_message(
            mv.Version(declared_filter.since - 1)
        )
    else:
        assert below.status_code == 200, below.text
    assert api.get(url, version=f"1.{declared_filter.since}").status_code == 200


def test_children_are_hidden_from_lists_unless_asked_for(api: Api) -> None:
    parent = api.node(name="parent-1")
    child = api.node(name="child-1", parent_node="parent-1")
    assert child["parent_node"] == parent["uuid"]  # a name is stored as the UUID
    names = lambda url: sorted(n["name"] for n in api.get(url).json()["nodes"])  # noqa: E731
    assert "child-1" not in names("/v1/nodes")
    assert "child-1" in names("/v1/nodes?include_children=true")
    assert names(f"/v1/nodes?parent_node={parent['uuid']}") == ["child-1"]
    children = api.get("/v1/nodes/parent-1/children")
    assert children.status_code == 200
    assert children.json()["children"] == [child["uuid"]]
    old = api.get("/v1/nodes/parent-1/children", version="1.82")
    assert old.status_code == 404
    assert routing_error(old)["code"] == 404


def test_a_parent_that_does_not_exist_or_is_the_node_itself_is_refused(api: Api) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "parent_node": "nowhere"})
    assert resp.status_code == 400
    assert fault(resp) == (
        "Unable to apply the requested parent_node 'nowhere'. Requested value was invalid."
    )
    node = api.node(name="lonely")
    patch = [{"op": "add", "path": "/parent_node", "value": node["uuid"]}]
    assert api.patch("/v1/nodes/lonely", patch).status_code == 400


def test_firmware_interface_defaults_to_the_hardware_types(api: Api) -> None:
    assert api.node()["firmware_interface"] == "fake"
    assert api.node(driver="ipmi")["firmware_interface"] == "no-firmware"


def test_port_name_is_unique_and_an_ident(api: Api) -> None:
    node = api.node()
    port = api.port(node, "52:54:00:bb:00:01", name="eth0-a", description="left", vendor="acme")
    assert (port["name"], port["description"], port["vendor"]) == ("eth0-a", "left", "acme")
    assert api.get("/v1/ports/eth0-a").json()["uuid"] == port["uuid"]
    patched = api.patch("/v1/ports/eth0-a", [{"op": "add", "path": "/category", "value": "nic"}])
    assert patched.status_code == 200 and patched.json()["category"] == "nic"
    dup = api.post(
        "/v1/ports", {"node_uuid": node["uuid"], "address": "52:54:00:bb:00:02", "name": "eth0-a"}
    )
    assert dup.status_code == 409
    assert "eth0-a" in fault(dup)
    assert api.delete("/v1/ports/eth0-a").status_code == 204


def test_port_create_names_its_node_by_name_from_1_94(api: Api) -> None:
    api.node(name="by-name")
    body = {"node_ident": "by-name", "address": "52:54:00:cc:00:01"}
    old = api.post("/v1/ports", body, version="1.93")
    assert old.status_code == 406
    created = api.post("/v1/ports", body, version="1.94")
    assert created.status_code == 201, created.text
    missing = api.post("/v1/ports", {**body, "node_ident": "nowhere"}, version="1.94")
    assert missing.status_code == 400
    assert fault(missing) == "Node nowhere could not be found."


def test_ports_are_filtered_by_their_nodes_conductor_group(api: Api) -> None:
    east, west = api.node(conductor_group="east"), api.node(conductor_group="west")
    api.port(east, "52:54:00:dd:00:01")
    api.port(west, "52:54:00:dd:00:02")
    listed = api.get("/v1/ports?conductor_groups=east").json()["ports"]
    assert [p["address"] for p in listed] == ["52:54:00:dd:00:01"]
    both = api.get(f"/v1/ports?conductor_groups=east&node={east['uuid']}")
    assert both.status_code == 400


def test_a_conductor_group_is_stored_lowercased_and_matched_whatever_its_case(api: Api) -> None:
    """As Ironic: a conductor group is case-insensitive, so it is stored lowercased, and
    Nova's ``[ironic] conductor_group`` finds its nodes however either was written."""
    east = api.node(conductor_group="East-1")
    assert east["conductor_group"] == "east-1"
    api.port(east, "52:54:00:dd:00:03")
    west = api.node(name="west")
    patched = api.patch(
        "/v1/nodes/west", [{"op": "add", "path": "/conductor_group", "value": "WEST"}]
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["conductor_group"] == "west"
    # a group stored with its capitals before they were lowered is found all the same
    services = api.client.app.state.services  # type: ignore[attr-defined]
    with services.db.writing() as work:
        work.nodes.update(work.nodes.get(west["uuid"]).id, {"conductor_group": "West"})
    for query, names in (("EAST-1", [east["uuid"]]), ("west", [west["uuid"]])):
        listed = api.get(f"/v1/nodes?conductor_group={query}&fields=uuid").json()["nodes"]
        assert [n["uuid"] for n in listed] == names
    ports = api.get("/v1/ports?conductor_groups=EAST-1").json()["ports"]
    assert [p["address"] for p in ports] == ["52:54:00:dd:00:03"]


@pytest.mark.parametrize("group", ["rack 1", "rack/1", "räck", 7])
def test_a_conductor_group_outside_ironics_characters_is_400_naming_it(
    api: Api, group: object
) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "conductor_group": group})
    assert resp.status_code == 400, resp.text
    assert "conductor_group" in fault(resp)
    assert api.get("/v1/nodes").json()["nodes"] == []
    node = api.node(name="kept", conductor_group="g")
    resp = api.patch(
        "/v1/nodes/kept", [{"op": "replace", "path": "/conductor_group", "value": group}]
    )
    assert resp.status_code == 400, resp.text
    assert "conductor_group" in fault(resp)
    assert api.get("/v1/nodes/kept").json()["conductor_group"] == node["conductor_group"]


def test_service_and_unhold_verbs_gated_and_run_on_the_fake_machine(api: Api) -> None:
    node = api.node(name="svc")
    for verb in ("manage", "provide", "active"):
        resp = api.put("/v1/nodes/svc/states/provision", {"target": verb})
        assert resp.status_code == 202, resp.text
    steps = [{"interface": "deploy", "step": "hold"}]
    old = api.put(
        "/v1/nodes/svc/states/provision",
        {"target": "service", "service_steps": steps},
        version="1.86",
    )
    assert old.status_code == 406
    missing = api.put("/v1/nodes/svc/states/provision", {"target": "service"})
    assert missing.status_code == 400
    ok = api.put("/v1/nodes/svc/states/provision", {"target": "service", "service_steps": steps})
    assert ok.status_code == 202, ok.text
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["provision_state"] == "service hold"
    assert (
        api.put("/v1/nodes/svc/states/provision", {"target": "unhold"}, version="1.84").status_code
        == 406
    )
    unhold = api.put("/v1/nodes/svc/states/provision", {"target": "unhold"})
    assert unhold.status_code == 202, unhold.text
    assert api.get(f"/v1/nodes/{node['uuid']}").json()["provision_state"] == "active"
    again = api.put("/v1/nodes/svc/states/provision", {"target": "unhold"})
    assert again.status_code == 400
    assert '"unhold"' in fault(again) and '"active"' in fault(again)


def _patchable(api: Api) -> list[str]:
    """A node, a port, a portgroup and a volume connector: every object a PATCH changes."""
    node = api.node()
    # a volume connector changes only while its node is powered off
    off = api.put(f"/v1/nodes/{node['uuid']}/states/power", {"target": "power off"})
    assert off.status_code == 202, off.text
    connector = {"node_uuid": node["uuid"], "type": "iqn", "connector_id": "iqn.2026-01.x:1"}
    made = api.post("/v1/volume/connectors", connector)
    assert made.status_code == 201, made.text
    return [
        f"/v1/nodes/{node['uuid']}",
        f"/v1/ports/{api.port(node, '52:54:00:ab:00:01')['uuid']}",
        f"/v1/portgroups/{api.portgroup(node)['uuid']}",
        f"/v1/volume/connectors/{made.json()['uuid']}",
    ]


# Ironic 39 checks every patch against one schema before applying it: a path is "/"-separated
# parts of letters, digits, "_" and "-". 1.98 announces "~0"/"~1" escapes in patched keys,
# but that schema refuses them first, at every version (400).
@pytest.mark.parametrize(
    ("path", "wrong"),
    [
        ("/extra/x~1y", "'x~1y'"),
        ("/extra/a~0b", "'a~0b'"),
        ("/extra/a.b", "'a.b'"),
        ("/extra/a b", "'a b'"),
        ("/extra/", "empty part"),
        ("/extra//a", "empty part"),
        ("extra/a", "start with '/'"),
    ],
)
def test_a_patch_path_outside_ironics_grammar_is_refused_at_every_version(
    api: Api, path: str, wrong: str
) -> None:
    for url in _patchable(api):
        before = api.get(url).json()["extra"]
        for version in ("1.78", "1.97", "1.98", f"1.{MAX_MINOR}"):
            resp = api.patch(url, [{"op": "add", "path": path, "value": 1}], version=version)
            assert resp.status_code == 400, (url, version, resp.text)
            assert f"Invalid patch path {path!r}" in fault(resp) and wrong in fault(resp)
        assert api.get(url).json()["extra"] == before


def test_a_path_is_checked_before_any_operation_is_applied(api: Api) -> None:
    # the patch as a whole, as Ironic's schema: a field above the version (406) in a first
    # operation does not hide a malformed path in a later one (400)
    url = _patchable(api)[0]
    patch = [
        {"op": "add", "path": "/instance_name", "value": "i"},
        {"op": "add", "path": "/extra/a.b", "value": 1},
    ]
    resp = api.patch(url, patch, version="1.103")
    assert resp.status_code == 400 and "'/extra/a.b'" in fault(resp)


def test_an_operation_with_a_member_ironic_does_not_take_is_refused(api: Api) -> None:
    url = _patchable(api)[0]
    resp = api.patch(url, [{"op": "add", "path": "/extra/a", "value": 1, "from": "/extra/b"}])
    assert resp.status_code == 400 and "'from'" in fault(resp)
    assert api.get(url).json()["extra"] == {}


def test_a_patch_path_of_word_characters_in_any_script_is_taken(api: Api) -> None:
    for url in _patchable(api):
        patch = [{"op": "add", "path": f"/extra/{key}", "value": 1} for key in ("rack-7_a", "é")]
        resp = api.patch(url, patch, version="1.98")
        assert resp.status_code == 200, resp.text
        assert resp.json()["extra"] == {"rack-7_a": 1, "é": 1}


def test_responses_carry_both_request_id_headers(api: Api) -> None:
    resp = api.get("/v1/nodes")
    assert resp.headers["x-openstack-request-id"] == resp.headers["openstack-request-id"]
