"""``GET /v1/nodes/{node}/bios`` and ``/bios/{setting}`` (1.40; fields and detail 1.74).

metalwire caches no BIOS settings (it drives no BMC and does not run the fake BIOS
interface's apply_configuration), so every node lists none, as Ironic 39 answers for a
fake-hardware node, and a setting is 404.
"""

from __future__ import annotations

import pytest

from tests.conftest import Api, fault, routing_error

MISSING = "0e0e0e0e-1111-4222-8333-444444444444"


@pytest.mark.parametrize("query", ["", "?detail=true", "?fields=name,value,read_only"])
def test_a_node_lists_no_bios_settings(api: Api, query: str) -> None:
    api.node(name="bios-list")
    resp = api.get(f"/v1/nodes/bios-list/bios{query}")
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"bios": []}


def test_at_1_40_the_list_is_served_without_a_query(api: Api) -> None:
    api.node(name="bios-40")
    assert api.get("/v1/nodes/bios-40/bios", version="1.40").json() == {"bios": []}


def test_a_setting_is_404_naming_the_node_and_the_setting(api: Api) -> None:
    node = api.node(name="bios-show")
    resp = api.get("/v1/nodes/bios-show/bios/ProcVirtualization")
    assert resp.status_code == 404
    assert fault(resp) == f"Node {node['uuid']} has no BIOS setting 'ProcVirtualization'."


@pytest.mark.parametrize(
    ("query", "version", "named"),
    [
        ("?fields=name", "1.73", "fields"),
        ("?detail=true", "1.73", "detail"),
        ("?fields=name,colour", None, "colour"),
        ("?fields=name&detail=true", None, "fields and detail"),
        ("?detail=maybe", None, "detail"),
        ("?limit=1", None, "limit"),
    ],
)
def test_a_list_query_ironic_refuses_is_400_naming_it(
    api: Api, query: str, version: str | None, named: str
) -> None:
    resp = api.get(f"/v1/nodes/{MISSING}/bios{query}", version=version)
    assert resp.status_code == 400, resp.text  # before the node is looked up
    assert named in fault(resp)


def test_a_setting_name_out_of_its_alphabet_is_400(api: Api) -> None:
    api.node(name="bios-name")
    resp = api.get("/v1/nodes/bios-name/bios/Proc%20Virt")
    assert resp.status_code == 400
    assert "'Proc Virt'" in fault(resp)


def test_an_unknown_node_is_404(api: Api) -> None:
    for path in (f"/v1/nodes/{MISSING}/bios", f"/v1/nodes/{MISSING}/bios/Setting"):
        resp = api.get(path)
        assert resp.status_code == 404
        assert MISSING in fault(resp)


@pytest.mark.parametrize("path", ["/bios", "/bios/Setting"])
def test_below_1_40_there_is_no_such_resource(api: Api, path: str) -> None:
    api.node(name="bios-old")
    resp = api.get(f"/v1/nodes/bios-old{path}", version="1.39")
    assert resp.status_code == 404
    assert "it exists from 1.40" in routing_error(resp)["description"]
