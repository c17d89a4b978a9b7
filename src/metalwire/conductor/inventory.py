"""Creating, changing and deleting nodes, ports and portgroups, with the rules that guard them.

Changes to an existing node, or to a port or portgroup of one, run under the node's lock and
let the node's network interface refuse them before anything is stored.
"""

from __future__ import annotations

import contextlib
import logging
import uuid as uuidlib
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from metalwire import hardware_types
from metalwire.conductor.inventory_rules import (
    Inventory,
    check_member_physnet,
    check_port,
    check_portgroup,
    members_to_follow,
    refuse_address_change_in_use,
    refuse_dynamic_member_change,
    refuse_dynamic_portgroup_change,
    refuse_dynamic_portgroup_delete,
    refuse_portgroup_move_to_deployed,
    refuse_rewiring_deployed_port,
    refuse_switch_name,
)
from metalwire.conductor.legacy_vifs import (
    clear_interrupted_elsewhere,
    legacy_vif,
    store_with_legacy_vif,
)
from metalwire.conductor.tasks import Conductor, until_still_there
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node, Port, Portgroup
from metalwire.db.work import Work
from metalwire.errors import (
    Conflict,
    Duplicate,
    Invalid,
    InvalidParameterValue,
    InvalidState,
    MetalwireError,
    NodeNotFound,
    NodeProtected,
    PortgroupNotFound,
    ResourceInUse,
    StaleUpdate,
)
from metalwire.networking.base import NetworkInterface
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)

DELETABLE_STATES = {
    "enroll",
    "manageable",
    "available",
    "inspect failed",
    "clean failed",
    "adopt failed",
    "error",
}
_INSTANCE_NAME_MAX = 255  # the instance_name column's length, and Ironic's limit
# The states in which a node's interfaces and resource class may change (Ironic's): before it
# is deployed (its interfaces also in maintenance).
UNDEPLOYED_STATES = {"enroll", "manageable", "inspecting", "inspect wait", "available"}
# The states of a node with a target provision state in which a PATCH is taken (Ironic's
# UPDATE_ALLOWED_STATES): failures an operator mends, and states no steps of ours run in.
PATCH_IN_TRANSITION_STATES = {
    "deploy failed",
    "inspecting",
    "inspect failed",
    "inspect wait",
    "clean failed",
    "error",
    "verifying",
    "adopt failed",
    "rescue failed",
    "unrescue failed",
    "service",
    "service hold",
    "service failed",
}


def _check_driver(conductor: Conductor, driver: str) -> None:
    enabled = conductor.config.default.enabled_hardware_types
    if driver not in enabled:
        raise InvalidParameterValue(
            f"Driver {driver} could not be found; enabled drivers are {', '.join(enabled)}."
        )


# -- nodes -------------------------------------------------------------------------------


def create_node(conductor: Conductor, values: dict[str, Any]) -> Node:
    values = dict(values)
    _check_driver(conductor, values["driver"])
    values.setdefault("uuid", str(uuidlib.uuid4()))
    hardware_types.check_interface_names(conductor.config.default, values)
    values = hardware_types.on_create(conductor.config.default, values)
    hardware_types.check_supported_interfaces(values["driver"], values)
    with conductor.db.writing() as work:
        _require_chassis(work, values)
        return work.nodes.create(values)


def _require_chassis(work: Work, values: dict[str, Any]) -> None:
    """A node written into a chassis needs the chassis to exist (UnknownChassis, 400), held
    until the write commits so that the chassis is not deleted meanwhile."""
    chassis = values.get("chassis_uuid")
    if chassis:
        work.chassis.require(chassis)


def _empty_as_none(value: Any) -> Any:
    # An unset field reads as None or as an empty collection depending on where it is kept.
    return None if value in (None, {}, [], "") else value


def check_unchanged(kind: str, ident: str, current: Any, expected: dict[str, Any] | None) -> None:
    """Refuse an update prepared from values that changed since (compare-and-swap): a
    node, port, portgroup, chassis, deploy template or allocation ``kind``, StaleUpdate
    (the API prepares the update again)."""
    for name, value in (expected or {}).items():
        now = node_db.field_value(current, name) if kind == "node" else getattr(current, name)
        if _empty_as_none(now) != _empty_as_none(value):
            raise StaleUpdate(
                f"The {kind} {ident} changed ({name}) while this update was prepared; retry it."
            )


