"""``flat``: every node shares one flat network; VIFs are recorded on ports and portgroups.

Without a Neutron endpoint it works standalone: attach, list and detach keep metalwire's own
record, and nothing else is called.

With ``[neutron] url`` set, the VIFs' Neutron ports are kept in step as well, as Ironic's
``flat`` interface keeps them: an attach sets the Neutron port's MAC to the chosen port's
(undone if anything fails) and seeds its binding on a node that is not deployed (see
:mod:`metalwire.networking.neutron_ports`); on an ``active`` node it binds it at once with
the ``binding:profile`` (links, bond, physical network) and DHCP client-id that ``neutron``
sends, so that a mechanism driver that wires switch ports can bind it, but without waiting
for the port to become ACTIVE unless the node's ``driver_info["fail_on_binding_failure"]``
asks for it. A detach unbinds it and gives it back its MAC.
``add_provisioning_network`` binds every attached VIF to the node: ``binding:host_id`` =
node UUID, ``binding:vnic_type`` = ``baremetal`` and ``mac_address`` = the MAC of the VIF's
port or portgroup (if it has one; a port still bound with another MAC is unbound first,
since Neutron refuses a MAC change on a bound port), with no ``binding:profile``: on a flat
network no switch port is moved, and the node boots its deploy ramdisk on the network its
VIFs are on, so a deploy with no VIF attached fails. It unbinds them first, as Ironic's
deploy does (a rebuilt node's VIFs are bound). ``configure_tenant_networks`` binds them too,
as Ironic's ``flat`` does (at the end of a deploy they are bound already; an unrescue after
a failed rescue finds them unbound). The binding stays until
``unconfigure_tenant_networks`` unbinds the VIFs at undeploy. Cleaning puts the node's
PXE-enabled ports on ``[neutron] cleaning_network`` as ``neutron`` does, and an ``agent``
inspection on the node's inspection network (see
:mod:`metalwire.networking.neutron_service_ports`).
"""

from __future__ import annotations

import logging

from metalwire.db.models import Port, Portgroup, VifAttachment
from metalwire.errors import NetworkError
from metalwire.networking.base import NetworkInterface
from metalwire.networking.neutron_client import (
    NeutronClient,
    NeutronPort,
)
from metalwire.networking.neutron_ports import (
    VNIC_BAREMETAL,
    Json,
    Rollback,
)
from metalwire.networking.neutron_service_ports import ServiceNetworkPorts
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)


class FlatNetwork(ServiceNetworkPorts, NetworkInterface):
    name = "flat"

    def calls_external_service(self) -> bool:
        return self.config.neutron.configured

    def validate(self, task: Task) -> None:
        return None

    def expected_hosts(self, task: Task, target: Port | Portgroup) -> list[tuple[str, str]]:
        """A Smart NIC port's VIF is bound to its host when hot-plugged, but to the node
        by a deploy (as Ironic's ``flat`` binds): either is right."""
        hosts = super().expected_hosts(task, target)
        deployed = (task.node.uuid, VNIC_BAREMETAL)
        return hosts if deployed in hosts else [*hosts, deployed]

    def expected_links(self, task: Task, target: Port | Portgroup) -> list[Json] | None:
        return None  # a deploy binds with no binding:profile, a hot-plug with one

    # A VIF attached to an active node is bound as neutron binds it (NeutronPortsMixin's
    # hot_plug), as Ironic's flat does; a binding failure is fatal only if the node's
    # driver_info fail_on_binding_failure says so (binding_failure_default: false).

    def bind(
        self,
        task: Task,
        client: NeutronClient,
        vif_id: str,
        target: Port | Portgroup,
        rollback: Rollback,
    ) -> NeutronPort:
        """Bind the VIF's Neutron port to the node with the target's MAC
        (:meth:`mac_for_binding`); no profile, and no wait: the flat network's mechanism
        driver binds it, or not, as it can."""
        fields: Json = {
            "binding:host_id": task.node.uuid,
            "binding:vnic_type": VNIC_BAREMETAL,
            **self.mac_for_binding(client, vif_id, target, rollback),
        }
        rollback.add(f"unbind VIF port {vif_id}", lambda: self._unbind(client, vif_id))
        return client.update_port(
            vif_id, fields, f"bind VIF port {vif_id} to node {task.node.uuid}"
        )

    def add_provisioning_network(self, task: Task) -> None:
        """Bind every attached VIF to the node; all or none, and at least one. They are
        unbound first, as Ironic's deploy does: on a rebuild, a VIF hot-plugged with its
        links would otherwise keep them (and its switch port) under the flat binding."""
        if not self.uses_neutron():
            return
        attachments = self._vifs_to_bind(task)
        self.unconfigure_tenant_networks(task)
        self.bind_attached(task, attachments)

    def configure_tenant_networks(self, task: Task) -> None:
        """As Ironic's ``flat``: bind every attached VIF to the node, all or none, and at
        least one. After a deploy they are bound already (Neutron takes the same binding as
        no change); after a rescue that failed with them unbound, the unrescue binds them."""
        if self.uses_neutron():
            self.bind_attached(task, self._vifs_to_bind(task))

    def _vifs_to_bind(self, task: Task) -> list[VifAttachment]:
        """The node's confirmed attachments, which a flat node boots on; NetworkError if
        there are none."""
        attachments = [a for a in task.attachments if not a.pending]
        if not attachments:
            raise NetworkError(
                f"Failed to bind any flat network port of node {task.node.uuid}: no VIF is "
                "attached to it. Attach one before deploying: the node boots on the network "
                "of its VIFs."
            )
        return attachments

    def add_rescuing_network(self, task: Task) -> None:
        """As Ironic's ``flat``: no network of its own; the VIFs the rescue unbound are
        bound again, for the rescue ramdisk to boot on their network. They stay bound
        through the rescue and the unrescue, as after a deploy
        (:meth:`remove_rescuing_network` is a no-op, as ``flat``'s removal of the
        provisioning network; :meth:`configure_tenant_networks` binds them)."""
        self.add_provisioning_network(task)

    def validate_inspection(self, task: Task) -> None:
        """With Neutron, as Ironic's ``flat``: the inspection network must be named and
        known to Neutron. Standalone, an inspection has nothing to set up, as on ``noop``."""
        if self.uses_neutron():
            super().validate_inspection(task)

    def add_cleaning_network(self, task: Task) -> None:
        """With a Neutron, cleaning boots the ramdisk on the node's cleaning network
        (``driver_info/cleaning_network``, else ``[neutron] cleaning_network``)."""
        self._add_service_ports(task, "cleaning", self.node_network(task, "cleaning"))

    def remove_cleaning_network(self, task: Task) -> None:
        self._remove_service_ports(task, "cleaning", self.node_network(task, "cleaning"))
