"""Node, port, portgroup and chassis CRUD, provision states and maintenance, against a
real server."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from metalwire.api.app import create_app
from metalwire.client import BadRequest, Client, Conflict, NotFound, patch
from metalwire.client.transport import ASGITransport
from metalwire.config import load_config
from tests.client.util import mac, unique
from tests.conftest import LATEST


def test_node_create_get_update_delete(mw: Client) -> None:
    name = unique("crud")
    node = mw.create_node("fake-hardware", name=name, properties={"cpus": 4}, extra={"rack": "r1"})
    assert node.name == name
    assert node.driver == "fake-hardware"
    assert node.provision_state == "enroll"
    assert node.properties == {"cpus": 4}
    assert mw.get_node(name).uuid == node.uuid
    assert mw.get_node(node).uuid == node.uuid
    assert set(mw.get_node(name, fields=["uuid", "name"]).fields()) == {"uuid", "name"}

    updated = mw.update_node(
        name,
        [
            patch.add("/properties/memory_mb", 8192),
            patch.replace("/extra/rack", "r2"),
            patch.add("description", "first"),
        ],
    )
    assert updated.properties == {"cpus": 4, "memory_mb": 8192}
    assert updated.extra == {"rack": "r2"}
    updated = mw.update_node(node.uuid, patch.unset_fields(["description", "properties/cpus"]))
    assert updated["description"] is None
    assert updated.properties == {"memory_mb": 8192}
    updated = mw.update_node(node, patch.set_fields({"extra/zone": "z1", "owner": "ops"}))
    assert updated.extra == {"rack": "r2", "zone": "z1"}
    assert updated["owner"] == "ops"
    # the server takes no escaped key in a patch path, as Ironic 39 at every version
    with pytest.raises(BadRequest, match="'/extra/x~1y'"):
        mw.update_node(node, [patch.add(patch.pointer("extra", "x/y"), True)])
    assert "x/y" not in mw.get_node(node.uuid).extra

    mw.delete_node(name)
    with pytest.raises(NotFound):
        mw.get_node(node.uuid)


def test_node_list_filters_and_pagination(mw: Client) -> None:
    group = unique("rc")
    made = [
        mw.create_node("fake-hardware", name=unique("page"), resource_class=group) for _ in range(5)
    ]
    mw.set_maintenance(made[0], reason="broken fan")
    wanted = {n.uuid for n in made}

    every = mw.list_nodes(resource_class=group, page_size=2)
    assert {n.uuid for n in every} == wanted
    assert mw.list_nodes(resource_class=group, page_size=2, limit=3).__len__() == 3
    assert mw.list_nodes(resource_class=group, limit=0) == []
    in_maintenance = mw.list_nodes(resource_class=group, maintenance=True)
    assert [n.uuid for n in in_maintenance] == [made[0].uuid]
    assert len(mw.list_nodes(resource_class=group, maintenance=False)) == 4

    detailed = mw.list_nodes(resource_class=group, detail=True, page_size=2)
    assert all(n.driver == "fake-hardware" and n.resource_class == group for n in detailed)
    named = mw.list_nodes(resource_class=group, fields=["uuid", "name"])
    assert all(set(n.fields()) == {"uuid", "name"} for n in named)
    desc = mw.list_nodes(resource_class=group, sort_key="name", sort_dir="desc")
    assert [n.name for n in desc] == sorted((n.name or "" for n in made), reverse=True)

    iterator = mw.iter_nodes(resource_class=group, page_size=1)
    assert next(iterator).uuid in wanted
    with pytest.raises(ValueError):
        mw.list_nodes(detail=True, fields=["uuid"])
    with pytest.raises(TypeError):
        mw.list_nodes(colour="red")  # type: ignore[call-arg]


def test_port_crud(mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("ports"))
    address = mac()
    port = mw.create_port(
        node.uuid, address, physical_network="physnet1", extra={"slot": 1}, pxe_enabled=False
    )
    assert port.address == address
    assert port.node_uuid == node.uuid
    assert port.pxe_enabled is False
    assert port.physical_network == "physnet1"
    assert mw.get_port(port.uuid).extra == {"slot": 1}
    second = mw.create_port(node.uuid, mac())

    assert {p.uuid for p in mw.list_ports(node=node.uuid)} == {port.uuid, second.uuid}
    assert [p.uuid for p in mw.list_ports(address=address)] == [port.uuid]
    assert {p.uuid for p in mw.list_ports(node=node.name or "", page_size=1)} == {
        port.uuid,
        second.uuid,
    }
    assert all(p.node_uuid == node.uuid for p in mw.list_ports(node=node.uuid, detail=True))

    updated = mw.update_port(
        port,
        [
            patch.add(
                "/local_link_connection", {"switch_id": "0a:1b:2c:3d:4e:5f", "port_id": "Eth1/1"}
            )
        ],
    )
    assert updated.local_link_connection["port_id"] == "Eth1/1"

    with pytest.raises(Conflict) as caught:
        mw.create_port(node.uuid, address)
    assert address in caught.value.faultstring

    mw.delete_port(port)
    with pytest.raises(NotFound):
        mw.get_port(port.uuid)
    assert [p.uuid for p in mw.list_ports(node=node.uuid)] == [second.uuid]


def test_portgroup_crud(mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("pg"))
    name = unique("bond")
    portgroup = mw.create_portgroup(
        node.uuid, name=name, address=mac(), mode="active-backup", properties={"miimon": 100}
    )
    assert portgroup.name == name
    assert portgroup.mode == "active-backup"
    assert portgroup.properties == {"miimon": 100}
    assert mw.get_portgroup(name).uuid == portgroup.uuid
    member = mw.create_port(node.uuid, mac(), portgroup_uuid=portgroup.uuid)
    assert member.portgroup_uuid == portgroup.uuid
    assert [p.uuid for p in mw.list_ports(portgroup=portgroup.uuid)] == [member.uuid]
    assert [g.uuid for g in mw.list_portgroups(node=node.uuid)] == [portgroup.uuid]
    assert [g.uuid for g in mw.list_portgroups(address=portgroup.address or "")] == [portgroup.uuid]

    renamed = mw.update_portgroup(portgroup, [patch.replace("/name", name + "-x")])
    assert renamed.name == name + "-x"
    mw.delete_port(member)
    mw.delete_portgroup(portgroup.uuid)
    with pytest.raises(NotFound):
        mw.get_portgroup(portgroup.uuid)


def test_chassis_crud(mw: Client) -> None:
    wanted = str(uuid.uuid4())
    chassis = mw.create_chassis(uuid=wanted, description=unique("rack"), extra={"row": "b"})
    assert (chassis.uuid, chassis.extra) == (wanted, {"row": "b"})
    with pytest.raises(Conflict):
        mw.create_chassis(uuid=wanted)
    node = mw.create_node("fake-hardware", chassis_uuid=wanted)
    assert [n.uuid for n in mw.list_nodes(chassis_uuid=wanted)] == [node.uuid]
    assert wanted in [c.uuid for c in mw.list_chassis()]
    listed = [c for c in mw.iter_chassis(detail=True) if c.uuid == wanted]
    assert listed[0].extra == {"row": "b"}

    updated = mw.update_chassis(chassis, [patch.add("description", "moved")])
    assert updated.description == "moved"
    assert mw.get_chassis(wanted, fields=["description"]).fields() == {"description": "moved"}
    with pytest.raises(BadRequest, match="contains nodes"):
        mw.delete_chassis(wanted)
    mw.delete_node(node)
    mw.delete_chassis(wanted)
    with pytest.raises(NotFound):
        mw.get_chassis(wanted)
    with pytest.raises(NotFound):
        mw.list_nodes(chassis_uuid=wanted)


def test_provision_verbs_and_maintenance(mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("prov"))
    mw.manage(node)
    assert mw.get_node(node).provision_state == "manageable"
    mw.provide(node)
    assert mw.get_node(node).provision_state == "available"
    mw.deploy(node)
    states = mw.get_states(node)
    assert states["provision_state"] == "active"
    assert states["target_provision_state"] is None
    with pytest.raises(Conflict, match="active"):
        mw.delete_node(node)
    mw.undeploy(node)
    assert mw.get_node(node).provision_state == "available"
    mw.set_provision_state(node, "manage")
    assert mw.get_node(node).provision_state == "manageable"
    with pytest.raises(BadRequest) as caught:
        mw.set_provision_state(node, "active")
    assert "manageable" in caught.value.faultstring

    with pytest.raises(BadRequest, match='"clean_steps" is required'):
        mw.set_provision_state(node, "clean")
    mw.set_provision_state(
        node, "clean", clean_steps=[{"interface": "vendor", "step": "log_passthrough"}]
    )
    assert mw.get_node(node).provision_state == "manageable"

    mw.set_maintenance(node, reason="disk swap")
    shown = mw.get_node(node)
    assert shown.maintenance is True
    assert shown.maintenance_reason == "disk swap"
    mw.unset_maintenance(node)
    assert mw.get_node(node).maintenance is False
    mw.delete_node(node)


def test_asgi_transport_serves_the_app_in_process(tmp_path: Path) -> None:
    config = load_config(environ={}, overrides={("DEFAULT", "data_dir"): str(tmp_path)})
    with Client("http://metalwire.test", transport=ASGITransport(create_app(config))) as mw:
        assert str(mw.api_version) == LATEST
        node = mw.create_node("fake-hardware", name="in-process", uuid=str(uuid.uuid4()))
        port = mw.create_port(node.uuid, mac())
        mw.vif_attach("in-process", "vif-1")
        assert mw.vif_list(node) == ["vif-1"]
        assert mw.get_port(port.uuid).vif_id == "vif-1"
        with pytest.raises(NotFound) as caught:
            mw.get_node("missing")
        assert (caught.value.request_id or "").startswith("req-")
