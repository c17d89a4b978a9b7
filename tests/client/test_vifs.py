"""VIF attach, list and detach through the client, against a real server."""

from __future__ import annotations

import pytest

from metalwire.client import BadRequest, Client, NotFound, VifAlreadyAttached
from tests.client.util import mac, unique, vif_namer

v = vif_namer()


def test_attach_list_detach(mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("vifs"))
    first = mw.create_port(node.uuid, mac())
    mw.create_port(node.uuid, mac())
    mw.vif_attach(node, v("vif-a"))
    mw.vif_attach(node.name or "", v("vif-b"), vif_info={"network_id": "net-1"})
    assert sorted(mw.vif_list(node)) == [v("vif-a"), v("vif-b")]
    assert mw.get_port(first.uuid).vif_id in {v("vif-a"), v("vif-b")}

    mw.vif_detach(node, v("vif-a"))
    assert mw.vif_list(node.uuid) == [v("vif-b")]
    with pytest.raises(BadRequest) as caught:
        mw.vif_detach(node, v("vif-a"))
    assert "not attached" in caught.value.faultstring


def test_attach_to_a_chosen_port_or_portgroup(mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("target"))
    mw.create_port(node.uuid, mac())
    chosen = mw.create_port(node.uuid, mac())
    bond = mw.create_portgroup(node.uuid, name=unique("bond"), address=mac())
    mw.create_port(node.uuid, mac(), portgroup_uuid=bond.uuid)

    mw.vif_attach(node, v("vif-port"), port_uuid=chosen.uuid)
    assert mw.get_port(chosen.uuid).vif_id == v("vif-port")
    mw.vif_attach(node, v("vif-bond"), portgroup_uuid=bond.uuid)
    assert mw.get_portgroup(bond.uuid).vif_id == v("vif-bond")

    with pytest.raises(ValueError, match="not both"):
        mw.vif_attach(node, v("vif-x"), port_uuid=chosen.uuid, portgroup_uuid=bond.uuid)
    with pytest.raises(BadRequest):
        mw.vif_attach(node, v("vif-busy"), port_uuid=chosen.uuid)


def test_attach_errors(mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("full"))
    mw.create_port(node.uuid, mac())
    mw.vif_attach(node, v("vif-only"))
    with pytest.raises(VifAlreadyAttached) as again:
        mw.vif_attach(node, v("vif-only"))
    assert again.value.status_code == 409
    assert "already attached" in again.value.faultstring
    with pytest.raises(BadRequest) as full:
        mw.vif_attach(node, v("vif-second"))
    assert v("vif-second") in full.value.faultstring
    with pytest.raises(NotFound):
        mw.vif_list(unique("ghost"))
