"""Creating, changing and deleting nodes, ports and portgroups, with the rules that guard them.

Changes to an existing node, or to a port or portgroup of one, run under the node's lock and
let the node's network interface refuse them before anything is stored.
"""

from __future__ import annotations

import logging
import uuid as uuidlib
from typing import Any

from sqlalchemy.orm import Session

from metalwire.conductor.tasks import Conductor, node_label
from metalwire.context import RequestContext
from metalwire.db import history as history_db
from metalwire.db import nodes as node_db
from metalwire.db import portgroups as portgroup_db
from metalwire.db import ports as port_db
from metalwire.db import vifs as vif_db
from metalwire.db.models import Node, Port, Portgroup
from metalwire.db.statements import Sql
from metalwire.errors import (
    Conflict,
    Duplicate,
    Invalid,
    InvalidParameterValue,
    InvalidState,
    InvalidStateRequested,
    MetalwireError,
    NodeProtected,
    ResourceInUse,
    StaleUpdate,
)
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
NETWORK_CHANGE_STATES = {"enroll", "manageable", "inspecting", "inspect wait", "available"}


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
    values.setdefault("network_interface", conductor.interfaces.default)
    conductor.interfaces.check_enabled(values["network_interface"])
    values.setdefault("uuid", str(uuidlib.uuid4()))
    with conductor.db.write() as session:
        return node_db.create(session, node_db.to_storage(values))


def _empty_as_none(value: Any) -> Any:
    # An unset field reads as None or as an empty collection depending on where it is kept.
    return None if value in (None, {}, [], "") else value


def _check_unchanged(kind: str, ident: str, current: Any, expected: dict[str, Any] | None) -> None:
    """Refuse an update prepared from values that changed since (compare-and-swap)."""
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
) -> Node:
    with conductor.exclusive_task(ident, context) as task:
        node = task.node
        _check_unchanged("node", ident, node, expected)
        if "driver" in changes:
            _check_driver(conductor, changes["driver"])
        new_iface = changes.get("network_interface")
        if new_iface is not None and new_iface != node.network_interface:
            conductor.interfaces.check_enabled(new_iface)
            if node.provision_state not in NETWORK_CHANGE_STATES and not node.maintenance:
                raise InvalidStateRequested(
                    f"Cannot change the network interface of node {node_label(node)} in "
                    f"provision state {node.provision_state!r} unless it is in maintenance."
                )
            if task.attachments:
                raise Conflict(
                    f"Cannot change the network interface of node {node_label(node)} while "
                    f"VIFs are attached ({', '.join(a.vif_id for a in task.attachments)})."
                )
        if changes.get("maintenance") is False:
            changes = {**changes, "maintenance_reason": None}
        with task.transaction() as session:
            row = node_db.get_by_id(session, node.id)
            return node_db.update(session, row, node_db.to_storage(changes, row.attrs))


def delete_node(conductor: Conductor, context: RequestContext, ident: str) -> None:
    with conductor.exclusive_task(ident, context) as task:
        node = task.node
        if node.instance_uuid and not node.maintenance:
            raise ResourceInUse(
                f"Node {node_label(node)} is associated with instance {node.instance_uuid}; "
                "it can be deleted only when it has none or is in maintenance."
            )
        if node_db.field_value(node, "protected"):
            raise NodeProtected(
                f"Node {node_label(node)} is protected and cannot be deleted; unset "
                "'protected' first."
            )
        if node.provision_state not in DELETABLE_STATES and not node.maintenance:
            raise InvalidState(
                f"Node {node_label(node)} cannot be deleted in provision state "
                f"{node.provision_state!r}."
            )
        _detach_before_delete(
            conductor, task, [a.vif_id for a in task.attachments if a.source == "api"]
        )
        with task.transaction() as session:
            node_db.delete(session, node_db.get_by_id(session, node.id))


# -- ports -------------------------------------------------------------------------------


def _resolve_portgroup(task: Task, portgroup_uuid: str | None) -> int | None:
    if portgroup_uuid is None:
        return None
    with task.transaction() as session:
        portgroup = portgroup_db.get(session, portgroup_uuid)
    if portgroup.node_id != task.node.id:
        raise InvalidParameterValue(
            f"Port can not be added to portgroup {portgroup.uuid}: the portgroup is on "
            f"another node than the port's node {task.node.uuid}."
        )
    return portgroup.id


