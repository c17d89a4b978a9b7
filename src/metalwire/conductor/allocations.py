"""Allocations: a node reserved for a request by resource class, traits and candidates.

Ironic processes an allocation in the background (``allocating``, then ``active`` or
``error``); metalwire processes it within the request that creates it, so the answer is
already ``active`` or ``error`` (the clients' waits, openstacksdk's
``wait_for_allocation`` and ``baremetal allocation create --wait``, return at once on
either). Nothing is stored until the outcome is known: an ``active`` allocation is written
in the transaction that reserves its node, under the node's lock, so no process ever sees
an allocation without its node, nor a process that stops midway leaves one ``allocating``.

A node is taken as every conductor operation takes it, through
:meth:`~metalwire.conductor.tasks.Conductor.exclusive_task`, and checked again once its
lock is held: of two allocations racing for one node the second finds it taken and moves
on to the next candidate. The node's unique ``instance_uuid`` and the allocation's unique
``node_id`` refuse a second reservation in the database itself.
"""

from __future__ import annotations

import logging
import random
import uuid as uuid_module
from collections.abc import Sequence
from typing import Any

from metalwire.conductor.inventory import check_unchanged, in_transition
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db.models import Allocation, Node
from metalwire.errors import (
    AllocationFailed,
    InvalidState,
    NodeLocked,
    NodeNotFound,
)
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)

ACTIVE = "active"
ERROR = "error"


def _traits_match(wanted: Sequence[str], node: Node) -> bool:
    return set(wanted) <= set(node_db.field_value(node, "traits") or [])


def create(
    conductor: Conductor,
    context: RequestContext,
    values: dict[str, Any],
    node_ident: str | None = None,
) -> Allocation:
    """Store the allocation with the node it reserved (``active``) or, when none could be
    reserved, with the reason (``error``, Ironic's ``last_error``). ``node_ident`` backfills
    the allocation of a node already deployed (AllocationFailed, 400, when it does not fit;
    InvalidState, 409, when the node has another instance). A UUID or name taken is a
    Conflict (409), nothing stored."""
    values = {"traits": [], "candidate_nodes": [], "extra": {}, **values}
    values.setdefault("uuid", str(uuid_module.uuid4()))
    if node_ident is not None:
        return _backfill(conductor, context, values, node_ident)
    with conductor.db.reading() as work:
        nodes = work.allocations.candidates(
            values["resource_class"], values.get("owner"), values["candidate_nodes"]
        )
    try:
        return _reserve_any(conductor, context, values, _in_order(values, nodes))
    except AllocationFailed as exc:
        LOG.warning("%s", exc)
        return _store_failed(conductor, values, str(exc))


def _in_order(values: dict[str, Any], nodes: list[Node]) -> list[Node]:
    """The candidates that have the traits asked for, shuffled so that parallel allocations
    try them in different orders, the node named as the allocation first (as Ironic's)."""
    uuid, resource_class = values["uuid"], values["resource_class"]
    if not nodes:
        why = (
            "none of the requested nodes are available and match the resource class"
            if values["candidate_nodes"]
            else "no available nodes match the resource class"
        )
        raise AllocationFailed(uuid, f"{why} {resource_class}")
    traits = values["traits"]
    nodes = [n for n in nodes if _traits_match(traits, n)]
    if not nodes:
        raise AllocationFailed(
            uuid, f"no suitable nodes have the requested traits {', '.join(traits)}"
        )
    random.shuffle(nodes)
    named = [n for n in nodes if values.get("name") and n.name == values["name"]]
    return named + [n for n in nodes if n not in named]


def _still_fits(node: Node, values: dict[str, Any]) -> bool:
    """Whether the node, read again with its lock held, still fits the allocation."""
    return (
        not node.maintenance
        and node.instance_uuid is None
        and node.provision_state == "available"
        and node.resource_class == values["resource_class"]
        and _traits_match(values["traits"], node)
    )


def _reserve_any(
    conductor: Conductor, context: RequestContext, values: dict[str, Any], nodes: list[Node]
) -> Allocation:
    locked = 0
    for node in nodes:
        try:
            with conductor.exclusive_task(node.uuid, context) as task:
                if not _still_fits(task.node, values):
                    LOG.debug("node %s no longer fits allocation %s", node.uuid, values["uuid"])
                    continue
                return _record(task, values)
        except NodeLocked:
            locked += 1
        except NodeNotFound:
            continue
    why = (
        f"could not reserve any of {locked} suitable nodes"
        if locked
        else "all nodes were filtered out during reservation"
    )
    raise AllocationFailed(values["uuid"], why)


