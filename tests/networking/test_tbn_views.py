"""The planner's views of ports, portgroups and the network, built from rows and bodies."""

from __future__ import annotations

from metalwire.db.models import Port, Portgroup
from metalwire.networking.tbn.views import NetworkView, PortView


def test_a_port_row_without_the_new_fields_gives_empty_ones() -> None:
    row = Port(id=3, uuid="p-3", address="52:54:00:00:00:03", physical_network="physnet1")
    view = PortView.of_port(row, vif="vif-1", portgroup_uuid="pg-1")
    assert view == PortView(
        id=3,
        uuid="p-3",
        is_portgroup=False,
        address="52:54:00:00:00:03",
        physical_network="physnet1",
        vif="vif-1",
        portgroup_uuid="pg-1",
    )
    assert view.label == "port p-3 (52:54:00:00:00:03)"


def test_a_port_row_with_the_new_fields_gives_them() -> None:
    row = Port(id=3, uuid="p-3", address="52:54:00:00:00:03")
    row.category = "network"  # type: ignore[attr-defined]
    row.vendor = ""  # type: ignore[attr-defined]
    row.available_for_dynamic_portgroup = True  # type: ignore[attr-defined]
    view = PortView.of_port(row, vif=None, portgroup_uuid=None)
    assert (view.category, view.vendor, view.available_for_dynamic_portgroup) == (
        "network",
        None,
        True,
    )


def test_a_portgroup_has_its_members_shared_physical_network_unless_it_has_its_own() -> None:
    row = Portgroup(id=5, uuid="pg-5", name="bond0", address=None)
    shared = PortView.of_portgroup(row, None, ["physnet1", "physnet1", None])
    assert (shared.physical_network, shared.is_portgroup, shared.label) == (
        "physnet1",
        True,
        "portgroup pg-5 (bond0)",
    )
    assert PortView.of_portgroup(row, None, ["physnet1", "physnet2"]).physical_network is None
    row.physical_network = "physnet9"  # type: ignore[attr-defined]
    row.dynamic_portgroup = True  # type: ignore[attr-defined]
    own = PortView.of_portgroup(row, "vif-2", ["physnet1"])
    assert (own.physical_network, own.dynamic_portgroup, own.vif) == ("physnet9", True, "vif-2")


def test_the_network_comes_from_the_attach_body() -> None:
    body = {"id": "vif-1", "name": "tenant", "tags": ["a", "b"]}
    assert NetworkView.of_attach_body(body) == NetworkView("vif-1", "tenant", frozenset({"a", "b"}))
    assert NetworkView.of_attach_body({"id": "vif-2", "tags": None}) == NetworkView("vif-2")
    assert NetworkView.of_attach_body({"id": "vif-3", "name": 7}).name is None
