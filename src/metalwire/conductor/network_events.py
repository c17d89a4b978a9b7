"""Events the network service posts to ``POST /v1/events`` (API 1.54).

Neutron's ironic notifier (``[ironic] enable_notifications`` in neutron.conf) tells the
bare-metal service when a bare-metal port (``binding:vnic_type`` ``baremetal``) is bound,
unbound or deleted. As Ironic 39, metalwire acts on none of them: each is logged. An event
never changes an attachment (the drift audit, ``metalwire audit``, repairs those) and takes
no node lock, so a busy node never delays or refuses one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext

LOG = logging.getLogger(__name__)

#: The events Ironic 39 takes, as Neutron names them.
EVENT_NAMES = ("network.bind_port", "network.unbind_port", "network.delete_port")


@dataclass(frozen=True)
class NetworkEvent:
    """One event about a Neutron port, checked by the API."""

    event: str
    port_id: str
    mac_address: str
    status: str
    device_id: str | None = None
    host_id: str | None = None
    vnic_type: str | None = None

    def describe(self) -> str:
        """The event, its port and what Neutron says of it, for a log line."""
        return (
            f"{self.event} for Neutron port {self.port_id} (MAC {self.mac_address}, status "
            f"{self.status})"
        )


def receive(conductor: Conductor, context: RequestContext, events: list[NetworkEvent]) -> None:
    """Log each event (``context`` names who posted them)."""
    for event in events:
        LOG.info("Network event %s", event.describe())