def update_node(
    conductor: Conductor,
    context: RequestContext,
    ident: str,
    changes: dict[str, Any],
    expected: dict[str, Any] | None = None,
    patched: bool = False,
) -> Node:
    with conductor.exclusive_task(ident, context) as task:
        node = task.node
        check_unchanged("node", ident, node, expected)
        if patched:
            _refuse_patch_in_transition(node, changes)
        _refuse_another_instance(node, changes.get("instance_uuid"))
        _refuse_instance_removal_of_allocated(node, changes)
        _refuse_resource_class_change(node, changes)
        changes = _with_protection_rules(node, changes)
        changes = _with_retirement_rules(node, changes)
        if "driver" in changes:
            _check_driver(conductor, changes["driver"])
        changes = _with_default_network_interface(conductor, changes)
        _refuse_interface_change(node, changes)
        changes = hardware_types.on_update(conductor.config.default, node.driver, changes)
        _check_interfaces(conductor, node, changes)
        new_iface = changes.get("network_interface")
        if new_iface is not None and new_iface != node.network_interface and task.attachments:
            raise Conflict(
                f"Cannot change the network interface of node {node.label} while "
                f"VIFs are attached ({', '.join(a.vif_id for a in task.attachments)})."
            )
        adopted = changes.get("network_interface")
        if adopted is not None and adopted != node.network_interface:
            new_interface = conductor.interfaces.get(adopted)
            for port in task.ports:
                refuse_switch_name(new_interface, node, port, adopted)
            new_interface.node_adopted(task)
        if changes.get("maintenance") is False:
            changes = {**changes, "maintenance_reason": None}
        with task.atomic():
            with task.writing() as work:
                _require_chassis(work, changes)
            return task.inventory.update_node(_with_display_name(node, changes))


def _with_default_network_interface(
    conductor: Conductor, changes: dict[str, Any]
) -> dict[str, Any]:
    """As Ironic: a network interface removed (``baremetal node set --reset-network-interface``)
    becomes ``[DEFAULT] default_network_interface``, as on create."""
    if "network_interface" in changes and changes["network_interface"] is None:
        return {**changes, "network_interface": conductor.interfaces.default}
    return changes


_DRIVER_FIELDS = ("driver", "network_interface", *hardware_types.FIELDS)


def _check_interfaces(conductor: Conductor, node: Node, changes: dict[str, Any]) -> None:
    """As Ironic: a change of the driver or of any interface has every interface the node
    will have checked, the unchanged ones too: each must be enabled and supported by the
    node's hardware type (400)."""
    if not any(field in changes for field in _DRIVER_FIELDS):
        return
    proposed = {
        field: changes[field] if field in changes else node_db.field_value(node, field)
        for field in _DRIVER_FIELDS
    }
    hardware_types.check_interface_names(conductor.config.default, proposed)
    hardware_types.check_supported_interfaces(proposed["driver"], proposed)


def _refuse_another_instance(node: Node, instance_uuid: str | None) -> None:
    """As Ironic: a node's instance is not overwritten by another (409); it is removed first.
    This is what stops two builds that raced for one node both taking it."""
    if instance_uuid is not None and node.instance_uuid not in (None, instance_uuid):
        raise InvalidState(
            f"Node {node.label} is associated with instance {node.instance_uuid}; remove it "
            f"before associating instance {instance_uuid}."
        )


def _refuse_instance_removal_of_allocated(node: Node, changes: dict[str, Any]) -> None:
    """As Ironic: a node's instance_uuid held by an allocation is removed only in
    maintenance or in the states that take updates mid-way (409); the allocation goes with
    it (:meth:`metalwire.networking.task.NodeInventory.update_node`)."""
    if not node.attrs.get("allocation_uuid") or changes.get("instance_uuid", "") is not None:
        return
    if node.maintenance or node.provision_state in PATCH_IN_TRANSITION_STATES:
        return
    allowed = ", ".join(sorted(PATCH_IN_TRANSITION_STATES))
    raise InvalidState(
        f"Node {node.uuid} with an allocation can not have instance_uuid removed unless it "
        f"is in one of allowed ({allowed}) states or in maintenance mode. Current state is "
        f"'{node.provision_state}'."
    )