def _legacy_vif(extra: dict[str, Any]) -> str | None:
    value = extra.get("vif_port_id")
    return str(value) if value else None


def _sync_legacy_vif(
    session: Session, task: Task, target: Port | Portgroup, old: str | None, new: str | None
) -> None:
    """Keep the attachment record in step with extra/vif_port_id, in the caller's transaction."""
    if old == new:
        return
    sql = Sql.of(session)
    where = f"{type(target).__name__.lower()} {target.uuid}"
    if old is not None and vif_db.find(sql, old) is not None:
        vif_db.remove(sql, old)
        _legacy_history(
            sql,
            task,
            f"VIF {old} detached from {where} (extra/vif_port_id removed; deprecated)",
            old,
            target,
        )
    if new is not None:
        vif_db.check_free(sql, new)
        busy = task.vif_on(target)
        if busy is not None and busy != old:
            raise Conflict(f"{type(target).__name__} {target.uuid} already holds VIF {busy}.")
        vif_db.record(sql, task.node.id, new, target, {}, source="legacy")
        _legacy_history(
            sql,
            task,
            f"VIF {new} attached to {where} through extra/vif_port_id (deprecated)",
            new,
            target,
        )


def _legacy_history(
    sql: Sql, task: Task, event: str, vif_id: str, target: Port | Portgroup
) -> None:
    LOG.warning("node %s: %s", task.node.uuid, event)
    history_db.record(
        sql,
        task.node.id,
        "vif",
        event,
        severity="WARNING",
        conductor=task.conductor,
        user=task.context.user,
        vif_id=vif_id,
        target_uuid=target.uuid,
        result="success",
    )


def create_port(conductor: Conductor, context: RequestContext, values: dict[str, Any]) -> Port:
    values = dict(values)
    node_uuid = values.pop("node_uuid")
    portgroup_uuid = values.pop("portgroup_uuid", None)
    with conductor.exclusive_task(node_uuid, context) as task:
        values["node_id"] = task.node.id
        values["portgroup_id"] = _resolve_portgroup(task, portgroup_uuid)
        values.setdefault("uuid", str(uuidlib.uuid4()))
        with task.transaction() as session:
            port = port_db.create(session, values)
            _sync_legacy_vif(session, task, port, None, _legacy_vif(port.extra))
        return port


def update_port(
    conductor: Conductor,
    context: RequestContext,
    uuid: str,
    changes: dict[str, Any],
    expected: dict[str, Any] | None = None,
) -> Port:
    with conductor.db.read() as session:
        port = port_db.get(session, uuid)
    changes = dict(changes)
    with conductor.exclusive_task(port.node_id, context) as task:
        if "node_uuid" in changes:
            node_uuid = changes.pop("node_uuid")
            with task.transaction() as session:
                new_node = node_db.get(session, node_uuid)
            if new_node.id != task.node.id:
                if task.node.provision_state == "active" and not task.node.maintenance:
                    raise InvalidStateRequested(
                        f"Cannot move port {uuid} off node {node_label(task.node)} while it "
                        "is active."
                    )
                changes["node_id"] = new_node.id
        if "portgroup_uuid" in changes:
            changes["portgroup_id"] = _resolve_portgroup(task, changes.pop("portgroup_uuid"))
        current = next(p for p in task.ports if p.uuid == uuid)
        _check_unchanged("port", uuid, current, expected)
        changed = {k for k, v in changes.items() if getattr(current, k) != v}
        if not changed:
            return current
        old_vif = _legacy_vif(current.extra)
        new_vif = _legacy_vif(changes.get("extra", current.extra))
        proposed = Port(**{c: getattr(current, c) for c in _PORT_COLUMNS})
        for key in changed:
            setattr(proposed, key, changes[key])
        _check_address_free(task, uuid, changes)
        conductor.network_interface(task.node).port_changed(task, proposed, changed)
        with task.transaction() as session:
            row = port_db.get(session, uuid)
            updated = port_db.update(session, row, {k: changes[k] for k in changed})
            _sync_legacy_vif(session, task, updated, old_vif, new_vif)
        return updated


