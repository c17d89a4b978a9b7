"""``flat``: every node shares one flat network; VIFs are recorded on ports and portgroups.

Without a Neutron endpoint it works standalone: attach, list and detach keep metalwire's own
record, and deployment binds the attached VIFs to the compute host by recording that host on
each attachment.
"""

from __future__ import annotations

import logging

from metalwire.db import vifs as vif_db
from metalwire.networking.base import NetworkInterface, StoredVifMixin
from metalwire.networking.task import Task

LOG = logging.getLogger(__name__)

#: Key in instance_info where the compute service records the host the instance runs on.
COMPUTE_HOST_KEY = "nova_host_id"


class FlatNetwork(StoredVifMixin, NetworkInterface):
    name = "flat"

    def calls_external_service(self) -> bool:
        return bool(self.config.neutron.url)

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
        with task.transaction() as session:
            for attachment in task.attachments:
                row = vif_db.find(session, attachment.vif_id)
                if row is not None:
                    row.info = {**row.info, "binding_host_id": host}
        task.reload()

    def unconfigure_tenant_networks(self, task: Task) -> None:
        with task.transaction() as session:
            for attachment in task.attachments:
                row = vif_db.find(session, attachment.vif_id)
                if row is not None and "binding_host_id" in row.info:
                    row.info = {k: v for k, v in row.info.items() if k != "binding_host_id"}
        task.reload()
