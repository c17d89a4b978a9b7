"""Wiring instances to networks from the compute side, with the semantics of Nova.

This is the way an orchestrator other than Nova wires an instance on a bare-metal node: once
it has created the instance's network ports (e.g. Neutron ports), it calls :func:`plug_vifs`
with them before deploying the node, and :func:`unplug_vifs` after tearing it down. Both are
idempotent, like Nova's Ironic driver, so a retried or resumed workflow can call them again:

* plugging a VIF that is already attached to this same node counts as done;
* a VIF the node cannot take (400: no free port, bad target) fails with :class:`VifPlugError`
  naming the VIF, as Nova's ``VirtualInterfacePlugException``;
* unplugging a VIF that is not attached (400 on detach) counts as done.

``network_info`` is a sequence of VIFs, each a mapping with the VIF's ``"id"`` (Nova's
``network_info`` entries are such mappings) or the id itself as a string.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from metalwire.client import Client, Node
from metalwire.client.exceptions import BadRequest, VifAlreadyAttached

LOG = logging.getLogger(__name__)

VifSpec = Mapping[str, Any] | str


class VifPlugError(Exception):
    """A VIF could not be attached to the node; ``vif_id`` and ``node`` name them."""

    def __init__(self, vif_id: str, node: str, reason: str) -> None:
        super().__init__(f"Cannot attach VIF {vif_id} to the node {node} due to error: {reason}")
        self.vif_id = vif_id
        self.node = node
        self.reason = reason


def client_from_session(
    session: Any, *, interface: str = "public", region_name: str | None = None, **options: Any
) -> Client:
    """A client of the ``baremetal`` endpoint in the Keystone catalog, authenticated by a
    keystoneauth session: the way Nova's ironic driver reaches Ironic as its service user.

    Raises EndpointNotFound when the catalog has no such endpoint, AuthenticationError when
    the session cannot log in; ``options`` go to :class:`Client`.
    """
    return Client.from_session(session, interface=interface, region_name=region_name, **options)


def _vif_id(vif: VifSpec) -> str:
    if isinstance(vif, str):
        return vif
    if "id" not in vif:
        raise ValueError(f"A VIF in network_info has no 'id': {dict(vif)!r}.")
    return str(vif["id"])


def _node_ident(node: str | Node) -> str:
    return node.uuid if isinstance(node, Node) else node


def plug_vifs(client: Client, node: str | Node, network_info: Iterable[VifSpec]) -> list[str]:
    """Attach each VIF of ``network_info`` to ``node`` (UUID, name or :class:`Node`).

    Returns the ids of the VIFs this call attached; those found already attached to this node
    are not in it. Stops at the first failure, leaving the VIFs attached before it in place.

    Raises VifPlugError when the server refuses a VIF with 400, or when the VIF is attached to
    another node (409); ValueError for a VIF without an ``"id"``; the client's other errors
    (NotFound for the node, NodeLocked once retries ran out, APIConnectionError...) as they
    come.
    """
    ident = _node_ident(node)
    attached: list[str] = []
    for vif in network_info:
        vif_id = _vif_id(vif)
        try:
            client.vif_attach(ident, vif_id)
        except BadRequest as error:
            LOG.error("Cannot attach VIF %s to node %s: %s", vif_id, ident, error.faultstring)
            raise VifPlugError(vif_id, ident, error.faultstring) from error
        except VifAlreadyAttached as error:
            if vif_id not in client.vif_list(ident):
                raise VifPlugError(vif_id, ident, error.faultstring) from error
            LOG.debug("VIF %s is already attached to node %s", vif_id, ident)
            continue
        attached.append(vif_id)
    return attached


def unplug_vifs(client: Client, node: str | Node, network_info: Iterable[VifSpec]) -> list[str]:
    """Detach each VIF of ``network_info`` from ``node``; a VIF not attached counts as done.

    Returns the ids of the VIFs this call detached. Raises ValueError for a VIF without an
    ``"id"``; the client's errors other than a 400 on detach (NotFound for the node,
    NodeLocked once retries ran out, APIConnectionError...) as they come.
    """
    ident = _node_ident(node)
    detached: list[str] = []
    for vif in network_info:
        vif_id = _vif_id(vif)
        try:
            client.vif_detach(ident, vif_id)
        except BadRequest as error:
            LOG.debug("VIF %s isn't attached to node %s: %s", vif_id, ident, error.faultstring)
            continue
        detached.append(vif_id)
    return detached
