"""Drift audit: where metalwire's VIF attachments and Neutron disagree, and the safe repairs.

For every attachment of a node whose network interface keeps Neutron ports in step
(``neutron``, or ``flat`` with Neutron), the VIF's Neutron port is compared with what
metalwire would have made of it:

* ``vif_port_missing``: Neutron has no port with the VIF's id (not repaired: metalwire does
  not recreate a tenant's port; detach the VIF);
* ``mac_mismatch``: the port's MAC is not the chosen port's (or portgroup's) address
  (repaired by setting it again);
* ``binding_mismatch``: on a deployed (``active``) node, ``binding:host_id`` (the node UUID
  for ``neutron``, the compute host recorded at deploy for ``flat``) or ``binding:profile``'s
  ``local_link_information`` is not what the interface binds (repaired by binding again);
* ``bound_while_not_deployed``: the node is not deployed but the port is bound (repaired by
  unbinding it).

Then every Neutron port with ``binding:vnic_type`` ``baremetal`` bound to a metalwire node
(``binding:host_id`` = its UUID) that no attachment has, and that is not one of the node's
provisioning or cleaning ports, is an ``orphan_port`` (repaired by unbinding it).

The audit reads without locks; a repair takes the node's lock, audits the node again under
it and fixes what is still wrong, each fix (or its failure) in the node's history. Nodes in
the middle of a provision step are skipped for the binding checks and the orphan search.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from metalwire.conductor.tasks import Conductor, node_label
from metalwire.context import RequestContext
from metalwire.db.models import Port, Portgroup, VifAttachment
from metalwire.errors import Invalid, NodeNotFound
from metalwire.networking.neutron import NeutronNetwork
from metalwire.networking.neutron_client import NeutronClient, NeutronPort, configuration_problem
from metalwire.networking.neutron_ports import (
    CLEANING_KEY,
    PROVISIONING_KEY,
    VNIC_BAREMETAL,
    NeutronPortsMixin,
    same_mac,
)
from metalwire.networking.selection import describe
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)

Json = dict[str, Any]

VIF_PORT_MISSING = "vif_port_missing"
MAC_MISMATCH = "mac_mismatch"
BINDING_MISMATCH = "binding_mismatch"
BOUND_WHILE_NOT_DEPLOYED = "bound_while_not_deployed"
ORPHAN_PORT = "orphan_port"
KINDS = (VIF_PORT_MISSING, MAC_MISMATCH, BINDING_MISMATCH, BOUND_WHILE_NOT_DEPLOYED, ORPHAN_PORT)

#: What a repair does for each kind of finding; a kind missing here is not repaired.
REPAIRS = {
    MAC_MISMATCH: "reset MAC",
    BINDING_MISMATCH: "bind again",
    BOUND_WHILE_NOT_DEPLOYED: "unbind",
    ORPHAN_PORT: "unbind",
}

DEPLOYED = "active"
#: Provision steps run under the node's lock and bind or unbind as they go: a lock-free read
#: in the middle of one would see a half-done state.
IN_PROGRESS = frozenset({"deploying", "deleting", "cleaning", "verifying"})
#: Nodes read and compared at a time: the audit of 10,000 nodes holds one page in memory.
PAGE = 500
#: The Neutron port fields the audit reads: answers stay small.
PORT_FIELDS = (
    "id",
    "network_id",
    "mac_address",
    "status",
    "binding:host_id",
    "binding:vnic_type",
    "binding:vif_type",
    "binding:profile",
)


@dataclass(frozen=True)
class Finding:
    """One place where an attachment (or its absence) and Neutron disagree."""

    kind: str
    node_uuid: str
    node_name: str | None
    vif_id: str
    target_uuid: str | None
    expected: Any
    actual: Any
    message: str

    @property
    def repair(self) -> str | None:
        """What ``--repair`` does about it, or None if it is left to the operator."""
        return REPAIRS.get(self.kind)

    def as_json(self) -> Json:
        return {
            "kind": self.kind,
            "node_uuid": self.node_uuid,
            "node_name": self.node_name,
            "vif_id": self.vif_id,
            "target_uuid": self.target_uuid,
            "expected": self.expected,
            "actual": self.actual,
            "repairable": self.repair is not None,
            "repair": self.repair,
            "message": self.message,
        }


@dataclass(frozen=True)
class AuditReport:
    findings: list[Finding]
    nodes_checked: int
    checked_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))

    def as_json(self) -> Json:
        return {
            "checked_at": self.checked_at.isoformat(),
            "nodes_checked": self.nodes_checked,
            "findings": [f.as_json() for f in self.findings],
        }


# -- reading Neutron -------------------------------------------------------------------------


def neutron_client(conductor: Conductor) -> NeutronClient:
    """The Neutron client of the first enabled interface that talks to Neutron."""
    for iface in conductor.interfaces.by_name.values():
        if isinstance(iface, NeutronPortsMixin) and iface.uses_neutron():
            return iface.neutron()
    problem = configuration_problem(conductor.config.neutron) or "no enabled interface uses it."
    raise Invalid(f"The drift audit compares VIF attachments with Neutron, but {problem}")


def ports_by_id(client: NeutronClient, vif_ids: Sequence[str]) -> dict[str, NeutronPort]:
    """The Neutron ports of the VIFs that have one, by id (a few list calls, not one each)."""
    ports = client.list_ports_matching(
        "read the ports of attached VIFs", "id", vif_ids, fields=PORT_FIELDS
    )
    return {port.id: port for port in ports}


def bound_to(client: NeutronClient, node_uuids: Sequence[str]) -> list[NeutronPort]:
    """Neutron's baremetal ports bound to any of the nodes."""
    wanted = set(node_uuids)
    ports = client.list_ports_matching(
        "find baremetal ports bound to nodes", "binding:host_id", node_uuids, fields=PORT_FIELDS
    )
    return [p for p in ports if p.vnic_type == VNIC_BAREMETAL and p.host_id in wanted]