def in_transition(node: Node) -> bool:
    """As Ironic: whether the node is on its way to another provision state (a target set)
    in a state that takes no updates, i.e. not one whose steps are over or that is tended by
    hand (:data:`PATCH_IN_TRANSITION_STATES`)."""
    return bool(node.target_provision_state) and (
        node.provision_state not in PATCH_IN_TRANSITION_STATES
    )


def _refuse_patch_in_transition(node: Node, changes: dict[str, Any]) -> None:
    """As Ironic: a node :func:`in_transition` is not patched (409). Removing the instance
    of a node in maintenance is always allowed (Nova's clean-up)."""
    if not in_transition(node):
        return
    if node.maintenance and changes == {"instance_uuid": None}:
        return
    raise InvalidState(
        f"Node {node.label} cannot be updated while a state transition is in progress "
        f"({node.provision_state!r} to {node.target_provision_state!r})."
    )


def _refuse_interface_change(node: Node, changes: dict[str, Any]) -> None:
    """As Ironic: a node's interfaces (its network interface too) change only before it is
    deployed, or in maintenance (409); the deployed instance depends on them."""
    if node.maintenance or node.provision_state in UNDEPLOYED_STATES:
        return
    fields = ("network_interface", *hardware_types.FIELDS)
    changed = [f for f in fields if f in changes and changes[f] != node_db.field_value(node, f)]
    if changed:
        raise InvalidState(
            f"Node {node.label} cannot change its {', '.join(changed)} in provision state "
            f"{node.provision_state!r} unless it is in maintenance; without maintenance only "
            f"in {', '.join(sorted(UNDEPLOYED_STATES))}."
        )


def _refuse_resource_class_change(node: Node, changes: dict[str, Any]) -> None:
    """As Ironic: a resource class, once set, changes only before the node is deployed
    (in maintenance too), since Nova counts the node's instance against it (409)."""
    new = changes.get("resource_class", node.resource_class)
    if not node.resource_class or new == node.resource_class:
        return
    if node.provision_state not in UNDEPLOYED_STATES:
        raise InvalidState(
            f"Node {node.label} cannot change its resource_class from "
            f"{node.resource_class!r} to {new!r} in provision state {node.provision_state!r}; "
            f"only in {', '.join(sorted(UNDEPLOYED_STATES))}."
        )


def _flag_change(node: Node, changes: dict[str, Any], flag: str) -> tuple[bool, bool]:
    """The value ``flag`` will have, and whether this change sets it anew."""
    stored = bool(node_db.field_value(node, flag))
    wanted = bool(changes.get(flag, stored))
    return wanted, wanted != stored


def _refuse_reason_without_flag(changes: dict[str, Any], flag: str, on: bool) -> None:
    reason = f"{flag}_reason"
    if changes.get(reason) and not on:
        raise InvalidParameterValue(
            f"{reason} can be set only on a node that is {flag}: set {flag} to true first "
            "or in the same request."
        )


def _with_protection_rules(node: Node, changes: dict[str, Any]) -> dict[str, Any]:
    """As Ironic: only a deployed node (active, rescue) is made protected; unprotecting it
    clears the reason; a reason needs protection (400)."""
    protected, changed = _flag_change(node, changes, "protected")
    if changed and protected and node.provision_state not in ("active", "rescue"):
        raise InvalidState(
            f"Node {node.label} can be made protected only in provision state 'active' or "
            f"'rescue', not {node.provision_state!r}."
        )
    if changed and not protected:
        changes = {**changes, "protected_reason": None}
    _refuse_reason_without_flag(changes, "protected", protected)
    return changes


def _with_retirement_rules(node: Node, changes: dict[str, Any]) -> dict[str, Any]:
    """As Ironic: an available node is not retired (409; move it to manageable first);
    un-retiring clears the reason; a reason needs retirement (400)."""
    retired, changed = _flag_change(node, changes, "retired")
    if changed and retired and node.provision_state == "available":
        raise InvalidState(
            f"Node {node.label} cannot be retired in provision state 'available'; manage it first."
        )
    if changed and not retired:
        changes = {**changes, "retired_reason": None}
    _refuse_reason_without_flag(changes, "retired", retired)
    return changes