_PORT_COLUMNS = [c.name for c in Port.__table__.columns]


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
    with the port, portgroup or node in any case.
    """
    iface = conductor.network_interface(task.node)
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
        conductor.record_history(
            task, "vif", f"VIF {vif} detached by a delete in maintenance", vif_id=vif
        )


def _check_address_free(task: Task, uuid: str, changes: dict[str, Any]) -> None:
    """Refuse a MAC already used before the network interface is told about the change."""
    address = changes.get("address")
    if address is None:
        return
    with task.transaction() as session:
        other = port_db.find_by_address(session, address)
    if other is not None and other.uuid != uuid:
        raise Duplicate(f"A port with MAC address {address} already exists.")


def delete_port(conductor: Conductor, context: RequestContext, uuid: str) -> None:
    with conductor.db.read() as session:
        port = port_db.get(session, uuid)
    with conductor.exclusive_task(port.node_id, context) as task:
        current = next(p for p in task.ports if p.uuid == uuid)
        _refuse_if_vif(task, current)
        vif = task.vif_on(current)
        _detach_before_delete(conductor, task, [vif] if vif else [])
        with task.transaction() as session:
            port_db.delete(session, port_db.get(session, uuid))


# -- portgroups --------------------------------------------------------------------------


def create_portgroup(
    conductor: Conductor, context: RequestContext, values: dict[str, Any]
) -> Portgroup:
    values = dict(values)
    node_uuid = values.pop("node_uuid")
    with conductor.exclusive_task(node_uuid, context) as task:
        values["node_id"] = task.node.id
        values.setdefault("uuid", str(uuidlib.uuid4()))
        with task.transaction() as session:
            portgroup = portgroup_db.create(session, values)
            _sync_legacy_vif(session, task, portgroup, None, _legacy_vif(portgroup.extra))
        return portgroup


def update_portgroup(
    conductor: Conductor,
    context: RequestContext,
    ident: str,
    changes: dict[str, Any],
    expected: dict[str, Any] | None = None,
) -> Portgroup:
    with conductor.db.read() as session:
        portgroup = portgroup_db.get(session, ident)
    changes = dict(changes)
    with conductor.exclusive_task(portgroup.node_id, context) as task:
        current = next(pg for pg in task.portgroups if pg.id == portgroup.id)
        _check_unchanged("portgroup", ident, current, expected)
        if "node_uuid" in changes:
            with task.transaction() as session:
                new_node = node_db.get(session, changes.pop("node_uuid"))
            if new_node.id != task.node.id:
                if task.members(current):
                    raise Invalid(
                        f"Portgroup {current.uuid} has member ports; it cannot move to "
                        "another node."
                    )
                changes["node_id"] = new_node.id
        changed = {k for k, v in changes.items() if getattr(current, k) != v}
        if not changed:
            return current
        old_vif = _legacy_vif(current.extra)
        new_vif = _legacy_vif(changes.get("extra", current.extra))
        proposed = Portgroup(**{c: getattr(current, c) for c in _PORTGROUP_COLUMNS})
        for key in changed:
            setattr(proposed, key, changes[key])
        conductor.network_interface(task.node).portgroup_changed(task, proposed, changed)
        with task.transaction() as session:
            row = portgroup_db.get_by_id(session, current.id)
            updated = portgroup_db.update(session, row, {k: changes[k] for k in changed})
            _sync_legacy_vif(session, task, updated, old_vif, new_vif)
        return updated


_PORTGROUP_COLUMNS = [c.name for c in Portgroup.__table__.columns]


def delete_portgroup(conductor: Conductor, context: RequestContext, ident: str) -> None:
    with conductor.db.read() as session:
        portgroup = portgroup_db.get(session, ident)
    with conductor.exclusive_task(portgroup.node_id, context) as task:
        current = next(pg for pg in task.portgroups if pg.id == portgroup.id)
        if task.members(current):
            raise Invalid(
                f"Portgroup {current.uuid} cannot be deleted: ports "
                f"{', '.join(p.uuid for p in task.members(current))} are still members."
            )
        _refuse_if_vif(task, current)
        vif = task.vif_on(current)
        _detach_before_delete(conductor, task, [vif] if vif else [])
        with task.transaction() as session:
            portgroup_db.delete(session, portgroup_db.get_by_id(session, current.id))