# -- what the attachment says ----------------------------------------------------------------


def expected_binding(
    task: Task, iface: NeutronPortsMixin, attachment: VifAttachment, target: Port | Portgroup
) -> tuple[str, list[Json] | None] | None:
    """(host, local_link_information or None if not compared) of a deployed node's VIF;
    None when it should be unbound."""
    links = list(iface.profile_for(task, target).get("local_link_information") or [])
    if isinstance(iface, NeutronNetwork):
        return task.node.uuid, links
    host = (attachment.info or {}).get("binding_host_id")  # flat: the compute host, if any
    return (str(host), links) if host else None


def _finding(
    task: Task, kind: str, vif_id: str, target: Port | Portgroup | None, **details: Any
) -> Finding:
    """A finding on the task's node; ``details`` are ``expected``, ``actual``, ``message``."""
    target_uuid = None if target is None else target.uuid
    return Finding(kind, task.node.uuid, task.node.name, vif_id, target_uuid, **details)


def _confirmed(task: Task) -> list[VifAttachment]:
    return [a for a in task.attachments if not a.pending]


def attachment_findings(
    task: Task,
    iface: NeutronPortsMixin,
    client: NeutronClient,
    ports: Mapping[str, NeutronPort] | None = None,
) -> list[Finding]:
    """Where the node's (confirmed) attachments and their Neutron ports disagree; ``ports``
    (by id) were read already, or are read now when None."""
    attachments = _confirmed(task)
    if not attachments:
        return []
    if ports is None:
        ports = ports_by_id(client, [a.vif_id for a in attachments])
    findings: list[Finding] = []
    for attachment in attachments:
        target = task.find_target(attachment.vif_id)
        if target is not None:
            port = ports.get(attachment.vif_id)
            findings += _drift(task, iface, attachment, target, port)
    return findings


def _drift(
    task: Task,
    iface: NeutronPortsMixin,
    attachment: VifAttachment,
    target: Port | Portgroup,
    port: NeutronPort | None,
) -> list[Finding]:
    """How one attachment's Neutron port (None: there is none) differs from the record."""
    vif_id, label, state = attachment.vif_id, node_label(task.node), task.node.provision_state
    where = f"{describe(target)} of node {label}"
    if port is None:
        message = (
            f"VIF {vif_id} is attached to {where}, but Neutron has no port {vif_id}; detach "
            "the VIF (the audit does not recreate a tenant's port)."
        )
        return [
            _finding(
                task,
                VIF_PORT_MISSING,
                vif_id,
                target,
                expected=vif_id,
                actual=None,
                message=message,
            )
        ]
    found: list[Finding] = []
    if target.address and not same_mac(target.address, port.mac_address):
        message = (
            f"Neutron port {vif_id} has MAC {port.mac_address}, but it is attached to {where}, "
            f"whose MAC is {target.address}."
        )
        found.append(
            _finding(
                task,
                MAC_MISMATCH,
                vif_id,
                target,
                expected=target.address,
                actual=port.mac_address,
                message=message,
            )
        )
    if state in IN_PROGRESS:
        return found
    actual = {
        "binding:host_id": port.host_id,
        "binding:vnic_type": port.vnic_type,
        "local_link_information": port.profile.get("local_link_information"),
    }
    if state != DEPLOYED:
        if port.bound:
            message = (
                f"Node {label} is {state}, not deployed, but Neutron port {vif_id} is bound to "
                f"host {port.host_id}."
            )
            found.append(
                _finding(
                    task,
                    BOUND_WHILE_NOT_DEPLOYED,
                    vif_id,
                    target,
                    expected=None,
                    actual=actual,
                    message=message,
                )
            )
        return found
    binding = expected_binding(task, iface, attachment, target)
    problem = _binding_problem(port, binding)
    if problem:
        expected: Json | None = None
        if binding is not None:
            host, links = binding
            expected = {"binding:host_id": host, "binding:vnic_type": VNIC_BAREMETAL}
            if links is not None:
                expected["local_link_information"] = links
        message = (
            f"Node {label} is deployed, but Neutron port {vif_id} (attached to "
            f"{describe(target)}) {problem}."
        )
        found.append(
            _finding(
                task,
                BINDING_MISMATCH,
                vif_id,
                target,
                expected=expected,
                actual=actual,
                message=message,
            )
        )
    return found