def _with_display_name(node: Node, changes: dict[str, Any]) -> dict[str, Any]:
    """As Ironic 39: a change of instance_info whose ``display_name`` is set names the
    instance (``instance_name``, 1.104) when the node would otherwise have no name for it."""
    if "instance_info" not in changes or changes.get("instance_name", node.instance_name):
        return changes
    display_name = (changes["instance_info"] or {}).get("display_name")
    if not isinstance(display_name, str) or not 0 < len(display_name) <= _INSTANCE_NAME_MAX:
        return changes
    return {**changes, "instance_name": display_name}


def delete_node(conductor: Conductor, context: RequestContext, ident: str) -> None:
    with conductor.exclusive_task(ident, context) as task:
        node = task.node
        if node.instance_uuid and not node.maintenance:
            raise ResourceInUse(
                f"Node {node.label} is associated with instance {node.instance_uuid}; "
                "it can be deleted only when it has none or is in maintenance."
            )
        if node_db.field_value(node, "protected"):
            raise NodeProtected(
                f"Node {node.label} is protected and cannot be deleted; unset 'protected' first."
            )
        if node.provision_state not in DELETABLE_STATES and not node.maintenance:
            raise InvalidState(
                f"Node {node.label} cannot be deleted in provision state {node.provision_state!r}."
            )
        _detach_before_delete(
            conductor, task, [a.vif_id for a in task.attachments if a.source == "api"]
        )
        task.inventory.delete_node()


# -- ports and portgroups ------------------------------------------------------------------


def _existing_node(work: Work, ident: str) -> Node:
    """The node a port or portgroup is to be on; an unknown one is a bad request (400)."""
    try:
        return work.nodes.get(ident)
    except NodeNotFound as exc:
        raise InvalidParameterValue(str(exc)) from None


def _existing_portgroup(work: Work, ident: str | None) -> Portgroup | None:
    if ident is None:
        return None
    try:
        return work.portgroups.get(ident)
    except PortgroupNotFound as exc:
        raise InvalidParameterValue(str(exc)) from None


@contextlib.contextmanager
def _tasks_for(
    conductor: Conductor, context: RequestContext, node_ids: set[int]
) -> Iterator[dict[int, Task]]:
    """A task for each node a change touches, with every one of their locks held."""
    if len(node_ids) == 1:
        with conductor.exclusive_task(next(iter(node_ids)), context) as task:
            yield {task.node.id: task}
    else:
        with conductor.exclusive_tasks(node_ids, context) as tasks:
            yield tasks


R = TypeVar("R", Port, Portgroup)


def _under_lock(conductor: Conductor, rows: list[R], wanted: R) -> R:
    """The row as the locked node has it now.

    Gone from the node: deleted meanwhile (404), or moved to another node, whose lock this
    operation does not hold (StaleUpdate: the caller reads it again and retries).
    """
    row = next((r for r in rows if r.id == wanted.id), None)
    if row is not None:
        return row
    kind = type(wanted).__name__.lower()
    with conductor.db.reading() as work:
        if isinstance(wanted, Port):
            work.ports.get(wanted.uuid)
        else:
            work.portgroups.get(wanted.uuid)
    raise StaleUpdate(f"The {kind} {wanted.uuid} moved to another node meanwhile; retry.")


def _proposed(current: R, changes: dict[str, Any], changed: set[str]) -> R:
    """A detached copy of ``current`` with the changes applied: the row the rules check."""
    columns = current.__table__.columns
    proposed = type(current)(**{c.name: getattr(current, c.name) for c in columns})
    for key in changed:
        setattr(proposed, key, changes[key])
    return proposed


def create_port(conductor: Conductor, context: RequestContext, values: dict[str, Any]) -> Port:
    values = dict(values)
    with conductor.db.reading() as work:
        node = _existing_node(work, values.pop("node_uuid"))
        portgroup = _existing_portgroup(work, values.pop("portgroup_uuid", None))
    clear_interrupted_elsewhere(conductor, context, legacy_vif(values.get("extra")), node.id)
    with conductor.exclusive_task(node.id, context) as task:
        return add_port(conductor, task, values, portgroup)


