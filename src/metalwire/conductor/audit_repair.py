"""Drift repair: fix the safe findings of :mod:`metalwire.conductor.audit`, node by node.

Each node is locked (``Conductor.exclusive_task``, or a committed lease for a node whose own
interface calls no external service), audited again under the lock by its network interface,
and every repairable finding still there is handed back to the interface
(``NetworkInterface.repair``). Each fix, or its failure, is written to the node's history
(``event_type`` ``audit``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from metalwire.conductor.audit import AuditReport, Finding, Json, audit, audited_interface
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.history import HistoryEntry
from metalwire.errors import MetalwireError
from metalwire.networking.base import NetworkInterface
from metalwire.networking.task import Task


@dataclass(frozen=True)
class Repair:
    finding: Finding
    repaired: bool
    message: str

    def as_json(self) -> Json:
        return {**self.finding.as_json(), "repaired": self.repaired, "result": self.message}


@dataclass(frozen=True)
class RepairReport:
    repairs: list[Repair]
    after: AuditReport

    def as_json(self) -> Json:
        return {"repairs": [r.as_json() for r in self.repairs], **self.after.as_json()}


def repair(conductor: Conductor, context: RequestContext, nodes: Sequence[str]) -> RepairReport:
    """Audit the nodes, fix what is safe under each node's lock, and audit them again."""
    before = audit(conductor, context, nodes)
    repairs: list[Repair] = []
    for node_uuid in dict.fromkeys(f.node_uuid for f in before.findings if f.repair):
        found = [f for f in before.findings if f.node_uuid == node_uuid and f.repair]
        repairs += _repair_node(conductor, context, node_uuid, found)
    return RepairReport(repairs, audit(conductor, context, nodes))


@contextlib.contextmanager
def _locked(conductor: Conductor, context: RequestContext, node_uuid: str) -> Iterator[Task]:
    """The node under its lock, held as a committed lease: the fixes call external services,
    and no database transaction may stay open across a network call (exclusive_task makes
    one transaction of the block for a node whose own interface calls no external service)."""
    node = conductor.shared_task(node_uuid, context).node
    if conductor.runs_locally(node):
        with conductor.exclusive_tasks([node.id], context) as tasks:
            yield tasks[node.id]
    else:
        with conductor.exclusive_task(node_uuid, context) as task:
            yield task


def _repair_node(
    conductor: Conductor, context: RequestContext, node_uuid: str, found: list[Finding]
) -> list[Repair]:
    """Repair the node's findings under its lock; ``found`` (by the lock-free audit) are
    reported as not repaired if the node cannot be locked or read again."""
    repairs: list[Repair] = []
    try:
        with _locked(conductor, context, node_uuid) as task:
            iface = audited_interface(conductor, task)
            for finding in [] if iface is None else iface.audit(task):
                if finding.repair is not None:
                    assert iface is not None
                    repairs.append(_repair_one(conductor, iface, task, finding))
    except MetalwireError as exc:
        message = f"Drift repair of node {node_uuid} failed: {exc}"
        done = {r.finding.vif_id for r in repairs}
        repairs += [Repair(f, False, message) for f in found if f.vif_id not in done]
        with contextlib.suppress(MetalwireError):
            node_id = conductor.shared_task(node_uuid, context).node.id
            conductor.record_failure(
                (node_id, node_uuid), context, HistoryEntry.failed("audit", message)
            )
    return repairs


def _repair_one(
    conductor: Conductor, iface: NetworkInterface, task: Task, finding: Finding
) -> Repair:
    vif_id = finding.vif_id
    try:
        done = iface.repair(task, finding)
    except MetalwireError as exc:
        message = f"Drift repair ({finding.repair}) of VIF {vif_id} failed: {exc}"
        failure = HistoryEntry.failed("audit", message, vif_id, finding.target_uuid)
        conductor.record_history(task, failure)
        return Repair(finding, False, message)
    message = f"Drift repaired: {done} ({finding.kind}: {finding.message})"
    conductor.record_history(
        task, HistoryEntry("audit", message, vif_id=vif_id, target_uuid=finding.target_uuid)
    )
    return Repair(finding, True, done)
