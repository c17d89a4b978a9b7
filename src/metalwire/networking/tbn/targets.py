"""From a trait-based networking plan to the one target a VIF is recorded on.

A VIF sits on exactly one port or portgroup (``vif_attachments`` holds one row per VIF, and
one VIF per port or portgroup). A plan is carried out by its first action that found its
targets (:attr:`TbnPlan.chosen`):

- ``attach_port`` / ``attach_portgroup``: the VIF takes the first (newest) match; a
  ``min_count`` still requires that many free matches.
- ``group_and_attach_ports`` / ``bond_ports``: where Ironic would put one VIF on several
  ports, metalwire builds the dynamic portgroup holding them and records the VIF on it, in
  the transaction of the record (:meth:`NewDynamicPortgroup.create`); removing the record
  removes the group and frees its ports (``db/vifs.py``).
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from metalwire.db.models import Port, Portgroup
from metalwire.errors import NoTraitMatches
from metalwire.networking.task import Task
from metalwire.networking.tbn.planner import ActionPlan, TbnPlan, dynamic_portgroup_name
from metalwire.networking.tbn.task_plan import plan_for_task


@dataclass(frozen=True)
class NewDynamicPortgroup:
    """The portgroup a grouping action builds for the VIF: its member ports, their network."""

    members: tuple[Port, ...]
    physical_network: str | None

    def describe(self) -> str:
        ports = ", ".join(port.uuid for port in self.members)
        return f"a new dynamic portgroup of ports {ports}"

    def create(self, task: Task) -> Portgroup:
        """Create the group and move its members in, in the task's (or the caller's atomic)
        transaction; Conflict if a member was taken meanwhile."""
        values: dict[str, Any] = {
            "uuid": str(uuidlib.uuid4()),
            "name": dynamic_portgroup_name(),
            "address": None,
            "physical_network": self.physical_network,
            "mode": task.config.default.default_portgroup_mode,  # a bond always has one
        }
        group = task.inventory.create_dynamic_portgroup(values, self.members)
        task.forget_inventory()
        return group


#: What a VIF is recorded on: a port or portgroup of the node, or one to build.
Choice = Port | Portgroup | NewDynamicPortgroup


def realize(task: Task, choice: Choice) -> Port | Portgroup:
    """The stored target of a choice, building a dynamic portgroup if it is one (call it in
    the transaction that records the VIF)."""
    return choice.create(task) if isinstance(choice, NewDynamicPortgroup) else choice


@dataclass(frozen=True)
class TbnChoice:
    """The plan and what it puts the VIF on (None: no rule applies; ``error`` is what the
    attach raises then, None when the options say not to raise: the attach then places the
    VIF as it would without trait-based networking)."""

    plan: TbnPlan
    target: Choice | None
    error: NoTraitMatches | None = None

    @property
    def places_nothing(self) -> bool:
        """No rule applies and the attach is not refused: the ordinary choice decides."""
        return self.target is None and self.error is None


def tbn_choice(
    task: Task,
    vif_info: dict[str, Any],
    unusable: Callable[[Port], str | None],
    explain: bool = False,
) -> TbnChoice:
    """Plan the attach by the node's traits (``task.tbn_rules``) and resolve its target;
    ``unusable`` says why the interface cannot use a port (such a port is refused).

    Raises NoTraitMatches (400) when nothing applies and the options say to; with
    ``explain`` (a dry run) that error is returned in the choice instead.
    """
    assert task.tbn_rules is not None
    plan = plan_for_task(task, task.tbn_rules, vif_info, not explain, unusable)
    chosen = plan.chosen
    if chosen is None:
        raises = task.config.conductor.trait_based_networking_raise_when_no_match
        error = NoTraitMatches(plan.reason or "") if raises else None
        return TbnChoice(plan, None, error)
    return TbnChoice(plan, _target(task, chosen))


def _target(task: Task, action: ActionPlan) -> Choice:
    ports = {port.uuid: port for port in task.ports}
    if action.new_portgroup is not None:
        members = tuple(ports[uuid] for uuid in action.new_portgroup.member_uuids)
        return NewDynamicPortgroup(members, action.new_portgroup.physical_network)
    first = action.targets[0]
    if first.is_portgroup:
        return next(group for group in task.portgroups if group.uuid == first.uuid)
    return ports[first.uuid]
