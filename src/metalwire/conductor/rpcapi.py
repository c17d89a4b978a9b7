"""The RPC API: the only way the REST layer reaches the conductor.

:class:`ConductorAPI` is the contract. :class:`LocalConductorAPI` runs the conductor in the
API's own process; a remote transport implements the same class (serialising the arguments and
the catalog's errors) and is swapped in by :func:`metalwire.api.app.create_app`'s ``rpcapi``
argument, without any change to the REST layer.

Every method raises the catalog's errors (:mod:`metalwire.errors`): NotFound when the node,
port or portgroup does not exist, Invalid for a request that cannot be satisfied, Conflict
(NodeLocked among them) for a clash with existing state, NetworkError when an external
network service fails.
"""

from __future__ import annotations

import abc
from typing import Any

from metalwire.conductor import inventory, provisioning, vifs
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.models import Node, Port, Portgroup


class ConductorAPI(abc.ABC):
    @abc.abstractmethod
    def vif_attach(self, context: RequestContext, node_id: str, vif: dict[str, Any]) -> None:
        """Attach ``vif["id"]`` to the node (by UUID or name).

        Raises NoFreePhysicalPort (400), VifAlreadyAttached (409), NodeLocked (409).
        """

    @abc.abstractmethod
    def vif_detach(self, context: RequestContext, node_id: str, vif_id: str) -> None:
        """Detach a VIF from the node; raises VifNotAttached (400), NodeLocked (409)."""

    @abc.abstractmethod
    def vif_list(self, context: RequestContext, node_id: str) -> list[dict[str, str]]:
        """The node's VIFs as ``[{"id": ...}]``, ports first, then portgroups."""

    @abc.abstractmethod
    def do_provisioning_action(self, context: RequestContext, node_id: str, verb: str) -> None:
        """Run a provision verb (manage, provide, active, deleted, rebuild, clean)."""

    @abc.abstractmethod
    def create_node(self, context: RequestContext, values: dict[str, Any]) -> Node: ...

    @abc.abstractmethod
    def update_node(
        self,
        context: RequestContext,
        node_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
    ) -> Node:
        """Apply ``changes``; with ``expected``, raise StaleUpdate (409) if any of those
        fields no longer holds the given value (compare-and-swap under the node lock)."""

    @abc.abstractmethod
    def delete_node(self, context: RequestContext, node_id: str) -> None: ...

    @abc.abstractmethod
    def create_port(self, context: RequestContext, values: dict[str, Any]) -> Port: ...

    @abc.abstractmethod
    def update_port(
        self,
        context: RequestContext,
        port_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
    ) -> Port:
        """Apply ``changes``; with ``expected``, raise StaleUpdate (409) if any of those
        fields no longer holds the given value (compare-and-swap under the node lock)."""

    @abc.abstractmethod
    def delete_port(self, context: RequestContext, port_id: str) -> None: ...

    @abc.abstractmethod
    def create_portgroup(self, context: RequestContext, values: dict[str, Any]) -> Portgroup: ...

    @abc.abstractmethod
    def update_portgroup(
        self,
        context: RequestContext,
        portgroup_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
    ) -> Portgroup:
        """Apply ``changes``; with ``expected``, raise StaleUpdate (409) if any of those
        fields no longer holds the given value (compare-and-swap under the node lock)."""

    @abc.abstractmethod
    def delete_portgroup(self, context: RequestContext, portgroup_id: str) -> None: ...


class LocalConductorAPI(ConductorAPI):
    """Runs each call in this process, on the calling thread."""

    def __init__(self, conductor: Conductor) -> None:
        self.conductor = conductor

    def vif_attach(self, context: RequestContext, node_id: str, vif: dict[str, Any]) -> None:
        vifs.vif_attach(self.conductor, context, node_id, vif)

    def vif_detach(self, context: RequestContext, node_id: str, vif_id: str) -> None:
        vifs.vif_detach(self.conductor, context, node_id, vif_id)

    def vif_list(self, context: RequestContext, node_id: str) -> list[dict[str, str]]:
        return vifs.vif_list(self.conductor, context, node_id)

    def do_provisioning_action(self, context: RequestContext, node_id: str, verb: str) -> None:
        provisioning.do_provisioning_action(self.conductor, context, node_id, verb)

    def create_node(self, context: RequestContext, values: dict[str, Any]) -> Node:
        return inventory.create_node(self.conductor, values)

    def update_node(
        self,
        context: RequestContext,
        node_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
    ) -> Node:
        return inventory.update_node(self.conductor, context, node_id, changes, expected)

    def delete_node(self, context: RequestContext, node_id: str) -> None:
        inventory.delete_node(self.conductor, context, node_id)

    def create_port(self, context: RequestContext, values: dict[str, Any]) -> Port:
        return inventory.create_port(self.conductor, context, values)

    def update_port(
        self,
        context: RequestContext,
        port_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
    ) -> Port:
        return inventory.update_port(self.conductor, context, port_id, changes, expected)

    def delete_port(self, context: RequestContext, port_id: str) -> None:
        inventory.delete_port(self.conductor, context, port_id)

    def create_portgroup(self, context: RequestContext, values: dict[str, Any]) -> Portgroup:
        return inventory.create_portgroup(self.conductor, context, values)

    def update_portgroup(
        self,
        context: RequestContext,
        portgroup_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
    ) -> Portgroup:
        return inventory.update_portgroup(self.conductor, context, portgroup_id, changes, expected)

    def delete_portgroup(self, context: RequestContext, portgroup_id: str) -> None:
        inventory.delete_portgroup(self.conductor, context, portgroup_id)
