"""Where an attach would put a VIF, and why every other target would not take it.

A dry run goes through the steps of :func:`metalwire.conductor.vifs.vif_attach` that read —
the node, its interface's checks, whether the VIF is attached anywhere, the VIF's physical
networks (from Neutron, as the attach reads them) and the choice of target — and stops before
the first write. For ``ironic-networking`` it adds what the attach would change on the
switches and the commands networking-generic-switch would send (rendered, never sent). It
takes no node lock: it reads the node and its attachments at once, as a VIF list does, so it
never makes an operation on the node wait. Nothing is recorded, not even in the node's
history.
"""

from __future__ import annotations

from dataclasses import dataclass

from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.models import Node
from metalwire.networking.base import StoredVifMixin, VifInfo
from metalwire.networking.selection import Placement
from metalwire.networking.switch_preview import SwitchPreview
from metalwire.networking.task import Task
from metalwire.networking.tbn.targets import TbnChoice


@dataclass(frozen=True)
class DryRunAttach:
    """The answer of a dry-run attach: the node, the VIF's physical networks and the
    placement (the chosen target or the error the attach would raise, and every refusal)."""

    node: Node
    vif_id: str
    network_interface: str
    physical_networks: frozenset[str]
    #: None when the interface records no target (``noop``, or one that does not use
    #: :class:`StoredVifMixin`): its attach would succeed without choosing.
    placement: Placement | None
    task: Task  # the read-only view the placement was computed on (members of portgroups)
    #: The trait-based networking plan when the feature is on and the request names no
    #: target. It decides the target (placement is None then) unless it places nothing
    #: without an error: the placement then says where the attach puts the VIF instead.
    tbn: TbnChoice | None = None
    #: What the attach would change on the switches, per switch (``ironic-networking``;
    #: None for an interface that drives no switch, or when no target would be chosen).
    switch_changes: list[SwitchPreview] | None = None


def vif_attach_dry_run(
    conductor: Conductor, context: RequestContext, node_ident: str, vif_info: VifInfo
) -> DryRunAttach:
    """Explain the attach of ``vif_info`` to the node without doing it.

    Raises what the attach raises before it chooses a target: NodeNotFound (404),
    NetworkInterfaceInvalid (400), VifAlreadyAttached (409), an unknown requested port or
    portgroup (400), a Neutron failure (502/503). A target that cannot be found is not an
    error here: the answer's placement carries the error the attach would raise.
    """
    task = conductor.shared_task(node_ident, context)
    iface = conductor.network_interface(task.node)
    iface.validate(task)
    task.attachments.check_free(vif_info["id"])
    iface.check_attach_request(vif_info)  # as the attach, before it chooses a target
    physnets: set[str] = set()
    placement = None
    tbn = None
    if isinstance(iface, StoredVifMixin):
        physnets = iface.vif_physnets(task, vif_info)
        tbn = iface.tbn_plan(task, vif_info, explain=True)
        if tbn is None or tbn.places_nothing:
            placement = iface.placement(task, vif_info, physnets)
    switch_changes = None
    if placement is not None and placement.chosen:
        switch_changes = iface.attach_preview(task, vif_info, placement.chosen)
    return DryRunAttach(
        node=task.node,
        vif_id=vif_info["id"],
        network_interface=iface.name,
        physical_networks=frozenset(physnets),
        placement=placement,
        task=task,
        tbn=tbn,
        switch_changes=switch_changes,
    )
