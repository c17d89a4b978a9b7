"""``GET /v1/nodes/{node}/firmware`` (1.86): as Ironic 39 answers for a fake-hardware node."""

from __future__ import annotations

import pytest

from tests.conftest import Api, fault, routing_error

MISSING = "0e0e0e0e-1111-4222-8333-444444444444"


@pytest.mark.parametrize("interface", ["fake", "no-firmware"])
def test_a_node_lists_no_firmware_components(api: Api, interface: str) -> None:
    node = api.node(firmware_interface=interface)
    for version in ("1.86", "1.113", "1.114", None):
        resp = api.get(f"/v1/nodes/{node['uuid']}/firmware", version=version)
        assert resp.status_code == 200, resp.text
        assert resp.json() == {"firmware": []}


def test_a_node_is_named_by_uuid_or_name(api: Api) -> None:
    api.node(name="fw-by-name")
    assert api.get("/v1/nodes/fw-by-name/firmware").json() == {"firmware": []}


def test_below_1_86_there_is_no_such_resource(api: Api) -> None:
    node = api.node()
    resp = api.get(f"/v1/nodes/{node['uuid']}/firmware", version="1.85")
    assert resp.status_code == 404
    assert "it exists from 1.86" in routing_error(resp)["description"]


def test_an_unknown_node_is_404(api: Api) -> None:
    resp = api.get(f"/v1/nodes/{MISSING}/firmware")
    assert resp.status_code == 404
    assert MISSING in fault(resp)


@pytest.mark.parametrize(
    ("query", "version", "named"),
    [
        ("fields=component,colour", None, "colour"),
        ("fields=vendor,model", "1.113", "vendor, model"),
        ("fields=component&detail=true", None, "fields and detail"),
        ("detail=maybe", None, "detail"),
        ("limit=1", None, "limit"),
    ],
)
def test_a_query_ironic_refuses_is_400_naming_what_is_wrong(
    api: Api, query: str, version: str | None, named: str
) -> None:
    node = api.node()
    resp = api.get(f"/v1/nodes/{node['uuid']}/firmware?{query}", version=version)
    assert resp.status_code == 400, resp.text
    assert named in fault(resp)


@pytest.mark.parametrize(
    ("query", "version"),
    [
        ("fields=component,current_version", "1.86"),
        ("fields=vendor,model,serial_number", "1.114"),
        ("detail=true", "1.86"),
        ("detail=false&fields=updated_at", None),
    ],
)
def test_a_query_ironic_takes_is_answered(api: Api, query: str, version: str | None) -> None:
    node = api.node()
    resp = api.get(f"/v1/nodes/{node['uuid']}/firmware?{query}", version=version)
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"firmware": []}
