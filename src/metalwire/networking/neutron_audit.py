"""The drift audit of the ``flat`` and ``neutron`` interfaces: VIF attachments against Neutron.

For every confirmed attachment of a node, the VIF's Neutron port is compared with what the
interface would have made of it:

* ``vif_port_missing``: Neutron has no port with the VIF's id (not repaired: metalwire does
  not recreate a tenant's port; detach the VIF);
* ``mac_mismatch``: the port's MAC is not the chosen port's (or portgroup's) address
  (repaired by setting it again);
* ``binding_mismatch``: on a deployed node (``active``, or rescued or serviced from it:
  neither touches the network), ``binding:host_id`` (the node UUID; a Smart NIC port's
  link ``hostname``), ``binding:vnic_type`` (``baremetal``; ``smart-nic`` for a Smart NIC,
  whose VIF ``flat`` may also have bound to the node at deploy) or (``neutron`` only)
  ``binding:profile``'s
  ``local_link_information`` is not what the interface binds (repaired by binding again);
* ``bound_while_not_deployed``: the node is not deployed but the port is bound otherwise
  than by the seed of an attach (to the node, ``baremetal``, an empty profile) (repaired
  by seeding it again, as an attach does: a routed network needs the seed for the port's
  address). Unbound is no finding, though an attach seeds: a ``neutron`` deploy unbinds
  the VIFs while the node is on the provisioning network, and ``wait call-back``, ``deploy
  failed`` or ``error`` may leave them so (as Ironic's deploy and tear-down do); VIFs
  attached before metalwire seeded were never bound; and an unbound port keeps the address
  the seed gave it, while the deploy binds it anyway.

Then every Neutron port with ``binding:vnic_type`` ``baremetal`` bound to one of the nodes
(``binding:host_id`` = its UUID) that no attachment has, and that is not one of the node's
provisioning or cleaning ports, is an ``orphan_port`` (repaired by unbinding it). Nodes in the
middle of a provision step are skipped for the binding checks and the orphan search.

A page of nodes costs a few Neutron list calls, whatever the number of VIFs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metalwire.db.models import Port, Portgroup, VifAttachment
from metalwire.errors import MetalwireError, NetworkError
from metalwire.networking.drift import (
    BINDING_MISMATCH,
    BOUND_WHILE_NOT_DEPLOYED,
    DYNAMIC_PORTGROUP_VIF_GONE,
    MAC_MISMATCH,
    ORPHAN_PORT,
    STEPS_IN_PROGRESS,
    VIF_PORT_MISSING,
    Finding,
    Json,
)
from metalwire.networking.neutron_client import NeutronClient, NeutronPort, configuration_problem
from metalwire.networking.neutron_ports import (
    CLEANING_KEY,
    INSPECTION_KEY,
    PROVISIONING_KEY,
    RESCUING_KEY,
    UNBIND,
    VNIC_BAREMETAL,
    NeutronPortsMixin,
    Rollback,
    is_seed,
    same_mac,
    seed_difference,
    seed_fields,
)
from metalwire.networking.selection import describe
from metalwire.networking.task import Task

#: What a repair does for each kind of finding; a kind missing here is not repaired.
REPAIRS = {
    DYNAMIC_PORTGROUP_VIF_GONE: "delete the dynamic portgroup",
    MAC_MISMATCH: "reset MAC",
    BINDING_MISMATCH: "bind again",
    BOUND_WHILE_NOT_DEPLOYED: "seed again",
    ORPHAN_PORT: "unbind",
}

#: The states a node is on its tenant networks in, its VIFs bound as a deploy leaves them:
#: ``active``, and the states rescue and service lead to from it (an ``agent`` rescue binds
#: the VIFs again once its ramdisk is up; one that failed may leave them unbound, which the
#: audit reports and its repair binds again).
DEPLOYED = frozenset(
    {
        "active",
        "rescuing",
        "rescue",
        "rescue failed",
        "unrescuing",
        "unrescue failed",
        "servicing",
        "service failed",
    }
)
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


class AuditedNeutronPorts(NeutronPortsMixin):
    """:class:`NeutronPortsMixin` with the drift audit of the network interface contract."""

    def audit_unavailable(self) -> str | None:
        if self.uses_neutron():
            return None
        problem = configuration_problem(self.config.neutron) or "it is not configured."
        return f"the drift audit compares VIF attachments with Neutron, but {problem}"

    def audit(self, task: Task) -> list[Finding]:
        return self.audit_nodes([task])

    def audit_nodes(self, tasks: Sequence[Task]) -> list[Finding]:
        return findings(self, self.neutron(), tasks)

    def repair(self, task: Task, finding: Finding) -> str:
        """Make Neutron match the attachment (or unbind an orphan); what was done. A failure
        undoes the done steps, newest first, and raises naming what could not be undone."""
        rollback = Rollback()
        try:
            return _fix(self, self.neutron(), task, finding, rollback)
        except MetalwireError as exc:
            failures = rollback.run()
            if not failures:
                raise
            code = exc.code if isinstance(exc, NetworkError) else 502
            undone = "; ".join(failures)
            raise NetworkError(f"{exc} (undoing failed too: {undone})", code) from None


# -- reading Neutron -------------------------------------------------------------------------


def ports_by_id(client: NeutronClient, vif_ids: Sequence[str]) -> dict[str, NeutronPort]:
    """The Neutron ports of the VIFs that have one, by id (a few list calls, not one each)."""
    ports = client.list_ports_matching(
        "read the ports of attached VIFs", "id", vif_ids, fields=PORT_FIELDS
    )
    return {port.id: port for port in ports}


def bound_to(client: NeutronClient, node_uuids: Sequence[str]) -> list[NeutronPort]:
    """Neutron's baremetal ports bound to any of the nodes (Neutron cannot filter on
    ``binding:vnic_type``)."""
    wanted = set(node_uuids)
    ports = client.list_ports_matching(
        "find baremetal ports bound to nodes", "binding:host_id", node_uuids, fields=PORT_FIELDS
    )
    return [p for p in ports if p.vnic_type == VNIC_BAREMETAL and p.host_id in wanted]


# -- the comparison ----------------------------------------------------------------------------


def findings(
    iface: NeutronPortsMixin, client: NeutronClient, tasks: Sequence[Task]
) -> list[Finding]:
    """The findings of a page of nodes, from bulk reads of their VIFs' Neutron ports and of
    the baremetal ports bound to them."""
    ports = ports_by_id(client, [a.vif_id for task in tasks for a in _confirmed(task)])
    bound: dict[str, list[NeutronPort]] = {}
    for port in bound_to(client, [t.node.uuid for t in tasks]):
        bound.setdefault(port.host_id, []).append(port)
    found: list[Finding] = []
    for task in tasks:
        for attachment in _confirmed(task):
            target = task.find_target(attachment.vif_id)
            if target is not None:
                found += _drift(task, iface, attachment, target, ports.get(attachment.vif_id))
        for port in bound.get(task.node.uuid, []):
            orphan = _orphan(task, port)
            if orphan is not None:
                found.append(orphan)
        found += _lone_dynamic_portgroups(task)
    return found


def _lone_dynamic_portgroups(task: Task) -> list[Finding]:
    """Dynamic portgroups no attachment (pending ones included) sits on: built for a VIF
    that is gone, they hold ports no other VIF can use."""
    held = {a.portgroup_id for a in task.attachments}
    found = []
    for group in task.portgroups:
        if group.dynamic_portgroup and group.id not in held:
            members = ", ".join(port.uuid for port in task.members(group)) or "none"
            message = (
                f"Dynamic portgroup {group.uuid} ({group.name}) of node {task.node.label} "
                f"carries no VIF; it holds ports {members}, which no other VIF can take."
            )
            found.append(
                _finding(
                    task,
                    DYNAMIC_PORTGROUP_VIF_GONE,
                    "",
                    group,
                    expected=None,
                    actual=group.uuid,
                    message=message,
                )
            )
    return found


def _confirmed(task: Task) -> list[VifAttachment]:
    return [a for a in task.attachments if not a.pending]


def _finding(
    task: Task, kind: str, vif_id: str, target: Port | Portgroup | None, **details: Any
) -> Finding:
    """A finding on the task's node; ``details`` are ``expected``, ``actual``, ``message``."""
    target_uuid = None if target is None else target.uuid
    return Finding(
        kind,
        task.node.uuid,
        task.node.name,
        vif_id,
        target_uuid,
        **details,
        repair=REPAIRS.get(kind),
    )


