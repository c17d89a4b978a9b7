"""A task: one operation on one node, with the node's inventory loaded and its lock held."""

from __future__ import annotations

from dataclasses import dataclass, field

from metalwire.config import Config
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db import portgroups as portgroup_db
from metalwire.db import ports as port_db
from metalwire.db import vifs as vif_db
from metalwire.db.engine import Database
from metalwire.db.models import Node, Port, Portgroup, VifAttachment


@dataclass
class Task:
    """What a network interface sees of a node while the conductor holds its lock.

    ``ports``, ``portgroups`` and ``attachments`` are a snapshot taken when the task started;
    :meth:`reload` refreshes them after the task itself changed the database.
    """

    db: Database
    config: Config
    context: RequestContext
    node: Node
    conductor: str
    shared: bool = False
    ports: list[Port] = field(default_factory=list)
    portgroups: list[Portgroup] = field(default_factory=list)
    attachments: list[VifAttachment] = field(default_factory=list)

    def reload(self) -> None:
        with self.db.read() as session:
            self.node = node_db.get_by_id(session, self.node.id)
            self.ports = port_db.for_node(session, self.node.id)
            self.portgroups = portgroup_db.for_node(session, self.node.id)
            self.attachments = vif_db.for_node(session, self.node.id)

    def vif_on(self, target: Port | Portgroup) -> str | None:
        """The VIF recorded on a port or portgroup, if any."""
        for attachment in self.attachments:
            if isinstance(target, Port) and attachment.port_id == target.id:
                return attachment.vif_id
            if isinstance(target, Portgroup) and attachment.portgroup_id == target.id:
                return attachment.vif_id
        return None

    def members(self, portgroup: Portgroup) -> list[Port]:
        return [port for port in self.ports if port.portgroup_id == portgroup.id]

    def find_target(self, vif_id: str) -> Port | Portgroup | None:
        """The port or portgroup a VIF of this node sits on."""
        for attachment in self.attachments:
            if attachment.vif_id != vif_id:
                continue
            for port in self.ports:
                if port.id == attachment.port_id:
                    return port
            for portgroup in self.portgroups:
                if portgroup.id == attachment.portgroup_id:
                    return portgroup
        return None
