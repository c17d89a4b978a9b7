"""``flat``: every node shares one flat network; VIFs are recorded on ports and portgroups.

Without a Neutron endpoint it works standalone: attach, list and detach keep metalwire's own
record, and deployment binds the attached VIFs to the compute host by recording that host on
each attachment.

With ``[neutron] url`` set, the VIFs' Neutron ports are kept in step as well: an attach sets
the Neutron port's MAC to the chosen port's (undone if anything fails), a detach unbinds it
and gives it back its MAC, ``add_provisioning_network`` binds every attached VIF to the
compute host (``binding:host_id`` = ``instance_info["nova_host_id"]``, ``binding:vnic_type``
= ``baremetal``, and ``binding:profile`` with the ``local_link_information`` of the VIF's port
or of its portgroup's members, as :func:`~metalwire.networking.neutron_ports.binding_profile`
builds it for ``neutron``) and ``unconfigure_tenant_networks`` unbinds them. Cleaning puts
the node's PXE-enabled ports on ``[neutron] cleaning_network`` as ``neutron`` does (see
:mod:`metalwire.networking.neutron_service_ports`).
"""

from __future__ import annotations

import functools
import logging

from metalwire.errors import NetworkError
from metalwire.networking.base import NetworkInterface
from metalwire.networking.neutron_ports import (
    VNIC_BAREMETAL,
    Rollback,
    binding_fields,
    rolled_back,
)
from metalwire.networking.neutron_service_ports import ServiceNetworkPorts
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)

#: Key in instance_info where the compute service records the host the instance runs on.
COMPUTE_HOST_KEY = "nova_host_id"


class FlatNetwork(ServiceNetworkPorts, NetworkInterface):
    name = "flat"

    def calls_external_service(self) -> bool:
        return self.config.neutron.configured

    def validate(self, task: Task) -> None:
        return None

    def compute_host(self, task: Task) -> str | None:
        host = task.node.instance_info.get(COMPUTE_HOST_KEY)
        return str(host) if host else None

    def add_provisioning_network(self, task: Task) -> None:
        """Bind the VIFs attached before deployment to the compute host."""
        host = self.compute_host(task)
        if host is None:
            LOG.info(
                "Node %s has no %s in instance_info; its VIFs stay unbound",
                task.node.uuid,
                COMPUTE_HOST_KEY,
            )
            return
        if self.uses_neutron():
            self._bind_to_host(task, host)
        with task.atomic():
            for attachment in task.attachments:
                task.attachments.update_info(
                    attachment.vif_id, {**attachment.info, "binding_host_id": host}
                )
        task.reload()

    def _bind_to_host(self, task: Task, host: str) -> None:
        client = self.neutron()
        rollback = Rollback()
        try:
            for attachment in task.attachments:
                vif_id = attachment.vif_id
                target = task.find_target(vif_id)
                # The switch side (e.g. networking-generic-switch) needs the cable.
                fields = (
                    binding_fields(host, self.profile_for(task, target))
                    if target is not None
                    else {"binding:host_id": host, "binding:vnic_type": VNIC_BAREMETAL}
                )
                rollback.add(
                    f"unbind VIF port {vif_id}", functools.partial(self._unbind, client, vif_id)
                )
                client.update_port(vif_id, fields, f"bind VIF port {vif_id} to compute host {host}")
        except NetworkError as exc:
            raise rolled_back(
                f"Binding the VIFs of node {task.node.uuid} to compute host {host} failed",
                exc,
                rollback.run(),
            ) from None

    def add_cleaning_network(self, task: Task) -> None:
        """With a Neutron, cleaning boots the ramdisk on ``[neutron] cleaning_network``."""
        self._add_service_ports(task, "cleaning", self.config.neutron.cleaning_network)

    def remove_cleaning_network(self, task: Task) -> None:
        self._remove_service_ports(task, "cleaning", self.config.neutron.cleaning_network)

    def unconfigure_tenant_networks(self, task: Task) -> None:
        if self.uses_neutron():
            client = self.neutron()
            for attachment in task.attachments:
                try:
                    self._unbind(client, attachment.vif_id)
                except NetworkError as exc:
                    raise NetworkError(
                        f"Unbinding the VIFs of node {task.node.uuid} failed: {exc}", exc.code
                    ) from None
        with task.atomic():
            for attachment in task.attachments:
                if "binding_host_id" in attachment.info:
                    info = {k: v for k, v in attachment.info.items() if k != "binding_host_id"}
                    task.attachments.update_info(attachment.vif_id, info)
        task.reload()