def add_port(
    conductor: Conductor, task: Task, values: dict[str, Any], portgroup: Portgroup | None = None
) -> Port:
    """Create a port on the task's node, whose lock the caller holds, with every rule a
    create through the API checks (and its network interface told)."""
    values = dict(values)
    new_vif = legacy_vif(values.get("extra"))
    values["node_id"] = task.node.id
    values["portgroup_id"] = portgroup.id if portgroup else None
    values.setdefault("uuid", str(uuidlib.uuid4()))
    inventory = Inventory.of([task])
    pxe_given = "pxe_enabled" in values
    if not pxe_given:
        values["pxe_enabled"] = _default_pxe_enabled(
            conductor.enabled_interface(task.node), inventory, values["portgroup_id"]
        )
    proposed = Port(**values)  # the row as it will be stored
    check_port(
        proposed, None, inventory, portgroup, legacy_vif=new_vif, refuse_pxe_member=pxe_given
    )
    refuse_switch_name(conductor.enabled_interface(task.node), task.node, proposed)
    conductor.network_interface(task.node).port_created(task, proposed)
    follow = _adopted_physnet(task, proposed, None, inventory)

    def write() -> Port:
        port = task.inventory.create_port(values)
        follow.do()
        return port

    def undo(port: Port) -> None:
        follow.undo()
        task.inventory.delete_port(port.uuid)

    return store_with_legacy_vif(conductor, (task, task), None, write, undo, new_vif)


def _default_pxe_enabled(
    iface: NetworkInterface | None, inv: Inventory, portgroup_id: int | None
) -> bool:
    """A new port boots by PXE unless the request says otherwise; in a portgroup without
    standalone ports on a node whose interface keeps PXE off such members it does not (Ironic
    refuses only a port created with ``pxe_enabled`` true there, and stores the default
    true)."""
    group = inv.portgroups.get(portgroup_id) if portgroup_id is not None else None
    if group is None or group.standalone_ports_supported:
        return True
    return not _keeps_pxe_off_bonded_ports(iface)


@dataclass(frozen=True)
class _Follow:
    """Writes that go with a change, in its transaction, and how to undo them."""

    do: Callable[[], object]
    undo: Callable[[], object]


_NOTHING = _Follow(lambda: None, lambda: None)


def _adopted_physnet(task: Task, proposed: Port, current: Port | None, inv: Inventory) -> _Follow:
    """Check a member port's physical network; a portgroup without one adopts the port's."""
    adopted = check_member_physnet(proposed, current, inv)
    if adopted is None or proposed.portgroup_id is None:
        return _NOTHING
    group_id = proposed.portgroup_id
    return _Follow(
        lambda: task.inventory.update_portgroup(group_id, {"physical_network": adopted}),
        lambda: task.inventory.update_portgroup(group_id, {"physical_network": None}),
    )


def _members_follow(task: Task, proposed: Portgroup, inv: Inventory) -> _Follow:
    """A portgroup's new physical network is set on each of its member ports."""
    physnet = proposed.physical_network
    before = {p.uuid: p.physical_network for p in members_to_follow(proposed, inv)}

    def do() -> None:
        for uuid in before:
            task.inventory.update_port(uuid, {"physical_network": physnet})

    def undo() -> None:
        for uuid, old in before.items():
            task.inventory.update_port(uuid, {"physical_network": old})

    return _Follow(do, undo)


def _keeps_pxe_off_bonded_ports(iface: NetworkInterface | None) -> bool:
    """Whether the node's interface keeps PXE-enabled ports out of portgroups without
    standalone ports; one no longer enabled is held to the rule."""
    return iface is None or iface.keeps_pxe_off_bonded_ports()


def _refuses_pxe_member(iface: NetworkInterface | None, changed: Collection[str]) -> bool:
    """As Ironic's ``flat`` and ``neutron``: a PXE-enabled member of a portgroup without
    standalone ports is refused when the update sets ``pxe_enabled`` or the portgroup, on a
    node whose interface keeps PXE off bonded ports."""
    touched = bool({"pxe_enabled", "portgroup_id"} & set(changed))
    return touched and _keeps_pxe_off_bonded_ports(iface)


