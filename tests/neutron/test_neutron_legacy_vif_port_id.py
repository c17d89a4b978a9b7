"""The deprecated ``extra/vif_port_id`` against a real Neutron: setting or removing it tells
Neutron what ``POST``/``DELETE .../vifs`` would, and a VIF Neutron refuses stores nothing."""

from __future__ import annotations

import httpx

from tests.neutron.clients import Metalwire, Neutron, assert_unbound, link
from tests.neutron.interface_fixtures import (  # noqa: F401  (the shared module fixtures)
    fixture_api,
    fixture_neutron,
    fixture_server,
)
from tests.support.helpers import fault


def _set_legacy_vif(api: Metalwire, kind: str, uuid: str, vif: str | None) -> httpx.Response:
    op = (
        {"op": "add", "path": "/extra/vif_port_id", "value": vif}
        if vif is not None
        else {"op": "remove", "path": "/extra/vif_port_id"}
    )
    return api.http.patch(f"/v1/{kind}/{uuid}", json=[op])


def test_legacy_vif_port_id_tells_neutron_as_post_vifs_does(
    api: Metalwire, neutron: Neutron
) -> None:
    node = api.node("legacy")
    port = api.port(node, "52:54:00:34:00:01", link("Ethernet26/1"))
    vif = neutron.vif("mw-tenant-p1")

    response = _set_legacy_vif(api, "ports", port["uuid"], vif["id"])
    assert response.status_code == 200, response.text
    assert "deprecated" in response.headers["Warning"]
    assert neutron.port(vif["id"])["mac_address"] == port["address"]
    assert api.vifs("legacy") == [vif["id"]]
    assert api.get(f"/v1/ports/{port['uuid']}")["extra"] == {"vif_port_id": vif["id"]}

    response = _set_legacy_vif(api, "ports", port["uuid"], None)
    assert response.status_code == 200, response.text
    assert api.vifs("legacy") == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])

    # On create too: the port exists, then the VIF's Neutron port takes its MAC.
    created = api.http.post(
        "/v1/ports",
        json={
            "node_uuid": node["uuid"],
            "address": "52:54:00:34:00:02",
            "local_link_connection": link("Ethernet26/2"),
            "extra": {"vif_port_id": vif["id"]},
        },
    )
    assert created.status_code == 201, created.text
    assert neutron.port(vif["id"])["mac_address"] == "52:54:00:34:00:02"
    assert api.vifs("legacy") == [vif["id"]]
    history = api.get("/v1/nodes/legacy/history?detail=true")["history"]
    legacy = [e for e in history if "extra/vif_port_id" in e["event"]]
    assert [e["severity"] for e in legacy] == ["WARNING"] * 3
    assert api.detach("legacy", vif["id"]).status_code == 204
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_legacy_vif_port_id_neutron_refuses_stores_nothing(
    api: Metalwire, neutron: Neutron
) -> None:
    node = api.node("legacy-refused")
    port = api.port(node, "52:54:00:35:00:01", link("Ethernet27/1"))
    vif = neutron.vif("mw-tenant-p1")
    squatters = [
        neutron.vif("mw-tenant-p1", mac_address=mac)
        for mac in ("52:54:00:35:00:01", "52:54:00:35:00:02")
    ]

    response = _set_legacy_vif(api, "ports", port["uuid"], vif["id"])
    assert response.status_code == 502, response.text
    assert "MacAddressInUse" in fault(response)
    assert api.get(f"/v1/ports/{port['uuid']}")["extra"] == {}
    assert api.vifs("legacy-refused") == []

    response = api.http.post(
        "/v1/ports",
        json={
            "node_uuid": node["uuid"],
            "address": "52:54:00:35:00:02",
            "local_link_connection": link("Ethernet27/2"),
            "extra": {"vif_port_id": vif["id"]},
        },
    )
    assert response.status_code == 502, response.text
    assert api.get("/v1/ports?address=52:54:00:35:00:02")["ports"] == []
    assert api.vifs("legacy-refused") == []
    assert neutron.port(vif["id"])["mac_address"] == vif["mac_address"]
    for squatter in squatters:
        assert neutron.http.delete(f"/ports/{squatter['id']}").status_code == 204
