"""Events the network service posts to ``POST /v1/events`` (API 1.54).

Neutron's ironic notifier (``[ironic] enable_notifications`` in neutron.conf) tells the
bare-metal service when a bare-metal port (``binding:vnic_type`` ``baremetal``) is bound,
unbound or deleted. As Ironic 39, metalwire acts on none of them: each is logged, naming the
node that has the port attached as a VIF, if any, and counted in the metrics; an event about
an attached VIF also goes in its node's history. An event never changes an attachment (the
drift audit, ``metalwire audit``, repairs those) and takes no node lock, so a busy node never
delays or refuses one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from metalwire import metrics
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.history import HistoryEntry

LOG = logging.getLogger(__name__)

#: The events Ironic 39 takes, as Neutron names them.
EVENT_NAMES = ("network.bind_port", "network.unbind_port", "network.delete_port")

#: The node history's event type of an event about one of the node's VIFs.
HISTORY_EVENT_TYPE = "network"


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
    """Log and count each event, and add those about an attached VIF to its node's history
    (``context`` names who posted them): one read for all, and one write for the history."""
    with conductor.db.reading() as work:
        holders = work.attachments.holders({event.port_id for event in events})
    history: dict[str, list[HistoryEntry]] = {}
    for event in events:
        holder = holders.get(event.port_id)
        if holder is None:
            LOG.info("Network event %s: attached to no node", event.describe())
        else:
            LOG.info("Network event %s: a VIF of node %s", event.describe(), holder.label)
            entry = HistoryEntry(HISTORY_EVENT_TYPE, event.describe(), vif_id=event.port_id)
            bound = entry.by(holder.node_id, conductor.host, context.user, context.project)
            history.setdefault(holder.node_uuid, []).append(bound)
        if conductor.config.metrics.enabled:
            metrics.network_event(event.event)
    if history:
        conductor.write_history_apart(history)