def _binding_problem(port: NeutronPort, binding: tuple[str, list[Json] | None] | None) -> str:
    """How the port's binding differs from the expected one ('' if it does not)."""
    if binding is None:
        return f"is bound to host {port.host_id}, but should be unbound" if port.bound else ""
    host, links = binding
    if port.host_id != host:
        return f"has binding:host_id {port.host_id or 'unset'}, expected {host}"
    if port.vnic_type != VNIC_BAREMETAL:
        return f"has binding:vnic_type {port.vnic_type or 'unset'}, expected {VNIC_BAREMETAL}"
    actual = port.profile.get("local_link_information")
    if links is not None and actual != links:
        return f"has local_link_information {actual!r}, expected {links!r}"
    return ""


def _service_ports(task: Task) -> set[str]:
    """The node's provisioning and cleaning ports: bound to it, but no attachments."""
    return {
        str(port.internal_info[key])
        for port in task.ports
        for key in (PROVISIONING_KEY, CLEANING_KEY)
        if (port.internal_info or {}).get(key)
    }


def orphan_finding(conductor: Conductor, task: Task, port: NeutronPort) -> Finding | None:
    """An orphan finding for a port bound to the task's node, unless something owns it."""
    if task.node.provision_state in IN_PROGRESS or port.id in _service_ports(task):
        return None
    if task.attachment_of(port.id) is not None:
        return None  # the node's own VIF: no need to ask the database
    with conductor.db.reading() as work:
        if work.attachments.find(port.id) is not None:
            return None  # attached (perhaps to another node: that node's audit tells)
    message = (
        f"Neutron port {port.id} is a baremetal port bound to node {node_label(task.node)}, "
        "but no VIF attachment has it."
    )
    actual = {"binding:host_id": port.host_id, "binding:vnic_type": port.vnic_type}
    return _finding(task, ORPHAN_PORT, port.id, None, expected=None, actual=actual, message=message)


# -- the audit ---------------------------------------------------------------------------------


def audited_interface(conductor: Conductor, task: Task) -> NeutronPortsMixin | None:
    iface = conductor.network_interface(task.node)
    if isinstance(iface, NeutronPortsMixin) and iface.uses_neutron():
        return iface
    return None


def node_findings(
    conductor: Conductor,
    task: Task,
    client: NeutronClient,
    bound: Sequence[NeutronPort],
    ports: Mapping[str, NeutronPort] | None = None,
) -> list[Finding]:
    """The node's findings; ``bound`` are the baremetal ports bound to it, ``ports`` (by id)
    its VIFs' Neutron ports if already read."""
    findings: list[Finding] = []
    iface = audited_interface(conductor, task)
    if iface is not None:
        findings += attachment_findings(task, iface, client, ports)
    for port in bound:
        orphan = orphan_finding(conductor, task, port)
        if orphan is not None:
            findings.append(orphan)
    return findings


def _pages(nodes: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(nodes), PAGE):
        yield nodes[start : start + PAGE]


def _page_findings(
    conductor: Conductor, client: NeutronClient, tasks: Sequence[Task]
) -> list[Finding]:
    """The findings of a page of nodes, from bulk reads of their VIFs' Neutron ports and of
    the baremetal ports bound to them (Neutron cannot filter on ``binding:vnic_type``)."""
    vif_ids = [
        a.vif_id
        for task in tasks
        if audited_interface(conductor, task) is not None
        for a in _confirmed(task)
    ]
    ports = ports_by_id(client, vif_ids)
    bound: dict[str, list[NeutronPort]] = {}
    for port in bound_to(client, [t.node.uuid for t in tasks]):
        bound.setdefault(port.host_id, []).append(port)
    findings: list[Finding] = []
    for task in tasks:
        findings += node_findings(conductor, task, client, bound.get(task.node.uuid, []), ports)
    return findings


def audit(conductor: Conductor, context: RequestContext, nodes: Sequence[str]) -> AuditReport:
    """Audit the nodes (UUIDs or names); a node deleted meanwhile is skipped.

    Reads ``PAGE`` nodes at a time, without locks, and asks Neutron in bulk: list calls of
    many ids each, whatever the number of VIFs. Raises Invalid when no Neutron is
    configured, NetworkError when Neutron fails.
    """
    client = neutron_client(conductor)
    findings: list[Finding] = []
    checked = 0
    for page in _pages(nodes):
        tasks: list[Task] = []
        for ident in page:
            with contextlib.suppress(NodeNotFound):
                tasks.append(conductor.shared_task(ident, context))
        checked += len(tasks)
        findings += _page_findings(conductor, client, tasks)
    return AuditReport(findings, checked)
