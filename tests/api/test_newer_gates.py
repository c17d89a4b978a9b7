"""The gates of API 1.105 to 1.115 through HTTP, each at its version-1 and at its version,
as Ironic 39 answers them."""

from __future__ import annotations

import re

import pytest

from tests.conftest import Api, fault

VTEP_LINK = {
    "port_id": "Ethernet1/1",
    "switch_id": "00:00:5e:00:53:01",
    "vtep-logical-switch": "ls-1",
    "vtep-physical-switch": "ps-1",
}


# Ironic 39 takes OVN VTEP keys from 1.90 and refuses them again from 1.105 (406); below
# 1.90 too. metalwire does not emulate the keys where Ironic took them (400, unknown keys).
@pytest.mark.parametrize(
    ("version", "status"), [("1.89", 406), ("1.90", 400), ("1.104", 400), ("1.105", 406)]
)
def test_ovn_vtep_keys_of_a_local_link_connection(api: Api, version: str, status: int) -> None:
    node = api.node()
    body = {"node_uuid": node["uuid"], "address": "52:54:00:f1:00:01"}
    created = api.post("/v1/ports", {**body, "local_link_connection": VTEP_LINK}, version=version)
    assert created.status_code == status, created.text
    assert "vtep-logical-switch" in fault(created)
    port = api.port(node, "52:54:00:f1:00:02")
    patch = [{"op": "add", "path": "/local_link_connection", "value": VTEP_LINK}]
    patched = api.patch(f"/v1/ports/{port['uuid']}", patch, version=version)
    assert patched.status_code == status, patched.text
    plain = {k: v for k, v in VTEP_LINK.items() if not k.startswith("vtep-")}
    patch = [{"op": "add", "path": "/local_link_connection", "value": plain}]
    assert api.patch(f"/v1/ports/{port['uuid']}", patch, version=version).status_code == 200


REQUEST_ID = re.compile(r"^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


# 1.107 names X-OpenStack-Request-Id in Ironic 39's version list, but nothing in Ironic 39
# reads the version for it: its oslo.middleware RequestId (with openstack-request-id as the
# compat header) sends both on every answer, at every version, a new req-<uuid> each time.
@pytest.mark.parametrize("version", ["1.1", "1.106", "1.107", "latest", "1.9999", "x"])
@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/nodes"), ("GET", "/v1/nowhere"), ("DELETE", "/v1"), ("GET", "/")],
)
def test_both_request_id_headers_on_every_answer_at_every_version(
    api: Api, version: str, method: str, path: str
) -> None:
    sent = "req-00000000-0000-4000-8000-000000000001"
    headers = {**api.headers(version), "X-OpenStack-Request-Id": sent}
    resp = api.client.request(method, path, headers=headers)
    assert REQUEST_ID.match(resp.headers["x-openstack-request-id"]), resp.headers
    assert resp.headers["openstack-request-id"] == resp.headers["x-openstack-request-id"]
    assert resp.headers["x-openstack-request-id"] != sent


def _active_node(api: Api) -> dict[str, object]:
    node = api.node()
    for verb in ("manage", "provide", "active"):
        resp = api.put(f"/v1/nodes/{node['uuid']}/states/provision", {"target": verb})
        assert resp.status_code == 202, resp.text
    return node


SERVICE_STEPS = [{"interface": "vendor", "step": "log_passthrough"}]


# Ironic 39: disable_ramdisk is taken by service from 1.108 (406 below, with its message), by
# clean from 1.70, by no other verb (400), and must be a boolean (400) at every version.
@pytest.mark.parametrize(
    ("target", "value", "version", "status", "words"),
    [
        ("service", True, "1.107", 406, "disable_ramdisk is not acceptable in this API version"),
        ("service", True, "1.108", 202, None),
        ("service", "false", "1.108", 202, None),
        ("service", "maybe", "1.108", 400, "disable_ramdisk"),
        ("service", "maybe", "1.107", 400, "disable_ramdisk"),
        ("rebuild", True, "1.108", 400, "only with manual cleaning or servicing"),
    ],
)
def test_disable_ramdisk_on_the_service_verb(
    api: Api, target: str, value: object, version: str, status: int, words: str | None
) -> None:
    node = _active_node(api)
    body = {"target": target, "disable_ramdisk": value}
    if target == "service":
        body["service_steps"] = SERVICE_STEPS
    resp = api.put(f"/v1/nodes/{node['uuid']}/states/provision", body, version=version)
    assert resp.status_code == status, resp.text
    if words is not None:
        assert words in fault(resp)
    shown = api.get(f"/v1/nodes/{node['uuid']}").json()
    assert shown["provision_state"] == "active"
    assert "service_disable_ramdisk" not in shown["driver_internal_info"]