def _check_port_change(
    conductor: Conductor, change: _Change[Port], portgroup: Portgroup | None
) -> _Follow:
    """The rules of a port change, and its network interface's say; what follows it."""
    current, proposed = change.current, change.proposed
    old_vif, new_vif = legacy_vif(current.extra), legacy_vif(proposed.extra)
    check_port(
        proposed,
        current,
        change.inventory,
        portgroup,
        legacy_vif=new_vif if new_vif != old_vif else None,
        refuse_pxe_member=_refuses_pxe_member(
            conductor.enabled_interface(change.owner.node), change.changed
        ),
    )
    for node in {
        change.task.node.id: change.task.node,
        change.owner.node.id: change.owner.node,
    }.values():
        refuse_address_change_in_use(node, current.uuid, change.changed)
    owner = change.owner.node
    refuse_rewiring_deployed_port(
        owner, conductor.enabled_interface(owner), current.uuid, change.changed
    )
    _check_address_free(change.task, current.uuid, change.changes)
    if {"local_link_connection", "node_id"} & change.changed:
        refuse_switch_name(conductor.enabled_interface(owner), owner, proposed)
    iface = conductor.network_interface(change.owner.node)
    iface.port_changed(change.owner, proposed, change.changed)
    return _adopted_physnet(change.owner, proposed, current, change.inventory)


def update_port(
    conductor: Conductor,
    context: RequestContext,
    uuid: str,
    changes: dict[str, Any],
    expected: dict[str, Any] | None = None,
) -> Port:
    portgroup: Portgroup | None = None

    def resolve(work: Work, changes: dict[str, Any]) -> None:
        nonlocal portgroup
        if "portgroup_uuid" in changes:
            portgroup = _existing_portgroup(work, changes.pop("portgroup_uuid"))
            changes["portgroup_id"] = portgroup.id if portgroup else None

    def check(change: _Change[Port]) -> _Follow:
        return _check_port_change(conductor, change, portgroup)

    def leave(change: _Change[Port], store: Callable[[], Port]) -> Port:
        """A port moving to another node: its old node's interface undoes what it
        configured for it there, with the move."""
        iface = conductor.enabled_interface(change.task.node)
        if iface is None:  # an interface no longer enabled cannot be told
            return store()
        return iface.move_port(change.task, change.current, change.owner, store)

    return _update_member(
        conductor, context, _PORTS, uuid, changes, expected, check, resolve, leave
    )


def update_portgroup(
    conductor: Conductor,
    context: RequestContext,
    ident: str,
    changes: dict[str, Any],
    expected: dict[str, Any] | None = None,
) -> Portgroup:
    def check(change: _Change[Portgroup]) -> _Follow:
        refuse_dynamic_portgroup_change(change.current, change.changed, change.inventory)
        if "node_id" in change.changed:
            refuse_portgroup_move_to_deployed(change.owner.node, change.current.uuid)
        check_portgroup(
            change.proposed,
            change.current,
            change.inventory,
            refuse_pxe_members=_keeps_pxe_off_bonded_ports(
                conductor.enabled_interface(change.owner.node)
            ),
        )
        iface = conductor.network_interface(change.owner.node)
        iface.portgroup_changed(change.owner, change.proposed, change.changed)
        if "physical_network" not in change.changed:
            return _NOTHING
        return _members_follow(change.owner, change.proposed, change.inventory)

    return _update_member(conductor, context, _PORTGROUPS, ident, changes, expected, check)


@dataclass(frozen=True)
class _Members(Generic[R]):
    """How the member-update flow reads, finds and writes one kind of a node's members."""

    kind: str
    get: Callable[[Work, str], R]
    on_node: Callable[[Task], list[R]]
    store: Callable[[Task, R, dict[str, Any]], R]


_PORTS = _Members[Port](
    "port",
    lambda work, ident: work.ports.get(ident),
    lambda task: task.ports,
    lambda task, row, changes: task.inventory.update_port(row.uuid, changes),
)
_PORTGROUPS = _Members[Portgroup](
    "portgroup",
    lambda work, ident: work.portgroups.get(ident),
    lambda task: task.portgroups,
    lambda task, row, changes: task.inventory.update_portgroup(row.id, changes),
)


