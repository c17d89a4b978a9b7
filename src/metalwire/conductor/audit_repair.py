"""Drift repair: fix the safe findings of :mod:`metalwire.conductor.audit`, node by node.

Each node is locked (``Conductor.exclusive_task``, or a committed lease for a node whose own
interface calls no external service), audited again under the lock, and every repairable
finding still there is fixed through the Neutron operations of the interfaces: the MAC is set
again (``change_mac``), the VIF bound again (``bind``) or the port unbound. Each fix, or its
failure, is written to the node's history (``event_type`` ``audit``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from metalwire.conductor.audit import (
    BOUND_WHILE_NOT_DEPLOYED,
    MAC_MISMATCH,
    ORPHAN_PORT,
    AuditReport,
    Finding,
    Json,
    audit,
    audited_interface,
    bound_to,
    expected_binding,
    neutron_client,
    node_findings,
)
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.errors import MetalwireError
from metalwire.networking.neutron import NeutronNetwork
from metalwire.networking.neutron_client import NeutronClient
from metalwire.networking.neutron_ports import UNBIND, VNIC_BAREMETAL, Rollback
from metalwire.networking.selection import describe
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
    client = neutron_client(conductor)
    repairs: list[Repair] = []
    for node_uuid in dict.fromkeys(f.node_uuid for f in before.findings if f.repair):
        found = [f for f in before.findings if f.node_uuid == node_uuid and f.repair]
        repairs += _repair_node(conductor, context, client, node_uuid, found)
    return RepairReport(repairs, audit(conductor, context, nodes))


@contextlib.contextmanager
def _locked(conductor: Conductor, context: RequestContext, node_uuid: str) -> Iterator[Task]:
    """The node under its lock, held as a committed lease: the fixes call Neutron, and no
    database transaction may stay open across a network call (exclusive_task makes one
    transaction of the block for a node whose own interface calls no external service)."""
    node = conductor.shared_task(node_uuid, context).node
    if conductor.runs_locally(node):
        with conductor.exclusive_tasks([node.id], context) as tasks:
            yield tasks[node.id]
    else:
        with conductor.exclusive_task(node_uuid, context) as task:
            yield task


def _repair_node(
    conductor: Conductor,
    context: RequestContext,
    client: NeutronClient,
    node_uuid: str,
    found: list[Finding],
) -> list[Repair]:
    """Repair the node's findings under its lock; ``found`` (by the lock-free audit) are
    reported as not repaired if the node cannot be locked or read again."""
    repairs: list[Repair] = []
    try:
        with _locked(conductor, context, node_uuid) as task:
            bound = bound_to(client, [task.node.uuid])
            for finding in node_findings(conductor, task, client, bound):
                if finding.repair is not None:
                    repairs.append(_repair_one(conductor, task, client, finding))
    except MetalwireError as exc:
        message = f"Drift repair of node {node_uuid} failed: {exc}"
        done = {f.vif_id for f in [r.finding for r in repairs]}
        repairs += [Repair(f, False, message) for f in found if f.vif_id not in done]
        with contextlib.suppress(MetalwireError):
            node_id = conductor.shared_task(node_uuid, context).node.id
            conductor.record_failure((node_id, node_uuid), context, "audit", message)
    return repairs


def _repair_one(
    conductor: Conductor, task: Task, client: NeutronClient, finding: Finding
) -> Repair:
    vif_id = finding.vif_id
    rollback = Rollback()
    try:
        done = _fix(conductor, task, client, finding, rollback)
    except MetalwireError as exc:
        failures = rollback.run()
        undone = f" (undoing failed too: {'; '.join(failures)})" if failures else ""
        message = f"Drift repair ({finding.repair}) of Neutron port {vif_id} failed: {exc}{undone}"
        conductor.record_history(
            task, "audit", message, error=True, vif_id=vif_id, target_uuid=finding.target_uuid
        )
        return Repair(finding, False, message)
    message = f"Drift repaired: {done} ({finding.kind}: {finding.message})"
    conductor.record_history(task, "audit", message, vif_id=vif_id, target_uuid=finding.target_uuid)
    return Repair(finding, True, done)


def _fix(
    conductor: Conductor, task: Task, client: NeutronClient, finding: Finding, rollback: Rollback
) -> str:
    """Make Neutron match the attachment (or unbind an orphan); what was done."""
    vif_id = finding.vif_id
    if finding.kind in (ORPHAN_PORT, BOUND_WHILE_NOT_DEPLOYED):
        client.update_port_if_exists(vif_id, UNBIND, f"unbind drifted port {vif_id}")
        return f"unbound Neutron port {vif_id} from node {task.node.uuid}"
    iface = audited_interface(conductor, task)
    attachment = task.attachment_of(vif_id)
    target = task.find_target(vif_id)
    assert iface is not None and attachment is not None and target is not None  # just audited
    port = client.get_port(vif_id, f"read drifted VIF port {vif_id}")
    if finding.kind == MAC_MISMATCH:
        iface.change_mac(client, port, target.address, rollback)
        return f"set the MAC of Neutron port {vif_id} to {target.address} ({describe(target)})"
    binding = expected_binding(task, iface, attachment, target)
    if binding is None:
        client.update_port(vif_id, UNBIND, f"unbind VIF port {vif_id} of an unbound node")
        return f"unbound Neutron port {vif_id}"
    if isinstance(iface, NeutronNetwork):
        iface.bind(task, client, vif_id, target, rollback)
    else:
        fields = {
            "binding:host_id": binding[0],
            "binding:vnic_type": VNIC_BAREMETAL,
            "binding:profile": iface.profile_for(task, target),
        }
        client.update_port(vif_id, fields, f"bind VIF port {vif_id} to host {binding[0]}")
    return f"bound Neutron port {vif_id} to host {binding[0]} through {describe(target)}"
