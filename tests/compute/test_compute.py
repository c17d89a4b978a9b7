"""plug_vifs / unplug_vifs with Nova's semantics, against a real server."""

from __future__ import annotations

import pytest

from metalwire.client import Client, Node, NotFound
from metalwire.compute import VifPlugError, VifSpec, plug_vifs, unplug_vifs
from tests.client.util import mac, unique, vif_namer

v = vif_namer()


def _node(mw: Client, ports: int) -> Node:
    node = mw.create_node("fake-hardware", name=unique("compute"))
    for _ in range(ports):
        mw.create_port(node.uuid, mac())
    return node


def _nova_vif(vif_id: str) -> dict[str, object]:
    """A network_info entry shaped like Nova's VIF model."""
    return {
        "id": vif_id,
        "address": "fa:16:3e:00:00:01",
        "type": "other",
        "vnic_type": "baremetal",
        "network": {"id": "net-1", "label": "private", "subnets": []},
        "profile": {},
        "active": False,
    }


def test_plug_attaches_each_vif_and_is_idempotent(mw: Client) -> None:
    node = _node(mw, ports=2)
    network_info: list[VifSpec] = [_nova_vif(v("vif-1")), v("vif-2")]
    assert plug_vifs(mw, node, network_info) == [v("vif-1"), v("vif-2")]
    assert sorted(mw.vif_list(node)) == [v("vif-1"), v("vif-2")]
    # Already attached to this same node: success, nothing new attached.
    assert plug_vifs(mw, node.uuid, network_info) == []
    assert plug_vifs(mw, node.name or "", [_nova_vif(v("vif-2"))]) == []
    assert sorted(mw.vif_list(node)) == [v("vif-1"), v("vif-2")]


def test_plug_fails_naming_the_vif_when_no_port_is_free(mw: Client) -> None:
    node = _node(mw, ports=1)
    with pytest.raises(VifPlugError) as caught:
        plug_vifs(mw, node, [v("vif-fits"), v("vif-too-many")])
    error = caught.value
    assert error.vif_id == v("vif-too-many")
    assert error.node == node.uuid
    assert v("vif-too-many") in str(error)
    assert "No free port" in error.reason
    assert mw.vif_list(node) == [v("vif-fits")]  # the first one stays, as with Nova


def test_plug_fails_when_the_vif_is_on_another_node(mw: Client) -> None:
    first = _node(mw, ports=1)
    second = _node(mw, ports=1)
    plug_vifs(mw, first, [v("vif-shared")])
    with pytest.raises(VifPlugError) as caught:
        plug_vifs(mw, second, [v("vif-shared")])
    assert caught.value.vif_id == v("vif-shared")
    assert first.uuid in caught.value.reason
    assert mw.vif_list(second) == []


def test_unplug_detaches_and_tolerates_vifs_not_attached(mw: Client) -> None:
    node = _node(mw, ports=2)
    plug_vifs(mw, node, [v("vif-a"), v("vif-b")])
    network_info: list[VifSpec] = [
        _nova_vif(v("vif-a")),
        _nova_vif(v("vif-b")),
        _nova_vif(v("vif-never")),
    ]
    assert unplug_vifs(mw, node, network_info) == [v("vif-a"), v("vif-b")]
    assert mw.vif_list(node) == []
    assert unplug_vifs(mw, node, network_info) == []
    assert unplug_vifs(mw, node, []) == []


def test_unknown_node_and_malformed_network_info(mw: Client) -> None:
    with pytest.raises(NotFound):
        plug_vifs(mw, unique("missing"), [v("vif-x")])
    with pytest.raises(NotFound):
        unplug_vifs(mw, unique("missing"), [v("vif-x")])
    node = _node(mw, ports=1)
    with pytest.raises(ValueError, match="no 'id'"):
        plug_vifs(mw, node, [{"address": "fa:16:3e:00:00:02"}])


def test_plug_on_a_bond_and_a_standalone_port_fails_at_the_third_vif(mw: Client) -> None:
    """Nova's second VIF goes on the standalone port, not a bond member; the third fails."""
    node = mw.create_node("fake-hardware", name=unique("bonded"))
    bond = mw.create_portgroup(node.uuid, name=unique("bond"))
    members = [mw.create_port(node.uuid, mac(), portgroup_uuid=bond.uuid) for _ in range(2)]
    standalone = mw.create_port(node.uuid, mac())
    network_info: list[VifSpec] = [_nova_vif(v("vif-bond")), _nova_vif(v("vif-nic"))]
    network_info.append(_nova_vif(v("vif-spare")))
    with pytest.raises(VifPlugError) as caught:
        plug_vifs(mw, node, network_info)
    assert caught.value.vif_id == v("vif-spare")
    assert "No free port" in caught.value.reason
    assert mw.get_portgroup(bond.uuid).vif_id == v("vif-bond")
    assert mw.get_port(standalone.uuid).vif_id == v("vif-nic")
    assert [mw.get_port(m.uuid).vif_id for m in members] == [None, None]
    assert sorted(mw.vif_list(node)) == sorted([v("vif-bond"), v("vif-nic")])