def test_disable_ramdisk_is_checked_before_the_service_steps(api: Api) -> None:
    node = _active_node(api)
    path = f"/v1/nodes/{node['uuid']}/states/provision"
    below = api.put(path, {"target": "service", "disable_ramdisk": True}, version="1.107")
    assert below.status_code == 406, below.text
    at = api.put(path, {"target": "service", "disable_ramdisk": True}, version="1.108")
    assert at.status_code == 400 and '"service_steps" is required' in fault(at)


# 1.109: node health, what the BMC reports (OK, Warning, Critical), cached by Ironic 39's
# power sync from drivers that read it (Redfish); fake-hardware reports none: null. Shown from
# 1.109 (and ?fields=health is 406 below), set by no request at any version (400).
def test_node_health_is_shown_from_1_109_and_never_set(api: Api) -> None:
    node = api.node()
    url = f"/v1/nodes/{node['uuid']}"
    assert "health" not in api.get(url, version="1.108").json()
    assert api.get(url, version="1.109").json()["health"] is None
    listed = api.get("/v1/nodes/detail", version="1.109").json()["nodes"]
    assert [n["health"] for n in listed] == [None]
    assert api.get(f"{url}?fields=uuid,health", version="1.108").status_code == 406
    assert api.get(f"{url}?fields=uuid,health", version="1.109").json() == {
        "uuid": node["uuid"],
        "health": None,
        "links": api.get(url).json()["links"],
    }
    for version in ("1.108", "1.109"):
        patch = [{"op": "add", "path": "/health", "value": "OK"}]
        patched = api.patch(url, patch, version=version)
        assert patched.status_code == 400, patched.text
        assert "/health" in fault(patched)
        made = api.post("/v1/nodes", {"driver": "fake-hardware", "health": "OK"}, version=version)
        assert made.status_code == 400, made.text
        assert "health" in fault(made)


# 1.111: a port's available_for_dynamic_portgroup (true unless set otherwise, a boolean, 406
# when given on create or named in ?fields= below 1.111, patched at any version) and a
# portgroup's dynamic_portgroup (false, made by the conductor's trait-based networking only:
# 400 when a client sets it, at any version).
@pytest.mark.parametrize(("version", "status"), [("1.110", 406), ("1.111", 201)])
def test_port_available_for_dynamic_portgroup_on_create(
    api: Api, version: str, status: int
) -> None:
    node = api.node()
    body = {"node_uuid": node["uuid"], "address": "52:54:00:f1:01:01"}
    made = api.post("/v1/ports", {**body, "available_for_dynamic_portgroup": False}, version)
    assert made.status_code == status, made.text
    if status == 201:
        assert made.json()["available_for_dynamic_portgroup"] is False


def test_port_available_for_dynamic_portgroup_shown_from_1_111(api: Api) -> None:
    port = api.port(api.node(), "52:54:00:f1:01:02")
    url = f"/v1/ports/{port['uuid']}"
    assert "available_for_dynamic_portgroup" not in api.get(url, version="1.110").json()
    assert api.get(url, version="1.111").json()["available_for_dynamic_portgroup"] is True
    fields = f"{url}?fields=uuid,available_for_dynamic_portgroup"
    assert api.get(fields, version="1.110").status_code == 406
    assert api.get(fields, version="1.111").json()["available_for_dynamic_portgroup"] is True
    # Ironic 39's port PATCH checks no version for it: taken at every version, shown from 1.111
    off = [{"op": "replace", "path": "/available_for_dynamic_portgroup", "value": False}]
    old = api.patch(url, off, version="1.110")
    assert old.status_code == 200 and "available_for_dynamic_portgroup" not in old.json()
    assert api.get(url, version="1.111").json()["available_for_dynamic_portgroup"] is False
    on = [{"op": "replace", "path": "/available_for_dynamic_portgroup", "value": True}]
    patched = api.patch(url, on, version="1.111")
    assert patched.status_code == 200 and patched.json()["available_for_dynamic_portgroup"] is True
    null = [{"op": "replace", "path": "/available_for_dynamic_portgroup", "value": None}]
    for version in ("1.78", "1.111"):
        refused = api.patch(url, null, version=version)
        assert refused.status_code == 400 and "available_for_dynamic_portgroup" in fault(refused)
        body = {"node_uuid": port["node_uuid"], "address": "52:54:00:f1:01:03"}
        made = api.post("/v1/ports", {**body, "available_for_dynamic_portgroup": None}, version)
        assert made.status_code == 400, made.text


