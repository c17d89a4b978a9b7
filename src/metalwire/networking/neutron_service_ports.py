"""Ports of their own on a service network (provisioning, cleaning, rescuing, inspection),
one per PXE port.

``neutron`` puts a node on its provisioning, cleaning and rescuing networks, ``flat`` on its
cleaning network; both put it on its inspection network for an ``agent`` inspection. Each is
the node's ``driver_info/<process>_network``, else ``[neutron] <process>_network``, and
``neutron`` puts ``[neutron] <process>_network_security_groups`` on the ports it creates
(``flat`` none): for every PXE-enabled port a Neutron port is created on
the network with the port's MAC, bound to the node (``binding:host_id`` = node UUID,
``binding:vnic_type`` = ``baremetal``, ``binding:profile`` with the port's link, and the DHCP
client identifier of an InfiniBand port; a Smart NIC port's is bound to its link's
``hostname`` with the ``smart-nic`` vnic type instead), and its id is kept in the port's
``internal_info["<process>_vif_port_id"]`` until removal deletes it. As in Ironic, the
ports must become ACTIVE only where a binding failure is fatal (``neutron``
unless ``[neutron] fail_on_port_binding_failure`` is false; ``flat`` only if the node's
``driver_info["fail_on_binding_failure"]`` says so; a Smart NIC port's unless that
driver_info key says it is not); elsewhere a failed binding is logged. Ports a failed
earlier run left behind (recorded, or found on the network by MAC) are deleted first. An
empty network option makes both steps a logged no-op; so does a Neutron that is not
configured.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence

from metalwire.db.models import Port
from metalwire.errors import (
    InvalidParameterValue,
    MissingParameterValue,
    NetworkError,
    NetworkInterfaceInvalid,
)
from metalwire.networking.neutron_audit import AuditedNeutronPorts
from metalwire.networking.neutron_client import (
    BAD_GATEWAY,
    VIF_TYPE_BINDING_FAILED,
    NeutronClient,
    NeutronPort,
    binding_failed_error,
)
from metalwire.networking.neutron_ports import (
    Rollback,
    binding_profile,
    client_id_fields,
    rolled_back,
    target_binding_fields,
)
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)


class ServiceNetworkPorts(AuditedNeutronPorts):
    """Creates and deletes the node's ports on a service network."""

    def node_network(self, task: Task, process: str) -> str:
        """The node's ``<process>`` network (``provisioning``, ``cleaning``, ``rescuing``,
        ``inspection``): its ``driver_info`` one, else the ``[neutron]`` option of that
        name, as Ironic reads each."""
        key = f"{process}_network"
        named = task.node.driver_info.get(key)
        return named if isinstance(named, str) and named else str(getattr(self.config.neutron, key))

    def check_node_network(self, task: Task, process: str) -> None:
        """As Ironic's: the node's ``<process>`` network must be named
        (MissingParameterValue), and Neutron, when configured, must know exactly one network
        by that UUID or name (InvalidParameterValue)."""
        option, name = f"{process}_network", self.node_network(task, process)
        if not name:
            raise MissingParameterValue(
                f"UUID or name of {option} is not set in configuration or in node driver_info."
            )
        if not self.uses_neutron():
            return
        found = self.neutron().networks_named(name, f"find the {option}")
        if not found:
            raise InvalidParameterValue(f"{option} with name or UUID {name} was not found")
        if len(found) > 1:
            ids = ", ".join(network.id for network in found)
            raise InvalidParameterValue(f"More than one {option} was found for name {name}: {ids}")

    def validate_inspection(self, task: Task) -> None:
        """As Ironic's ``flat`` and ``neutron``: an inspection network must be named and
        known to Neutron (:meth:`check_node_network`); one that is not named is told as
        insufficient for a managed inspection."""
        try:
            self.check_node_network(task, "inspection")
        except MissingParameterValue as exc:
            raise InvalidParameterValue(
                f"Insufficient information provided for managed inspection: {exc}"
            ) from None

    def add_inspection_network(self, task: Task) -> None:
        """A bound port on the node's inspection network for each PXE-enabled port, kept in
        its ``internal_info["inspection_vif_port_id"]``."""
        self._add_service_ports(task, "inspection", self.node_network(task, "inspection"))

    def remove_inspection_network(self, task: Task) -> None:
        self._remove_service_ports(task, "inspection", self.node_network(task, "inspection"))

    def _add_service_ports(
        self, task: Task, process: str, network_name: str, security_groups: Sequence[str] = ()
    ) -> None:
        """A Neutron port on the network, bound to the node, for each PXE-enabled port; with
        ``security_groups`` (which must all exist) instead of Neutron's default group."""
        node = task.node
        if not self.uses_neutron() or not network_name:
            LOG.info(
                "No [neutron] %s_network configured; node %s stays off a %s network",
                process,
                node.uuid,
                process,
            )
            return
        key = f"{process}_vif_port_id"
        pxe_ports = [p for p in task.ports if p.pxe_enabled]
        if not pxe_ports:
            raise NetworkInterfaceInvalid(
                f"Node {node.uuid} has no PXE-enabled port to put on the {process} network "
                f"{network_name}."
            )
        client = self.neutron()
        rollback = Rollback()
        created: dict[str, str] = {}
        prefix = f"Adding node {node.uuid} to the {process} network {network_name} failed"
        try:
            network = client.find_network(network_name, f"find the {process} network")
            _check_security_groups(client, process, security_groups)
            self._delete_leftovers(task, client, key, network.id, pxe_ports)
            for port in pxe_ports:
                profile = binding_profile(port, (), port.physical_network)
                fields = {
                    "network_id": network.id,
                    "admin_state_up": True,
                    "mac_address": port.address,
                    "device_owner": "baremetal:none",
                    "device_id": node.instance_uuid or node.uuid,
                    **target_binding_fields(node.uuid, port, profile),
                    **client_id_fields(port),
                    **({"security_groups": list(security_groups)} if security_groups else {}),
                }
                purpose = f"create the {process} port of port {port.uuid} of node {node.uuid}"
                self.wait_for_host_agent(task, client, port)
                neutron_port = client.create_port(fields, purpose)
                rollback.add(
                    f"delete {process} port {neutron_port.id}",
                    functools.partial(
                        client.delete_port, neutron_port.id, f"delete {process} port"
                    ),
                )
                created[port.uuid] = neutron_port.id
                self._check_binding(task, client, neutron_port, port, purpose)
            for port in pxe_ports:
                if self.binding_failure_fatal(task, port):
                    client.wait_for_port_status(created[port.uuid], "ACTIVE")
            self._set_internal_info(task, {uuid: (key, pid) for uuid, pid in created.items()})
        except Exception as exc:
            failures = rollback.run()
            if isinstance(exc, NetworkError):
                raise rolled_back(prefix, exc, failures) from None
            raise
        self.settle()
        LOG.info("Node %s is on the %s network %s: %s", node.uuid, process, network.id, created)

    def _check_binding(
        self, task: Task, client: NeutronClient, port: NeutronPort, owner: Port, purpose: str
    ) -> None:
        """Raise if Neutron could not bind a created port and that is fatal for the node
        (:meth:`binding_failure_fatal`, as Ironic decides it); else log it."""
        if port.vif_type != VIF_TYPE_BINDING_FAILED:
            return
        if self.binding_failure_fatal(task, owner):
            raise binding_failed_error("POST", client.path("/ports"), port, purpose)
        LOG.warning(
            "Neutron could not bind port %s of node %s (binding:vif_type %s); going on, as "
            "binding failures are not fatal for the node",
            port.id,
            task.node.uuid,
            port.vif_type,
        )

    def _delete_leftovers(
        self, task: Task, client: NeutronClient, key: str, network_id: str, ports: list[Port]
    ) -> None:
        """Delete service ports left by an earlier run (recorded, or found by MAC)."""
        stale = {p.internal_info[key] for p in task.ports if p.internal_info.get(key)}
        found = client.list_ports(
            "find ports left on the network",
            network_id=network_id,
            mac_address=[p.address for p in ports],
        )
        stale |= {p.id for p in found}
        for neutron_port_id in sorted(stale):
            LOG.info("Deleting Neutron port %s left by an earlier run", neutron_port_id)
            client.delete_port(neutron_port_id, "delete a port left by an earlier run")
        if any(p.internal_info.get(key) for p in task.ports):
            self._set_internal_info(task, {p.uuid: (key, None) for p in task.ports})

    def _remove_service_ports(self, task: Task, process: str, network_name: str) -> None:
        key = f"{process}_vif_port_id"
        recorded = [(p, str(p.internal_info[key])) for p in task.ports if p.internal_info.get(key)]
        if not recorded:
            if not network_name:
                LOG.info("No [neutron] %s_network configured; nothing to remove", process)
            return
        client = self.neutron()
        removed: dict[str, tuple[str, None]] = {}
        try:
            for port, neutron_port_id in recorded:
                purpose = f"delete the {process} port of port {port.uuid} of node {task.node.uuid}"
                if not client.delete_port(neutron_port_id, purpose):
                    LOG.info("Neutron port %s was already gone", neutron_port_id)
                removed[port.uuid] = (key, None)
        except NetworkError as exc:
            self._set_internal_info(task, removed)
            raise NetworkError(
                f"Removing node {task.node.uuid} from the {process} network failed: {exc}",
                exc.code,
            ) from None
        self._set_internal_info(task, removed)

    @staticmethod
    def _set_internal_info(task: Task, changes: Mapping[str, tuple[str, str | None]]) -> None:
        """Set (or, for None, clear) one internal_info key of each port named by UUID."""
        if not changes:
            return
        with task.atomic():
            for port_uuid, (key, value) in changes.items():
                row = task.inventory.port(port_uuid)
                info = {k: v for k, v in (row.internal_info or {}).items() if k != key}
                if value is not None:
                    info[key] = value
                if info != (row.internal_info or {}):
                    task.inventory.update_port(port_uuid, {"internal_info": info})
        task.reload()


def _check_security_groups(client: NeutronClient, process: str, ids: Sequence[str]) -> None:
    """NetworkError (502) naming the security groups of the ``process`` network's ports
    that Neutron does not have, as Ironic refuses them before it creates a port."""
    if not ids:
        return
    missing = client.missing_security_groups(ids, f"find the {process} security groups")
    if missing:
        raise NetworkError(
            f"Neutron has no security group {', '.join(missing)} (from [neutron] "
            f"{process}_network_security_groups).",
            BAD_GATEWAY,
        )
