"""The rules a port or portgroup keeps, checked on the proposed row (no database)."""

from __future__ import annotations

import pytest

from metalwire.conductor.inventory_rules import (
    Inventory,
    check_port,
    check_portgroup,
    refuse_dynamic_member_change,
    refuse_dynamic_portgroup_change,
    refuse_dynamic_portgroup_delete,
)
from metalwire.db.models import Node, Port, Portgroup, VifAttachment
from metalwire.errors import Conflict, Invalid, InvalidParameterValue, InvalidStateRequested

A = Node(id=1, uuid="node-a", name="a", provision_state="manageable", maintenance=False)
B = Node(id=2, uuid="node-b", name="b", provision_state="manageable", maintenance=False)


def _port(**fields: object) -> Port:
    values: dict[str, object] = {
        "id": 10,
        "uuid": "port-1",
        "node_id": 1,
        "portgroup_id": None,
        "pxe_enabled": True,
    }
    return Port(**{**values, **fields})


def _group(**fields: object) -> Portgroup:
    values: dict[str, object] = {
        "id": 20,
        "uuid": "bond-a",
        "node_id": 1,
        "standalone_ports_supported": True,
    }
    return Portgroup(**{**values, **fields})


def _inventory(
    ports: list[Port], groups: list[Portgroup], vifs: dict[str, Port | Portgroup] | None = None
) -> Inventory:
    attachments = [
        VifAttachment(
            vif_id=vif,
            node_id=target.node_id,
            port_id=target.id if isinstance(target, Port) else None,
            portgroup_id=target.id if isinstance(target, Portgroup) else None,
        )
        for vif, target in (vifs or {}).items()
    ]
    return Inventory({1: A, 2: B}, {g.id: g for g in groups}, ports, attachments)


def test_a_moved_member_is_checked_against_its_new_node() -> None:
    current, group = _port(portgroup_id=20), _group()
    with pytest.raises(InvalidParameterValue, match=r"bond-a.*node-b.*node-a"):
        check_port(_port(portgroup_id=20, node_id=2), current, _inventory([current], [group]))


def test_a_moved_port_that_leaves_its_group_passes() -> None:
    current, group = _port(portgroup_id=20), _group()
    check_port(_port(node_id=2), current, _inventory([current], [group]))


def test_a_port_holding_a_vif_cannot_move() -> None:
    current = _port()
    inventory = _inventory([current], [], {"vif-1": current})
    with pytest.raises(Conflict, match="vif-1"):
        check_port(_port(node_id=2), current, inventory)


def test_a_port_of_an_active_node_cannot_move() -> None:
    current = _port()
    active = Node(id=1, uuid="node-a", name="a", provision_state="active", maintenance=False)
    inventory = Inventory({1: active, 2: B}, {}, [current], [])
    with pytest.raises(InvalidStateRequested):
        check_port(_port(node_id=2), current, inventory)


def test_a_group_on_no_locked_node_is_named_from_the_unlocked_read() -> None:
    elsewhere = _group(id=30, uuid="bond-c", node_id=3)
    with pytest.raises(InvalidParameterValue, match="bond-c"):
        check_port(_port(portgroup_id=30), None, _inventory([], []), elsewhere)


@pytest.mark.parametrize("legacy_vif", [None, "legacy-1"])
def test_a_group_without_standalone_ports_refuses_pxe_and_vifs(legacy_vif: str | None) -> None:
    group = _group(standalone_ports_supported=False)
    pxe = legacy_vif is None
    with pytest.raises(Conflict, match="pxe_enabled" if pxe else "legacy-1"):
        check_port(
            _port(portgroup_id=20, pxe_enabled=pxe),
            None,
            _inventory([], [group]),
            legacy_vif=legacy_vif,
        )
    check_port(_port(portgroup_id=20, pxe_enabled=False), None, _inventory([], [group]))


def test_a_group_with_members_or_a_vif_cannot_move() -> None:
    group, member = _group(), _port(portgroup_id=20)
    with pytest.raises(Invalid, match="port-1"):
        check_portgroup(_group(node_id=2), group, _inventory([member], [group]))
    with pytest.raises(Conflict, match="vif-9"):
        check_portgroup(_group(node_id=2), group, _inventory([], [group], {"vif-9": group}))
    check_portgroup(_group(node_id=2), group, _inventory([], [group]))


def test_standalone_ports_cannot_be_turned_off_under_a_pxe_member_or_a_vif() -> None:
    group = _group()
    off = _group(standalone_ports_supported=False)
    with pytest.raises(Conflict, match="pxe_enabled"):
        check_portgroup(off, group, _inventory([_port(portgroup_id=20)], [group]))
    quiet = _port(portgroup_id=20, pxe_enabled=False)
    with pytest.raises(Conflict, match="vif-3"):
        check_portgroup(off, group, _inventory([quiet], [group], {"vif-3": quiet}))
    check_portgroup(off, group, _inventory([quiet], [group]))


def _attached_dynamic() -> tuple[Port, Portgroup, Inventory]:
    member, group = _port(portgroup_id=20), _group(dynamic_portgroup=True)
    return member, group, _inventory([member], [group], {"vif-d": group})


@pytest.mark.parametrize(
    "proposed",
    [_port(), _port(portgroup_id=21), _port(node_id=2), None],
    ids=["leaves", "changes-group", "moves", "deleted"],
)
def test_a_member_of_an_attached_dynamic_group_stays(proposed: Port | None) -> None:
    member, _, inv = _attached_dynamic()
    with pytest.raises(Conflict, match=r"Port port-1 .*bond-a is a dynamic portgroup.*vif-d"):
        refuse_dynamic_member_change(proposed, member, inv)


def test_no_port_joins_an_attached_dynamic_group_and_a_free_one_is_left_alone() -> None:
    *_, inv = _attached_dynamic()
    with pytest.raises(Conflict, match="built for VIF vif-d"):
        check_port(_port(id=11, uuid="port-2", portgroup_id=20), None, inv)
    free = _inventory([_port(portgroup_id=20)], [_group(dynamic_portgroup=True)])
    refuse_dynamic_member_change(None, _port(portgroup_id=20), free)  # its VIF is gone
    refuse_dynamic_member_change(
        _port(portgroup_id=20, extra={"k": "v"}), _port(portgroup_id=20), inv
    )


def test_an_attached_dynamic_group_changes_only_its_labels_and_is_not_deleted() -> None:
    _, group, inv = _attached_dynamic()
    refuse_dynamic_portgroup_change(group, {"name", "extra"}, inv)
    with pytest.raises(Conflict, match=r"Cannot change mode, node_uuid of portgroup bond-a: it is"):
        refuse_dynamic_portgroup_change(group, {"mode", "node_id", "name"}, inv)
    deleted = r"Cannot delete portgroup bond-a: it is a .*VIF vif-d"
    with pytest.raises(Invalid, match=deleted) as raised:
        refuse_dynamic_portgroup_delete(group, inv)
    assert raised.value.code == 400
    plain = _inventory([], [_group()], {"vif-p": _group()})
    refuse_dynamic_portgroup_change(_group(), {"mode"}, plain)
    refuse_dynamic_portgroup_delete(_group(), plain)
