"""Node lists sorted by the fields Ironic sorts by: every node field but its JSON documents,
including those metalwire keeps in the node's ``attrs`` (description, retired, interfaces...),
in either direction and page by page through the marker."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, fault


def _names(api: Api, query: str) -> list[str]:
    return [n["name"] for n in api.get(f"/v1/nodes?{query}").json()["nodes"]]


def _walk(api: Api, query: str) -> list[str]:
    """Every page of one node, each after the last one's marker."""
    seen: list[str] = []
    marker = ""
    while True:
        page = api.get(f"/v1/nodes?{query}&limit=1&fields=uuid,name{marker}").json()["nodes"]
        if not page:
            return seen
        seen.append(page[0]["name"])
        marker = f"&marker={page[0]['uuid']}"


def _nodes(api: Api) -> None:
    made: list[tuple[str, dict[str, Any]]] = [
        ("s-b", {"description": "bravo", "retired": True, "boot_interface": "pxe"}),
        ("s-none", {}),
        ("s-a", {"description": "alpha", "retired": False, "boot_interface": "ipxe"}),
    ]
    for name, fields in made:
        api.node(name=name, **fields)


@pytest.mark.parametrize(
    ("key", "ascending"),
    [
        # null first when ascending, last when descending; ties in creation order
        ("description", ["s-none", "s-a", "s-b"]),
        # a flag false unless set sorts as false
        ("retired", ["s-none", "s-a", "s-b"]),
        # the node created without one has fake-hardware's: fake < ipxe < pxe
        ("boot_interface", ["s-none", "s-a", "s-b"]),
        # a column none has set: creation order
        ("power_state", ["s-b", "s-none", "s-a"]),
    ],
)
def test_nodes_sort_by_fields_kept_in_attrs(api: Api, key: str, ascending: list[str]) -> None:
    _nodes(api)
    listed = _names(api, f"sort_key={key}")
    assert listed == ascending, key
    assert _names(api, f"sort_key={key}&sort_dir=desc") == ascending[::-1], key
    assert _walk(api, f"sort_key={key}") == ascending, key
    assert _walk(api, f"sort_key={key}&sort_dir=desc") == ascending[::-1], key


@pytest.mark.parametrize("key", ["properties", "extra", "traits", "conductor", "colour"])
def test_json_documents_and_unknown_fields_are_not_sort_keys(api: Api, key: str) -> None:
    resp = api.get(f"/v1/nodes?sort_key={key}")
    assert resp.status_code == 400, resp.text
    assert key in fault(resp)