@dataclass(frozen=True)
class _Change(Generic[R]):
    """A member update as its rules see it, with the locks of both nodes held."""

    current: R
    proposed: R
    changes: dict[str, Any]
    changed: set[str]
    inventory: Inventory
    task: Task  # of the node the row is on now
    owner: Task  # of the node the row is on after the change


def _update_member(
    conductor: Conductor,
    context: RequestContext,
    members: _Members[R],
    ident: str,
    changes: dict[str, Any],
    expected: dict[str, Any] | None,
    check: Callable[[_Change[R]], _Follow],
    resolve: Callable[[Work, dict[str, Any]], None] | None = None,
    leave: Callable[[_Change[R], Callable[[], R]], R] | None = None,
) -> R:
    """Update a port or portgroup under the locks of its node and, for a move, of the new
    one: compare-and-swap against ``expected``, ``check`` the proposed row (rules and the
    network interface), store it with the writes ``check`` says go with it and follow its
    extra/vif_port_id. ``resolve`` turns references in ``changes`` into ids, in the first
    read; ``leave`` stores a move to another node (given the store) in its stead."""
    changes = dict(changes)
    node_ident = changes.pop("node_uuid", None)
    with conductor.db.reading() as work:
        row = members.get(work, ident)
        node_id = _existing_node(work, node_ident).id if node_ident else row.node_id
        if resolve is not None:
            resolve(work, changes)
    if node_id != row.node_id:
        changes["node_id"] = node_id
    if "extra" in changes:
        clear_interrupted_elsewhere(conductor, context, legacy_vif(changes["extra"]), node_id)
    with _tasks_for(conductor, context, {row.node_id, node_id}) as tasks:
        return _change_member(
            conductor, members, tasks, row, ident, changes, expected, check, leave
        )


def _change_member(
    conductor: Conductor,
    members: _Members[R],
    tasks: dict[int, Task],
    row: R,
    ident: str,
    changes: dict[str, Any],
    expected: dict[str, Any] | None,
    check: Callable[[_Change[R]], _Follow],
    leave: Callable[[_Change[R], Callable[[], R]], R] | None = None,
) -> R:
    """:func:`_update_member`'s change, once the ``tasks`` of the nodes it touches hold
    their locks."""
    task = tasks[row.node_id]
    current = _under_lock(conductor, members.on_node(task), row)
    check_unchanged(members.kind, ident, current, expected)
    changed = {k for k, v in changes.items() if getattr(current, k) != v}
    if not changed:
        return current
    proposed = _proposed(current, changes, changed)
    owner = tasks[proposed.node_id]
    inventory = Inventory.of(tasks.values())
    change = _Change(current, proposed, changes, changed, inventory, task, owner)
    follow = check(change)
    before = {k: getattr(current, k) for k in changed}

    def write() -> R:
        row = members.store(task, current, {k: changes[k] for k in changed})
        follow.do()
        return row

    def undo(_: R) -> None:
        follow.undo()
        members.store(task, current, before)

    def store() -> R:
        return store_with_legacy_vif(
            conductor, (task, owner), current, write, undo, legacy_vif(proposed.extra)
        )

    if leave is None or owner is task:
        return store()
    return leave(change, store)


def change_port(conductor: Conductor, task: Task, port: Port, changes: dict[str, Any]) -> Port:
    """Change a port of the task's node, whose lock the caller holds, with every rule a
    PATCH of it checks (it stays on the node)."""
    return _change_member(
        conductor,
        _PORTS,
        {task.node.id: task},
        port,
        port.uuid,
        changes,
        None,
        lambda change: _check_port_change(conductor, change, None),
    )


def _refuse_if_vif(task: Task, target: Port | Portgroup) -> None:
    vif = task.vif_on(target)
    if vif is not None and not task.node.maintenance:
        kind = type(target).__name__.lower()
        raise ResourceInUse(
            f"Cannot delete {kind} {target.uuid}: VIF {vif} is attached to it. Detach the "
            "VIF first, or put the node in maintenance."
        )