#: (``binding:host_id``, ``binding:vnic_type``) pairs a deployed node's VIF may have, and
#: its ``local_link_information`` (None when not compared).
ExpectedBinding = tuple[list[tuple[str, str]], list[Json] | None]


def expected_binding(
    task: Task, iface: NeutronPortsMixin, target: Port | Portgroup
) -> ExpectedBinding:
    """What a deployed node's VIF attached to ``target`` is bound with."""
    return iface.expected_hosts(task, target), iface.expected_links(task, target)


def _drift(
    task: Task,
    iface: NeutronPortsMixin,
    attachment: VifAttachment,
    target: Port | Portgroup,
    port: NeutronPort | None,
) -> list[Finding]:
    """How one attachment's Neutron port (None: there is none) differs from the record."""
    vif_id, label, state = attachment.vif_id, task.node.label, task.node.provision_state
    where = f"{describe(target)} of node {label}"
    if port is None:
        dynamic = isinstance(target, Portgroup) and target.dynamic_portgroup
        message = (
            f"VIF {vif_id} is attached to {where}, but Neutron has no port {vif_id}; detach "
            "the VIF (the audit does not recreate a tenant's port)."
        )
        if dynamic:
            message += " The dynamic portgroup goes with it, freeing its ports (repairable)."
        return [
            _finding(
                task,
                DYNAMIC_PORTGROUP_VIF_GONE if dynamic else VIF_PORT_MISSING,
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
    if state in STEPS_IN_PROGRESS:
        return found
    actual = {
        "binding:host_id": port.host_id,
        "binding:vnic_type": port.vnic_type,
        "local_link_information": port.profile.get("local_link_information"),
    }
    if state not in DEPLOYED:
        if not is_seed(port, task.node.uuid):
            found.append(_unseeded(task, vif_id, target, port))
        return found
    binding = expected_binding(task, iface, target)
    problem = _binding_problem(port, binding)
    if problem:
        (host, vnic_type), links = binding[0][0], binding[1]
        expected: Json = {"binding:host_id": host, "binding:vnic_type": vnic_type}
        if links is not None:
            expected["local_link_information"] = links
        message = (
            f"Node {label} is deployed ({state}), but Neutron port {vif_id} (attached to "
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


def _unseeded(task: Task, vif_id: str, target: Port | Portgroup, port: NeutronPort) -> Finding:
    """The finding for a VIF of a node not deployed whose port is bound, but not seeded."""
    node = task.node
    message = (
        f"Node {node.label} is {node.provision_state}, not deployed, but Neutron port "
        f"{vif_id} (attached to {describe(target)}) {seed_difference(port, node.uuid)}; "
        f"an attach seeds it: binding:host_id {node.uuid}, binding:vnic_type "
        f"{VNIC_BAREMETAL}, an empty binding:profile."
    )
    actual = {
        "binding:host_id": port.host_id,
        "binding:vnic_type": port.vnic_type,
        "binding:profile": port.profile,
    }
    return _finding(
        task,
        BOUND_WHILE_NOT_DEPLOYED,
        vif_id,
        target,
        expected=seed_fields(node.uuid),
        actual=actual,
        message=message,
    )


def _binding_problem(port: NeutronPort, binding: ExpectedBinding) -> str:
    """How the port's binding differs from the expected one ('' if it does not)."""
    hosts, links = binding
    if (port.host_id, port.vnic_type) not in hosts:
        host, vnic_type = hosts[0]
        if port.host_id not in {h for h, _ in hosts}:
            return f"has binding:host_id {port.host_id or 'unset'}, expected {host}"
        return f"has binding:vnic_type {port.vnic_type or 'unset'}, expected {vnic_type}"
    actual = port.profile.get("local_link_information")
    if links is not None and actual != links:
        return f"has local_link_information {actual!r}, expected {links!r}"
    return ""


def _service_ports(task: Task) -> set[str]:
    """The node's provisioning, cleaning, rescuing and inspection ports: bound to it, but
    no attachments."""
    return {
        str(port.internal_info[key])
        for port in task.ports
        for key in (PROVISIONING_KEY, CLEANING_KEY, RESCUING_KEY, INSPECTION_KEY)
        if (port.internal_info or {}).get(key)
    }


def _orphan(task: Task, port: NeutronPort) -> Finding | None:
    """An orphan finding for a port bound to the task's node, unless something owns it."""
    if task.node.provision_state in STEPS_IN_PROGRESS or port.id in _service_ports(task):
        return None
    if task.attachment_of(port.id) is not None:
        return None  # the node's own VIF: no need to ask the database
    if task.attachments.anywhere(port.id) is not None:
        return None  # attached (perhaps to another node: that node's audit tells)
    message = (
        f"Neutron port {port.id} is a baremetal port bound to node {task.node.label}, "
        "but no VIF attachment has it."
    )
    actual = {"binding:host_id": port.host_id, "binding:vnic_type": port.vnic_type}
    return _finding(task, ORPHAN_PORT, port.id, None, expected=None, actual=actual, message=message)


# -- the repairs -------------------------------------------------------------------------------


def _fix(
    iface: NeutronPortsMixin,
    client: NeutronClient,
    task: Task,
    finding: Finding,
    rollback: Rollback,
) -> str:
    vif_id = finding.vif_id
    if finding.kind == ORPHAN_PORT:
        client.update_port_if_exists(vif_id, UNBIND, f"unbind drifted port {vif_id}")
        return f"unbound Neutron port {vif_id} from node {task.node.uuid}"
    if finding.kind == DYNAMIC_PORTGROUP_VIF_GONE:
        return _remove_dynamic_portgroup(task, finding)
    attachment = task.attachment_of(vif_id)
    target = task.find_target(vif_id)
    assert attachment is not None and target is not None  # just audited under the lock
    port = client.get_port(vif_id, f"read drifted VIF port {vif_id}")
    if finding.kind == MAC_MISMATCH:
        iface.change_mac(client, port, target.address, rollback)
        return f"set the MAC of Neutron port {vif_id} to {target.address} ({describe(target)})"
    if finding.kind == BOUND_WHILE_NOT_DEPLOYED:
        iface.seed(task, client, port, rollback)
        return f"seeded the binding of Neutron port {vif_id} to node {task.node.uuid} again"
    iface.bind(task, client, vif_id, target, rollback)
    return f"bound Neutron port {vif_id} to node {task.node.uuid} through {describe(target)}"


def _remove_dynamic_portgroup(task: Task, finding: Finding) -> str:
    """Forget the gone VIF (its record takes the group along) or, without a record, delete
    the group; either way its ports are free again."""
    if finding.vif_id:
        task.attachments.remove(finding.vif_id)
        return (
            f"detached gone VIF {finding.vif_id}, deleting dynamic portgroup "
            f"{finding.target_uuid} and freeing its ports"
        )
    group = next(g for g in task.portgroups if g.uuid == finding.target_uuid)
    task.inventory.remove_dynamic_portgroup(group.id)
    return f"deleted dynamic portgroup {finding.target_uuid} and freed its ports"