def _record(task: Task, values: dict[str, Any]) -> Allocation:
    """The allocation, active on the task's node, and the node given its instance: one
    transaction under the node's lock."""
    node = task.node
    with task.atomic(), task.writing() as work:
        allocation = work.allocations.create(
            {**values, "node_id": node.id, "state": ACTIVE, "last_error": None}
        )
        task.inventory.update_node(
            {
                "instance_uuid": allocation.uuid,
                "allocation_uuid": allocation.uuid,
                "instance_info": {**node.instance_info, "traits": list(values["traits"])},
            }
        )
    LOG.info("node %s reserved for allocation %s", node.uuid, allocation.uuid)
    return allocation


def _store_failed(conductor: Conductor, values: dict[str, Any], error: str) -> Allocation:
    with conductor.db.writing() as work:
        return work.allocations.create(
            {**values, "node_id": None, "state": ERROR, "last_error": error}
        )


def _backfill(
    conductor: Conductor, context: RequestContext, values: dict[str, Any], node_ident: str
) -> Allocation:
    """The allocation of a node deployed without one: it must be ``active`` and fit the
    allocation (as Ironic 39 checks it); a misfit is stored as failed and refused."""
    uuid = values["uuid"]
    try:
        with conductor.exclusive_task(node_ident, context) as task:
            node = task.node
            errors = _backfill_errors(node, values)
            if errors:
                raise AllocationFailed(
                    uuid, f"Cannot backfill an allocation for node {node.uuid}: {'; '.join(errors)}"
                )
            if node.instance_uuid not in (None, uuid):
                raise InvalidState(
                    f"Node {node.uuid} is associated with instance {node.instance_uuid}."
                )
            return _record(task, values)
    except (AllocationFailed, InvalidState) as exc:
        LOG.warning("%s", exc)
        _store_failed(conductor, values, str(exc))
        raise


def _backfill_errors(node: Node, values: dict[str, Any]) -> list[str]:
    errors = []
    if node.provision_state != "active":
        errors.append(
            f'Node must be in the "active" state, but the current state is "{node.provision_state}"'
        )
    wanted = values.get("resource_class")
    if wanted and node.resource_class != wanted:
        errors.append(
            f"Resource class {node.resource_class} does not match the requested resource "
            f"class {wanted}"
        )
    traits = values["traits"]
    if traits and not _traits_match(traits, node):
        errors.append(
            f"List of traits {node_db.field_value(node, 'traits') or []} does not match the "
            f"requested traits {traits}"
        )
    candidates = values["candidate_nodes"]
    if candidates and node.uuid not in candidates:
        errors.append(
            f"Candidate nodes must be empty or contain the target node, but got {candidates}"
        )
    return errors


def update(
    conductor: Conductor, uuid: str, changes: dict[str, Any], expected: dict[str, Any]
) -> Allocation:
    """Change the allocation's name or extra if it still holds the ``expected`` values its
    patch was made from (else StaleUpdate: the API prepares the patch again)."""
    with conductor.db.writing() as work:
        check_unchanged("allocation", uuid, work.allocations.get(uuid, locked=True), expected)
        return work.allocations.update(uuid, changes)


def delete(conductor: Conductor, context: RequestContext, ident: str) -> None:
    """Delete the allocation, releasing its node (its instance_uuid cleared) under the
    node's lock; InvalidState (409) while the node is active or on its way somewhere, unless
    in maintenance, as Ironic's."""
    with conductor.db.reading() as work:
        allocation = work.allocations.get(ident)
    if allocation.node_id is None:
        with conductor.db.writing() as work:
            work.allocations.delete(allocation.uuid)
        return
    with conductor.exclusive_task(allocation.node_id, context) as task:
        node = task.node
        _check_release(node, allocation.uuid)
        with task.atomic(), task.writing() as work:
            if node.attrs.get("allocation_uuid") == allocation.uuid:
                task.inventory.update_node({"instance_uuid": None})  # drops the allocation
            else:
                work.allocations.delete(allocation.uuid)
    LOG.info("allocation %s deleted", allocation.uuid)


def _check_release(node: Node, uuid: str) -> None:
    if node.maintenance:
        return  # an allocation can always be removed in maintenance
    if in_transition(node):
        raise InvalidState(
            f"Cannot remove allocation {uuid} for node {node.uuid}, because the node is in "
            f"state {node.provision_state} where updates are not allowed (and maintenance "
            "mode is off)"
        )
    if node.provision_state == "active":
        raise InvalidState(
            f"Cannot remove allocation {uuid} for node {node.uuid}, because the node is "
            "active (and maintenance mode is off)"
        )
