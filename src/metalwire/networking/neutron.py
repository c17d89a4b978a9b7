"""``neutron``: VIFs are Neutron ports; attaching one tells Neutron where the cable is."""

from __future__ import annotations

from metalwire.errors import NetworkInterfaceInvalid
from metalwire.networking.base import NetworkInterface, StoredVifMixin
from metalwire.networking.task import Task


class NeutronNetwork(StoredVifMixin, NetworkInterface):
    name = "neutron"

    def calls_external_service(self) -> bool:
        return True

    def validate(self, task: Task) -> None:
        if not self.config.neutron.url:
            raise NetworkInterfaceInvalid(
                f"Node {task.node.uuid} uses the neutron network interface, but no Neutron "
                "endpoint is configured ([neutron] url)."
            )
