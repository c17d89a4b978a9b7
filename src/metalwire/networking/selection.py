"""Choosing the port or portgroup a VIF goes on.

Rules, in order:

1. A port or portgroup whose physical network is set and is not one the VIF can use is
   refused.
2. Candidates on one of the VIF's physical networks come before those with none set.
3. Portgroups (with member ports) come before ports.
4. Then PXE-enabled ports.
5. A port that belongs to a portgroup is used only through that portgroup, unless the
   portgroup is busy and allows standalone ports.
6. An empty portgroup is never used.

Busy candidates are refused. If nothing is left, the error names every candidate and why it
was refused, so an operator can see at once what to fix.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from metalwire.db.models import Port, Portgroup
from metalwire.errors import Invalid, NoFreePhysicalPort
from metalwire.networking.task import Task


@dataclass(frozen=True)
class Candidate:
    target: Port | Portgroup
    physnet_match: bool

    @property
    def sort_key(self) -> tuple[bool, bool, bool, int]:
        is_port = isinstance(self.target, Port)
        pxe = isinstance(self.target, Port) and self.target.pxe_enabled
        return (not self.physnet_match, is_port, not pxe, self.target.id)


def describe(target: Port | Portgroup) -> str:
    kind = "port" if isinstance(target, Port) else "portgroup"
    label = target.address or getattr(target, "name", None)
    return f"{kind} {target.uuid}" + (f" ({label})" if label else "")


def portgroup_physnet(task: Task, portgroup: Portgroup) -> str | None:
    """A portgroup's physical network is the one its member ports share."""
    physnets = {p.physical_network for p in task.members(portgroup) if p.physical_network}
    return physnets.pop() if len(physnets) == 1 else None


def _physnet_of(task: Task, target: Port | Portgroup) -> str | None:
    if isinstance(target, Port):
        return target.physical_network
    return portgroup_physnet(task, target)


def _physnet_refusal(
    task: Task, target: Port | Portgroup, physnets: Collection[str]
) -> tuple[str | None, bool]:
    """(why the target's physical network rules it out or None, whether it matches)."""
    physnet = _physnet_of(task, target)
    if not physnets or physnet is None:
        return None, False
    if physnet in physnets:
        return None, True
    needed = ", ".join(sorted(physnets))
    return f"is on physical network {physnet}, the VIF needs {needed}", False


def _refusal(task: Task, target: Port | Portgroup) -> str | None:
    """Why a target cannot take a VIF regardless of physical networks, or None."""
    busy = task.vif_on(target)
    if busy is not None:
        return f"is busy with VIF {busy}"
    if isinstance(target, Portgroup):
        if not task.members(target):
            return "has no member ports"
        return None
    if target.portgroup_id is not None:
        group = next(pg for pg in task.portgroups if pg.id == target.portgroup_id)
        if task.vif_on(group) is None and task.members(group):
            return f"belongs to portgroup {group.uuid}, which is free and must be used instead"
        if not group.standalone_ports_supported:
            return f"belongs to portgroup {group.uuid}, which does not allow standalone ports"
    return None


def select_free_target(task: Task, vif_id: str, physnets: Collection[str] = ()) -> Port | Portgroup:
    """The best free port or portgroup for the VIF; raises NoFreePhysicalPort naming each."""
    candidates: list[Candidate] = []
    refusals: list[str] = []
    targets: list[Port | Portgroup] = [*task.portgroups, *task.ports]
    for target in targets:
        reason, match = _physnet_refusal(task, target, physnets)
        reason = reason or _refusal(task, target)
        if reason is None:
            candidates.append(Candidate(target, match))
        else:
            refusals.append(f"{describe(target)} {reason}")
    if candidates:
        return min(candidates, key=lambda c: c.sort_key).target
    node = task.node.uuid + (f" ({task.node.name})" if task.node.name else "")
    detail = "; ".join(refusals) if refusals else "the node has no ports or portgroups"
    raise NoFreePhysicalPort(
        f"No free port or portgroup on node {node} for VIF {vif_id}: {detail}."
    )


def check_requested_target(
    task: Task, vif_id: str, target: Port | Portgroup, physnets: Collection[str] = ()
) -> None:
    """Refuse an explicitly requested port or portgroup that cannot take the VIF."""
    reason, _ = _physnet_refusal(task, target, physnets)
    if reason is None:
        busy = task.vif_on(target)
        if busy is not None:
            reason = f"is busy with VIF {busy}"
        elif isinstance(target, Portgroup) and not task.members(target):
            reason = "has no member ports"
        elif isinstance(target, Port) and target.portgroup_id is not None:
            group = next(pg for pg in task.portgroups if pg.id == target.portgroup_id)
            if not group.standalone_ports_supported:
                reason = f"belongs to portgroup {group.uuid}, which does not allow standalone ports"
    if reason is not None:
        raise Invalid(f"Unable to attach VIF {vif_id} to {describe(target)}: it {reason}.")