def _detach_before_delete(conductor: Conductor, task: Task, vifs: list[str]) -> None:
    """Tell the network interface about VIFs a forced delete (maintenance) takes away.

    Best effort: the delete goes on if the network service cannot be told; the record goes
    with the port, portgroup or node in any case (also when the node's interface is no
    longer enabled, and so cannot be told).
    """
    if not vifs:
        return
    iface = conductor.enabled_interface(task.node)
    if iface is None:
        LOG.warning(
            "Deleting in maintenance: VIFs %s of node %s are not detached: its network "
            "interface %r is not enabled",
            ", ".join(vifs),
            task.node.uuid,
            task.node.network_interface,
        )
        return
    for vif in vifs:
        try:
            iface.vif_detach(task, vif)
        except MetalwireError as exc:
            LOG.warning(
                "Deleting in maintenance: could not detach VIF %s from node %s: %s",
                vif,
                task.node.uuid,
                exc,
            )
            continue
        event = f"VIF {vif} detached by a delete in maintenance"
        conductor.record_history(task, HistoryEntry("vif", event, vif_id=vif))


def _check_address_free(task: Task, uuid: str, changes: dict[str, Any]) -> None:
    """Refuse a MAC already used before the network interface is told about the change."""
    address = changes.get("address")
    if address is None:
        return
    other = task.inventory.port_by_address(address)
    if other is not None and other.uuid != uuid:
        raise Duplicate(f"A port with MAC address {address} already exists.")


def delete_port(conductor: Conductor, context: RequestContext, uuid: str) -> None:
    def attempt() -> None:
        with conductor.db.reading() as work:
            port = work.ports.get(uuid)
        with conductor.exclusive_task(port.node_id, context) as task:
            remove_port(conductor, task, _under_lock(conductor, task.ports, port))

    until_still_there(attempt)


def remove_port(conductor: Conductor, task: Task, port: Port) -> None:
    """Delete a port of the task's node, whose lock the caller holds, with every rule a
    DELETE of it checks (its network interface told)."""
    refuse_dynamic_member_change(None, port, Inventory.of([task]))
    _refuse_if_vif(task, port)
    vif = task.vif_on(port)
    _detach_before_delete(conductor, task, [vif] if vif else [])
    iface = conductor.enabled_interface(task.node)
    if iface is None:  # an interface no longer enabled cannot be told
        task.inventory.delete_port(port.uuid)
    else:
        iface.remove_port(task, port)


def create_portgroup(
    conductor: Conductor, context: RequestContext, values: dict[str, Any]
) -> Portgroup:
    values = dict(values)
    with conductor.db.reading() as work:
        node = _existing_node(work, values.pop("node_uuid"))
    new_vif = legacy_vif(values.get("extra"))
    clear_interrupted_elsewhere(conductor, context, new_vif, node.id)
    with conductor.exclusive_task(node.id, context) as task:
        values["node_id"] = task.node.id
        values.setdefault("uuid", str(uuidlib.uuid4()))
        check_portgroup(Portgroup(**values), None, Inventory.of([task]))
        return store_with_legacy_vif(
            conductor,
            (task, task),
            None,
            lambda: task.inventory.create_portgroup(values),
            lambda portgroup: task.inventory.delete_portgroup(portgroup.id),
            new_vif,
        )


def delete_portgroup(conductor: Conductor, context: RequestContext, ident: str) -> None:
    def attempt() -> None:
        with conductor.db.reading() as work:
            portgroup = work.portgroups.get(ident)
        with conductor.exclusive_task(portgroup.node_id, context) as task:
            current = _under_lock(conductor, task.portgroups, portgroup)
            refuse_dynamic_portgroup_delete(current, Inventory.of([task]))
            if task.members(current):
                raise Invalid(
                    f"Portgroup {current.uuid} cannot be deleted: ports "
                    f"{', '.join(p.uuid for p in task.members(current))} are still members."
                )
            _refuse_if_vif(task, current)
            vif = task.vif_on(current)
            _detach_before_delete(conductor, task, [vif] if vif else [])
            task.inventory.delete_portgroup(current.id)

    until_still_there(attempt)
