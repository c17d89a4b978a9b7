"""Checks of the VIF invariants over a whole inventory, through the public API only."""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
# A race's clients drop a connection idle for 2 s, before the server closes it at its
# keep-alive timeout (5 s): a request sent on a connection the server is closing at that
# moment would fail in the transport, which says nothing about the invariants under test.
IDLE_LIMITS = httpx.Limits(keepalive_expiry=2.0)


def all_pages(client: httpx.Client, url: str, key: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    next_url: str | None = url
    while next_url:
        body = client.get(next_url, headers=HEADERS).json()
        items += body[key]
        next_url = body.get("next")
    return items


def vif_placement(client: httpx.Client) -> dict[str, list[str]]:
    """VIF id -> the nodes listing it; raises AssertionError on a port holding two VIFs."""
    placement: dict[str, list[str]] = {}
    for node in all_pages(client, "/v1/nodes", "nodes"):
        vifs = client.get(f"/v1/nodes/{node['uuid']}/vifs", headers=HEADERS).json()["vifs"]
        for vif in vifs:
            placement.setdefault(vif["id"], []).append(node["uuid"])
    ports = all_pages(client, "/v1/ports/detail", "ports")
    held = Counter(p["internal_info"].get("tenant_vif_port_id") for p in ports)
    held.pop(None, None)
    assert all(count == 1 for count in held.values()), f"a VIF on two ports: {held}"
    return placement


def assert_one_node_per_vif(placement: dict[str, list[str]]) -> None:
    doubled = {vif: nodes for vif, nodes in placement.items() if len(nodes) > 1}
    assert not doubled, f"VIFs on two nodes: {doubled}"