# Ironic 39's port PATCH checks the version of none of these (only the advanced network
# fields, portgroup_uuid, physical_network, is_smartnic and network_type): taken below their
# version, shown from it; creating with one below it stays 406.
@pytest.mark.parametrize(
    ("name", "since", "value"),
    [("name", 88, "eth-patched"), ("description", 97, "rack 7"), ("vendor", 100, "acme"),
     ("category", 101, "storage")],
)  # fmt: skip
def test_port_fields_patched_below_their_version(
    api: Api, name: str, since: int, value: str
) -> None:
    port = api.port(api.node(), f"52:54:00:f2:01:{since:02x}")
    url = f"/v1/ports/{port['uuid']}"
    below = f"1.{since - 1}"
    patched = api.patch(url, [{"op": "add", "path": f"/{name}", "value": value}], version=below)
    assert patched.status_code == 200, patched.text
    assert name not in patched.json()
    assert api.get(url, version=f"1.{since}").json()[name] == value
    body = {"node_uuid": port["node_uuid"], "address": "52:54:00:f2:02:01", name: value}
    assert api.post("/v1/ports", body, below).status_code == 406


@pytest.mark.parametrize("version", ["1.110", "1.111"])
def test_portgroup_dynamic_portgroup_is_never_set_by_a_client(api: Api, version: str) -> None:
    node = api.node()
    body = {"node_uuid": node["uuid"], "dynamic_portgroup": True}
    made = api.post("/v1/portgroups", body, version=version)
    assert made.status_code == 400 and "dynamic_portgroup" in fault(made)
    group = api.portgroup(node)
    url = f"/v1/portgroups/{group['uuid']}"
    patch = [{"op": "replace", "path": "/dynamic_portgroup", "value": True}]
    patched = api.patch(url, patch, version=version)
    assert patched.status_code == 400 and "dynamic_portgroup" in fault(patched)
    shown = api.get(url, version=version).json()
    fields = api.get(f"{url}?fields=uuid,dynamic_portgroup", version=version)
    if version == "1.110":
        assert "dynamic_portgroup" not in shown and fields.status_code == 406
    else:
        assert shown["dynamic_portgroup"] is False and fields.json()["dynamic_portgroup"] is False


# Node history: a detailed entry (?detail=true, or GET of one entry) shows the project from
# 1.113, and the node's provision state, target and seconds in that state when the entry was
# written from 1.115; the short list shows none of them at any version.
@pytest.mark.parametrize(
    ("version", "shown"),
    [
        ("1.112", set()),
        ("1.113", {"project"}),
        ("1.114", {"project"}),
        ("1.115", {"project", "state", "target_provision_state", "duration_seconds"}),
    ],
)
def test_node_history_fields_by_version(api: Api, version: str, shown: set[str]) -> None:
    node = api.node()
    url = f"/v1/nodes/{node['uuid']}"
    assert api.put(f"{url}/states/provision", {"target": "manage"}).status_code == 202
    newer = {"project", "state", "target_provision_state", "duration_seconds"}
    detailed = api.get(f"{url}/history?detail=true", version=version).json()["history"]
    assert detailed and all(newer & set(entry) == shown for entry in detailed)
    one = api.get(f"{url}/history/{detailed[0]['uuid']}", version=version).json()
    assert newer & set(one) == shown
    short = api.get(f"{url}/history", version=version).json()["history"]
    assert all(not newer & set(entry) for entry in short)


def test_node_history_records_the_state_the_node_was_in(api: Api) -> None:
    node = api.node()
    url = f"/v1/nodes/{node['uuid']}"
    for verb in ("manage", "provide"):
        assert api.put(f"{url}/states/provision", {"target": verb}).status_code == 202
    entries = api.get(f"{url}/history?detail=true", version="1.115").json()["history"]
    started = next(e for e in entries if e["event"].startswith("manage started"))
    assert (started["state"], started["target_provision_state"]) == ("enroll", None)
    done = next(e for e in entries if e["event"].startswith("provide done"))
    assert done["state"] == "available" and done["target_provision_state"] is None
    during = next(e for e in entries if e["event"].startswith("provide started"))
    assert during["state"] == "manageable"
    assert all(e["duration_seconds"] is None or e["duration_seconds"] >= 0 for e in entries)
    assert isinstance(done["duration_seconds"], int)


def test_removing_available_for_dynamic_portgroup_puts_back_its_default(api: Api) -> None:
    """As Ironic 39: a remove gives the field its default (true); a null value is a 400."""
    port = api.port(api.node(), "52:54:00:f1:01:04", available_for_dynamic_portgroup=False)
    url = f"/v1/ports/{port['uuid']}"
    remove = [{"op": "remove", "path": "/available_for_dynamic_portgroup"}]
    removed = api.patch(url, remove)
    assert removed.status_code == 200, removed.text
    assert removed.json()["available_for_dynamic_portgroup"] is True
    null = [{"op": "add", "path": "/available_for_dynamic_portgroup", "value": None}]
    refused = api.patch(url, null)
    assert refused.status_code == 400 and "available_for_dynamic_portgroup" in fault(refused)
    assert api.get(url).json()["available_for_dynamic_portgroup"] is True
