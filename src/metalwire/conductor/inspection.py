"""The end of an ``agent`` inspection: the ramdisk's report (``POST /v1/continue_inspection``).

The inspection ramdisk posts the hardware inventory it found, and what else it has to say
(the plugin data: an ``error``, its ``logs``...). As Ironic 39's, the node is found by the
report alone (:func:`lookup`): by the MAC addresses of the inventory's interfaces, which
must all be ports of one node, then by the BMC address the ramdisk read, which must be the
address of one node's ``driver_info``; only a node in ``inspect wait`` is found, and every
failure to find one is the same bare 404, which tells the caller nothing about the nodes.
The report is then processed under the node's lock (:func:`continue_inspection`): the
inspection hooks run (``conductor/inspection_hooks.py``), the node leaves its inspection
network, is powered off, and lands in ``manageable`` with the inventory and plugin data
stored (``GET /v1/nodes/{node}/inventory``); a hook that fails leaves it in ``inspect
failed`` with Ironic's ``last_error``, nothing the hooks did kept.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from metalwire.conductor import inspection_hooks
from metalwire.conductor.aborts import end_inspect_wait
from metalwire.conductor.provision_states import INSPECT_WAIT, TRANSITIONS
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node
from metalwire.db.work import Work
from metalwire.errors import HardwareInspectionFailure, MetalwireError, NodeLockLost, NotFound

LOG = logging.getLogger(__name__)


class NotFoundForInspection(NotFound):
    """No node takes this report. As Ironic's, the answer names no reason, so that a caller
    learns nothing about the nodes from it (the reason is logged)."""

    def __init__(self) -> None:
        super().__init__("Resource could not be found.")


@dataclass(frozen=True)
class LookupKeys:
    """What identifies the reporting node: the valid MAC addresses of its interfaces (lower
    case), the BMC addresses it read, and the node UUID the ramdisk was given, if any."""

    macs: tuple[str, ...]
    bmc_addresses: tuple[str, ...]
    node_uuid: str | None = None


def lookup(conductor: Conductor, keys: LookupKeys) -> Node:
    """The node in ``inspect wait`` the report is from; raises NotFoundForInspection."""
    with conductor.db.reading() as work:
        known = None
        if keys.node_uuid is not None:
            known = work.nodes.find(keys.node_uuid)
            if known is None:
                raise _not_found("no node %s", keys.node_uuid)
        if keys.macs:
            known = _by_macs(work, keys.macs, known)
        if known is not None and known.provision_state != INSPECT_WAIT:
            raise _not_found(
                "node %s has MAC addresses %s but is in %s",
                known.uuid,
                ", ".join(keys.macs),
                known.provision_state,
            )
        if keys.bmc_addresses:
            known = _by_bmc(work, keys, known)
    if known is None:
        raise _not_found(
            "no node has MAC addresses (%s) or BMC addresses (%s)",
            ", ".join(keys.macs),
            ", ".join(keys.bmc_addresses),
        )
    return known


def _not_found(reason: str, *args: Any) -> NotFoundForInspection:
    LOG.error("inspection lookup: " + reason, *args)
    return NotFoundForInspection()


def _by_macs(work: Work, macs: Iterable[str], known: Node | None) -> Node | None:
    """The one node whose ports have these addresses (``known`` when none has); two nodes,
    or another node than ``known``, are a conflict."""
    macs = list(macs)
    owners = work.ports.node_ids_with_addresses(macs)
    if not owners:
        return known
    if len(owners) > 1:
        raise _not_found("the MAC addresses %s are ports of several nodes", ", ".join(macs))
    node = work.nodes.find(owners.pop())
    if node is None:  # deleted meanwhile
        return known
    if known is not None and known.uuid != node.uuid:
        raise _not_found(
            "node %s was named, but the MAC addresses %s are ports of node %s",
            known.uuid,
            ", ".join(macs),
            node.uuid,
        )
    return node


def bmc_addresses(node: Node) -> set[str]:
    """The BMC addresses of a node: its ``driver_info`` values named ``*_address``, the host
    of each that is a URL (metalwire resolves no host name, unlike Ironic)."""
    found = set()
    for name, value in node.driver_info.items():
        if not name.endswith("_address") or not isinstance(value, str) or not value:
            continue
        host = urlparse(value).hostname if "//" in value else value.strip("[]")
        if host:
            found.add(host)
    return found


def _by_bmc(work: Work, keys: LookupKeys, known: Node | None) -> Node | None:
    """Among the nodes in ``inspect wait``, the one whose BMC has one of the addresses; a
    node found by its MAC addresses must be among them, and several without one is a
    conflict."""
    wanted = set(keys.bmc_addresses)
    matching = [node for node in work.nodes.in_state(INSPECT_WAIT) if bmc_addresses(node) & wanted]
    if not matching:
        return known
    uuids = {node.uuid for node in matching}
    if known is not None:
        if known.uuid not in uuids:
            raise _not_found(
                "node %s has the MAC addresses, but nodes %s have the BMC addresses %s",
                known.uuid,
                ", ".join(sorted(uuids)),
                ", ".join(keys.bmc_addresses),
            )
        return known
    if len(matching) > 1:
        raise _not_found(
            "nodes %s all have the BMC addresses %s and none the MAC addresses",
            ", ".join(sorted(uuids)),
            ", ".join(keys.bmc_addresses),
        )
    return matching[0]


def continue_inspection(
    conductor: Conductor,
    context: RequestContext,
    node_uuid: str,
    inventory: dict[str, Any],
    plugin_data: dict[str, Any],
) -> str:
    """Process the report of the node's inspection ramdisk, under the node's lock; the
    state the node lands in. Raises NotFoundForInspection if the node left ``inspect wait``
    meanwhile; a report that cannot be processed fails the inspection instead."""
    with conductor.exclusive_task(node_uuid, context) as task:
        if task.node.provision_state != INSPECT_WAIT:
            raise _not_found("node %s left inspect wait before its report was processed", node_uuid)
        event = "inspection data received from the ramdisk"
        conductor.record_history(task, HistoryEntry("provisioning", event))
        report = inspection_hooks.Report(conductor, task, inventory, dict(plugin_data))
        try:
            with task.savepoint():
                inspection_hooks.run(report)
        except NodeLockLost:
            raise
        except MetalwireError as exc:
            LOG.error("node %s: processing its inspection data failed: %s", node_uuid, exc)
            # Ironic's message, the hooks' failure wrapped by each layer it went through
            failed = HardwareInspectionFailure(f"failed to run inspection hooks: {exc}")
            return end_inspect_wait(conductor, task, f"Failed to finish inspection: {failed}")
        kept = {key: value for key, value in report.plugin_data.items() if key != "logs"}
        state = end_inspect_wait(conductor, task, None)
        if state == TRANSITIONS["inspect"].target:
            with task.writing() as work:
                work.inspection_data.store(task.node.id, inventory, kept)
        return state
